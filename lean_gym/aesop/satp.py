"""The SATP action layouts, as tables (``../shared/reference/satp-aesop-policy.md`` §1–§2).

* ``satp-v1``: 40 heads, ``MultiDiscrete([5]*36 + [2]*4)``, the layout of SATP v1 and of the public replay
  buffer ``ChristianZ97/NuminaMath-LEAN-satp-buffer``.
* ``satp-v2``: 69 heads, ``MultiDiscrete([10]*28 + [172]*32 + [8]*4 + [2]*5)``, the v4.27 flavour of SATP v2
  (19 lemma hosts); ``satp-v2-181`` is the v4.26 flavour (20 hosts, adds ``positivity [{L}]``).
"""

from __future__ import annotations

from lean_gym.aesop.layout import HeadSpec, RuleChoice, TableLayout, _Style

__all__ = [
    "V1_LEVELS",
    "V1_SAFE",
    "V1_SWITCHES",
    "V1_UNSAFE",
    "V2_HOSTS",
    "V2_LEVELS",
    "V2_SWITCHES",
    "V2_TACTICS",
    "satp_v1",
    "satp_v2",
]

# ---------------------------------------------------------------------------------------------- v1
V1_SAFE = ("abel", "push_neg", "zify", "ring", "field_simp", "norm_num", "norm_cast")
V1_UNSAFE = (
    "gcongr",
    "interval_cases",
    "ext",
    "exfalso",
    "split",
    "linarith",
    "nlinarith",
    "positivity",
    "omega",
    "ring_nf",
    "ring_nf at *",
    "simp",
    "simp_all",
    "field_simp [*] at *",
    "norm_num [*] at *",
    "norm_cast at *",
    "bound",
)
V1_LEMMA_K = 8
V1_LEMMA_TEMPLATE = "first | apply {L} | rw [{L}] | simp only [{L}]"
# (Aesop.Options field, value per level; level 0 is the default and is never written)
V1_LEVELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("maxRuleApplicationDepth", ("30", "50", "70", "90", "110")),
    ("maxRuleApplications", ("200", "220", "240", "260", "280")),
    ("maxNormIterations", ("100", "120", "140", "160", "180")),
    ("maxGoals", ("None", "256", "128", "64", "32")),
)
V1_SWITCHES = ("enableSimp", "useSimpAll", "enableUnfold", "useDefaultSimpSet")
_V1_GROUP = {"safe": 0, "unsafe": 1, "lemma": 2}


def _v1_sort_key(h: HeadSpec, choice: int, name: str) -> tuple[object, ...]:
    # safe, then unsafe, then lemma rules; a higher level first; then by name (tactic text or lemma name);
    # the head index only breaks ties between duplicate lemma names.
    group = _V1_GROUP[h.name.split(":", 1)[0]]
    return (group, -choice, name, h.index)


def satp_v1() -> TableLayout:
    """The 40-head SATP v1 layout (buffer positions 0–39)."""
    heads: list[HeadSpec] = []
    for t in V1_SAFE:
        rules = (None, *(RuleChoice("safe", str(5 - lv), t) for lv in range(1, 5)))
        labels = ("off", *(f"safe {5 - lv}" for lv in range(1, 5)))
        heads.append(HeadSpec(len(heads), f"safe:{t}", "tactic", labels, 0, rules))
    for t in V1_UNSAFE:
        rules = (None, *(RuleChoice("unsafe", f"{60 + 10 * lv}%", t) for lv in range(1, 5)))
        labels = ("off", *(f"unsafe {60 + 10 * lv}%" for lv in range(1, 5)))
        heads.append(HeadSpec(len(heads), f"unsafe:{t}", "tactic", labels, 0, rules))
    for r in range(V1_LEMMA_K):
        rules = (None, *(RuleChoice("unsafe", f"{10 * lv}%", V1_LEMMA_TEMPLATE) for lv in range(1, 5)))
        labels = ("off", *(f"unsafe {10 * lv}%" for lv in range(1, 5)))
        heads.append(HeadSpec(len(heads), f"lemma:{r}", "lemma", labels, 0, rules, slot=r))
    for key, vals in V1_LEVELS:
        values = (None, *vals[1:])
        heads.append(HeadSpec(len(heads), key, "level", vals, 0, key=key, values=values))
    for key in V1_SWITCHES:
        heads.append(
            HeadSpec(len(heads), key, "switch", ("false", "true"), 1, key=key, values=("false", None))
        )
    return TableLayout(
        "satp-v1",
        tuple(heads),
        V1_LEMMA_K,
        _Style(key_width=23, sort_key=_v1_sort_key),
        "SATP v1 / public buffer: 7 safe + 17 unsafe tactics, 8 lemma ranks (5 levels each), "
        "4 budget levels, 4 switches",
    )


# ---------------------------------------------------------------------------------------------- v2
V2_TACTICS = (
    "ring",
    "field_simp",
    "norm_num",
    "norm_cast",
    "linarith",
    "nlinarith",
    "positivity",
    "omega",
    "abel",
    "push_neg",
    "zify",
    "gcongr",
    "bound",
    "interval_cases",
    "ring_nf",
    "ext",
    "split",
    "exfalso",
    "simp",
    "simp_all",
    "ring_nf at *",
    "field_simp [*] at *",
    "norm_num [*] at *",
    "norm_cast at *",
    "rfl",
    "decide",
    "push_cast",
    "assumption_mod_cast",
)
V2_HOSTS = (
    "apply {L}",
    "rw [{L}]",
    "rw [{L}] at *",
    "rw [← {L}]",
    "rw [← {L}] at *",
    "simp_rw [{L}]",
    "simp only [{L}]",
    "simp only [{L}] at *",
    "simp [{L}] at *",
    "simp_all [{L}]",
    "simp_all only [{L}]",
    "norm_num [{L}] at *",
    "field_simp [{L}] at *",
    "push_cast [{L}] at *",
    "unfold {L}",
    "solve_by_elim [{L}]",
    "grind only [{L}]",
    "linarith [{L}]",
    "nlinarith [{L}]",
    "positivity [{L}]",
)
V2_LEMMA_K = 32
_V2_TYPES = ("norm", "safe", "unsafe")
_V2_PRIORITIES = {"norm": ("100", "1", "0"), "safe": ("100", "1", "0"), "unsafe": ("10%", "50%", "90%")}
# (field, value per choice, default choice)
V2_LEVELS: tuple[tuple[str, tuple[str, ...], int], ...] = (
    ("maxRuleApplications", ("40", "100", "200", "400", "700", "1100", "1600", "2400"), 2),
    ("maxRuleApplicationDepth", ("10", "20", "30", "60", "120", "220", "380", "600"), 2),
    ("maxNormIterations", ("30", "60", "100", "180", "320", "520", "800", "1200"), 2),
    ("maxGoals", ("None", "1024", "512", "256", "128", "64", "32", "16"), 0),
)
V2_SWITCHES = ("enableSimp", "useSimpAll", "enableUnfold", "useDefaultSimpSet", "enableBuiltin")


def _v2_choice(d: int) -> tuple[str, str]:
    """Phase and priority of choice ``d`` ≥ 1 of a 9-way (type × priority) block."""
    kind = _V2_TYPES[(d - 1) // 3]
    return kind, _V2_PRIORITIES[kind][(d - 1) % 3]


def _v2_sort_key(h: HeadSpec, choice: int, name: str) -> tuple[object, ...]:
    # tactic rules, then lemma rules; each by type (norm, safe, unsafe), then by pool or slot index.
    rc = h.rules[choice]
    phase = rc.phase if rc is not None else "unsafe"
    return (h.kind == "lemma", _V2_TYPES.index(phase), h.index)


def satp_v2(hosts: int = 19) -> TableLayout:
    """The 69-head SATP v2 layout; ``hosts=19`` is v4.27 (172 lemma choices), ``hosts=20`` v4.26 (181).

    Args:
        hosts: Number of lemma host tactics (19 or 20).
    """
    if hosts not in (19, 20):
        raise ValueError(f"satp-v2 has 19 (v4.27) or 20 (v4.26) lemma hosts, not {hosts}")
    heads: list[HeadSpec] = []
    for t in V2_TACTICS:
        rules: list[RuleChoice | None] = [None]
        labels = ["off"]
        for d in range(1, 10):
            phase, prio = _v2_choice(d)
            rules.append(RuleChoice(phase, prio, t))  # type: ignore[arg-type]
            labels.append(f"{phase} {prio}")
        heads.append(HeadSpec(len(heads), f"tactic:{t}", "tactic", tuple(labels), 0, tuple(rules)))
    for slot in range(V2_LEMMA_K):
        rules = [None]
        labels = ["off"]
        for v in range(1, 1 + 9 * hosts):
            host = V2_HOSTS[(v - 1) // 9]
            phase, prio = _v2_choice((v - 1) % 9 + 1)
            rules.append(RuleChoice(phase, prio, host))  # type: ignore[arg-type]
            labels.append(f"{phase} {prio} ({host})")
        heads.append(
            HeadSpec(len(heads), f"lemma:{slot}", "lemma", tuple(labels), 0, tuple(rules), slot=slot)
        )
    for key, vals, default in V2_LEVELS:
        omitted = tuple(None if c == default else v for c, v in enumerate(vals))
        heads.append(HeadSpec(len(heads), key, "level", vals, default, key=key, values=omitted))
    for key in V2_SWITCHES:
        if key == "enableBuiltin":
            clause: tuple[str | None, ...] = ("(rule_sets := [-builtin])", None)
            heads.append(HeadSpec(len(heads), key, "switch", ("false", "true"), 1, values=clause))
        else:
            heads.append(
                HeadSpec(len(heads), key, "switch", ("false", "true"), 1, key=key, values=("false", None))
            )
    name = "satp-v2" if hosts == 19 else "satp-v2-181"
    return TableLayout(
        name,
        tuple(heads),
        V2_LEMMA_K,
        _Style(key_width=0, sort_key=_v2_sort_key),
        f"SATP v2 ({'v4.27' if hosts == 19 else 'v4.26'}): 28 tactic heads (type × priority), 32 lemma slots "
        f"({hosts} hosts × type × priority), 4 budget levels, 5 switches",
    )
