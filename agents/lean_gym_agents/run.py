"""``python -m lean_gym_agents.run AGENT [FLAGS]``: train or evaluate a reference agent on a lean-gym env.

Every field of the agent's command (:mod:`lean_gym_agents.commands`) is a flag, as in CleanRL's scripts
(parsed by ``tyro``): the env and budget (``--env-id``, ``--backend``, ``--vector-mode``, ``--num-envs``,
``--seed``, ``--total-timesteps``), the logs (``--out``, ``--tensorboard``, ``--track``), checkpoints
(``--save-every``, ``--resume``) and the agent's own hyperparameters (``--agent.<field>``).
``python -m lean_gym_agents.run AGENT --help`` documents each of them.

Example:
    python -m lean_gym_agents.run thompson --env-id LeanAesop-v0 --total-timesteps 2000 \\
        --vector-mode vector_entry_point --num-envs 8 --out runs/thompson --save-every 500
    python -m lean_gym_agents.run --resume runs/thompson/checkpoint.pkl     # after a Ctrl-C or a crash
    python -m lean_gym_agents.run dpo --checkpoint runs/satp_loop/sim/policy.pt --eval --split test

It prints the run's figures and the backend that produced them, and writes ``metrics.jsonl``,
``metrics.csv``, ``learning_curve.png``, ``tensorboard/`` and ``checkpoint.pkl`` under ``--out``. A user
error (a bad flag, a file that is not there, an agent that does not fit the env) is one line on stderr and
exit status 2, before any env is built.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import io
import os
import random
import re
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

import gymnasium as gym
import numpy as np

__all__ = ["UsageError", "build_agent", "build_env", "main", "parse", "parse_flags"]

T = TypeVar("T")
PROG = "python -m lean_gym_agents.run"
# Flags a resumed run may change: they do not change what the run computes.
_AESOP_AGENTS = {"plain", "thompson", "bandit", "dropout-thompson", "dpo"}
_RESUMABLE = {"resume", "progress", "save_every", "total_timesteps", "tensorboard", "track", "torch_threads"}


class UsageError(Exception):
    """A command-line mistake: printed as one ``error: …`` line, exit status 2."""


# ------------------------------------------------------------------------------------------------ parsing
def _condensed(text: str, prog: str) -> str:
    """tyro's boxed error message as one line (``did you mean …`` kept)."""
    lines = [ln.strip(" │╭╮╰╯") for ln in text.splitlines()]
    sections: list[list[str]] = [[]]
    for ln in lines:
        if ln and set(ln) <= set("-─ "):
            sections.append([])
        elif ln:
            sections[-1].append(ln)
    sections = [s for s in sections if s]
    if len(sections) < 2:
        return " ".join(lines).strip() or "bad arguments"
    body = " ".join(sections[1]).rstrip(".")
    hint = ""
    for s in sections[2:]:
        if s[0].startswith("Perhaps you meant"):
            flags = [ln.split()[0] for ln in s[1:] if ln.startswith("-")]
            if flags:
                hint = f" (did you mean {' or '.join(dict.fromkeys(flags))}?)"
    return f"{body}{hint}; see {prog} --help"


def _prescan(argv: Sequence[str], flag: str) -> str | None:
    """The value of ``--flag V`` or ``--flag=V`` in ``argv`` (the last one), without parsing the rest."""
    value = None
    for i, a in enumerate(argv):
        if a == flag and i + 1 < len(argv):
            value = argv[i + 1]
        elif a.startswith(flag + "="):
            value = a.split("=", 1)[1]
    return value


def _seeded_default(cls: type[Any], seed: int) -> Any:
    """``cls()`` with ``seed`` as its ``seed`` and as the default seed of every nested hyperparameter set."""
    default = cls(seed=seed)
    for f in dataclasses.fields(default):
        value = getattr(default, f.name)
        if (
            dataclasses.is_dataclass(value)
            and not isinstance(value, type)
            and "seed" in {g.name for g in dataclasses.fields(value)}
        ):
            default = dataclasses.replace(default, **{f.name: dataclasses.replace(value, seed=seed)})
    return default


def _top_help() -> str:
    from lean_gym_agents.commands import AGENTS

    width = max(map(len, AGENTS))
    rows = "\n".join(f"  {name:<{width}}  {spec.summary}" for name, spec in AGENTS.items())
    return (
        f"usage: {PROG} AGENT [FLAGS]\n       {PROG} --resume CHECKPOINT [FLAGS]\n\n"
        f"Train or evaluate a reference agent on a lean-gym env.\n\nagents:\n{rows}\n\n"
        f"{PROG} AGENT --help lists every flag of AGENT, each with its documentation.\n"
    )


def parse_flags(cls: type[T], argv: Sequence[str], *, prog: str, default: T | None = None) -> T:
    """``cls`` (a dataclass) from ``argv`` with tyro: every field a flag, its docstring its help.

    Args:
        cls: The dataclass.
        argv: The flags.
        prog: The program's name in the help and the errors.
        default: The values of the flags not given (``cls()`` when omitted).

    Raises:
        UsageError: A bad flag or value, as one line (tyro's own message, with its "did you mean").
        SystemExit: ``--help`` (status 0; the help printed).
    """
    import tyro

    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            about = " ".join((cls.__doc__ or "").split())  # the docstring as one paragraph
            return cast(T, tyro.cli(cls, args=list(argv), default=default, prog=prog, description=about))
    except SystemExit as e:
        if e.code in (0, None):
            print(buf.getvalue(), end="")
            raise
        raise UsageError(_condensed(buf.getvalue(), prog)) from None
    except ValueError as e:  # a hyperparameter dataclass refused a value (its __post_init__)
        raise UsageError(str(e)) from e


def parse(argv: Sequence[str]) -> tuple[str, Any, Any]:
    """The agent's name, its parsed command and the checkpoint to resume from (``None`` for a new run).

    Raises:
        UsageError: A bad flag or value, an unknown agent, a checkpoint that cannot be read or that does not
            fit the flags.
        SystemExit: ``--help`` (status 0, the help printed).
    """
    from lean_gym.errors import LeanGymError
    from lean_gym_agents.checkpoint import load_checkpoint
    from lean_gym_agents.commands import AGENTS, from_dict

    argv = list(argv)
    if "--agent" in argv or any(a.startswith("--agent=") for a in argv):
        old = _prescan(argv, "--agent") or "AGENT"
        raise UsageError(f"the agent is a subcommand now: {PROG} {old} [FLAGS] (see {PROG} --help)")
    if not argv or argv[0] in ("-h", "--help"):
        if not argv or _prescan(argv, "--resume") is None:
            print(_top_help(), end="")
            raise SystemExit(0)
    name = argv[0] if argv and not argv[0].startswith("-") else None
    rest = argv[1:] if name is not None else argv
    ckpt = None
    resume = _prescan(rest, "--resume")
    if resume is not None:
        if not os.path.isfile(resume):
            raise UsageError(
                f"--resume {resume}: no such file (a run with --out writes <out>/checkpoint.pkl)"
            )
        try:
            ckpt = load_checkpoint(resume)
        except LeanGymError as e:
            raise UsageError(f"--resume: {e}") from e
        saved_name = str(ckpt.config.get("agent", ""))
        if name is None:
            name = saved_name
        elif saved_name and name != saved_name:
            raise UsageError(f"--resume {resume} is a run of {saved_name!r}, not {name!r}")
    if name is None:
        raise UsageError(f"name an agent first: {PROG} AGENT [FLAGS] (agents: {', '.join(AGENTS)})")
    spec = AGENTS.get(name)
    if spec is None:
        close = difflib.get_close_matches(name, list(AGENTS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UsageError(f"unknown agent {name!r}{hint}; the agents: {', '.join(AGENTS)}")
    try:
        cls = spec.command()
    except ImportError as e:
        raise UsageError(f"agent {name!r} needs {spec.needs or e.name}: {e}") from e
    if ckpt is not None:
        default = from_dict(cls, dict(ckpt.config.get("args", {})))
    else:
        seed_text = _prescan(rest, "--seed")
        seed = int(seed_text) if seed_text is not None and re.fullmatch(r"-?\d+", seed_text) else 0
        default = _seeded_default(cls, seed)
    cmd = parse_flags(cls, rest, prog=f"{PROG} {name}", default=default)
    if ckpt is not None:
        changed = [
            f.name
            for f in dataclasses.fields(cmd)
            if f.name not in _RESUMABLE and getattr(cmd, f.name) != getattr(default, f.name)
        ]
        if changed:
            flag = "--" + changed[0].replace("_", "-")
            raise UsageError(
                f"--resume keeps the run's flags: {flag} differs from the checkpoint's "
                f"({getattr(default, changed[0])!r}); leave it out"
            )
        if cmd.total_timesteps < ckpt.steps:
            raise UsageError(
                f"--total-timesteps {cmd.total_timesteps}: the checkpointed run already took {ckpt.steps} steps"
            )
    return name, cmd, ckpt


# ------------------------------------------------------------------------------------------------ checks
def _check(name: str, cmd: Any, ckpt: Any) -> None:
    """Every check that needs no env, made before any work starts.

    Raises:
        UsageError: The first problem found.
    """
    import lean_gym  # noqa: F401  (registers the ids)

    for flag in ("total_timesteps", "num_envs", "log_every"):
        value = getattr(cmd, flag)
        if value is not None and value < 1:
            raise UsageError(f"--{flag.replace('_', '-')} must be at least 1, got {value}")
    if cmd.save_every < 0:
        raise UsageError(f"--save-every must be at least 0, got {cmd.save_every}")
    try:
        spec = gym.spec(cmd.env_id)
    except gym.error.Error as e:
        raise UsageError(f"--env-id {cmd.env_id}: {e}") from e
    entry = str(spec.entry_point)
    if name in _AESOP_AGENTS and "layout" not in spec.kwargs and "aesop" not in entry.lower():
        raise UsageError(f"agent {name!r} needs a LeanAesop env (one with an aesop action layout)")
    if name == "best-first" and "tactic_env" not in entry:
        raise UsageError("best-first searches a LeanTactic env's proof states: --env-id LeanTactic-v0")
    if cmd.save_every and cmd.out is None:
        raise UsageError("--save-every writes <out>/checkpoint.pkl: give --out")
    if ckpt is not None and cmd.out is None:
        raise UsageError("--resume: the checkpointed run wrote no files (it had no --out)")
    if cmd.track:
        try:
            import wandb  # noqa: F401
        except ImportError:
            raise UsageError("--track logs to Weights & Biases: `pip install wandb`") from None
    if cmd.out is not None and cmd.tensorboard:
        try:
            import tensorboardX  # noqa: F401
        except ImportError:
            try:
                import tensorboard  # noqa: F401
            except ImportError:
                raise UsageError(
                    "TensorBoard logging needs tensorboardX: `pip install tensorboardX`, or --no-tensorboard"
                ) from None
    if name == "best-first":
        if cmd.save_every or ckpt is not None:
            raise UsageError("best-first learns nothing, so it has no checkpoints (--save-every, --resume)")
        if cmd.vector_mode != "none":
            raise UsageError("best-first searches one env: leave --vector-mode out")
    if name == "dpo":
        if cmd.checkpoint is not None and not os.path.isfile(cmd.checkpoint):
            raise UsageError(
                f"cannot read DPO checkpoint {cmd.checkpoint}: no such file (`python examples/satp_loop.py "
                "--suite sim` writes runs/satp_loop/sim/policy.pt)"
            )
        if cmd.eval and cmd.checkpoint is None and ckpt is None:
            raise UsageError("dpo --eval needs --checkpoint (an untrained policy has nothing to evaluate)")
    if name in ("grpo", "grpo-toy"):
        p, g = cmd.agent.prompts_per_step, cmd.agent.group_size
        if cmd.vector_mode != "vector_entry_point":
            raise UsageError("GRPO runs on the pooled vector env: leave --vector-mode out")
        if cmd.num_envs not in (None, p * g):
            raise UsageError(
                f"--num-envs {cmd.num_envs}: GRPO uses prompts_per_step × group_size = {p * g} sub-envs"
            )
        if name == "grpo" and not cmd.model:
            raise UsageError("grpo needs --model (a Hugging Face causal LM), or run grpo-toy")
        if name == "grpo-toy" and cmd.model != "toy":
            raise UsageError("grpo-toy always uses the toy model: run grpo for --model")


# ------------------------------------------------------------------------------------------------ building
def build_env(env_id: str, mode: str, num_envs: int, **kwargs: Any) -> Any:
    """One env (``mode="none"``) or a vector env of ``num_envs`` in a gymnasium vectorization mode."""
    import lean_gym  # noqa: F401  (registers the ids)

    if mode == "none":
        return gym.make(env_id, **kwargs)
    return gym.make_vec(env_id, num_envs=num_envs, vectorization_mode=mode, **kwargs)


class UpdateEvery:
    """An agent whose ``update`` takes a schedule (``train_every``, ``steps_per_round``), with it fixed.

    Args:
        agent: A :class:`~lean_gym_agents.dpo.DPOPolicy` (or any agent whose ``update`` takes these keywords).
        **schedule: The keywords for every ``update`` call.
    """

    def __init__(self, agent: Any, **schedule: int) -> None:
        self.agent = agent
        self.schedule = schedule

    def act(self, observations: Sequence[Any], *, explore: bool = True) -> list[Any]:
        return list(self.agent.act(observations, explore=explore))

    def update(self, batch: Any) -> dict[str, float]:
        return dict(self.agent.update(batch, **self.schedule))


def build_agent(name: str, cmd: Any, env: Any) -> Any:
    """The agent ``name`` for ``env`` from its parsed command.

    Raises:
        UsageError: The agent does not fit the env (an aesop agent on another env).
    """
    space = getattr(env, "single_action_space", None) or env.action_space
    if name == "random":
        from lean_gym_agents.baselines import UniformRandomAgent

        return UniformRandomAgent(space, seed=cmd.seed)
    from lean_gym_agents.base import env_layout

    layout = env_layout(env)
    if layout is None:
        raise UsageError(f"agent {name!r} needs a LeanAesop env (one with an aesop action layout)")
    if name == "plain":
        from lean_gym_agents.baselines import FixedActionAgent

        return FixedActionAgent(layout.default_action())
    if name == "thompson":
        from lean_gym_agents.satp_thompson import SATPThompson

        return SATPThompson(np.asarray(space.nvec), cmd.agent, default_action=layout.default_action())
    if name == "bandit":
        from lean_gym_agents.bandit import ConfigBandit, one_change_menu

        return ConfigBandit(one_change_menu(layout), cmd.agent, contextual=cmd.contextual)
    from lean_gym_agents.dpo import DPOPolicy

    if name == "dropout-thompson":
        from lean_gym_agents.dropout_thompson import DropoutThompson

        return DropoutThompson(
            DPOPolicy(layout, cmd.policy),
            cmd.agent,
            train_every=cmd.train_every,
            steps_per_round=cmd.steps_per_round,
            draws=cmd.draws,
        )
    policy = DPOPolicy.load(cmd.checkpoint) if cmd.checkpoint else DPOPolicy(layout, cmd.agent)
    return UpdateEvery(policy, train_every=cmd.train_every, steps_per_round=cmd.steps_per_round)


def _env_kwargs(cmd: Any) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"backend": cmd.backend, "split": cmd.split}
    if cmd.source:
        kwargs["source"] = cmd.source
    return kwargs


def _grpo(name: str, cmd: Any) -> tuple[Any, Any]:
    """The GRPO agent and its env (the pooled vector env, reset in groups)."""
    from lean_gym_agents.grpo import GroupResets, GRPOAgent, make_grpo_env

    kwargs = _env_kwargs(cmd)
    if name == "grpo-toy":
        from lean_gym_agents.grpo_toy import TOY_THEOREMS, TacticTokenizer, tiny_causal_lm

        tokenizer: Any = TacticTokenizer()
        model = tiny_causal_lm(tokenizer.vocab_size, seed=cmd.seed)
        if not cmd.source:
            kwargs = {"backend": cmd.backend, "theorems": TOY_THEOREMS}
    else:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(cmd.model)
        model = AutoModelForCausalLM.from_pretrained(cmd.model)
    agent = GRPOAgent(model, tokenizer, cmd.agent)
    env = make_grpo_env(cmd.env_id, cmd.agent, autoreset_mode=gym.vector.AutoresetMode.DISABLED, **kwargs)
    return agent, GroupResets(env, cmd.agent, cmd.seed)


def _writers(name: str, cmd: Any, ckpt: Any) -> tuple[list[Any], dict[str, Any]]:
    """The TensorBoard and W&B writers the flags ask for, and the config the checkpoint keeps."""
    from lean_gym_agents.metrics import TensorBoardWriter, WandbWriter

    config: dict[str, Any] = {"agent": name, "args": dataclasses.asdict(cmd)}
    writers: list[Any] = []
    if cmd.out is not None and cmd.tensorboard:
        purge = ckpt.steps + 1 if ckpt is not None else None
        writers.append(TensorBoardWriter(Path(cmd.out) / "tensorboard", purge_step=purge))
    if cmd.track:
        saved = ckpt.config.get("wandb_run_id") if ckpt is not None else None
        run = WandbWriter(
            project=cmd.wandb_project_name,
            entity=cmd.wandb_entity,
            name=cmd.exp_name or f"{cmd.env_id}__{name}__{cmd.seed}",
            config=config["args"],
            run_id=saved,
            folder=cmd.out,
        )
        config["wandb_run_id"] = run.run_id
        writers.append(run)
    return writers, config


def _seed_globals(seed: int) -> None:
    """Seed the global generators (as CleanRL does), for any code that draws from them."""
    random.seed(seed)
    np.random.seed(seed)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)


def _torch_threads(n: int) -> None:
    torch = sys.modules.get("torch")
    if n > 0 and torch is not None:
        torch.set_num_threads(n)


def _best_first(cmd: Any, env: Any, writers: list[Any]) -> tuple[int, int, float]:
    """Search the first ``total_timesteps`` theorems; returns (searched, proved, wall seconds)."""
    import time

    from lean_gym_agents.best_first import BestFirstSearch
    from lean_gym_agents.metrics import JsonlLog, write_csv

    search = BestFirstSearch(cmd.agent)
    n = min(cmd.total_timesteps, len(env.unwrapped.theorems))
    every = cmd.log_every or max(n // 50, 1)
    sinks = list(writers)
    if cmd.out is not None:
        sinks.insert(0, JsonlLog(Path(cmd.out) / "metrics.jsonl"))
    rows: list[dict[str, float]] = []
    proved = 0
    window: list[Any] = []
    t0 = tw = time.perf_counter()
    for i in range(n):
        r = search.search(env, i)
        proved += r.proved
        window.append(r)
        if len(window) == every or i == n - 1:
            now = time.perf_counter()
            row = {
                "global_step": float(i + 1),
                "eval/success_rate": float(np.mean([w.proved for w in window])),
                "eval/success_so_far": proved / (i + 1),
                "eval/tactic_calls": float(np.mean([w.tactic_calls for w in window])),
                "eval/expansions": float(np.mean([w.expansions for w in window])),
                "eval/SPS": len(window) / max(now - tw, 1e-9),
            }
            rows.append(row)
            for w in sinks:
                w.write(row, i + 1)
            window, tw = [], now
    for w in sinks:
        w.flush()
    if cmd.out is not None:
        sinks[0].close()
        write_csv(rows, Path(cmd.out) / "metrics.csv")
    return n, proved, time.perf_counter() - t0


# ------------------------------------------------------------------------------------------------ main
def _run(name: str, cmd: Any, ckpt: Any) -> int:
    from lean_gym_agents.runner import RunInterrupted, run_agent

    _seed_globals(cmd.seed)
    _torch_threads(cmd.torch_threads)
    agent: Any = None
    if name in ("grpo", "grpo-toy"):
        agent, env = _grpo(name, cmd)
    else:
        env = build_env(cmd.env_id, cmd.vector_mode, cmd.num_envs, **_env_kwargs(cmd))
        if name != "best-first" and ckpt is None:
            agent = build_agent(name, cmd, env)
    if ckpt is not None:
        agent = ckpt.agent
    writers, config = _writers(name, cmd, ckpt)
    mode = "eval" if cmd.eval else "train"
    try:
        if name == "best-first":
            searched, proved, wall = _best_first(cmd, env, writers)
            backend = getattr(getattr(env, "unwrapped", env), "backend", None)
            where = str(getattr(backend, "name", cmd.backend))
            print(f"backend: {where}{'  (the simulator, not Lean)' if where.startswith('sim') else ''}")
            print(
                f"best-first on {cmd.env_id} ({cmd.split}): {searched} theorems searched, {proved} proved "
                f"({proved / max(searched, 1):.1%}), {searched / wall:.2f} searches/s"
            )
            return 0

        def said(path: Path, steps: int) -> None:
            print(f"checkpoint: step {steps}: {path}", flush=True)

        result = run_agent(
            agent, env, steps=cmd.total_timesteps, train=not cmd.eval, seed=cmd.seed, out_dir=cmd.out,
            log_every=cmd.log_every, progress=cmd.progress, desc=f"{name} on {cmd.env_id}", writers=writers,
            save_every=cmd.save_every, resume=ckpt, config=config,
            on_checkpoint=said if cmd.out is not None else None,
        )  # fmt: skip
    except RunInterrupted as e:
        print(
            f"interrupted ({signal.Signals(e.signum).name}) at step {e.steps}; go on with: "
            f"{PROG} --resume {e.checkpoint}",
            file=sys.stderr,
        )
        return 128 + e.signum
    finally:
        for w in writers:
            w.close()
        env.close()
    backend_name = result.backend or cmd.backend
    print(f"backend: {backend_name}{'  (the simulator, not Lean)' if backend_name.startswith('sim') else ''}")
    print(
        f"{name} {mode} on {cmd.env_id} ({cmd.split}): {result.steps} steps, {result.episodes} episodes, "
        f"{result.success_rate:.1%} proved, mean reward {result.mean_reward:+.3f}, "
        f"{result.steps / max(result.wall_s, 1e-9):.0f} steps/s"
    )
    for key, path in result.paths.items():
        print(f"{key}: {path}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status (2 for a user error, printed as one line)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        import tyro  # noqa: F401
    except ImportError:
        print(f"error: {PROG} needs tyro: pip install -e '.[agents]'", file=sys.stderr)
        return 2
    from lean_gym.errors import LeanGymError

    try:
        name, cmd, ckpt = parse(argv)
        _check(name, cmd, ckpt)
        return _run(name, cmd, ckpt)
    except SystemExit as e:
        return int(e.code or 0)
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (LeanGymError, ValueError, gym.error.Error) as e:
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted (no checkpoint: give --out to write one)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
