"""Action layouts as data: shapes, head tables, validation, parse errors, lemma resolution, uuids."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from lean_gym.aesop import Layout, canonical_text, is_lean_ident, layout, uuid16
from lean_gym.errors import BadActionError

LEMMAS8 = ["sq_nonneg", "add_pos", "mul_pos", "abs_nonneg", "pow_pos", "sub_nonneg", "div_pos", "le_refl"]


def test_v1_shape_and_head_order() -> None:
    v1 = layout("satp-v1")
    assert isinstance(v1, Layout)
    assert v1.nvec.tolist() == [5] * 36 + [2] * 4
    assert v1.num_lemmas == 8
    names = v1.head_names
    assert names[:7] == tuple(
        f"safe:{t}" for t in ("abel", "push_neg", "zify", "ring", "field_simp", "norm_num", "norm_cast")
    )
    assert names[7] == "unsafe:gcongr" and names[23] == "unsafe:bound"
    assert names[24:32] == tuple(f"lemma:{r}" for r in range(8))
    assert names[32:] == (
        "maxRuleApplicationDepth",
        "maxRuleApplications",
        "maxNormIterations",
        "maxGoals",
        "enableSimp",
        "useSimpAll",
        "enableUnfold",
        "useDefaultSimpSet",
    )
    assert v1.default_action().tolist() == [0] * 36 + [1] * 4


def test_v2_shapes() -> None:
    v2 = layout("satp-v2")
    assert v2.nvec.tolist() == [10] * 28 + [172] * 32 + [8] * 4 + [2] * 5
    assert layout("satp-v2-181").nvec.tolist()[28:60] == [181] * 32
    assert v2.default_action()[60:].tolist() == [2, 2, 2, 0, 1, 1, 1, 1, 1]
    assert v2.num_lemmas == 32
    assert layout("satp-v2") is v2  # built once


def test_unknown_layout_lists_known_ones() -> None:
    with pytest.raises(ValueError, match="known layouts: satp-v1, satp-v2"):
        layout("satp-v9")


@pytest.mark.parametrize(
    ("action", "match"),
    [
        (np.array([0] * 33 + [7] + [0] * 6), r"head 33 \(maxRuleApplications\) must be in \[0, 4\], got 7"),
        (np.array([0] * 36 + [2, 1, 1, 1]), r"head 36 \(enableSimp\) must be in \[0, 1\], got 2"),
        (np.array([-1] + [0] * 39), r"head 0 \(safe:abel\) must be in \[0, 4\], got -1"),
        (np.zeros(39, dtype=np.int64), r"shape \(40,\), got \(39,\)"),
        (np.zeros((2, 40), dtype=np.int64), r"shape \(40,\), got \(2, 40\)"),
        (np.zeros(40, dtype=np.float32), "must hold integers, got dtype float32"),
    ],
)
def test_bad_actions_name_the_head_and_range(action: np.ndarray, match: str) -> None:
    with pytest.raises(BadActionError, match=match):
        layout("satp-v1").render(action, LEMMAS8)


def test_bad_action_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        layout("satp-v1").validate([9] * 40)


def test_lists_and_unsigned_actions_are_accepted() -> None:
    v1 = layout("satp-v1")
    a = [0] * 36 + [1] * 4
    assert v1.render(a) == "  aesop"
    assert v1.render(np.array(a, dtype=np.uint8)) == "  aesop"


def test_level_and_switch_rendering_v1() -> None:
    v1 = layout("satp-v1")
    a = v1.default_action()
    a[33], a[34], a[36], a[39] = 4, 2, 0, 0
    assert v1.render(a) == (
        "  aesop (config := {\n"
        "    maxRuleApplications     := 280\n"
        "    maxNormIterations       := 140\n"
        "    enableSimp              := false\n"
        "    useDefaultSimpSet       := false\n"
        "  })"
    )


def test_v1_rule_order_is_group_then_level_then_name() -> None:
    v1 = layout("satp-v1")
    a = v1.default_action()
    a[v1.head_names.index("unsafe:simp")] = 2
    a[v1.head_names.index("unsafe:omega")] = 2
    a[v1.head_names.index("unsafe:bound")] = 4
    a[v1.head_names.index("safe:ring")] = 1
    a[v1.head_names.index("safe:abel")] = 1
    a[24 + 3] = 4  # abs_nonneg, 50%... level 4 = 40%
    a[24 + 0] = 4
    lines = v1.render(a, LEMMAS8).split("\n")[1:]
    assert lines == [
        "    (add safe 4 (by abel))",
        "    (add safe 4 (by ring))",
        "    (add unsafe 100% (by bound))",
        "    (add unsafe 80% (by omega))",
        "    (add unsafe 80% (by simp))",
        "    (add unsafe 40% (by first | apply abs_nonneg | rw [abs_nonneg] | simp only [abs_nonneg]))",
        "    (add unsafe 40% (by first | apply sq_nonneg | rw [sq_nonneg] | simp only [sq_nonneg]))",
    ]


def test_v2_rendering_types_priorities_and_builtin() -> None:
    v2 = layout("satp-v2")
    a = v2.default_action()
    names = v2.head_names
    a[names.index("tactic:ext")] = 9  # unsafe 90%
    a[names.index("tactic:ring")] = 1  # norm 100
    a[names.index("tactic:norm_cast")] = 5  # safe 1
    a[28 + 2] = 1 + 9 * 16 + 8  # host 16 = grind only, unsafe 90%
    a[28 + 0] = 1 + 9 * 6 + 1  # host 6 = simp only, norm 1
    a[names.index("maxRuleApplicationDepth")] = 5  # 220
    a[names.index("enableBuiltin")] = 0
    lemmas = ["Nat.succ_le_of_lt", "x", "Nat.totient_pos"] + [f"l{i}" for i in range(29)]
    assert v2.render(a, lemmas) == (
        "  aesop (config := {\n"
        "    maxRuleApplicationDepth := 220\n"
        "  }) (rule_sets := [-builtin])\n"
        "    (add norm 100 (by ring))\n"
        "    (add safe 1 (by norm_cast))\n"
        "    (add unsafe 90% (by ext))\n"
        "    (add norm 1 (by simp only [Nat.succ_le_of_lt]))\n"
        "    (add unsafe 90% (by grind only [Nat.totient_pos]))"
    )
    a2 = v2.default_action()
    a2[names.index("enableBuiltin")] = 0
    assert v2.render(a2) == "  aesop (rule_sets := [-builtin])"
    assert np.array_equal(v2.parse("aesop (rule_sets := [-builtin])"), a2)


def test_v2_181_adds_the_positivity_host() -> None:
    lay = layout("satp-v2-181")
    a = lay.default_action()
    a[28] = 180
    assert lay.render(a, ["sq_nonneg"]).endswith("(add unsafe 90% (by positivity [sq_nonneg]))")
    with pytest.raises(BadActionError, match="must be in"):
        layout("satp-v2").render(a, ["sq_nonneg"])


def test_missing_and_unusable_lemmas_make_their_heads_inert() -> None:
    v1 = layout("satp-v1")
    a = v1.default_action()
    a[24:32] = 3
    lemmas = ["ok_lemma", "", "bad lemma)) (add safe 0 (by sorry", "Real.sqrt_nonneg"]
    text = v1.render(a, lemmas)
    assert "sorry" not in text and "bad" not in text
    assert text.count("(add unsafe 30%") == 2
    canon = v1.canonical_action(a, lemmas)
    assert canon[24:32].tolist() == [3, 0, 0, 3, 0, 0, 0, 0]
    assert np.array_equal(v1.parse(text, lemmas), canon)


def test_duplicate_lemma_names_have_a_stable_canonical_form() -> None:
    v1 = layout("satp-v1")
    lemmas = ["foo", "bar", "foo", "baz"]
    a = v1.default_action()
    a[24], a[26] = 1, 4  # foo at two slots, different levels
    text = v1.render(a, lemmas)
    back = v1.parse(text, lemmas)
    assert v1.render(back, lemmas) == text
    assert sorted(back[[24, 26]].tolist()) == [1, 4]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("simp", "must start with 'aesop'"),
        ("aesop (add safe 1 (by omega))", "not a rule of this layout"),
        ("aesop (add unsafe 75% (by linarith))", "not a rule of this layout"),
        ("aesop (add safe 1 (by norm_num)) (add safe 2 (by norm_num))", "set twice"),
        ("aesop (config := { maxGoals := 65 })", "not a choice of head 35"),
        ("aesop (config := { strategy := .depthFirst })", "config field 'strategy' is not in this layout"),
        (
            "aesop (add unsafe 20% (by first | apply nope | rw [nope] | simp only [nope]))",
            "not among the goal's context lemmas",
        ),
        ("aesop (add safe 1 (by norm_num)) junk", "unexpected text"),
        ("aesop (add safe 1 (by norm_num)", "unbalanced"),
        ("aesop (erase foo)", "unknown clause"),
    ],
)
def test_parse_rejects_text_outside_the_image(text: str, match: str) -> None:
    with pytest.raises(BadActionError, match=match):
        layout("satp-v1").parse(text, LEMMAS8)


def test_parse_ignores_whitespace_comments_and_order_unless_strict() -> None:
    v1 = layout("satp-v1")
    a = v1.default_action()
    a[5], a[12], a[32] = 4, 3, 1
    text = v1.render(a, LEMMAS8)
    shuffled = "aesop -- from the buffer\n (add unsafe 90% (by linarith)) (config := {maxRuleApplicationDepth := 50}) (add safe 1 (by norm_num))"
    assert np.array_equal(v1.parse(shuffled, LEMMAS8), a)
    assert np.array_equal(v1.parse(text, LEMMAS8, strict=True), a)
    with pytest.raises(BadActionError, match="canonical form"):
        v1.parse(shuffled, LEMMAS8, strict=True)


def test_describe_head() -> None:
    v1 = layout("satp-v1")
    assert (
        v1.describe_head(33)
        == "head 33 (maxRuleApplications, level, 5 choices): 0=200 (default), 1=220, 2=240, 3=260, 4=280"
    )
    assert "unsafe 70%" in v1.describe_head(7)
    assert "172 choices" in layout("satp-v2").describe_head(40)
    with pytest.raises(BadActionError):
        v1.describe_head(40)


def test_uuid16_matches_the_public_definition() -> None:
    text = "  aesop (config := {\n    maxGoals                := 64\n  })  -- tuned\n    (add safe 1 (by norm_num))\n"
    expected_canonical = "aesop (config := { maxGoals := 64 }) (add safe 1 (by norm_num))"
    assert canonical_text(text) == expected_canonical
    assert uuid16(text) == hashlib.sha256(expected_canonical.encode()).hexdigest()[:16]
    assert uuid16("x : ℝ\n⊢ 0 ≤ x ^ 2") == hashlib.sha256("x : ℝ ⊢ 0 ≤ x ^ 2".encode()).hexdigest()[:16]
    assert len(uuid16("")) == 16


@pytest.mark.parametrize(
    ("name", "ok"),
    [("sq_nonneg", True), ("Nat.succ_le_of_lt", True), ("Real.sqrt_lt'", True), ("h₀", True), ("«my lemma»", False),
     ("«odd»", True), ("", False), ("1bad", False), ("a b", False), ("foo)", False), ("Finset.sum_range_succ", True),
     ("«a--b»", False), ("«a/-b»", False), ("«a»b", False), ("x.1", False), ("_private.Mathlib.Data.Nat.0.foo", False),
     ("Nat.le.intro", True), ("«a»", True), ("a]", False), ("e\nf", False)],
)  # fmt: skip
def test_is_lean_ident(name: str, ok: bool) -> None:
    assert is_lean_ident(name) is ok
