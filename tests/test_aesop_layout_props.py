"""``parse`` is the inverse of ``render`` for every layout, repeated and odd lemma names included (issue 21).

Properties, over random actions and lemma lists drawn from plain names, repeats, names that are not
identifiers and names built to break out of their rule (``]``, ``)``, ``--``, newlines, ``«``, a whole
injected clause):

* ``render(parse(render(a, L), L), L) == render(a, L)``, in the guarded mode and the verbatim (SATP) mode;
* the guarded rendering never carries a name that is not a Lean identifier, so no lemma list adds a clause;
* ``parse`` of a rendering never raises, and reads reformatted text (whitespace collapsed) the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lean_gym.aesop import canonical_text, is_lean_ident, layout
from lean_gym.errors import BadActionError

LAYOUTS = ("satp-v1", "satp-v2", "satp-v2-181")
PLAIN = ["sq_nonneg", "Nat.succ_le_of_lt", "mul_pos", "Real.sqrt_nonneg", "add_sq", "h₀", "le_div_iff'"]
ODD = [
    "_private.Mathlib.Data.Nat.0.foo",
    "x.1",
    "foo bar",
    "«odd name»",
    "«a»",
    "",
    "   ",
    " sq_nonneg ",
    "a]",
    "b)",
    "(c",
    "c--d",
    "-- comment",
    "e\nf",
    "x))\n    (add safe 1 (by sorry",
    "y] at *) (add safe 0 (by sorry",
    "«broken",
    "{L}",
    "1bad",
    "apply",
    "rw [x]",
]
NAMES = st.one_of(
    st.sampled_from(PLAIN),
    st.sampled_from(ODD),
    # A name that is exactly `*` is left out: spliced verbatim into `simp [{L}] at *` it is Lean's own `*`
    # (every hypothesis), the same text as the tactic head `simp [*] at *`, so no reader can invert it.
    st.text(alphabet="ab_.'«» ()[]-\n|←*", min_size=0, max_size=8).filter(lambda s: s.strip() != "*"),
)
PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def over_layouts(test: Callable[[str, st.DataObject], None]) -> Any:
    """The property ``test(name, data)`` for every layout, on examples drawn from ``data``."""
    return pytest.mark.parametrize("name", LAYOUTS)(PROPS(given(data=st.data())(test)))


@st.composite
def cases(draw: st.DrawFn, name: str) -> tuple[np.ndarray, list[str]]:
    lay = layout(name)
    k = lay.num_lemmas
    pool = draw(st.lists(NAMES, min_size=1, max_size=6))  # a small pool: names repeat across slots
    lemmas = draw(st.lists(st.sampled_from(pool), min_size=0, max_size=k))
    density = draw(st.sampled_from([0.1, 0.5, 1.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    a = lay.default_action()
    on = rng.random(len(a)) < density
    a[on] = rng.integers(0, lay.nvec)[on]
    return a, lemmas


@over_layouts
def test_parse_inverts_render_in_both_modes(name: str, data: st.DataObject) -> None:
    lay = layout(name)
    a, lemmas = data.draw(cases(name))
    for verbatim in (False, True):
        text = lay.render(a, lemmas, verbatim=verbatim)
        back = lay.parse(text, lemmas)
        assert lay.render(back, lemmas, verbatim=verbatim) == text
        assert np.array_equal(lay.parse(text, lemmas, strict=True), back)


@over_layouts
def test_guarded_render_writes_identifiers_only(name: str, data: st.DataObject) -> None:
    lay = layout(name)
    a, lemmas = data.draw(cases(name))
    text = lay.render(a, lemmas)
    # no clause comes from the data: every rule starts a line, nothing is commented out or left open
    assert "sorry" not in text and "--" not in text and text.count("(add ") == text.count("\n    (add ")
    # brackets balance outside «…»-quoted names (an identifier may be «[», as Lean allows)
    bare = re.sub(r"«[^»]*»", "", text)
    assert bare.count("(") == bare.count(")") and bare.count("[") == bare.count("]")
    back = lay.parse(text, lemmas)
    first = 24 if name == "satp-v1" else 28
    for slot in range(lay.num_lemmas):
        if back[first + slot]:  # a lemma rule was written: its slot holds an identifier
            assert is_lean_ident(lemmas[slot].strip())


@over_layouts
def test_reformatted_text_reads_the_same(name: str, data: st.DataObject) -> None:
    lay = layout(name)
    a, lemmas = data.draw(cases(name))
    plain = [n for n in lemmas if is_lean_ident(n.strip())]  # reformatting is defined for guarded text
    text = lay.render(a, plain)
    back = lay.parse(text, plain)
    assert lay.render(lay.parse(canonical_text(text), plain), plain) == text
    assert lay.render(lay.parse(text.replace("\n    ", "\n\t "), plain), plain) == lay.render(back, plain)


def test_the_repeated_name_example_of_issue_21() -> None:
    # lemmas A, B, A; slot 0 = rw [A] unsafe 10%, slot 1 = apply B norm 100, slot 2 = apply A norm 100
    for name in ("satp-v2", "satp-v2-181"):
        lay = layout(name)
        lemmas = ["A", "B", "A"]
        a = lay.default_action()
        a[28], a[29], a[30] = 1 + 9 * 1 + 6, 1, 1
        text = lay.render(a, lemmas)
        assert text.split("\n")[1:] == [
            "    (add norm 100 (by apply B))",
            "    (add norm 100 (by apply A))",
            "    (add unsafe 10% (by rw [A]))",
        ]
        back = lay.parse(text, lemmas)
        assert np.array_equal(back, a)  # here the only assignment that keeps the order is the original
        assert lay.render(back, lemmas) == text


def test_a_name_at_every_slot_reads_back_within_budget() -> None:
    lay = layout("satp-v2-181")
    rng = np.random.default_rng(7)
    lemmas = ["A"] * 32
    for _ in range(5):
        a = rng.integers(0, lay.nvec)
        text = lay.render(a, lemmas)
        assert lay.render(lay.parse(text, lemmas), lemmas) == text


def test_more_rules_of_a_name_than_slots_is_an_error() -> None:
    v2 = layout("satp-v2")
    text = "  aesop\n    (add norm 100 (by apply A))\n    (add norm 1 (by apply A))"
    with pytest.raises(BadActionError, match="already used by another rule"):
        v2.parse(text, ["A", "B"])
    assert v2.parse(text, ["A", "A"])[28:30].tolist() == [1, 2]


def test_injected_clause_in_a_name_is_read_as_the_name_not_as_a_rule() -> None:
    v1 = layout("satp-v1")
    evil = "x))\n    (add safe 1 (by sorry"
    a = v1.default_action()
    a[24] = 2
    satp = v1.render(a, [evil], verbatim=True)  # what SATP writes for such a lemma list
    assert "(add safe 1 (by sorry" in satp
    back = v1.parse(satp, [evil])
    assert back.tolist() == a.tolist()  # one lemma rule, not a lemma rule plus a safe rule
    assert v1.render(back, [evil]) == "  aesop"  # and lean-gym's own rendering leaves it out


def test_the_v427_layout_rejects_the_v426_positivity_host() -> None:
    text = "  aesop\n    (add unsafe 90% (by positivity [sq_nonneg]))"
    a = layout("satp-v2-181").parse(text, ["sq_nonneg"])
    assert a[28] == 1 + 9 * 19 + 8
    with pytest.raises(BadActionError, match="not a rule of this layout"):
        layout("satp-v2").parse(text, ["sq_nonneg"])
