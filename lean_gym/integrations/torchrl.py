"""TorchRL: ``GymWrapper`` over any lean-gym env, with the spec of tuple-of-text observations corrected.

TorchRL 0.14's ``GymWrapper`` turns a gymnasium ``Tuple`` of ``Text`` spaces (``LeanAesop``'s ``lemmas``)
into a ``NonTensor`` spec of shape ``(k,)``, but reads the observation as one ``NonTensorData`` holding the
whole tuple, so ``check_env_specs`` fails on its own data. :func:`torchrl_env` replaces such a spec by a
scalar ``NonTensor`` (one entry that holds the tuple), which is what the data is. ``LeanProof-v0`` and
``LeanHackable-v0`` (plain text) need no correction; the helper works for them too.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from lean_gym.errors import MissingDependencyError

__all__ = ["torchrl_env"]


def torchrl_env(env: str | gym.Env[Any, Any], **kwargs: Any) -> Any:
    """A ``torchrl.envs.GymWrapper`` of ``env`` whose specs agree with the data it produces.

    Example:
        >>> from torchrl.envs.utils import check_env_specs  # doctest: +SKIP
        >>> env = torchrl_env("LeanAesop-v0", backend="sim")  # doctest: +SKIP
        >>> check_env_specs(env)  # doctest: +SKIP

    Args:
        env: A registered id (made with ``gym.make(env, **kwargs)``) or an env instance.
        **kwargs: The env's arguments when ``env`` is an id.

    Returns:
        The ``GymWrapper``.

    Raises:
        MissingDependencyError: TorchRL is not installed.
    """
    try:
        from torchrl.data import NonTensor
        from torchrl.envs import GymWrapper
    except ImportError as e:
        raise MissingDependencyError('TorchRL is needed: pip install -e ".[torchrl]"') from e
    import lean_gym  # noqa: F401  (registers the ids)

    if isinstance(env, str):
        env = gym.make(env, **kwargs)
    wrapped = GymWrapper(env)
    space = env.observation_space
    if isinstance(space, gym.spaces.Dict):
        text_tuples = [
            key
            for key, sub in space.spaces.items()
            if isinstance(sub, gym.spaces.Tuple) and all(isinstance(s, gym.spaces.Text) for s in sub.spaces)
        ]
        if text_tuples:
            spec = wrapped.observation_spec.clone()
            for key in text_tuples:
                k = len(space.spaces[key])  # type: ignore[arg-type]
                spec[key] = NonTensor(shape=(), device=spec.device, example_data=("",) * k)
            wrapped.observation_spec = spec
    return wrapped
