"""The goal families: determinism, disjoint splits, goal text, retrieval, truth by brute force, provability."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from lean_gym.backends.sim import SimBackend
from lean_gym.data import theorem_with_proof
from lean_gym.sim.elab import Env
from lean_gym.sim.families import (
    FAMILIES,
    FAMILY_WEIGHTS,
    SPLITS,
    UNREACHABLE_FAMILIES,
    evaluate,
    generate,
    generate_split,
)
from lean_gym.sim.library import library_names
from lean_gym.sim.tactics import TacticContext, goal_from_statement
from lean_gym.sim.terms import free_vars

REQUIRED = {
    "name",
    "formal_statement",
    "goal",
    "header",
    "context_lemmas",
    "context_lemma_scores",
    "family",
    "difficulty",
    "split",
}


def _body(row: dict) -> str:
    return row["formal_statement"].split(" ", 2)[2]


def test_deterministic() -> None:
    a = [generate(f, "valid", i) for f in FAMILIES for i in range(3)]
    b = [generate(f, "valid", i) for f in FAMILIES for i in range(3)]
    assert a == b
    assert generate_split("test", 25) == generate_split("test", 25)
    assert generate_split("test", 40)[:25] == generate_split("test", 25)


def test_splits_are_disjoint_and_complete() -> None:
    bodies = {sp: {_body(r) for r in generate_split(sp)} for sp in SPLITS}
    assert all(len(b) == 300 for b in bodies.values())  # distinct within a split
    for s1, s2 in itertools.combinations(SPLITS, 2):
        assert not bodies[s1] & bodies[s2], (s1, s2)
    fams = {r["family"] for r in generate_split("test")}
    assert fams == {f for f, w in FAMILY_WEIGHTS.items() if w > 0}
    with pytest.raises(ValueError, match="unknown split"):
        generate_split("dev")
    with pytest.raises(ValueError, match="unknown family"):
        generate("nope", "test", 0)


def test_rows_have_the_documented_shape_and_the_simulator_goal() -> None:
    lib = set(library_names())
    ctx = TacticContext(env=Env(imports=("Mathlib",)))
    for row in generate_split("test", 42):
        assert set(row) >= REQUIRED
        assert row["formal_statement"].startswith(f"theorem {row['name']} ")
        assert row["formal_statement"].endswith(":= by\n")
        assert row["header"].startswith("import Mathlib")
        assert len(row["context_lemmas"]) == 8 == len(row["context_lemma_scores"])
        assert set(row["context_lemmas"]) <= lib
        scores = row["context_lemma_scores"]
        assert scores == sorted(scores, reverse=True) and all(0.0 <= s <= 1.0 for s in scores)
        sig = _body(row).removesuffix(" := by\n")
        goal = goal_from_statement(sig, ctx)
        assert goal.pretty() == row["goal"], row["name"]


def test_lemma_family_puts_the_lemma_among_the_candidates_not_always_first() -> None:
    rows = [generate("lemma", "test", i) for i in range(40)]
    # the noisy retriever spreads the candidates: many different lemmas come first
    firsts = {row["context_lemmas"][0] for row in rows}
    assert len(firsts) > 3


# ------------------------------------------------------------------------------------- ground truth

_VALUES = {
    "ℕ": list(range(0, 13)),
    "ℤ": list(range(-5, 6)),
    "ℚ": [Fraction(n, 2) for n in range(-10, 11)],
    "ℝ": [Fraction(n, 2) for n in range(-10, 11)],
}


def _falsified(goal, samples: int, rng: random.Random) -> dict | None:  # type: ignore[no-untyped-def]
    data = [(n, ty[1]) for n, ty in goal.hyps if ty[0] == "type"]
    props = [p for _, p in goal.props()]
    space = [(_VALUES.get(t) if t != "Prop" else [False, True]) for _, t in data]
    total = 1
    for s in space:
        total *= len(s)
    if total <= samples:
        assignments = itertools.product(*space)
    else:
        assignments = (tuple(rng.choice(s) for s in space) for _ in range(samples))
    checks = [_by_own_locals(p, [n for n, _ in data]) for p in props]
    target = _by_own_locals(goal.target, [n for n, _ in data])
    for vals in assignments:
        env = {n: v for (n, _), v in zip(data, vals)}
        if all(check(env, vals) for check in checks) and not target(env, vals):
            return env
    return None


def _by_own_locals(t, names: list[str]):  # type: ignore[no-untyped-def]
    """``evaluate(t, env)``, remembered by the values of the locals ``t`` mentions: a proposition is a
    function of those alone, so an assignment that gives them the values of an earlier one gets the earlier
    answer (the same answers as evaluating every assignment, with far fewer evaluations where a hypothesis
    mentions few of the goal's locals)."""
    own = free_vars(t)
    idx = [i for i, n in enumerate(names) if n in own]
    seen: dict[tuple, object] = {}

    def check(env: dict, vals: tuple) -> object:
        key = tuple(vals[i] for i in idx)
        if key not in seen:
            seen[key] = evaluate(t, env)
        return seen[key]

    return check


@pytest.mark.parametrize("split", SPLITS)
def test_every_theorem_is_true_on_small_domains(split: str) -> None:
    rng = random.Random(0)
    ctx = TacticContext(env=Env(imports=("Mathlib",)))
    for row in generate_split(split, 63):
        goal = goal_from_statement(_body(row).removesuffix(" := by\n"), ctx)
        bad = _falsified(goal, 1000, rng)
        assert bad is None, (row["name"], bad)


def test_brute_force_catches_a_false_statement() -> None:
    ctx = TacticContext(env=Env(imports=("Mathlib",)))
    goal = goal_from_statement("(n : ℕ) (h₀ : n < 9) : n ^ 2 % 8 ≠ 1", ctx)
    assert _falsified(goal, 1500, random.Random(0)) is not None


# ------------------------------------------------------------------------------- proved by some config


def _candidates(row: dict) -> list[str]:
    fam = row["family"]
    lem = ", ".join(
        f"unsafe 40% (by first | apply {n} | rw [{n}] | simp only [{n}])" for n in row["context_lemmas"]
    )
    table = {
        "prop": ["aesop"],
        "linarith": ["aesop (add unsafe 100% (by linarith))"],
        "subst": ["aesop (add unsafe 100% (by linarith))"],
        "ring": [
            "aesop (add unsafe 100% (by ring_nf))",
            "aesop (add safe 1 (by field_simp), safe 2 (by ring))",
        ],
        "nonlinear": [
            "aesop (add unsafe 100% (by nlinarith), unsafe 90% (by positivity))",
            f"aesop (add {lem})",
        ],
        "lemma": [f"aesop (add {lem})"],
        "cases": [
            "aesop (add unsafe 100% (by omega))",
            "aesop (add unsafe 100% (by interval_cases n), unsafe 100% (by interval_cases k), "
            "unsafe 100% (by interval_cases m))",
        ],
        "deep": [
            "aesop (config := { maxRuleApplicationDepth := 0, maxRuleApplications := 0, enableSimp := false }) "
            "(add unsafe 100% (by linarith))"
        ],
        "simp_trap": ["aesop (config := { enableSimp := false }) (add unsafe 100% (by linarith))"],
        "cast": [
            "aesop (add unsafe 100% (by norm_cast at *), unsafe 90% (by omega), unsafe 90% (by linarith))"
        ],
    }
    table["classical"] = ["aesop"]
    table["distract"] = table["linarith"]
    table["normal_form"] = [f"aesop (add {lem})"]
    table["products"] = ["aesop (add unsafe 100% (by nlinarith))"]
    if fam.startswith("ctx_"):
        # the base family's configs, and the same with the norm simp off (zero-product distractors)
        base = table[fam.removeprefix("ctx_")]
        return base + [t.replace("aesop", "aesop (config := { enableSimp := false })", 1) for t in base]
    return table[fam]


def test_samples_of_each_family_are_proved_by_some_config() -> None:
    backend = SimBackend()
    rows = [generate(f, "test", i) for f in FAMILIES if f not in UNREACHABLE_FAMILIES for i in range(4)]
    for row in rows:
        ok = False
        for tac in _candidates(row):
            r = backend.check(theorem_with_proof(row["formal_statement"], "  " + tac), header=row["header"])
            if r.proved:
                ok = True
                break
        assert ok, (row["name"], row["goal"][:200], r.messages_text()[:300])


def test_every_theorem_of_every_split_is_proved_by_some_config() -> None:
    backend = SimBackend()
    failures = []
    for split in SPLITS:
        for row in generate_split(split):
            if row["family"] in UNREACHABLE_FAMILIES:
                continue
            codes = [theorem_with_proof(row["formal_statement"], "  " + tac) for tac in _candidates(row)]
            if not any(backend.check(code, header=row["header"]).proved for code in codes):
                failures.append(row["name"])
    assert not failures


def test_unreachable_family_resists_a_config_with_every_tactic_on() -> None:
    """``olympiad`` statements need hints or induction: every tactic head on, big budgets, no proof."""
    backend = SimBackend()
    tactics = ", ".join(
        f"unsafe {p}% (by {t})"
        for p, t in [
            (100, "nlinarith"), (90, "linarith"), (90, "positivity"), (80, "omega"), (80, "ring_nf"),
            (70, "norm_num [*] at *"), (70, "simp_all"), (70, "field_simp [*] at *"), (70, "bound"),
            (70, "gcongr"), (70, "decide"),
        ]
    )  # fmt: skip
    for i in range(12):
        row = generate("olympiad", "test", i)
        lem = ", ".join(
            f"unsafe 40% (by first | apply {n} | rw [{n}] | simp only [{n}])" for n in row["context_lemmas"]
        )
        tac = f"  aesop (config := {{ maxRuleApplications := 400 }}) (add {tactics}, {lem})"
        r = backend.check(theorem_with_proof(row["formal_statement"], tac), header=row["header"])
        assert not r.proved, (row["name"], tac)
