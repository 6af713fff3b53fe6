"""Lexer and term parser for the simulator's Lean subset.

The lexer turns source text into :class:`Token`s that know their offset, line (1-based) and column (0-based,
in code points, as Lean counts). The term parser is a Pratt parser with Lean 4's precedences and produces
:class:`Syn` trees that keep their source span, so the elaborator can report errors where Lean would.

Layout rules are Lean's, simplified: a token that starts a line at a column ``<= stop_col`` ends the term
being parsed (this is how tactic blocks and commands end), and so do ``)``, ``]``, ``}``, ``⟩``, ``,``,
``:=``, ``;``, ``<;>`` and ``|`` where no operator takes them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple

from lean_gym.lean.lexer import LexError, forget_texts, lex, lex_lines, numeral_value, slices_whole
from lean_gym.sim.memo import MISS, IdentityMemo, request_scoped
from lean_gym.sim.memo import enabled as memo_enabled

__all__ = [
    "CONFIG_ONLY_TACTICS",
    "NO_ARG_TACTICS",
    "ParseError",
    "Source",
    "Syn",
    "Token",
    "TokenStream",
    "bracket_end",
    "fixed_arity_end",
    "numeral",
    "parse_term_text",
    "sub_syns",
    "syn_any",
    "tokenize",
]


class ParseError(Exception):
    """A syntax error at ``[start, end)`` (offsets into the source), with Lean-style text."""

    def __init__(self, message: str, start: int, end: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = start if end is None else end


class Token(NamedTuple):
    """One token: ``kind`` is ``ident``, ``num``, ``sym``, ``str``, ``char``, ``name`` or ``eof``.

    A named tuple: the simulator builds one per token of every command, and a tuple is the cheapest
    immutable record Python has.
    """

    kind: str
    text: str
    start: int
    end: int
    line: int
    col: int
    first: bool  # first token on its line


class Source:
    """A piece of source text with a line table for offset → (line, column) conversion."""

    __slots__ = ("line_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        starts = [0]
        i = text.find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = text.find("\n", i + 1)
        self.line_starts = starts

    def position(self, offset: int) -> tuple[int, int]:
        """``(line, column)`` of ``offset``: line 1-based, column 0-based in code points."""
        lo = max(bisect_right(self.line_starts, offset) - 1, 0)
        return lo + 1, offset - self.line_starts[lo]


_SIM_KIND = {"ident": "ident", "num": "num", "sci": "num", "str": "str", "char": "char", "name": "name"}


def numeral(tok: Token) -> int | Fraction:
    """The value of a ``num`` token: an ``int``, or a ``Fraction`` for a scientific literal (``1.5``, ``2e3``).

    Raises:
        ParseError: for a numeral too large to have a value (over 4,300 digits).
    """
    try:
        return numeral_value(tok.text)
    except LexError as e:
        raise ParseError(f"the simulator does not support this {e}", tok.start, tok.end) from e


def tokenize(text: str, src: Source | None = None, base: int = 0, end: int | None = None) -> list[Token]:
    """Tokens of ``text[base:end]``, read by the one Lean lexer (:func:`lean_gym.lean.lexer.lex`).

    Comments (``--``, nested ``/- -/``) and doc comments are skipped. A field index after a name
    (``h.1``, ``h.2.1``) is kept in the name's token, as the term parser expects.

    The tokens of a whole text are remembered for the last few texts (a check reads its text whole, then
    the ranges of its proofs), and a range of a remembered text is cut from them.

    Raises:
        ParseError: at the first text Lean's lexer rejects (unterminated comment or string, a tab, a
            character that starts no token…), with Lean's message.
    """
    if not memo_enabled() or (src is not None and src.text is not text and src.text != text):
        return _tokenize(text, src, base, end)
    if base == 0 and end is None:
        hit = _WHOLE.get(text)
        if hit is not None:
            _WHOLE.move_to_end(text)
            return list(hit)
        src = src or Source(text)
        toks = _tokenize(text, src, 0, None)
        if len(text) <= _WHOLE_MAX_CHARS:
            _WHOLE[text] = tuple(toks)
            if len(_WHOLE) > _WHOLE_MAX_ENTRIES:
                _WHOLE.popitem(last=False)
        return toks
    whole = _WHOLE.get(text)
    if whole is not None and slices_whole(text, base, len(text) if end is None else end):
        cut = _cut(whole, text, src or Source(text), base, len(text) if end is None else end)
        if cut is not None:
            return cut
    return _tokenize(text, src, base, end)


_WHOLE: OrderedDict[str, tuple[Token, ...]] = OrderedDict()
request_scoped(_WHOLE.clear)  # a check reads its own text: named tuples kept past it only cost collections
request_scoped(forget_texts)
_WHOLE_MAX_ENTRIES = 4  # a check reads its text whole, then its ranges: the last few texts are enough
_WHOLE_MAX_CHARS = 1 << 16
_new = tuple.__new__


def _token_end(t: Token) -> int:
    return t.end


def _cut(whole: tuple[Token, ...], text: str, src: Source, base: int, end: int) -> list[Token] | None:
    """``tokenize(text, src, base, end)`` from the whole text's tokens, or ``None`` where a token crosses
    ``base`` or ``end`` (then the range is read on its own, as :func:`lean_gym.lean.lexer.lex` does).

    The whole text lexed without an error and the lexer reads the range as a slice of the whole
    (:func:`~lean_gym.lean.lexer.slices_whole`), so the range holds the same tokens; only the first is the
    first of its line for the reader of the range, and the range ends in its own ``eof``.
    """
    n = len(whole) - 1  # the last is the whole text's eof
    i = bisect_right(whole, base, 0, n, key=_token_end)  # the first token ending after base
    if i < n and whole[i].start < base:
        return None
    j = bisect_right(whole, end, i, n, key=_token_end)  # the first token ending after end
    if j < n and whole[j].start < end:
        return None
    out = list(whole[i:j])
    if out and not out[0].first:
        t = out[0]
        out[0] = _new(Token, (t.kind, t.text, t.start, t.end, t.line, t.col, True))
    line, col = src.position(end)
    out.append(Token("eof", "", end, end, line, col, True))
    return out


def _tokenize(text: str, src: Source | None, base: int, end: int | None) -> list[Token]:
    src = src or Source(text)
    lines = lex_lines(text) if base == 0 and end is None else None
    if lines is not None:
        return _tokenize_lines(text, src, lines)
    toks: list[Token] = []
    append = toks.append
    starts = src.line_starts
    nlines = len(starts)
    li = -1  # index of the current line in `starts`
    next_start = 0  # where the line after it starts
    last_line = -1
    prev_end = -1
    for lt in lex(text, base, end):
        kind, start = lt.kind, lt.start
        if kind == "comment" or kind == "doc":
            if lt.message:
                raise ParseError(lt.message, lt.end, lt.end)
            continue
        if kind == "error":
            raise ParseError(lt.message, start, max(lt.end, start))
        # `h.1.2`: glue `.digits` onto the name before it (no space between)
        if kind == "num" and prev_end == start and len(toks) >= 2:
            dot, name = toks[-1], toks[-2]
            if dot.kind == "sym" and dot.text == "." and name.kind == "ident" and name.end == dot.start:
                del toks[-2:]
                append(
                    Token(
                        "ident",
                        name.text + "." + lt.text,
                        name.start,
                        lt.end,
                        name.line,
                        name.col,
                        name.first,
                    )
                )
                prev_end = lt.end
                continue
        if start >= next_start:  # the token's line, found by walking forward (tokens come in order)
            li = bisect_right(starts, start) - 1
            next_start = starts[li + 1] if li + 1 < nlines else len(text) + 1
        line = li + 1
        append(
            Token(
                _SIM_KIND.get(kind, "sym"),
                lt.text,
                start,
                lt.end,
                line,
                start - starts[li],
                line != last_line,
            )
        )
        last_line = line
        prev_end = lt.end
    n = len(text) if end is None else end
    line, col = src.position(n)
    toks.append(Token("eof", "", n, n, line, col, True))
    return toks


def _tokenize_lines(text: str, src: Source, lines: list[tuple[int, tuple[Any, ...]]]) -> list[Token]:
    """:func:`_tokenize` of a whole text from its lines' tokens (no token runs past its line, no error).

    A line's tokens are its lexer tokens with comments dropped and a name's field index glued to the name
    (both within the line), placed at the line's offset and number: that reading of a line is kept with
    the line's lexer tokens (the same object while the lexer remembers the line), so a line met again, in
    any place, only has its tokens placed.
    """
    toks: list[Token] = []
    extend = toks.extend
    new = _new
    token = Token
    on = memo_enabled()
    for li, (off, line_toks) in enumerate(lines, 1):
        shape = _SHAPES.get(line_toks) if on else MISS
        if shape is MISS:
            shape = _line_shape(line_toks)
            if on:
                _SHAPES.put(line_toks, shape)
        extend([new(token, (k, tx, off + s, off + e, li, s, f)) for k, tx, s, e, f in shape])
    n = len(text)
    line, col = src.position(n)
    toks.append(Token("eof", "", n, n, line, col, True))
    return toks


# The reading of a line's lexer tokens (see _tokenize_lines), by the identity of the tuple the lexer's line
# cache keeps for the line.
_SHAPES = IdentityMemo("syntax.line_shapes", 1 << 14)


def _line_shape(line_toks: tuple[Any, ...]) -> tuple[tuple[str, str, int, int, bool], ...]:
    """``(kind, text, start, end, first)`` of the simulator's tokens of one line, offsets into the line."""
    out: list[tuple[str, str, int, int, bool]] = []
    kinds = _SIM_KIND
    prev_end = -1
    first = True
    for kind, s, e, tx, _, _ in line_toks:
        if kind == "comment" or kind == "doc":
            continue
        if kind == "num" and prev_end == s and len(out) >= 2:
            dk, dtx, ds, _, _ = out[-1]
            nk, ntx, ns, ne, nf = out[-2]
            if dk == "sym" and dtx == "." and nk == "ident" and ne == ds:
                del out[-2:]
                out.append(("ident", ntx + "." + tx, ns, e, nf))
                prev_end = e
                continue
        out.append((kinds.get(kind, "sym"), tx, s, e, first))
        first = False
        prev_end = e
    return tuple(out)


#: Tactics that take no argument at all in Lean and Mathlib: anything after them on their line is junk.
NO_ARG_TACTICS = frozenset(
    {
        "positivity", "rfl", "ac_rfl", "trivial", "assumption", "contradiction", "exfalso", "constructor",
        "left", "right", "done", "skip", "sorry", "admit", "ring", "ring!", "ring1", "ring1!", "abel", "abel!",
        "abel1", "abel1!", "subst_vars", "infer_instance", "assumption_mod_cast",
    }
)  # fmt: skip
#: Tactics whose only argument is a configuration (``+kernel``, ``-zeta``, ``(config := …)``, ``(x := v)``).
CONFIG_ONLY_TACTICS = frozenset({"decide", "omega", "native_decide", "tauto"})


def fixed_arity_end(toks: list[Token], i: int, name: str) -> int | None:
    """Where the syntax of tactic ``name`` ends when its arguments start at ``toks[i]``.

    ``None`` for tactics whose argument syntax the tactic itself parses. For the tactics of
    :data:`NO_ARG_TACTICS` and :data:`CONFIG_ONLY_TACTICS`, the index after the tactic (and its
    configuration): what follows on the line is not part of it, and the tactic-block parser reports it as
    Lean does (``positivity foo`` is an error, not ``positivity``).
    """
    if name in NO_ARG_TACTICS:
        return i
    if name not in CONFIG_ONLY_TACTICS:
        return None
    n = len(toks)
    while i < n:
        t = toks[i]
        nxt = toks[i + 1] if i + 1 < n else None
        if t.kind == "sym" and t.text in ("+", "-") and nxt is not None and nxt.kind == "ident":
            if nxt.start != t.end:
                break
            i += 2
        elif t.kind == "sym" and t.text == "(" and nxt is not None and nxt.kind == "ident":
            after = toks[i + 2] if i + 2 < n else None
            if after is None or after.text != ":=":
                break
            i = bracket_end(toks, i) + 1
        else:
            break
    return i


def bracket_end(toks: list[Token], i: int) -> int:
    """The index of the bracket that closes the one at ``toks[i]`` (brackets of any kind counted alike), or of
    the ``eof`` that ends ``toks`` (``len(toks)`` without one) where none does."""
    depth, j, n = 0, i, len(toks)
    while j < n and toks[j].kind != "eof":
        x = toks[j]
        if x.kind == "sym" and x.text in ("(", "[", "{", "⟨"):
            depth += 1
        elif x.kind == "sym" and x.text in (")", "]", "}", "⟩"):
            depth -= 1
            if depth == 0:
                break
        j += 1
    return j


class Syn:
    """A parsed term: ``kind``, children ``args`` and the source span ``[start, end)``."""

    __slots__ = ("args", "end", "kind", "start")

    def __init__(self, kind: str, args: tuple[Any, ...], start: int, end: int) -> None:
        self.kind = kind
        self.args = args
        self.start = start
        self.end = end

    def __repr__(self) -> str:
        return f"Syn({self.kind}, {self.args!r})"


def sub_syns(syn: Syn) -> list[Syn]:
    """The terms directly below ``syn``: its ``Syn`` arguments and the ``Syn`` members of its tuple arguments
    (binder groups, argument lists), in order."""
    out: list[Syn] = []
    for a in syn.args:
        if isinstance(a, Syn):
            out.append(a)
        elif isinstance(a, tuple):
            out.extend(x for x in a if isinstance(x, Syn))
    return out


def syn_any(syn: Syn, pred: Callable[[Syn], bool]) -> bool:
    """Whether ``pred`` holds at ``syn`` or at any term below it."""
    stack = [syn]
    while stack:
        u = stack.pop()
        if pred(u):
            return True
        stack.extend(sub_syns(u))
    return False


_BINOPS: dict[str, tuple[int, int, str]] = {
    # token: (precedence, right operand precedence, canonical op)
    "↔": (20, 21, "↔"),
    "<->": (20, 21, "↔"),
    "→": (25, 25, "→"),
    "->": (25, 25, "→"),
    "∨": (30, 30, "∨"),
    "\\/": (30, 30, "∨"),
    "∧": (35, 35, "∧"),
    "/\\": (35, 35, "∧"),
    "=": (50, 51, "="),
    "≠": (50, 51, "≠"),
    "!=": (50, 51, "≠"),
    "<": (50, 51, "<"),
    "≤": (50, 51, "≤"),
    "<=": (50, 51, "≤"),
    ">": (50, 51, ">"),
    "≥": (50, 51, "≥"),
    ">=": (50, 51, "≥"),
    "∣": (50, 51, "∣"),
    "::": (67, 67, "::"),  # `infixr:67 " :: " => List.cons` (Lean core)
    "+": (65, 66, "+"),
    "-": (65, 66, "-"),
    "*": (70, 71, "*"),
    "/": (70, 71, "/"),
    "%": (70, 71, "%"),
    "^": (75, 75, "^"),
    "∈": (50, 51, "∈"),
    "∉": (50, 51, "∉"),
    "×": (35, 35, "×"),
    "∘": (90, 90, "∘"),
    "•": (73, 73, "•"),
    "≡": (50, 51, "≡"),
    "∩": (70, 71, "∩"),
    "∪": (65, 66, "∪"),
    "⊆": (50, 51, "⊆"),
}
_LEFT_ASSOC = {"+", "-", "*", "/", "%", "∩", "∪"}
_ARG_START_SYMS = {"(", "⟨", "↑", "@", "‹", "["}
_KEYWORDS = {
    "at",
    "with",
    "using",
    "generalizing",
    "from",
    "then",
    "else",
    "do",
    "in",
    "fun",
    "by",
    "have",
    "show",
    "let",
    "if",
    "match",
    "theorem",
    "lemma",
    "example",
    "def",
    "axiom",
    "import",
    "open",
    "namespace",
    "end",
    "section",
    "variable",
    "set_option",
    "where",
    "deriving",
    "instance",
    "structure",
    "inductive",
    "class",
    "mutual",
    "calc",
    "suffices",
    "obtain",
    "this",
}
_TYPE_TOKENS = {"ℕ": "ℕ", "ℤ": "ℤ", "ℚ": "ℚ", "ℝ": "ℝ", "ℂ": "ℂ"}


class TokenStream:
    """A cursor over tokens with Lean's column-based layout stop (``stop_col``)."""

    __slots__ = ("cdots", "i", "stop_col", "toks")

    def __init__(self, toks: list[Token], stop_col: int = -1) -> None:
        self.toks = toks
        self.i = 0
        self.stop_col = stop_col
        # the `·` placeholders met inside the innermost `(…)` being parsed (None outside parentheses)
        self.cdots: list[Token] | None = None

    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Token:
        j = min(self.i + k, len(self.toks) - 1)
        return self.toks[j]

    def at_stop(self) -> bool:
        t = self.toks[self.i]
        return t.kind == "eof" or (t.first and t.col <= self.stop_col)

    def advance(self) -> Token:
        t = self.toks[self.i]
        if t.kind != "eof":
            self.i += 1
        return t

    def is_sym(self, s: str) -> bool:
        t = self.toks[self.i]
        return t.kind == "sym" and t.text == s and not self.at_stop()

    def is_word(self, s: str) -> bool:
        t = self.toks[self.i]
        return t.kind == "ident" and t.text == s and not self.at_stop()

    def expect_sym(self, s: str) -> Token:
        if not self.is_sym(s):
            raise self.unexpected(f"'{s}'")
        return self.advance()

    def unexpected(self, expected: str) -> ParseError:
        t = self.toks[self.i]
        if t.kind == "eof" or self.at_stop():
            prev = self.toks[self.i - 1] if self.i else t
            return ParseError(f"unexpected end of input; expected {expected}", prev.end, prev.end)
        return ParseError(f"unexpected token '{t.text}'; expected {expected}", t.start, t.end)

    def last_end(self) -> int:
        return self.toks[self.i - 1].end if self.i else self.toks[0].start


def _can_start_arg(ts: TokenStream) -> bool:
    if ts.at_stop():
        return False
    t = ts.tok
    if t.kind == "num":
        return True
    if t.kind == "ident":
        return t.text not in _KEYWORDS or t.text == "this"
    if t.kind == "sym":
        return t.text in _ARG_START_SYMS or t.text in _TYPE_TOKENS or (t.text == "·" and ts.cdots is not None)
    return False


def parse_term(ts: TokenStream, prec: int = 0) -> Syn:
    """Parse a term at precedence ``prec`` (Pratt parser with Lean 4's operator table).

    Raises:
        ParseError: at the first token that does not fit.
    """
    lhs = _parse_leading(ts)
    while True:
        if ts.at_stop():
            return lhs
        t = ts.tok
        if t.kind == "sym" and t.text in _BINOPS:
            p, rp, op = _BINOPS[t.text]
            if p < prec:
                return lhs
            ts.advance()
            if op in _LEFT_ASSOC:
                rhs = parse_term(ts, p + 1)
            else:
                rhs = parse_term(ts, rp)
            lhs = Syn("binop", (op, lhs, rhs), lhs.start, rhs.end)
            if (
                p in (50,)
                and not ts.at_stop()
                and ts.tok.kind == "sym"
                and _BINOPS.get(ts.tok.text, (0,))[0] == 50
                and prec <= 50
            ):
                raise ts.unexpected("term")  # a < b < c does not parse in Lean
            continue
        if t.kind == "sym" and t.text == "⁻¹":
            ts.advance()
            lhs = Syn("postfix", ("⁻¹", lhs), lhs.start, t.end)
            continue
        if t.kind == "sym" and t.text == "!":
            ts.advance()
            lhs = Syn("postfix", ("!", lhs), lhs.start, t.end)
            continue
        return lhs


def _parse_binders(
    ts: TokenStream, allow_bare_type: bool
) -> list[tuple[list[Token], Syn | None, str | None, Syn | None]]:
    """Binder groups: ``x y``, ``(x y : T)``, ``{x : T}``, ``x : T`` and binder predicates ``x > 0``."""
    groups: list[tuple[list[Token], Syn | None, str | None, Syn | None]] = []
    while not ts.at_stop():
        t = ts.tok
        if t.kind == "sym" and t.text in ("(", "{", "⦃", "["):
            close = {"(": ")", "{": "}", "⦃": "⦄", "[": "]"}[t.text]
            ts.advance()
            names: list[Token] = []
            while ts.tok.kind == "ident" or ts.is_sym("_"):
                names.append(ts.advance())
            if not names:
                raise ts.unexpected("identifier")
            ty = None
            if ts.is_sym(":"):
                ts.advance()
                ty = parse_term(ts, 0)
            ts.expect_sym(close)
            groups.append((names, ty, None, None))
            continue
        if (t.kind == "ident" and t.text not in _KEYWORDS) or ts.is_sym("_"):
            names = []
            while (
                (ts.tok.kind == "ident" and ts.tok.text not in _KEYWORDS) or ts.is_sym("_")
            ) and not ts.at_stop():
                names.append(ts.advance())
            if allow_bare_type and ts.is_sym(":"):
                ts.advance()
                ty = parse_term(ts, 0)
                groups.append((names, ty, None, None))
                return groups
            if (
                ts.tok.kind == "sym"
                and ts.tok.text in (">", "<", "≥", "≤", "≠", "∈", "∉")
                and not ts.at_stop()
            ):
                op = _BINOPS[ts.advance().text][2]
                bound = parse_term(ts, 51)
                groups.append((names, None, op, bound))
                continue
            groups.append((names, None, None, None))
            continue
        break
    return groups


def _parse_leading(ts: TokenStream) -> Syn:
    if ts.at_stop():
        raise ts.unexpected("term")
    t = ts.tok
    if t.kind == "num":
        ts.advance()
        return Syn("num", (numeral(t),), t.start, t.end)
    if t.kind == "str":
        raise ParseError(f"unexpected token '{t.text}'; expected term", t.start, t.end)
    if t.kind == "ident":
        if t.text == "fun":
            return _parse_binder_term(ts, "fun")
        if t.text == "by":
            ts.advance()
            # the tactic block runs to the end of the enclosing layout; the tactic parser splits it
            start = ts.tok.start
            j = ts.i
            depth = 0
            while not ts.at_stop():
                tx = ts.tok
                if tx.kind == "sym":
                    if tx.text in ("(", "⟨", "[", "{"):
                        depth += 1
                    elif tx.text in (")", "⟩", "]", "}"):
                        if depth == 0:
                            break
                        depth -= 1
                    elif tx.text == "," and depth == 0 and ts.stop_col == -1:
                        break
                ts.advance()
            return Syn("by", (start, ts.last_end() if ts.i > j else start, t), t.start, ts.last_end())
        if t.text == "show":
            return _parse_show(ts)
        if t.text in _KEYWORDS and t.text != "this":
            raise ParseError(f"unexpected token '{t.text}'; expected term", t.start, t.end)
        ts.advance()
        head = Syn("ident", (t.text,), t.start, t.end)
        return _parse_app(ts, head)
    if t.kind == "sym":
        s = t.text
        if s in ("∀", "∃", "λ"):
            return _parse_binder_term(ts, {"∀": "∀", "∃": "∃", "λ": "fun"}[s])
        if s in ("∑", "∏"):
            return _parse_bigop(ts)
        if s == "¬":
            ts.advance()
            a = parse_term(ts, 40)
            return Syn("not", (a,), t.start, a.end)
        if s == "-":
            ts.advance()
            a = parse_term(ts, 75)
            return Syn("neg", (a,), t.start, a.end)
        if s == "↑":
            ts.advance()
            a = _parse_arg(ts)
            return Syn("cast", (a,), t.start, a.end)
        if s == "|":
            ts.advance()
            a = parse_term(ts, 0)
            close = ts.expect_sym("|")
            return Syn("abs", (a,), t.start, close.end)
        if s in _TYPE_TOKENS:
            ts.advance()
            return Syn("ident", (s,), t.start, t.end)
        if s == "(" or s == "⟨" or s == "@" or s == "‹" or s == "[":
            head = _parse_arg(ts)
            return _parse_app(ts, head)
        if s == "·":
            if ts.cdots is None:
                # Lean parses `·` as a term and its elaborator refuses it outside parentheses
                # (`elabBadCDot`, Lean/Elab/BuiltinNotation.lean; MathlibTest/Use.lean at 44e8fc60, line 262)
                raise ParseError(
                    "invalid occurrence of `·` notation, it must be surrounded by parentheses (e.g. `(· + 1)`)",
                    t.start,
                    t.end,
                )
            # a placeholder of the enclosing `(…)`, which becomes `fun x₁ … xₙ => …` (Lean's `expandCDot?`):
            # read as an argument is (`_parse_arg`), then applied
            return _parse_app(ts, _parse_arg(ts))
        if s == "?":
            ts.advance()
            name = ts.advance()
            return Syn("mvar", (name.text,), t.start, name.end)
    raise ParseError(f"unexpected token '{t.text}'; expected term", t.start, t.end)


def _parse_show(ts: TokenStream) -> Syn:
    """``show T from e`` / ``show T by tac`` (Lean's ``Term.show``: ``"show " term (fromTerm <|> byTactic')``).

    A ``show`` node ``(body, T)``: the body proves (or is) ``T``, which must match what is expected.
    """
    t = ts.advance()
    ty = parse_term(ts, 0)
    if ts.tok.kind == "ident" and ts.tok.text == "from":
        ts.advance()
        body = parse_term(ts, 0)
    elif ts.tok.kind == "ident" and ts.tok.text == "by":
        body = _parse_leading(ts)
    else:
        raise ts.unexpected("'by' or 'from'")
    return Syn("show", (body, ty), t.start, body.end)


def _parse_app(ts: TokenStream, head: Syn) -> Syn:
    args: list[Syn] = []
    while _can_start_arg(ts):
        args.append(_parse_arg(ts))
    if not args:
        return head
    return Syn("app", (head, tuple(args)), head.start, args[-1].end)


def _parse_arg(ts: TokenStream) -> Syn:
    t = ts.tok
    if t.kind == "num":
        ts.advance()
        return Syn("num", (numeral(t),), t.start, t.end)
    if t.kind == "ident":
        ts.advance()
        return Syn("ident", (t.text,), t.start, t.end)
    if t.kind == "sym":
        if t.text in _TYPE_TOKENS:
            ts.advance()
            return Syn("ident", (t.text,), t.start, t.end)
        if t.text == "·" and ts.cdots is not None:
            ts.advance()
            name = _cdot_name(len(ts.cdots))
            ts.cdots.append(t)
            return Syn("ident", (name,), t.start, t.end)
        if t.text == "↑":
            ts.advance()
            a = _parse_arg(ts)
            return Syn("cast", (a,), t.start, a.end)
        if t.text == "@":
            ts.advance()
            a = _parse_arg(ts)
            return Syn("explicit", (a,), t.start, a.end)
        if t.text == "(":
            ts.advance()
            saved = ts.stop_col
            saved_cdots, ts.cdots = ts.cdots, []
            ts.stop_col = -1
            try:
                if ts.is_sym(")"):
                    close = ts.advance()
                    return Syn("unit", (), t.start, close.end)
                inner = parse_term(ts, 0)
                if ts.is_sym(":"):
                    ts.advance()
                    ty = parse_term(ts, 0)
                    close = ts.expect_sym(")")
                    node = Syn("ascr", (inner, ty), t.start, close.end)
                    return _cdot_function(node, ts.cdots)
                if ts.is_sym(","):
                    elems = [inner]
                    while ts.is_sym(","):
                        ts.advance()
                        elems.append(parse_term(ts, 0))
                    close = ts.expect_sym(")")
                    return _cdot_function(Syn("tuple", tuple(elems), t.start, close.end), ts.cdots)
                close = ts.expect_sym(")")
                paren = _cdot_function(Syn("paren", (inner,), t.start, close.end), ts.cdots)
            finally:
                ts.stop_col = saved
                ts.cdots = saved_cdots
            return _parse_projections(ts, paren)
        if t.text == "⟨":
            return _parse_projections(ts, _parse_separated(ts, "⟩", "anon"))
        if t.text == "‹":
            ts.advance()
            inner = parse_term(ts, 0)
            close = ts.expect_sym("›")
            return Syn("assump", (inner,), t.start, close.end)
        if t.text == "[":
            return _parse_separated(ts, "]", "listlit")  # a list literal `[a, b, c]` (Lean's `«term[_]»`)
    raise ts.unexpected("term")


def _cdot_name(k: int) -> str:
    """The name of the ``k``-th ``·`` placeholder's binder: hygienic (``x✝``, as Lean prints it), so that
    no name the user can write refers to it."""
    return "x✝" if k == 0 else f"x✝{k}"


def _cdot_function(paren: Syn, cdots: list[Token] | None) -> Syn:
    """``(· + 1)`` is ``fun x => x + 1`` (Lean's ``expandCDot?``: the placeholders of one pair of
    parentheses, left to right, are the binders); ``paren`` as it is when it has none."""
    if not cdots:
        return paren
    names = [
        Token("ident", _cdot_name(k), tok.start, tok.end, tok.line, tok.col, False)
        for k, tok in enumerate(cdots)
    ]
    body = paren.args[0] if paren.kind == "paren" else paren
    return Syn("binder", ("fun", ((names, None, None, None),), body), paren.start, paren.end)


def _parse_projections(ts: TokenStream, base: Syn) -> Syn:
    """``(e).1``, ``(e).mp``, ``⟨a, b⟩.2``: Lean's trailing ``proj`` parser (``checkNoWsBefore >> "." >>
    checkNoWsBefore >> (fieldIdx <|> rawIdent)``), left-associated: a ``proj`` node ``(base, field)``.
    A name's own fields (``h.1``, ``h.mp``) are part of the name's token."""
    while True:
        dot = ts.tok
        if not (dot.kind == "sym" and dot.text == "." and dot.start == base.end):
            return base
        field = ts.peek()
        if field.start != dot.end or field.kind not in ("num", "ident"):
            return base
        ts.advance()
        ts.advance()
        # a name after `.` may carry more fields (`(e).mp.trans`): each is its own projection
        for part in field.text.split("."):
            base = Syn("proj", (base, part), base.start, field.end)


def _parse_separated(ts: TokenStream, closer: str, kind: str) -> Syn:
    """``⟨a, b⟩`` or ``[a, b]`` (the opening token is the current one): a ``kind`` node of the terms."""
    t = ts.advance()
    saved = ts.stop_col
    ts.stop_col = -1
    try:
        items: list[Syn] = []
        if not ts.is_sym(closer):
            items.append(parse_term(ts, 0))
            while ts.is_sym(","):
                ts.advance()
                items.append(parse_term(ts, 0))
        close = ts.expect_sym(closer)
    finally:
        ts.stop_col = saved
    return Syn(kind, tuple(items), t.start, close.end)


def _parse_bigop(ts: TokenStream) -> Syn:
    """Mathlib's big operators ``∑ x ∈ s, f`` and ``∏ x ∈ s, f`` (also the older ``in``): notation at
    level 67 whose body is a ``term:67`` (``Mathlib/Algebra/BigOperators/Group/Finset/Defs.lean``), so
    ``∑ k ∈ s, a + k`` is ``(∑ k ∈ s, a) + k``."""
    t = ts.advance()
    name = ts.tok
    if name.kind != "ident" or name.text in _KEYWORDS:
        raise ts.unexpected("identifier")
    ts.advance()
    if not (ts.is_sym("∈") or (ts.tok.kind == "ident" and ts.tok.text == "in")):
        raise ts.unexpected("'∈'")
    ts.advance()
    s = parse_term(ts, 0)
    if not ts.is_sym(","):
        raise ts.unexpected("','")
    ts.advance()
    body = parse_term(ts, 67)
    return Syn("bigop", (t.text, name.text, s, body), t.start, body.end)


def _parse_binder_term(ts: TokenStream, kind: str) -> Syn:
    t = ts.advance()
    groups = _parse_binders(ts, allow_bare_type=True)
    if not groups:
        raise ts.unexpected("identifier")
    if kind == "fun":
        if not (ts.is_sym("=>") or ts.is_sym("↦")):
            raise ts.unexpected("'=>'")
    elif not ts.is_sym(","):
        raise ts.unexpected("','")
    ts.advance()
    body = parse_term(ts, 0)
    return Syn("binder", (kind, tuple(groups), body), t.start, body.end)


def parse_term_text(text: str) -> Syn:
    """Parse a whole string as one term.

    Raises:
        ParseError: when ``text`` is not exactly one term of the subset.
    """
    toks = tokenize(text)
    ts = TokenStream(toks)
    term = parse_term(ts, 0)
    if ts.tok.kind != "eof":
        raise ts.unexpected("end of input")
    return term
