"""lean-gym: Gymnasium environments for reinforcement learning on Lean 4 theorem proving.

Importing the package registers ``LeanAesop-v0``, ``LeanAesopV2-v0``, ``LeanProof-v0``, ``LeanHackable-v0``
and ``LeanTactic-v0`` with Gymnasium (and ``LeanAesop-v1``, the deprecated name of ``LeanAesopV2-v0``),
except in the simulator's REPL process (``python -m lean_gym.sim``), which makes no env.
"""

import sys as _sys

__version__ = "0.1.0"


def _started_as_the_simulator() -> bool:
    """Whether this interpreter runs ``python -m lean_gym.sim`` and is importing this package to find it.

    While ``-m`` locates its module, ``sys.argv[0]`` is ``"-m"`` (the interpreter's documented behaviour), so
    this package is being imported as the parent of the ``-m`` module; ``sys.orig_argv`` says which module.
    """
    if _sys.argv[:1] != ["-m"]:
        return False
    argv = _sys.orig_argv
    return "-m" in argv and argv[argv.index("-m") + 1 : argv.index("-m") + 2] == ["lean_gym.sim"]


# The simulator's REPL process (one per slot of a `sim-repl` pool, started again after each crash or recycle)
# makes no env: registering the ids there imports gymnasium and numpy, two thirds of its start (0.16 of 0.25 s
# of CPU). Any other use of the package, `python -m lean_gym.cli` included, registers them on import.
if not _started_as_the_simulator():
    from lean_gym import envs as _envs  # noqa: F401  (registers the environment ids)
