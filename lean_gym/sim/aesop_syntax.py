"""The grammar of ``aesop`` / ``aesop?`` calls: parsing and elaboration of every clause.

This module turns the text of an aesop call into an :class:`AesopCall` (options, simp config, rules to add,
rules to erase, active rule sets) or raises :class:`AesopSyntaxError` with the message Lean and Aesop print
for the same mistake. It follows ``shared/reference/aesop-syntax.md`` (Aesop at ``b5b9e2b``, Lean
v4.32.0-rc1): the five clause kinds, the ``Aesop.Options`` fields, the rule-expression grammar with
features in any order and ``[…]`` branches, and the validation rules of ``validateForAdditionalRules``.

Rule *terms* are kept as text; whether a name exists (a hypothesis, a lemma of the library) is checked when
the search elaborates the rules against a goal (:mod:`lean_gym.sim.aesop`), as Aesop does.

Example:
    >>> call = parse_aesop("aesop (add unsafe 30% apply Nat.le_of_lt) (config := { maxRuleApplications := 500 })")
    >>> call.options.max_rule_applications, call.rules[0].phase, call.rules[0].priority
    (500, 'unsafe', 30)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from typing import Any

from lean_gym.lean.lexer import lex, lex_lines
from lean_gym.sim.memo import MISS, Memo
from lean_gym.sim.memo import enabled as memo_enabled

__all__ = [
    "DEFAULT_RULE_SETS",
    "KNOWN_RULE_SETS",
    "OPTION_FIELDS",
    "SIMP_CONFIG_FIELDS",
    "AesopCall",
    "AesopOptions",
    "AesopSyntaxError",
    "EraseSpec",
    "RuleSpec",
    "parse_aesop",
]


class AesopSyntaxError(Exception):
    """An aesop call Lean would reject; ``message`` is Lean's (or Aesop's) wording.

    Internal to the simulator: the tactic handler turns it into the tactic layer's error, so a bad call is
    a Lean error message (data), never an exception that reaches users.

    Attributes:
        message: The error text as Lean prints it.
        offset: Code-point offset into the parsed text where Lean reports the error.
        kind: ``"parse"`` for syntax errors, ``"elab"`` for elaboration errors.
    """

    def __init__(self, message: str, offset: int = 0, kind: str = "elab") -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.kind = kind


# ------------------------------------------------------------------------------------------- options

_STRATEGIES = ("bestFirst", "depthFirst", "breadthFirst")
_TRANSPARENCIES = ("all", "default", "reducible", "instances")


@dataclass(frozen=True)
class AesopOptions:
    """``Aesop.Options`` with Aesop's defaults; attribute names are the snake_case of the Lean fields."""

    strategy: str = "bestFirst"
    max_rule_application_depth: int = 30
    max_rule_applications: int = 200
    max_goals: int = 0
    max_norm_iterations: int = 100
    max_safe_prefix_rule_applications: int = 50
    apply_hyps_transparency: str = "default"
    assumption_transparency: str = "default"
    destruct_products_transparency: str = "reducible"
    intros_transparency: str | None = None
    terminal: bool = False
    warn_on_nonterminal: bool = True
    trace_script: bool = False
    enable_simp: bool = True
    use_simp_all: bool = True
    use_default_simp_set: bool = True
    enable_unfold: bool = True


# Lean field name -> (python attribute, kind)
OPTION_FIELDS: dict[str, tuple[str, str]] = {
    "strategy": ("strategy", "strategy"),
    "maxRuleApplicationDepth": ("max_rule_application_depth", "nat"),
    "maxRuleApplications": ("max_rule_applications", "nat"),
    "maxGoals": ("max_goals", "nat"),
    "maxNormIterations": ("max_norm_iterations", "nat"),
    "maxSafePrefixRuleApplications": ("max_safe_prefix_rule_applications", "nat"),
    "applyHypsTransparency": ("apply_hyps_transparency", "transparency"),
    "assumptionTransparency": ("assumption_transparency", "transparency"),
    "destructProductsTransparency": ("destruct_products_transparency", "transparency"),
    "introsTransparency?": ("intros_transparency", "option_transparency"),
    "terminal": ("terminal", "bool"),
    "warnOnNonterminal": ("warn_on_nonterminal", "bool"),
    "traceScript": ("trace_script", "bool"),
    "enableSimp": ("enable_simp", "bool"),
    "useSimpAll": ("use_simp_all", "bool"),
    "useDefaultSimpSet": ("use_default_simp_set", "bool"),
    "enableUnfold": ("enable_unfold", "bool"),
}

# Fields of Lean.Meta.Simp.Config (and ConfigCtx, which has the same names) with their kinds.
SIMP_CONFIG_FIELDS: dict[str, str] = {
    "maxSteps": "nat",
    "maxDischargeDepth": "nat",
    "contextual": "bool",
    "memoize": "bool",
    "singlePass": "bool",
    "zeta": "bool",
    "beta": "bool",
    "eta": "bool",
    "etaStruct": "eta_struct",
    "iota": "bool",
    "proj": "bool",
    "decide": "bool",
    "arith": "bool",
    "autoUnfold": "bool",
    "dsimp": "bool",
    "failIfUnchanged": "bool",
    "ground": "bool",
    "unfoldPartialApp": "bool",
    "zetaDelta": "bool",
    "index": "bool",
    "implicitDefEqProofs": "bool",
    "zetaUnused": "bool",
    "catchRuntime": "bool",
}

_KIND_TYPE = {
    "nat": "Nat",
    "bool": "Bool",
    "strategy": "Aesop.Strategy",
    "transparency": "Lean.Meta.TransparencyMode",
    "option_transparency": "Option Lean.Meta.TransparencyMode",
    "eta_struct": "Lean.Meta.EtaStructMode",
}

#: Rule sets that exist with ``import Mathlib`` (Aesop's own and Mathlib's declared sets).
KNOWN_RULE_SETS = frozenset(
    {
        "builtin",
        "default",
        "local",
        "Continuous",
        "Measurable",
        "SimpleGraph",
        "CategoryTheory",
        "finiteness",
        "Bound",
        "Sym2",
        "Matroid",
        "CStarAlgebra",
        "SetLike",
        "SetLike!",
    }
)
#: Rule sets active when no ``rule_sets`` clause changes them.
DEFAULT_RULE_SETS = frozenset({"builtin", "default", "SetLike"})


# --------------------------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class RuleSpec:
    """One rule added by an ``(add …)`` clause, after Aesop's defaulting and validation.

    Attributes:
        phase: ``"safe"``, ``"norm"`` or ``"unsafe"``.
        priority: The penalty (safe/norm, lower runs first) or the success probability in percent (unsafe).
        builder: The builder as written (``"default"`` when none was given, resolved at elaboration).
        term: The rule term's text: an identifier, or for a ``(by T)`` term the tactic text ``T``.
        is_tactic: True for a ``(by T)`` term.
        immediate: Names given in ``(immediate := [...])``.
        transparency: Builder transparency (bare keyword) when given.
        index_ok: False when ``transparency!`` un-indexed the rule (kept for completeness).
        rule_sets: Rule sets named in a ``(rule_sets := [...])`` feature of the rule.
        source: The rule's text as written in the call, for messages and scripts.
    """

    phase: str
    priority: int
    builder: str
    term: str
    is_tactic: bool = False
    immediate: tuple[str, ...] = ()
    transparency: str | None = None
    index_ok: bool = True
    rule_sets: tuple[str, ...] = ()
    source: str = ""


@dataclass(frozen=True)
class EraseSpec:
    """One rule filter of an ``(erase …)`` clause."""

    name: str
    phase: str | None = None
    builder: str | None = None


@dataclass(frozen=True)
class AesopCall:
    """A parsed and elaborated aesop call.

    Attributes:
        traced: True for ``aesop?`` (forces ``traceScript``).
        options: The final ``Aesop.Options`` (the last config clause wins).
        simp_config: The last ``simp_config`` clause's fields, in order.
        rules: Rules of all ``add`` clauses, in order.
        erases: Filters of all ``erase`` clauses, in order (applied after all adds).
        rule_sets: The active rule sets after all ``rule_sets`` clauses.
        config_given: True when a ``(config := …)`` clause appeared.
    """

    traced: bool = False
    options: AesopOptions = field(default_factory=AesopOptions)
    simp_config: tuple[tuple[str, Any], ...] = ()
    rules: tuple[RuleSpec, ...] = ()
    erases: tuple[EraseSpec, ...] = ()
    rule_sets: frozenset[str] = DEFAULT_RULE_SETS
    config_given: bool = False


# ------------------------------------------------------------------------------------------- scanner

_IDENT_RE = re.compile(
    r"(?:«[^»]*»|[A-Za-z_\u00C0-\u024F\u0370-\u03FF\u1F00-\u1FFF\u2100-\u214F]"
    r"[A-Za-z0-9_'!?\u00C0-\u024F\u0370-\u03FF\u1F00-\u1FFF\u2080-\u209C\u2100-\u214F]*)"
    r"(?:\.(?:«[^»]*»|[A-Za-z_\u00C0-\u024F\u0370-\u03FF\u1F00-\u1FFF\u2100-\u214F]"
    r"[A-Za-z0-9_'!?\u00C0-\u024F\u0370-\u03FF\u1F00-\u1FFF\u2080-\u209C\u2100-\u214F]*))*"
)
_NUM_RE = re.compile(r"[0-9]+")
_SPACES = re.compile(r"[ \t\r\n]*").match
_KEYWORDS = frozenset({"by", "fun", "at", "with", "from", "have", "show", "then", "else", "if", "do"})
_PHASES = ("safe", "norm", "unsafe")
_BUILDERS = ("apply", "forward", "destruct", "constructors", "cases", "simp", "unfold", "tactic", "default")
_BUILDER_OPTIONS = ("immediate", "index", "pattern", "cases_patterns", "transparency", "transparency!")


def _comment_end(text: str, i: int) -> int:
    """The end of the comment at ``text[i]`` (``--`` or a nested ``/- -/``), as the one lexer reads it."""
    toks = lex(text, i)
    return toks[0].end if toks else len(text)


class _Scanner:
    """A cursor over the call text with Lean-style error reporting."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def skip_ws(self) -> None:
        t = self.text
        if self.i >= len(t):
            return
        i = _SPACES(t, self.i).end()  # type: ignore[union-attr]  # the pattern matches the empty string
        while t.startswith("--", i) or t.startswith("/-", i):
            i = _SPACES(t, _comment_end(t, i)).end()  # type: ignore[union-attr]
        self.i = i

    def at_end(self) -> bool:
        self.skip_ws()
        return self.i >= len(self.text)

    def peek(self, s: str) -> bool:
        self.skip_ws()
        return self.text.startswith(s, self.i)

    def describe_next(self) -> str:
        """Lean's description of the next token: ``token 'x'``, ``identifier`` or ``end of input``."""
        self.skip_ws()
        if self.i >= len(self.text):
            return "end of input"
        m = _IDENT_RE.match(self.text, self.i)
        if m is not None and m.group(0) not in _KEYWORDS:
            return "identifier"
        if _NUM_RE.match(self.text, self.i):
            return "numeral"  # Lean says "unexpected numeral"? it prints the token; keep it short
        tok = self.text[self.i]
        for sym in (":=", "..", "←", "=>"):
            if self.text.startswith(sym, self.i):
                tok = sym
                break
        else:
            if m is not None:
                tok = m.group(0)
        return f"token '{tok}'"

    def error(self, expected: str) -> AesopSyntaxError:
        what = self.describe_next()
        if what == "numeral":
            what = "token '" + _NUM_RE.match(self.text, self.i).group(0) + "'"  # type: ignore[union-attr]
        if what == "end of input":
            return AesopSyntaxError(f"unexpected end of input; expected {expected}", self.i, "parse")
        return AesopSyntaxError(f"unexpected {what}; expected {expected}", self.i, "parse")

    def expect(self, s: str, expected: str | None = None) -> None:
        if not self.peek(s):
            raise self.error(expected or f"'{s}'")
        self.i += len(s)

    def ident(self, expected: str = "identifier") -> str:
        self.skip_ws()
        m = _IDENT_RE.match(self.text, self.i)
        if m is None or m.group(0) in _KEYWORDS:
            raise self.error(expected)
        self.i = m.end()
        return m.group(0)

    def try_ident(self) -> str | None:
        self.skip_ws()
        m = _IDENT_RE.match(self.text, self.i)
        if m is None or m.group(0) in _KEYWORDS:
            return None
        self.i = m.end()
        return m.group(0)

    def balanced_until_close(self) -> str:
        """Text up to (not including) the ``)`` closing the current parenthesis, nesting-aware."""
        t = self.text
        start = self.i
        pairs = {"(": ")", "[": "]", "{": "}", "⟨": "⟩"}
        stack: list[str] = []
        # the one lexer decides where comments, strings and character literals end
        for tok in lex(t, start):
            if tok.kind != "sym":
                continue
            c = tok.text
            if c in pairs:
                stack.append(pairs[c])
            elif c in ")]}⟩":
                j = tok.start
                if not stack:
                    self.i = j
                    if c == ")":
                        return t[start:j]
                    raise self.error("term")
                if stack[-1] != c:
                    self.i = j
                    raise self.error(f"'{stack[-1]}'")
                stack.pop()
        self.i = len(t)
        raise self.error("')'")


# ---------------------------------------------------------------------------------------- entry point

_CLAUSES = Memo("aesop.clauses", max_entries=16_384, max_bytes=16 << 20)
# Each line's bracket tokens ``(text, start, end)``, offsets into the line, or ``None`` when the line cannot
# be read alone (see ``lexer.lex_lines``): finding the clauses of a call reads its lines' brackets only.
_LINE_BRACKETS = Memo("aesop.line_brackets", max_entries=16_384, max_bytes=8 << 20)
_PAIRS = {"(": ")", "[": "]", "{": "}", "⟨": "⟩"}
_BRACKETS = frozenset("()[]{}⟨⟩")


def _brackets_of_line(line: str) -> tuple[tuple[str, int, int], ...] | None:
    lines = lex_lines(line)
    if lines is None:
        return None
    return tuple((c, s, e) for kind, s, e, c, *_ in lines[0][1] if kind == "sym" and c in _BRACKETS)


def _line_brackets(text: str) -> list[tuple[int, tuple[tuple[str, int, int], ...]]] | None:
    """``(offset of the line, its bracket tokens)`` for every line of ``text``, or ``None`` when ``text``
    cannot be read line by line (then the whole text is lexed)."""
    on = memo_enabled()
    out = []
    off = 0
    for line in text.split("\n"):
        got = _LINE_BRACKETS.get(line) if on else MISS
        if got is MISS:
            got = _brackets_of_line(line)
            if on:
                _LINE_BRACKETS.put(line, got, 100 + len(line) + 40 * len(got or ()))
        if got is None:
            return None
        out.append((off, got))
        off += len(line) + 1
    return out


def _clause_ends(text: str) -> dict[int, int]:
    """Offset of every ``(`` token of ``text`` → the offset after its matching ``)`` (read by the one lexer;
    brackets of every kind nest; a ``(`` without a well-nested match is left out)."""
    pairs = _PAIRS
    out: dict[int, int] = {}
    stack: list[tuple[str, int]] = []
    lines = _line_brackets(text)
    if lines is None:
        toks = [(t.text, t.start, t.end) for t in lex(text) if t.kind == "sym" and t.text in _BRACKETS]
        lines = [(0, tuple(toks))]
    for off, brackets in lines:
        for c, s, e in brackets:
            if c in pairs:
                stack.append((pairs[c], off + s))
            else:
                if not stack or stack[-1][0] != c:
                    stack.clear()  # badly nested: nothing before this point is matched
                    continue
                _, start = stack.pop()
                if c == ")":
                    out[start] = off + e
    return out


def parse_aesop(text: str) -> AesopCall:
    """Parse and elaborate the text of one ``aesop``/``aesop?`` call.

    Args:
        text: The tactic text, starting with ``aesop`` or ``aesop?`` (leading whitespace allowed). Clauses
            may span several lines (the SATP canonical form does).

    Returns:
        The elaborated call.

    Raises:
        AesopSyntaxError: With Lean's message, for parse errors (``kind="parse"``) and for errors Lean or
            Aesop report while elaborating the clauses (``kind="elab"``).
    """
    sc = _Scanner(text)
    sc.skip_ws()
    if text.startswith("aesop?", sc.i):
        traced = True
        sc.i += 6
    elif text.startswith("aesop", sc.i):
        traced = False
        sc.i += 5
        m = _IDENT_RE.match(text, sc.i)
        if m is not None and sc.i < len(text) and not text[sc.i].isspace() and text[sc.i] != "(":
            raise AesopSyntaxError(f"unknown tactic '{'aesop' + m.group(0)}'", 0, "parse")
    else:
        raise AesopSyntaxError("expected 'aesop' or 'aesop?'", sc.i, "parse")
    options: AesopOptions | None = None
    simp_config: tuple[tuple[str, Any], ...] = ()
    rules: list[RuleSpec] = []
    erases: list[EraseSpec] = []
    rs_clauses: list[tuple[tuple[str, bool], ...]] = []
    ends: dict[int, int] | None = None
    while not sc.at_end():
        if not sc.peek("("):
            raise sc.error("'(' or end of tactic")
        # A clause is parsed once per process: what it yields depends on its own text only (it carries no
        # offsets), so a clause met again (every action repeats most of the last one's) is looked up.
        if ends is None:
            ends = _clause_ends(text)
        clause_start = sc.i
        clause_end = ends.get(clause_start, -1)
        key = text[clause_start:clause_end] if clause_end > 0 else None
        got = _CLAUSES.get(key) if key is not None and memo_enabled() else MISS
        if got is not MISS:
            kw, value = got
            sc.i = clause_end
        else:
            sc.i += 1
            kw = sc.try_ident()
            if kw == "add":
                value = tuple(_parse_add(sc))
            elif kw == "erase":
                value = tuple(_parse_erase(sc))
            elif kw == "rule_sets":
                sc.expect(":=")
                value = _parse_rule_set_list(sc)
                sc.expect(")")
            elif kw == "config":
                sc.expect(":=")
                value = _parse_options(sc)
                sc.expect(")")
            elif kw == "simp_config":
                sc.expect(":=")
                value = _parse_simp_config(sc)
                sc.expect(")")
            else:
                sc.i -= 0 if kw is None else len(kw)
                raise sc.error("'add', 'config', 'erase', 'rule_sets' or 'simp_config'")
            if key is not None and sc.i == clause_end and memo_enabled():
                _CLAUSES.put(key, (kw, value), 400 + 4 * len(key))
        if kw == "add":
            rules.extend(value)
        elif kw == "erase":
            erases.extend(value)
        elif kw == "rule_sets":
            rs_clauses.append(value)
        elif kw == "config":
            options = value
        else:
            simp_config = value
    opts = options or AesopOptions()
    if traced:
        opts = replace(opts, trace_script=True)
    active = set(DEFAULT_RULE_SETS)
    for clause in rs_clauses:
        for name, enable in clause:
            if name not in KNOWN_RULE_SETS:
                raise AesopSyntaxError(
                    f"no such rule set: '{name}'\n  (Use 'declare_aesop_rule_set' to declare rule sets.\n"
                    "   Declared rule sets are not visible in the current file; they only become visible once "
                    "you import the declaring file.)"
                )
            if enable:
                if name in active:
                    raise AesopSyntaxError(
                        f"aesop: trying to add rule set '{name}', but it is already active"
                    )
                active.add(name)
            else:
                if name not in active:
                    raise AesopSyntaxError(f"aesop: trying to remove rule set '{name}', but it is not active")
                active.discard(name)
    return AesopCall(
        traced=traced,
        options=opts,
        simp_config=simp_config,
        rules=tuple(rules),
        erases=tuple(erases),
        rule_sets=frozenset(active),
        config_given=options is not None,
    )


# ----------------------------------------------------------------------------------- config clauses


def _parse_value(sc: _Scanner) -> tuple[str, Any, int]:
    """One closed value: returns (kind-guess, value, start offset)."""
    sc.skip_ws()
    start = sc.i
    if sc.peek("("):
        sc.i += 1
        kind, val, _ = _parse_value(sc)
        sc.expect(")")
        return kind, val, start
    m = _NUM_RE.match(sc.text, sc.i)
    if m is not None:
        sc.i = m.end()
        return "nat", int(m.group(0)), start
    if sc.peek("."):
        sc.i += 1
        name = sc.ident("identifier")
        return "dot", name, start
    word = sc.try_ident()
    if word is None:
        raise sc.error("term")
    if word in ("true", "false", "Bool.true", "Bool.false", "True", "False"):
        return "bool", word.endswith("true") or word == "True", start
    if word in ("none", "Option.none"):
        return "none", None, start
    if word in ("some", "Option.some"):
        kind, val, _ = _parse_value(sc)
        return "some", (kind, val), start
    return "name", word, start


def _coerce(kind: str, got: tuple[str, Any, int], field_name: str, sc: _Scanner) -> Any:
    gk, val, start = got
    expected_type = _KIND_TYPE[kind]
    if kind == "nat":
        if gk == "nat":
            return val
        raise _type_mismatch(sc, start, val, gk, expected_type)
    if kind == "bool":
        if gk == "bool":
            return val
        raise _type_mismatch(sc, start, val, gk, expected_type)
    if kind in ("strategy", "transparency", "eta_struct"):
        allowed = {
            "strategy": (_STRATEGIES, ("Aesop.Strategy.",)),
            "transparency": (_TRANSPARENCIES, ("Lean.Meta.TransparencyMode.", "TransparencyMode.")),
            "eta_struct": (("all", "none", "notClasses"), ("Lean.Meta.EtaStructMode.", "EtaStructMode.")),
        }[kind]
        names, prefixes = allowed
        if gk == "dot":
            if val in names:
                return val
            raise AesopSyntaxError(f"unknown constant '{expected_type}.{val}'", start)
        if gk == "name":
            for p in prefixes:
                if val.startswith(p) and val[len(p) :] in names:
                    return val[len(p) :]
            raise AesopSyntaxError(f"unknown identifier '{val}'", start)
        raise _type_mismatch(sc, start, val, gk, expected_type)
    if kind == "option_transparency":
        if gk == "none":
            return None
        if gk == "some":
            inner_kind, inner_val = val
            return _coerce("transparency", (inner_kind, inner_val, start), field_name, sc)
        if gk in ("dot", "name"):
            return _coerce("transparency", got, field_name, sc)
        raise _type_mismatch(sc, start, val, gk, expected_type)
    raise AesopSyntaxError(f"internal: unknown field kind {kind}", start)


def _type_mismatch(sc: _Scanner, start: int, val: Any, got_kind: str, expected: str) -> AesopSyntaxError:
    if got_kind == "name":
        return AesopSyntaxError(f"unknown identifier '{val}'", start)
    text = {"nat": str(val), "bool": "true" if val is True else "false"}.get(got_kind, str(val))
    has = {"nat": "ℕ", "bool": "Bool"}.get(got_kind, "?")
    if got_kind == "nat" and expected == "Bool":
        return AesopSyntaxError(
            f"failed to synthesize\n  OfNat Bool {val}\nnumerals are polymorphic in Lean, but the numeral "
            f"`{val}` cannot be used in a context where the expected type is\n  Bool\ndue to the absence of "
            "the instance above",
            start,
        )
    return AesopSyntaxError(
        f"type mismatch\n  {text}\nhas type\n  {has} : Type\nbut is expected to have type\n  {expected} : Type",
        start,
    )


def _parse_struct_fields(sc: _Scanner, struct: str, known: dict[str, str]) -> list[tuple[str, Any]]:
    """``{ f := v, g := w }`` (fields separated by commas or line breaks) or ``{}``."""
    sc.expect("{", "'{'")
    out: list[tuple[str, Any]] = []
    seen: set[str] = set()
    while True:
        sc.skip_ws()
        if sc.peek("}"):
            sc.i += 1
            return out
        fstart = sc.i
        fname = sc.ident("'}'")
        # ``introsTransparency?`` is one field name; the identifier regex keeps the trailing ``?``
        if fname not in known:
            raise AesopSyntaxError(f"`{fname}` is not a field of structure `{struct}`", fstart)
        if fname in seen:
            raise AesopSyntaxError(f"field '{fname}' has already been specified", fstart)
        seen.add(fname)
        sc.expect(":=")
        val = _coerce(known[fname], _parse_value(sc), fname, sc)
        out.append((fname, val))
        end = sc.i
        sc.skip_ws()
        if sc.peek(","):
            sc.i += 1
            continue
        if sc.peek("}") or "\n" in sc.text[end : sc.i]:
            continue
        raise sc.error("'}'")


def _parse_options(sc: _Scanner) -> AesopOptions:
    sc.skip_ws()
    kinds = {k: v[1] for k, v in OPTION_FIELDS.items()}
    if not sc.peek("{"):
        got = _parse_value(sc)
        raise _type_mismatch(sc, got[2], got[1], got[0], "Aesop.Options")
    values = _parse_struct_fields(sc, "Aesop.Options", kinds)
    return AesopOptions(**{OPTION_FIELDS[k][0]: v for k, v in values})


def _parse_simp_config(sc: _Scanner) -> tuple[tuple[str, Any], ...]:
    sc.skip_ws()
    if not sc.peek("{"):
        got = _parse_value(sc)
        raise _type_mismatch(sc, got[2], got[1], got[0], "Lean.Meta.Simp.ConfigCtx")
    return tuple(_parse_struct_fields(sc, "Lean.Meta.Simp.ConfigCtx", SIMP_CONFIG_FIELDS))


def _parse_rule_set_list(sc: _Scanner) -> tuple[tuple[str, bool], ...]:
    sc.expect("[", "'['")
    out: list[tuple[str, bool]] = []
    while True:
        enable = True
        if sc.peek("-"):
            sc.i += 1
            enable = False
        out.append((sc.ident(), enable))
        if sc.peek(","):
            sc.i += 1
            if sc.peek("]"):
                sc.i += 1
                return tuple(out)
            continue
        sc.expect("]", "',' or ']'")
        return tuple(out)


# ------------------------------------------------------------------------------------ rule expressions


@dataclass
class _Feature:
    kind: str  # phase, priority, builder, option, rule_sets, term
    value: Any
    offset: int
    text: str = ""


@dataclass
class _RuleExpr:
    feature: _Feature
    children: list[_RuleExpr]


def _parse_feature(sc: _Scanner) -> _Feature:
    sc.skip_ws()
    start = sc.i
    t = sc.text
    if t.startswith("(", sc.i):
        sc.i += 1
        sc.skip_ws()
        m = _IDENT_RE.match(t, sc.i)
        word = m.group(0) if m is not None else ""
        after = m.end() if m is not None else sc.i
        rest_is_assign = t[after:].lstrip(" \t\r\n").startswith(":=") if m is not None else False
        if word in _BUILDER_OPTIONS and rest_is_assign:
            sc.i = after
            sc.expect(":=")
            opt = _parse_builder_option(sc, word)
            sc.expect(")")
            return _Feature("option", (word, opt), start, t[start : sc.i])
        if word == "rule_sets" and rest_is_assign:
            sc.i = after
            sc.expect(":=")
            names = _parse_rule_set_list(sc)
            for _name, enable in names:
                if not enable:
                    raise AesopSyntaxError("unexpected token '-'; expected identifier", start, "parse")
            sc.expect(")")
            return _Feature("rule_sets", tuple(n for n, _ in names), start, t[start : sc.i])
        inner_start = sc.i
        body = sc.balanced_until_close()
        sc.expect(")")
        body_s = body.strip()
        if not body_s:
            sc.i = inner_start
            raise sc.error("term")
        if body_s.startswith("by") and (len(body_s) == 2 or not (body_s[2].isalnum() or body_s[2] == "_")):
            tac = body_s[2:].strip()
            if not tac:
                raise AesopSyntaxError("unexpected token ')'; expected tactic", sc.i - 1, "parse")
            return _Feature("term", ("tactic", tac), start, t[start : sc.i])
        m2 = _IDENT_RE.fullmatch(body_s)
        if m2 is not None:
            return _Feature("term", ("ident", body_s), start, t[start : sc.i])
        return _Feature("term", ("composite", body_s), start, t[start : sc.i])
    m = _NUM_RE.match(t, sc.i)
    if m is not None or t.startswith("-", sc.i):
        neg = t.startswith("-", sc.i)
        if neg:
            sc.i += 1
            m = _NUM_RE.match(t, sc.i)
            if m is None:
                raise sc.error("numeral")
        sc.i = m.end()  # type: ignore[union-attr]
        n = int(m.group(0))  # type: ignore[union-attr]
        if not neg and t.startswith("%", sc.i):
            sc.i += 1
            return _Feature("priority", ("percent", n), start, t[start : sc.i])
        return _Feature("priority", ("int", -n if neg else n), start, t[start : sc.i])
    m = _IDENT_RE.match(t, sc.i)
    if m is None or m.group(0) in _KEYWORDS:
        raise sc.error("term")
    word = m.group(0)
    sc.i = m.end()
    if word in _PHASES:
        return _Feature("phase", word, start, word)
    if word in _BUILDERS:
        return _Feature("builder", word, start, word)
    return _Feature("term", ("ident", word), start, word)


def _parse_builder_option(sc: _Scanner, word: str) -> Any:
    if word == "immediate":
        sc.expect("[", "'['")
        names = [sc.ident()]
        while sc.peek(","):
            sc.i += 1
            if sc.peek("]"):
                break
            names.append(sc.ident())
        sc.expect("]", "',' or ']'")
        return tuple(names)
    if word in ("transparency", "transparency!"):
        sc.skip_ws()
        w = sc.try_ident()
        if w not in _TRANSPARENCIES:
            if w is not None:
                sc.i -= len(w)
            raise sc.error("'all', 'default', 'instances' or 'reducible'")
        return w
    if word == "index":
        sc.expect("[", "'['")
        modes: list[str] = []
        while True:
            sc.skip_ws()
            w = sc.try_ident()
            if w == "unindexed":
                modes.append("unindexed")
            elif w in ("target", "hyp"):
                modes.append(w + " " + _term_until(sc, ",]").strip())
            else:
                if w is not None:
                    sc.i -= len(w)
                raise sc.error("'hyp', 'target' or 'unindexed'")
            if sc.peek(","):
                sc.i += 1
                if sc.peek("]"):
                    break
                continue
            break
        sc.expect("]", "',' or ']'")
        return tuple(modes)
    if word == "pattern":
        return _term_until(sc, ")").strip()
    if word == "cases_patterns":
        sc.expect("[", "'['")
        pats = [_term_until(sc, ",]").strip()]
        while sc.peek(","):
            sc.i += 1
            if sc.peek("]"):
                break
            pats.append(_term_until(sc, ",]").strip())
        sc.expect("]", "',' or ']'")
        return tuple(pats)
    raise sc.error("builder option")


def _term_until(sc: _Scanner, stops: str) -> str:
    """A term: text up to the first unnested character of ``stops``."""
    t = sc.text
    start = sc.i
    stack: list[str] = []
    pairs = {"(": ")", "[": "]", "{": "}", "⟨": "⟩"}
    j = sc.i
    while j < len(t):
        c = t[j]
        if not stack and c in stops:
            break
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")]}⟩":
            if not stack:
                break
            stack.pop()
        j += 1
    sc.i = j
    if not t[start:j].strip():
        raise sc.error("term")
    return t[start:j]


def _parse_rule_expr(sc: _Scanner) -> _RuleExpr:
    feat = _parse_feature(sc)
    sc.skip_ws()
    if sc.peek("["):
        sc.i += 1
        children = [_parse_rule_expr(sc)]
        while sc.peek(","):
            sc.i += 1
            if sc.peek("]"):
                break
            children.append(_parse_rule_expr(sc))
        sc.expect("]", "',' or ']'")
        return _RuleExpr(feat, children)
    if sc.peek(",") or sc.peek(")") or sc.peek("]"):
        return _RuleExpr(feat, [])
    if sc.at_end():
        raise sc.error("')'")
    return _RuleExpr(feat, [_parse_rule_expr(sc)])


def _branches(e: _RuleExpr, prefix: tuple[_Feature, ...] = ()) -> list[tuple[_Feature, ...]]:
    here = (*prefix, e.feature)
    if not e.children:
        return [here]
    out: list[tuple[_Feature, ...]] = []
    for c in e.children:
        out.extend(_branches(c, here))
    return out


def _parse_rule_list(sc: _Scanner) -> list[_RuleExpr]:
    sc.skip_ws()
    if sc.peek(")"):
        raise sc.error("term")
    exprs = [_parse_rule_expr(sc)]
    while sc.peek(","):
        sc.i += 1
        if sc.peek(")"):
            break
        exprs.append(_parse_rule_expr(sc))
    sc.expect(")", "',' or ')'")
    return exprs


def _collect(branch: tuple[_Feature, ...], allow_priority: bool) -> dict[str, Any]:
    c: dict[str, Any] = {"term": None, "phase": None, "priority": None, "builder": None, "opts": [], "rs": []}
    for f in branch:
        if f.kind == "term":
            if c["term"] is not None:
                raise AesopSyntaxError(
                    f"duplicate rule '{f.text}'; rule '{c['term_text']}' was already given.\n"
                    "Use [<term>,...] to give multiple rules.",
                    f.offset,
                )
            c["term"] = f.value
            c["term_text"] = f.text
            c["term_offset"] = f.offset
        elif f.kind == "phase":
            c["phase"] = f.value
        elif f.kind == "priority":
            if not allow_priority:
                raise AesopSyntaxError("unexpected priority.", f.offset)
            kind, n = f.value
            if kind == "percent" and n > 100:
                raise AesopSyntaxError(f"percentage '{n}%' is not between 0 and 100.", f.offset)
            c["priority"] = f.value
        elif f.kind == "builder":
            c["builder"] = f.value
        elif f.kind == "option":
            c["opts"].append(f.value)
        elif f.kind == "rule_sets":
            c["rs"].extend(f.value)
    if c["term"] is None:
        raise AesopSyntaxError("missing rule", branch[0].offset)
    return c


def _parse_add(sc: _Scanner) -> list[RuleSpec]:
    start = sc.i
    exprs = _parse_rule_list(sc)
    out: list[RuleSpec] = []
    for e in exprs:
        for branch in _branches(e):
            out.append(_validate_add(branch, start))
    return out


def _validate_add(branch: tuple[_Feature, ...], clause_offset: int) -> RuleSpec:
    c = _collect(branch, allow_priority=True)
    phase, prio, builder = c["phase"], c["priority"], c["builder"]
    off = c["term_offset"]
    if builder == "simp":
        if phase is None:
            phase = "norm"
        if prio is None:
            prio = ("int", 1000)  # eval_prio default
    if phase is None:
        if prio is not None and prio[0] == "percent":
            phase = "unsafe"
        else:
            raise AesopSyntaxError("phase (safe/unsafe/norm) not specified.", off)
    if prio is None:
        prio = ("percent", 50) if phase == "unsafe" else ("int", 1)
    if phase == "unsafe" and prio[0] != "percent":
        raise AesopSyntaxError(
            "unsafe rules must specify a success probability (not an integer penalty)", off
        )
    if phase in ("safe", "norm") and prio[0] != "int":
        raise AesopSyntaxError(
            f"{phase} rules must specify an integer penalty (not a success probability)", off
        )
    kind, term = c["term"]
    if builder is None:
        builder = "tactic" if kind == "tactic" else "default"
    if builder == "simp":
        if phase != "norm":
            raise AesopSyntaxError("aesop: simp builder: simp rules must be norm rules", off)
        if prio[1] < 0:
            raise AesopSyntaxError("simp rules must specify a non-negative integer priority", off)
    if builder == "cases" and phase == "norm":
        raise AesopSyntaxError("aesop: cases builder: cases rules cannot be norm rules", off)
    if builder == "unfold" and phase != "norm":
        raise AesopSyntaxError("aesop: unfold builder: unfold rules must be norm rules", off)
    if builder == "tactic" and kind == "composite":
        raise AesopSyntaxError(
            "aesop: tactic builder: expected a tactic of type TacticM Unit, SingleRuleTac, RuleTac or TacGen",
            off,
        )
    if builder in ("constructors", "cases", "unfold") and kind != "ident":
        raise AesopSyntaxError(f"aesop: {builder} builder: expected a global constant", off)
    if kind == "tactic" and builder not in ("tactic", "default"):
        raise AesopSyntaxError(
            f"aesop: {builder} builder: expected a constant or hypothesis, not a tactic", off
        )
    immediate: tuple[str, ...] = ()
    transparency = None
    index_ok = True
    for name, val in c["opts"]:
        if name == "immediate":
            if builder not in ("apply", "forward", "destruct", "default"):
                raise AesopSyntaxError(
                    f"aesop: {builder} builder does not support the 'immediate' option", off
                )
            immediate = val
        elif name in ("transparency", "transparency!"):
            transparency = val
            index_ok = name == "transparency"
    return RuleSpec(
        phase=phase,
        priority=int(prio[1]),
        builder=builder,
        term=term,
        is_tactic=kind == "tactic",
        immediate=immediate,
        transparency=transparency,
        index_ok=index_ok,
        rule_sets=tuple(c["rs"]),
        source=" ".join(f.text for f in branch),
    )


def _parse_erase(sc: _Scanner) -> list[EraseSpec]:
    exprs = _parse_rule_list(sc)
    out: list[EraseSpec] = []
    for e in exprs:
        for branch in _branches(e):
            c = _collect(branch, allow_priority=False)
            kind, term = c["term"]
            if kind != "ident":
                raise AesopSyntaxError("erase rule must be a name, not a composite term", c["term_offset"])
            if c["builder"] == "default":
                raise AesopSyntaxError(
                    "default cannot be used when erasing rules.\nUse the corresponding non-default builder "
                    "(e.g. 'apply' or 'constructors') instead.",
                    c["term_offset"],
                )
            out.append(EraseSpec(term, c["phase"], c["builder"]))
    return out


def option_items(opts: AesopOptions) -> list[tuple[str, Any]]:
    """The non-default fields of ``opts`` as (Lean field name, value) pairs, in declaration order."""
    default = AesopOptions()
    by_attr = {v[0]: k for k, v in OPTION_FIELDS.items()}
    return [
        (by_attr[f.name], getattr(opts, f.name))
        for f in fields(AesopOptions)
        if getattr(opts, f.name) != getattr(default, f.name)
    ]
