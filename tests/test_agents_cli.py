"""``python -m lean_gym_agents.run``: every agent a subcommand, every field of its command a documented flag,
user errors one line before any work, each agent runs on a tiny budget (simulator)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

import lean_gym_agents.run as run
from lean_gym_agents.commands import AGENTS, RunArgs

TORCH_AGENTS = {"dpo", "dropout-thompson", "grpo", "grpo-toy"}


def _command(name: str) -> type[RunArgs]:
    if name in TORCH_AGENTS:
        pytest.importorskip("torch", reason=f"{name} needs torch (agents extra)")
    if name.startswith("grpo"):
        pytest.importorskip("transformers", reason=f"{name} builds its LM with transformers (hf extra)")
    return AGENTS[name].command()


def _flags(cls: type[Any], prefix: str = "") -> list[str]:
    """The flags tyro makes of ``cls``'s fields (``--agent.prior-strength`` for a nested dataclass)."""
    out = []
    for f in dataclasses.fields(cls):
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        name = prefix + f.name.replace("_", "-")
        if dataclasses.is_dataclass(default):
            out += _flags(type(default), name + ".")
        else:
            out.append("--" + name)
    return out


def _entries(help_text: str) -> dict[str, str]:
    """tyro's help as flag -> its documentation (the text beside and under the flag, defaults cut)."""
    docs: dict[str, list[str]] = {}
    keys: list[str] = []
    for line in help_text.splitlines():
        body = line.strip()
        if re.match(r"^ {1,3}-", line):  # a flag's first line: "  --flag TYPE   Its doc…"
            spec, _, doc = body.partition("  ")
            keys = re.findall(r"--[a-z][\w.-]*", spec)
            for key in keys:
                docs[key] = [doc]
        elif keys and line.startswith(" " * 10) and body:  # its continuation lines
            for key in keys:
                docs[key].append(body)
        else:
            keys = []
    return {k: re.sub(r"\(default:[^)]*\)", "", " ".join(v)).strip() for k, v in docs.items()}


def test_the_top_help_lists_every_agent(capsys: pytest.CaptureFixture[str]) -> None:
    assert run.main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in AGENTS:
        assert re.search(rf"^  {re.escape(name)}\s+\S", out, re.M), name


@pytest.mark.parametrize("name", list(AGENTS))
def test_every_field_is_a_flag_with_its_documentation(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cls = _command(name)
    monkeypatch.setenv("COLUMNS", "80")  # one column (wider help is laid out in two)
    assert run.main([name, "--help"]) == 0
    entries = _entries(capsys.readouterr().out)
    flags = _flags(cls)
    assert any(f.startswith("--agent.") for f in flags) or name in ("plain", "random")
    for flag in flags:
        assert flag in entries, f"{name}: {flag} is not in --help"
        assert len(re.findall(r"[A-Za-z]", entries[flag])) >= 3, f"{name}: {flag} has no documentation"


def test_the_seed_seeds_the_agent_unless_its_own_is_given() -> None:
    _, cmd, _ = run.parse(["thompson", "--seed", "7"])
    assert cmd.seed == 7 and cmd.agent.seed == 7
    _, cmd, _ = run.parse(["thompson", "--seed=7", "--agent.seed", "2", "--agent.prior-strength", "0.5"])
    assert (cmd.seed, cmd.agent.seed, cmd.agent.prior_strength) == (7, 2, 0.5)
    _, cmd, _ = run.parse(["bandit", "--no-contextual", "--env", "LeanAesopV2-v0", "--steps", "9"])
    assert (cmd.contextual, cmd.env_id, cmd.total_timesteps) == (False, "LeanAesopV2-v0", 9)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["thompson", "--sed", "3"], "did you mean --seed"),
        (["thompson", "--seed", "x"], "--seed"),
        (["thompson", "--vector-mode", "fast"], "invalid choice 'fast'"),
        (["thompson", "--agent.prior-strenght", "1"], "did you mean --agent.prior-strength"),
        (["thompsn"], "did you mean 'thompson'"),
        (["--agent", "thompson", "--steps", "5"], "subcommand now: python -m lean_gym_agents.run thompson"),
        (["thompson", "--total-timesteps", "0"], "--total-timesteps must be at least 1"),
        (["thompson", "--num-envs", "0", "--vector-mode", "sync"], "--num-envs must be at least 1"),
        (["thompson", "--save-every", "10"], "give --out"),
        (["thompson", "--resume", "/nonexistent/checkpoint.pkl"], "--resume /nonexistent/checkpoint.pkl"),
        (["thompson", "--env-id", "LeanAesop-v9"], "LeanAesop-v9"),
        (["plain", "--env-id", "LeanProof-v0"], "needs a LeanAesop env"),
        (["best-first", "--env-id", "LeanAesop-v0"], "LeanTactic"),
        (["best-first", "--save-every", "1", "--out", "x"], "no checkpoints"),
        (["--steps", "5"], "name an agent first"),
    ],
)
def test_user_errors_are_one_line_before_any_env_is_built(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_env(*a: object, **k: object) -> None:
        raise AssertionError("an env was built before the arguments were checked")

    monkeypatch.setattr(run, "build_env", no_env)
    assert run.main(argv) == 2
    err = capsys.readouterr().err
    (line,) = err.strip().splitlines()
    assert line.startswith("error: ") and says in line, line


def test_track_without_wandb_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        import wandb  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("wandb is installed: --track works (tests/test_agents_metrics.py)")
    assert run.main(["thompson", "--track", "--steps", "1"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "pip install wandb" in line


def test_grpo_refuses_another_env_size(capsys: pytest.CaptureFixture[str]) -> None:
    _command("grpo-toy")
    assert run.main(["grpo-toy", "--num-envs", "4"]) == 2
    assert "prompts_per_step × group_size = 32" in capsys.readouterr().err
    assert run.main(["grpo", "--steps", "1"]) == 2
    assert "needs --model" in capsys.readouterr().err


TINY_POLICY = ["--d-model", "16", "--n-layers", "1", "--n-heads", "2"]
ONE_THREAD = ["--torch-threads", "1"]  # tiny nets: more threads only wait on each other on a shared machine


@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("plain", []),
        ("random", ["--vector-mode", "async", "--num-envs", "2"]),
        ("thompson", ["--vector-mode", "vector_entry_point", "--num-envs", "2"]),
        ("bandit", ["--vector-mode", "sync", "--num-envs", "2"]),
        ("dpo", [f"--agent.{a[2:]}" if a.startswith("--") else a for a in TINY_POLICY]
         + ["--train-every", "4", "--steps-per-round", "1", *ONE_THREAD]),
        ("dropout-thompson", [f"--policy.{a[2:]}" if a.startswith("--") else a for a in TINY_POLICY]
         + ["--policy.prompt-bytes", "64", "--train-every", "4", "--steps-per-round", "1", *ONE_THREAD]),
    ],
)  # fmt: skip
def test_every_agent_trains_from_the_shell(
    name: str, extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _command(name)
    argv = [name, "--steps", "8", "--split", "test", "--out", str(tmp_path), "--no-progress", *extra]
    assert run.main(argv) == 0
    out = capsys.readouterr().out
    assert "backend: sim  (the simulator, not Lean)" in out
    assert f"{name} train on LeanAesop-v0 (test): " in out
    rows = [json.loads(x) for x in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert rows[-1]["global_step"] >= 8 and 0.0 <= rows[-1]["charts/success_so_far"] <= 1.0
    if AGENTS[name].learns:
        assert any(k.startswith("losses/") for k in rows[-1])


def test_grpo_toy_trains_from_the_shell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _command("grpo-toy")
    assert run.main(["grpo-toy", "--steps", "64", "--out", str(tmp_path), "--no-progress", *ONE_THREAD]) == 0
    assert "grpo-toy train on LeanProof-v0" in capsys.readouterr().out
    rows = [json.loads(x) for x in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    # two GRPO steps of 4 prompts x 8 samples: one row each, every group of one theorem
    assert [r["global_step"] for r in rows] == [32, 64]
    assert all(r["losses/groups"] == 4 for r in rows)


def test_best_first_searches_from_the_shell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["best-first", "--steps", "2", "--split", "test", "--out", str(tmp_path), "--no-progress"]
    assert run.main([*argv, "--agent.max-tactic-calls", "40"]) == 0
    assert "best-first on LeanTactic-v0 (test): 2 theorems searched" in capsys.readouterr().out
    rows = [json.loads(x) for x in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert rows[-1]["global_step"] == 2 and all(r["eval/tactic_calls"] <= 40 for r in rows)
