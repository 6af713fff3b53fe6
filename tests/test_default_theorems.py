"""LeanAesop-v0's default theorem set: SATP's 92 Lean-proved miniF2F-test theorems, split 46/46 by a fixed rule.

The set (``satp-minif2f``) ships with the package, so a clone without ``../shared`` has it; the synthetic
families stay reachable as ``source="sim"``.
"""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import lean_gym  # noqa: F401  (registers the ids)
from lean_gym.aesop import best_static_action, best_static_record, uuid16
from lean_gym.data import load_theorems, satp_lean_figures
from lean_gym.data.loaders import satp_minif2f_split
from lean_gym.envs.aesop_env import DEFAULT_SOURCE

CASES = Path(__file__).parents[1] / "lean_gym" / "conformance" / "cases" / "satp"


def _group(name: str) -> str:
    m = re.match(r"mathd_[a-z]+|[a-z]+", name)
    assert m is not None
    return m.group()


def test_the_default_set_is_satps_92_split_in_two_disjoint_halves() -> None:
    assert DEFAULT_SOURCE == "satp-minif2f"
    every = load_theorems(DEFAULT_SOURCE)
    train, test = load_theorems(DEFAULT_SOURCE, "train"), load_theorems(DEFAULT_SOURCE, "test")
    assert len(every) == 92 and len(train) == len(test) == 46
    names = {t.name for t in train}
    assert names.isdisjoint(t.name for t in test)
    assert names | {t.name for t in test} == {t.name for t in every}
    assert load_theorems(DEFAULT_SOURCE, "valid") == []
    # every competition is split evenly, within one theorem
    for group, n in collections.Counter(_group(t.name) for t in every).items():
        in_train = sum(_group(t.name) == group for t in train)
        assert abs(in_train - (n - in_train)) <= 1, group


def test_the_split_depends_on_the_names_alone() -> None:
    names = [t.name for t in load_theorems(DEFAULT_SOURCE)]
    split = satp_minif2f_split(names)
    assert satp_minif2f_split(reversed(names)) == split  # not on the file's order
    assert {t.name: t.split for t in load_theorems(DEFAULT_SOURCE)} == split


def test_each_goal_is_the_statement_as_a_goal_state_and_66_are_lean_s_own() -> None:
    recorded = {}
    for line in (CASES / "satp_calls.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        m = re.search(r"goal uuid ([0-9a-f]{16})", case["note"])
        assert m is not None, case["id"]
        recorded[case["code"].split(None, 2)[1]] = m.group(1)
    thms = load_theorems(DEFAULT_SOURCE)
    assert all("\n⊢ " in "\n" + t.goal and not t.goal.rstrip().endswith("⊢") for t in thms)
    assert sum(uuid16(t.goal) == recorded[t.name] for t in thms) == 66


@pytest.mark.parametrize("env_id", ["LeanAesop-v0", "LeanAesopV2-v0"])
def test_gym_make_defaults_to_the_train_half(env_id: str) -> None:
    env = gym.make(env_id, backend="sim")
    inner = env.unwrapped
    assert [t.name for t in inner.theorems] == [t.name for t in load_theorems(DEFAULT_SOURCE, "train")]
    obs, info = env.reset(seed=0)
    assert obs["goal"] and info["name"] in {t.name for t in inner.theorems}
    test = gym.make(env_id, backend="sim", split="test").unwrapped
    assert {t.name for t in test.theorems}.isdisjoint(t.name for t in inner.theorems)


def test_the_synthetic_families_and_explicit_theorems_stay_reachable() -> None:
    sim = gym.make("LeanAesop-v0", backend="sim", source="sim", split="test").unwrapped
    assert len(sim.theorems) == 300 and all(t.family for t in sim.theorems)
    own = gym.make("LeanAesop-v0", backend="sim", theorems=[{"formal_statement": "theorem a : True := by"}])
    assert [t.name for t in own.unwrapped.theorems] == ["theorem_0"]
    vec = gym.make_vec("LeanAesop-v0", num_envs=2, vectorization_mode="vector_entry_point", backend="sim")
    assert len(vec.unwrapped.envs[0].theorems) == 46
    vec.close()


def test_a_best_static_config_is_stored_for_the_default_train_half() -> None:
    rec = best_static_record("satp-v1", DEFAULT_SOURCE)
    assert rec["split"] == "train" and rec["n"] == 46
    a = best_static_action("satp-v1", DEFAULT_SOURCE)
    assert not np.array_equal(a, best_static_action("satp-v1", "sim"))
    # it proves on the train half what the record says it does (the simulator is deterministic)
    env = gym.make("LeanAesop-v0", backend="sim", cache_size=0).unwrapped
    wins = 0
    for i in range(len(env.theorems)):
        env.reset(options={"index": i})
        wins += env.step(a)[1] > 0
    assert round(wins / len(env.theorems), 4) == rec["train_success"]


def test_satps_figures_say_what_lean_did_on_the_default_set() -> None:
    line = satp_lean_figures(DEFAULT_SOURCE)
    assert line.startswith("SATP on Lean (miniF2F-test, not the simulator): plain aesop 10.7% (26/244)")
    assert "(100%)" in line and "at most 26 of the 92" in line
    assert "(100%)" not in satp_lean_figures()
