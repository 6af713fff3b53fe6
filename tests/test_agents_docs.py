"""The runnable examples of docs/agents.md and examples/satp_loop.py run."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_custom_agent_example_in_the_docs_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    section = text.split("## Plug in your own agent", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    exec(compile(code.group(1), "docs/agents.md", "exec"), {"__name__": "__docs__"})
    out = capsys.readouterr().out
    m = re.search(r"proved (\d+)% of 100 test episodes", out)
    assert m is not None and 0 <= int(m.group(1)) <= 100


def _satp_loop(monkeypatch: pytest.MonkeyPatch) -> Any:
    pytest.importorskip("torch", reason="the SATP loop trains the DPO policy (agents extra)")
    spec = importlib.util.spec_from_file_location("satp_loop", ROOT / "examples" / "satp_loop.py")
    assert spec is not None and spec.loader is not None
    loop = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "satp_loop", loop)  # dataclasses look their module up
    spec.loader.exec_module(loop)
    return loop


@pytest.mark.slow
def test_satp_loop_runs_end_to_end_with_a_tiny_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    loop = _satp_loop(monkeypatch)
    # the 8-row miniF2F sample ships with the package: a fresh clone runs this without ../shared
    argv = [
        "--quick",
        "--suite",
        "both",
        "--minif2f",
        "minif2f-sample",
        "--out",
        str(tmp_path),
        "--no-progress",
    ]
    assert loop.main(argv) == 0
    out = capsys.readouterr().out
    for suite in ("sim", "minif2f"):
        assert f"[{suite}] test:" in out
        res = json.loads((tmp_path / suite / "results.json").read_text())
        methods = [row["method"] for row in res["test"]]
        assert methods == [
            "plain aesop",
            "uniformly random config",
            "best static config (train search)",
            "DPO policy, greedy",
            "default config",
            "uniformly random configs",
            "SATP Thompson (+ perturbation)",
        ]
        assert all(0.0 <= row["proved"] <= 1.0 for row in res["test"])
        # the simulator is deterministic: k tries of the default config prove what one try does
        plain, default_k = res["test"][0]["proved"], res["test"][4]["proved"]
        assert default_k == plain
        rows = [json.loads(x) for x in (tmp_path / suite / "buffer.jsonl").read_text().splitlines()]
        assert rows and {"arm_good_action", "arm_bad_action", "diff_head"} <= set(rows[0])
        assert (tmp_path / suite / "policy.pt").is_file()
        assert (tmp_path / suite / "collect" / "metrics.jsonl").is_file()


def test_satp_loop_compares_the_two_samplers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    loop = _satp_loop(monkeypatch)
    assert (
        loop.main(["--quick", "--suite", "sim", "--sampler", "both", "--out", str(tmp_path), "--no-progress"])
        == 0
    )
    out = capsys.readouterr().out
    assert "samplers compared" in out
    res = json.loads((tmp_path / "sim" / "results.json").read_text())
    methods = [row["method"] for row in res["test"]]
    assert methods[-2:] == ["SATP Thompson (+ perturbation)", "dropout Thompson (+ perturbation)"]
    assert "DPO policy, greedy [beta buffer]" in methods and "DPO policy, greedy [dropout buffer]" in methods
    assert set(res["collect"]) == {"beta", "dropout"}
    assert res["collect"]["dropout"]["steps"] == res["collect"]["beta"]["steps"]  # the same budget
    for sub in ("", "dropout"):
        rows = [json.loads(x) for x in (tmp_path / "sim" / sub / "buffer.jsonl").read_text().splitlines()]
        assert rows and {"arm_good_action", "arm_bad_action", "diff_head"} <= set(rows[0])
        assert (tmp_path / "sim" / sub / "policy.pt").is_file()


def test_satp_loop_runs_on_the_env_s_default_set_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    loop = _satp_loop(monkeypatch)
    assert loop.main(["--quick", "--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "[satp] test: 8 goals, backend sim (the simulator, not Lean)" in out
    assert "SATP on Lean (miniF2F-test, not the simulator)" in out  # Lean's figures, labelled as such
    res = json.loads((tmp_path / "satp" / "results.json").read_text())
    assert res["suite"] == "satp" and res["train_goals"] == res["test_goals"] == 8
    from lean_gym.data import load_theorems

    train = {t.name for t in load_theorems("satp-minif2f", "train")}
    rows = [json.loads(x) for x in (tmp_path / "satp" / "tries.jsonl").read_text().splitlines()]
    assert rows and all(r["context_theorem"].split(None, 2)[1] in train for r in rows)
