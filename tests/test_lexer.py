"""The one Lean lexer, and the four readers of submitted text that use it.

Lean's token rules (``src/Lean/Parser/Basic.lean``) decide where every comment, string, character literal
and name ends. The policy scan, the statement check, the header split and the simulator's tokenizer must
all end them there: a reader that disagrees lets a banned construct hide from the scan while Lean runs it.
The hand-written cases pin each rule; the ``hypothesis`` property builds hostile nestings whose Lean
reading is known by construction and checks every reader against it.
"""

from __future__ import annotations

import os
import re
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lean_gym.backends.sim import SimBackend
from lean_gym.grading.oracle import analyse
from lean_gym.grading.policy import scan, strip_comments_and_strings
from lean_gym.grading.statement import declarations
from lean_gym.lean.header import split_header
from lean_gym.lean.lexer import (
    AMBIGUOUS_QUOTE,
    LexError,
    ident_value,
    is_plain_ident,
    lex,
    lex_errors,
    numeral_value,
)
from lean_gym.sim.syntax import ParseError, parse_term_text, tokenize


def code(src: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in lex(src) if t.kind != "comment"]


# ------------------------------------------------------------------------------------- token rules


@pytest.mark.parametrize(
    ("src", "want"),
    [
        ("/- a /- b -/ c -/ x", [("ident", "x")]),
        ("/-- doc /- nested -/ -/ x", [("doc", "/-- doc /- nested -/ -/"), ("ident", "x")]),
        ("/-! mod -/", [("doc", "/-! mod -/")]),
        ("-- a /- b\nx", [("ident", "x")]),
        ('"a -- b /- c"', [("str", '"a -- b /- c"')]),
        ('"-/" x', [("str", '"-/"'), ("ident", "x")]),
        ('"a\\"b\\\\" x', [("str", '"a\\"b\\\\"'), ("ident", "x")]),
        ('"\\x41\\u00e9\\t\\n\\r\\\'" x', [("str", '"\\x41\\u00e9\\t\\n\\r\\\'"'), ("ident", "x")]),
        ('"gap \\\n   on" x', [("str", '"gap \\\n   on"'), ("ident", "x")]),
        ('r"a\\" x', [("str", 'r"a\\"'), ("ident", "x")]),
        ('r#"a "b" c"# x', [("str", 'r#"a "b" c"#'), ("ident", "x")]),
        ('motor"a" x', [("ident", "motor"), ("str", '"a"'), ("ident", "x")]),
        ("'\"' x", [("char", "'\"'"), ("ident", "x")]),
        ("'\\'' x", [("char", "'\\''"), ("ident", "x")]),
        ("h' x'' '\"'", [("ident", "h'"), ("ident", "x''"), ("char", "'\"'")]),
        ('«"» x', [("ident", '«"»'), ("ident", "x")]),
        ("«a b».c.«d» e", [("ident", "«a b».c.«d»"), ("ident", "e")]),
        ("`foo.bar ``baz", [("name", "`foo.bar"), ("sym", "`"), ("name", "`baz")]),
        ("0x1F 0b10 0o17 1_000 1.5e3 2. 1e-3", [("num", "0x1F"), ("num", "0b10"), ("num", "0o17"),
                                                  ("num", "1_000"), ("sci", "1.5e3"), ("sci", "2."),
                                                  ("sci", "1e-3")]),
        ("h.1.2 x.succ", [("ident", "h"), ("sym", "."), ("num", "1"), ("sym", "."), ("num", "2"),
                          ("ident", "x.succ")]),
        ("Nat.αβ abcé fooℕ x.«y» Nat.succ.pred", [("ident", "Nat.αβ"), ("ident", "abcé"), ("ident", "fooℕ"),
                                                   ("ident", "x.«y»"), ("ident", "Nat.succ.pred")]),
        ("α₁ ℕx ℕ λ x₀'", [("ident", "α₁"), ("ident", "ℕx"), ("sym", "ℕ"), ("sym", "λ"), ("ident", "x₀'")]),
        ('s!"a{x}b{"}"}c" z', [("ident", "s!"), ("str", '"a{'), ("ident", "x"), ("str", '}b{'),
                                ("str", '"}"'), ("str", '}c"'), ("ident", "z")]),
        ("f ⁻¹' {7} f '' s", [("ident", "f"), ("sym", "⁻¹'"), ("sym", "{"), ("num", "7"), ("sym", "}"),
                              ("ident", "f"), ("sym", "''"), ("ident", "s")]),
    ],
)  # fmt: skip
def test_token_rules(src: str, want: list[tuple[str, str]]) -> None:
    assert code(src) == want
    assert not lex_errors(src)


@pytest.mark.parametrize(
    ("src", "message"),
    [
        ("x /- a /- b -/", "unterminated comment"),
        ('x "abc', "unterminated string literal"),
        ('r#"abc"', "unterminated raw string literal"),
        ('"a\\qb"', "invalid escape sequence"),
        ('"a\\x4"', "invalid escape sequence"),
        ("'ab'", "missing end of character literal"),
        ("«abc", "unterminated identifier escape"),
        ("x\ty", "tabs are not allowed"),
        ("x\ry", "isolated carriage returns"),
        ("positivity\x00", "expected token"),
        ("x\u00a0y", "expected token"),
        ("1e+", "missing exponent digits"),
        ("0x", "unexpected character"),
        ("1_", "unexpected character"),
    ],
)
def test_lexical_errors_are_reported(src: str, message: str) -> None:
    errors = lex_errors(src)
    assert errors and message in errors[0].message
    # Lean reports them (the policy leaves them to Lean); the simulator's tokenizer raises Lean's message
    assert not any(v.hack_class == "proof_error" for v in scan(src))
    with pytest.raises(ParseError, match=re.escape(message)):
        tokenize(src)


def test_a_quote_after_an_unknown_symbol_is_refused() -> None:
    # `⊆'` may be a notation of some library or `⊆` and a character literal: no reader can know
    src = "theorem t : s ⊆'a' := sorry"
    assert lex_errors(src)[0].message == AMBIGUOUS_QUOTE
    assert any(v.hack_class == "proof_error" for v in scan(src))


def test_unterminated_comment_runs_to_the_end() -> None:
    toks = lex("x /- sorry\ntheorem t : False := sorry")
    assert [t.kind for t in toks] == ["ident", "comment", "error"]
    assert strip_comments_and_strings("x /- sorry").split() == ["x"]


def test_lexing_resumes_where_lean_resumes_after_an_error() -> None:
    # Lean's command loop resumes one character after an unterminated string's quote
    assert [t.text for t in lex('x "\nsorry') if t.kind == "ident"] == ["x", "sorry"]


def test_crlf_is_a_newline() -> None:
    assert code("a\r\nb") == [("ident", "a"), ("ident", "b")]


def test_ident_value_drops_escapes() -> None:
    assert ident_value("«x».y.«a b»") == "x.y.a b"
    assert ident_value("x") == "x"


# ---------------------------------------------------------------------------------------- numerals


def test_numeral_values() -> None:
    assert numeral_value("0x1F") == 31
    assert numeral_value("1_000") == 1000
    assert numeral_value("1.5e3") == Fraction(1500)
    assert numeral_value("2.") == Fraction(2)
    assert numeral_value("1e-3") == Fraction(1, 1000)
    assert numeral_value("9" * 4300) == int("9" * 4300)


@pytest.mark.parametrize("text", ["9" * 4301, "1e5000", "0x" + "f" * 4000, "1." + "5" * 5000])
def test_numerals_past_the_limit_raise_lex_error(text: str) -> None:
    with pytest.raises(LexError, match="too large"):
        numeral_value(text)


def test_huge_numerals_crash_no_reader() -> None:
    big = "7" * 20_000
    stmt = f"theorem t : (2 : ℕ) + {big} = 5 := by"
    with pytest.raises(ParseError, match="too large"):
        parse_term_text(f"1 + {big}")
    res = SimBackend().check(stmt + "\n  norm_num")
    assert res.status == "error" and "too large" in res.messages[0].data
    a = analyse({"name": "t", "formal_statement": stmt}, stmt + "\n  norm_num", max_chars=50_000)
    assert a.violations == () and a.statement is None
    assert split_header(stmt).body == stmt


# ------------------------------------------------------------------------------ the four readers


def _visible(src: str) -> set[int]:
    """Offsets of the words Lean reads as code (not comments or literals), by the lexer."""
    out: set[int] = set()
    for t in lex(src):
        if t.kind in ("ident", "sym", "num", "sci", "name"):
            out.update(range(t.start, t.end))
            for m in re.finditer("«([^»]*)»?", t.text):  # an escaped part: a plain name, or no word
                out.discard(t.start + m.start())
                out.discard(t.start + m.end() - 1)
                if not is_plain_ident(m.group(1)):
                    out.difference_update(range(t.start + m.start(), t.start + m.end()))
    return {k for k in out if not src[k].isspace()}


def assert_readers_agree(src: str) -> None:
    """Each reader's view of ``src`` is Lean's view (the lexer's), including where declarations start."""
    toks = lex(src)
    visible = _visible(src)
    # 1. the policy scan blanks exactly what Lean does not read as code
    stripped = strip_comments_and_strings(src)
    seen = {k for k, c in enumerate(stripped) if not c.isspace()}
    errors = [t for t in toks if t.kind == "error"]
    if errors:  # Lean rejects the text; the scan sees at least what Lean reads on after the error
        assert seen >= visible
    else:
        assert seen == visible
    # 2. the simulator's tokenizer yields the same code tokens (or Lean's lexical error)
    if errors:
        with pytest.raises(ParseError):
            tokenize(src)
    else:
        words = ("ident", "sym", "num", "sci", "name")
        lean_chars = {k for t in toks if t.kind in words for k in range(t.start, t.end)}
        sim_chars = {k for t in tokenize(src) if t.kind in words for k in range(t.start, t.end)}
        assert sim_chars == lean_chars
    # 3. the statement check finds exactly the declarations whose keyword is code
    lines = [src.count("\n", 0, t.start) + 1 for t in toks if t.kind == "ident" and t.text == "theorem"]
    assert [d.line for d in declarations(src) if d.keyword == "theorem"] == lines
    # 4. the header split moves only lines that are code to Lean
    split = split_header(src)
    code_lines = {
        src.count("\n", 0, t.start)
        for t in toks
        if t.kind == "ident" and t.text in ("set_option", "open", "import")
    }
    moved = split.header.split("\n") if split.header else []
    by_line: dict[int, list] = {}
    for t in toks:
        if t.kind != "comment":
            by_line.setdefault(src.count("\n", 0, t.start), []).append(t)
    code_text = {k: src[v[0].start : v[-1].end] for k, v in by_line.items() if k in code_lines}
    for line in moved:
        assert line in code_text.values(), (line, src)


HOSTILE = [
    '«"» sorry "',
    "'\"' sorry \"",
    "\"'\" sorry '",
    "/- /- -/ sorry -/ theorem t : True := trivial",
    "/- /- -/\nset_option debug.skipKernelTC true\nset_option maxHeartbeats 4 -- -/\ntheorem t : True := trivial",
    '"--" sorry -- "',
    '"-/" /- "-/" -/ x',
    "-- /-\ntheorem t : True := trivial -- -/",
    "/-- theorem fake : False -/\ntheorem t : True := trivial",
    "/-! sorry -/ theorem t : True := trivial",
    'r#"sorry "# theorem t : True := trivial"# x',
    's!"{"}"} sorry" x',
    "`sorry x ``«sorry» y",
    "h' '\"' h'' x",
    "«/-» theorem t : True := trivial «-/»",
    "theorem t : True := trivial /- unterminated theorem u : False := sorry",
    'theorem t : True := trivial\ndef s := "\n#eval IO.Process.exit 0\n',
    "import Mathlib\nopen Real\n/- a\n-/ theorem t : True := trivial",
]


@pytest.mark.parametrize("src", HOSTILE)
def test_four_readers_agree_on_hostile_text(src: str) -> None:
    assert_readers_agree(src)


# --------------------------------------------------------------------------------- the property

BANNED = ["sorry", "admit", "axiom", "native_decide", "#exit", "set_option debug.skipKernelTC true", "unsafe"]
_HOSTILE_WORDS = ["sorry", "axiom", "theorem", "«", "»", "'", "`", "--", "#exit", "import", "x", "h'", "r#"]


@st.composite
def _block_comment(draw: st.DrawFn, depth: int = 0) -> str:
    items = draw(st.lists(st.sampled_from([*_HOSTILE_WORDS, '"', "\n", "/--"[1:]]), max_size=5))
    if depth < 2 and draw(st.booleans()):
        items.append(draw(_block_comment(depth + 1)))
    items = [("- " if w == "-" else w) for w in items]
    opener = draw(st.sampled_from(["/-", "/--", "/-!"])) if depth == 0 else "/-"
    return opener + " " + " ".join(items) + " -/"


_STRING_ITEMS = [
    "sorry",
    "axiom",
    '\\"',
    "'",
    "«",
    "»",
    "--",
    "/-",
    "-/",
    "\\\\",
    "\\n",
    "theorem",
    "\n",
    "`",
]

_FRAGMENTS = {
    "line_comment": st.lists(st.sampled_from([*_HOSTILE_WORDS, '"', "/-", "-/"]), max_size=5).map(
        lambda ws: "-- " + " ".join(ws) + "\n"
    ),
    "block_comment": _block_comment(),
    "string": st.lists(st.sampled_from(_STRING_ITEMS), max_size=5).map(lambda ws: '"' + " ".join(ws) + '"'),
    "raw_string": st.lists(st.sampled_from([*_STRING_ITEMS, '"']), max_size=5).map(
        lambda ws: 'r#"' + " ".join(w for w in ws if w != '"#') + ' "#'
    ),
    "char": st.sampled_from(["'\"'", "'\\''", "'a'", "'«'", "'-'", "'/'", "'`'"]),
    "quoted_name": st.sampled_from(['«"»', "«/-»", "«-/»", "«--»", "«'»", "«`»", '«" sorry "»']),
}


@st.composite
def hostile_submission(draw: st.DrawFn) -> tuple[str, set[str]]:
    """Hostile text and the banned constructs Lean reads as code in it (known by construction)."""
    parts: list[str] = []
    seen: set[str] = set()
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from([*_FRAGMENTS, "code", "banned", "decl", "interp"]))
        if kind == "code":
            parts.append(draw(st.sampled_from(["exact", "h", "h'", "x''", "trivial", "(", ")", ":=", "x.1"])))
        elif kind == "banned":
            word = draw(st.sampled_from(BANNED))
            seen.add(word)
            parts.append(word)
        elif kind == "decl":
            parts.append("\ntheorem t : True := trivial\n")
        elif kind == "interp":  # the {…} of an interpolated string is code
            inner = draw(st.sampled_from(["x", "sorry", "admit", '"}"', "'}'"]))
            if inner in BANNED:
                seen.add(inner)
            text = draw(st.sampled_from(["", "sorry ", "\\{ ", "-- ", "/- "]))
            parts.append(f's!"{text}{{{inner}}} {text}"')
        else:
            parts.append(draw(_FRAGMENTS[kind]))
        parts.append(draw(st.sampled_from([" ", "\n"])))
    return "".join(parts), seen


@settings(
    max_examples=int(os.environ.get("LEAN_GYM_LEXER_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(hostile_submission())
def test_no_banned_construct_hides_and_nothing_hidden_is_flagged(case: tuple[str, set[str]]) -> None:
    src, banned = case
    assert not lex_errors(src), src
    found = {v.token.split()[0] for v in scan(src) if v.hack_class not in ("unsafe_io",)}
    want = {b.split()[0] for b in banned}
    assert found == want, (src, found, want)
    assert_readers_agree(src)


# ------------------------------------------------------------------------ trailing junk (issue 13)


@pytest.mark.parametrize(
    ("stmt", "tactic", "message"),
    [
        ("(x : ℝ) (h : 0 < x) : 0 < x ^ 2", "positivity foo bar", "unexpected identifier; expected command"),
        ("(x : ℝ) (h : 0 < x) : 0 < x ^ 2", "positivity\x00", "expected token"),
        ("(x : ℝ) (h : 0 < x) : 0 < x ^ 2", "positivity 1", "unexpected token '1'; expected command"),
        (": (2 : ℕ) = 2", "rfl foo", "unexpected identifier; expected command"),
        (": (2 : ℕ) = 2", "decide foo", "unexpected identifier; expected command"),
        (": True", "trivial h", "unexpected identifier; expected command"),
        ("(x : ℕ) (h : x = 2) : x + 0 = 2", "omega junk", "unexpected identifier; expected command"),
        (": True ∧ True", "constructor x <;> trivial", "unexpected identifier; expected command"),
    ],
)
def test_trailing_junk_after_a_tactic_is_a_parse_error(stmt: str, tactic: str, message: str) -> None:
    res = SimBackend().check(f"theorem t {stmt} := by\n  {tactic}", header="import Mathlib")
    assert res.status == "error"
    assert res.errors[0].data == message
    assert res.errors[0].pos.line == 2


@pytest.mark.parametrize(
    ("stmt", "tactic"),
    [
        ("(x : ℝ) (h : 0 < x) : 0 < x ^ 2", "positivity"),
        (": (2 : ℕ) = 2", "decide +kernel"),
        (": (2 : ℕ) = 2", "(rfl)"),
        (": True ∧ True", "constructor <;> trivial"),
        (": True ∧ True", "constructor; trivial; trivial"),
        (": True ∧ True", "constructor\n  · trivial\n  · trivial"),
    ],
)
def test_tactics_without_junk_still_work(stmt: str, tactic: str) -> None:
    assert (
        SimBackend().check(f"theorem t {stmt} := by\n  {tactic}", header="import Mathlib").status == "proved"
    )


def test_a_plain_string_an_interpolating_macro_would_read_differently_is_refused() -> None:
    # `throwErrorAt ref "…"` interpolates without `s!` right before the string: `{` opens code there
    src = 'def e := throwErrorAt x "{"}" sorry "}"'
    found = {v.hack_class for v in scan(src)}
    assert "meta_programming" in found
    # a plain string whose `{…}` reads the same either way keeps its braces' code visible
    assert strip_comments_and_strings('f "a{x}b"').split() == ["f", "x"]
