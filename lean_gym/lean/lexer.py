"""The one Lean 4 lexer: where every comment, string, character literal, name and number ends.

Every reader of submitted Lean text in lean-gym — the oracle's policy scan, the statement check, the header
split and the simulator's parser — reads it through :func:`lex`, so no two readers can disagree on what is
code (DESIGN.md, contract 6: two readers that disagree are a bypass).

The rules follow Lean's own token functions in ``src/Lean/Parser/Basic.lean`` (leanprover/lean4, commit
00c1b82) and ``src/Init/Meta/Defs.lean`` (commit 024d241):

* ``whitespace``: spaces and newlines (``\\r\\n`` too); a tab or an isolated carriage return is an error
  (*tabs are not allowed…*, *isolated carriage returns are not allowed*); ``--`` runs to the end of the
  line; ``/-`` starts a block comment closed by ``finishCommentBlock``, which nests (``/- /- -/ -/``) and,
  at the end of input, is the error *unterminated comment* (the comment still runs to the end);
  ``/--`` and ``/-!`` are doc comments: tokens of their own, with the same nested body.
* ``strLitFnAux``/``quotedCharCoreFn``: ``"…"`` with the escapes ``\\\\ \\" \\' \\r \\n \\t``, ``\\xHH``,
  ``\\uHHHH`` and string gaps (``\\`` newline whitespace); anything else is *invalid escape sequence*;
  an unterminated string is *unterminated string literal*, reported at its start.
* ``interpolatedStrFn``: after ``s!``, ``m!``, ``f!``, ``throwError`` and ``dbg_trace``,
  ``"…{term}…"`` where ``{`` opens code (lexed as tokens) up to its ``}``, and ``\\{`` is an escape.
* ``rawStrLitFnAux``: ``r"…"``, ``r#"…"#`` (any number of ``#``), only where a token starts.
* ``charLitFnAux``: a ``'`` where a token starts and not followed by ``'`` is a character literal
  (``'a'``, ``'\\''``, ``'"'``); otherwise *missing end of character literal*. A ``'`` inside an identifier
  (``h'``) is part of it (``isIdRest``).
* ``identFnAux``/``isIdFirst``/``isIdRest``/``isLetterLike``/``isSubScriptAlnum``: identifiers with
  ASCII letters, ``_``, Greek (not ``λ Π Σ``), Coptic, letter-like symbols (``ℕ ℝ``), mathematical
  alphanumerics, Latin-1 and Latin Extended-A letters, subscripts, ``'``, ``!``, ``?``; dotted parts;
  ``«…»`` escapes that end at the first ``»`` (so ``«"»`` is one identifier). An identifier that is
  exactly a token of the table (``ℕ``) is that token (``mkIdResult``/``isToken``).
* ``nameLitAux``: `` `foo `` and `` `«x».y ``.
* ``numberFnAux``/``decimalNumberFn``/``takeDigitsFn``: decimal, ``0x``/``0b``/``0o``, ``_`` separators,
  scientific literals (``1.5``, ``1.5e3``, ``2.``, ``1e-3``).
* ``tokenFnAux``: anything else is the longest symbol of the token table; a character that starts no token
  (a control character, a letter Lean does not accept, ``\\x00``) is the error *expected token*.

After an error the lexer goes on where Lean's command loop resumes (``parseCommand``/``consumeInput``):
at the error position, or one character further when no progress was made. Readers that must be strict (the
oracle's policy) refuse any text with an error; Lean refuses it too.
"""

from __future__ import annotations

import os
import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

__all__ = [
    "AMBIGUOUS_QUOTE",
    "INTERPOLATION_HEADS",
    "MAX_NUMERAL_DIGITS",
    "SYMBOLS",
    "LexError",
    "LexToken",
    "code_tokens",
    "forget_texts",
    "ident_value",
    "interpolated_reading",
    "is_id_first",
    "is_id_rest",
    "is_plain_ident",
    "lex",
    "lex_errors",
    "lex_lines",
    "numeral_value",
    "slices_whole",
]

#: Numerals longer than this (in decimal digits) have no value in lean-gym: Python's int/str conversion
#: limit (``sys.get_int_max_str_digits``) is 4300 digits, and a value that cannot be printed is useless.
MAX_NUMERAL_DIGITS = 4300

#: The message of the one error that is lean-gym's, not Lean's: a `'` right after a symbol token.
AMBIGUOUS_QUOTE = (
    "a `'` right after a symbol: the end of a notation or a character literal (depends on the notation)"
)

#: Identifiers whose following string literal is interpolated (``interpolatedStr`` in Lean's grammar).
INTERPOLATION_HEADS: frozenset[str] = frozenset(
    {
        "s!",
        "m!",
        "f!",
        "throwError",
        "dbg_trace",
    }
)

#: The token table for symbols (longest match wins). Lean's table grows with every notation; this is the
#: part lean-gym's readers need, plus the double-struck type letters that are tokens.
SYMBOLS: tuple[str, ...] = tuple(
    sorted(
        {
            ":=",
            "=>",
            "<;>",
            "←",
            "<-",
            "→",
            "->",
            "↔",
            "<->",
            "≠",
            "≤",
            "<=",
            "≥",
            ">=",
            "<",
            ">",
            "=",
            "∧",
            "/\\",
            "∨",
            "\\/",
            "¬",
            "∀",
            "∃",
            "λ",
            "⟨",
            "⟩",
            "(",
            ")",
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            "+",
            "-",
            "*",
            "/",
            "%",
            "^",
            "∣",
            "|",
            "↑",
            "·",
            ".",
            ";",
            "@",
            "?",
            "!",
            "#",
            "$",
            "<|",
            "|>",
            "∘",
            "•",
            "⁻¹",
            "×",
            "∈",
            "∉",
            "'",
            "''",
            "`",
            "..",
            "≡",
            "∑",
            "∏",
            "√",
            "⌊",
            "⌋",
            "⌈",
            "⌉",
            "!=",
            "==",
            "&&",
            "||",
            "%[",
            "@[",
            "⦃",
            "⦄",
            "«",
            "»",
            "‹",
            "›",
            "%~",
            "&",
            "~",
            "≃",
            "⊢",
            "∩",
            "∪",
            "⊆",
            "\\",
            "ℕ",
            "ℤ",
            "ℚ",
            "ℝ",
            "ℂ",
            "↦",
            "Π",
            "Σ",
            "∫",
            "∂",
            "∞",
            "∅",
            "⊂",
            "⊃",
            "⊇",
            "∖",
            "⁅",
            "⁆",
            "‖",
            "∗",
            "∙",
            "⬝",
            "≪",
            "≫",
            "≅",
            "≈",
            "⊓",
            "⊔",
            "⊤",
            "⊥",
            "⇑",
            "↥",
            "▸",
            "∠",
            "∆",
            "⋂",
            "⋃",
            "⨆",
            "⨅",
            "::",
            "++",
            "::=",
            "$>",
            "<$>",
            "<*>",
            ">>=",
            ">>",
            "∑'",
            "∏'",
            "%%",
            "^^",
            "<<<",
            ">>>",
            "⁻¹'",
            "⨆'",
            "⨅'",
            # Lean core's `Σ' x, p` (PSigma) and `α ×' β` (PProd): tokens with their `'` (Init/Core.lean)
            "Σ'",
            "×'",
            # Lean core's `guard_hyp`/`guard_target` specifiers (Init/Guard.lean: `colonD`, `colonEqD`,
            # `equalD`); the subscripted ones (`:ₛ`, `=ₐ`, …) are a symbol and its subscripts, read below
            ":~",
            ":=~",
            "=~",
        },
        key=len,
        reverse=True,
    )
)
_SYM_FIRST: dict[str, tuple[str, ...]] = {}
for _s in SYMBOLS:
    _SYM_FIRST[_s[0]] = (*_SYM_FIRST.get(_s[0], ()), _s)
_SYMBOL_SET = frozenset(SYMBOLS)
_OPENERS = frozenset({"(", "[", "{", "⟨", ",", ";", "⦃", "@[", "%["})

# ``isIdFirst``/``isIdRest`` (Init/Meta/Defs.lean) as regex classes. `Char.isAlpha` is ASCII in Lean.
_LETTER_LIKE = (
    "\u03b1-\u03ba\u03bc-\u03c9"  # lower Greek but λ
    "\u0391-\u039f\u03a1\u03a2\u03a4-\u03a9"  # upper Greek but Π and Σ
    "\u03ca-\u03fb"  # Coptic
    "\u1f00-\u1ffe"  # polytonic Greek
    "\u2100-\u214f"  # letter-like block
    "\U0001d49c-\U0001d59f"  # script, double-struck, Fraktur
    "\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff"  # Latin-1 letters but × and ÷
    "\u0100-\u017f"  # Latin Extended-A
)
_SUBSCRIPT = "\u2080-\u2089\u2090-\u209c\u1d62-\u1d6a\u2c7c"
_ID_FIRST = "A-Za-z_" + _LETTER_LIKE
_ID_REST = "A-Za-z0-9_'!?" + _LETTER_LIKE + _SUBSCRIPT
_ID_FIRST_RE = re.compile(f"[{_ID_FIRST}]")
_SUBSCRIPT_RUN = re.compile(f"[{_SUBSCRIPT}]+")
_ID_REST_RE = re.compile(f"[{_ID_REST}]")
# One identifier: parts separated by `.` where the next part starts with isIdFirst or `«` (isIdCont).
_IDENT_RE = re.compile(
    f"(?:[{_ID_FIRST}][{_ID_REST}]*|«[^»]*»)(?:\\.(?:[{_ID_FIRST}][{_ID_REST}]*|«[^»]*»))*"
)
_WS_RE = re.compile(r"(?: |\n|\r\n)+")
_BLOCK_MARK = re.compile(r"/-|-/")
_STR_SPECIAL = re.compile(r'["\\]')
_ISTR_SPECIAL = re.compile(r'["\\{]')
_HEX = frozenset("0123456789abcdefABCDEF")
# Symbols the fast path may take whole: not those that start a comment (`--`, `/-`), a character or name
# literal (`'`, `` ` ``), an escaped name (`«`) or a `#command`.
_FAST_SYMBOLS = sorted(
    (s for s in SYMBOLS if s[0] not in "'`«#" and not _ID_FIRST_RE.match(s[0])), key=len, reverse=True
)
_ASCII_PART = "[A-Za-z_][A-Za-z0-9_'!?]*"
_FAST = re.compile(
    "[ \\n]*(?:"
    f'(?P<ident>(?!r[#"])(?>{_ASCII_PART}(?:\\.{_ASCII_PART})*)(?![{_ID_REST[13:]}«]|\\.[{_ID_FIRST}«]))'
    "|(?P<num>(?>[0-9]+)(?![_.eExXbBoO]))"
    "|(?P<sym>(?!--|/-)(?>" + "|".join(re.escape(s) for s in _FAST_SYMBOLS) + f")(?![{_SUBSCRIPT}]))"
    "|(?P<slow>[\\s\\S]))"
)
_DEC_RE = re.compile(r"[0-9](?:_*[0-9])*")
_DIGITS_RE = re.compile(r"(?:_*[0-9])*")


_PLAIN_IDENT_RE = re.compile(f"[{_ID_FIRST}][{_ID_REST}]*(?:\\.[{_ID_FIRST}][{_ID_REST}]*)*")


def is_plain_ident(name: str) -> bool:
    """True when ``name`` can be written without ``«»`` (it is not checked against keywords)."""
    return _PLAIN_IDENT_RE.fullmatch(name) is not None


def is_id_first(c: str) -> bool:
    """Lean's ``isIdFirst``: can ``c`` start an identifier?"""
    return _ID_FIRST_RE.match(c) is not None


def is_id_rest(c: str) -> bool:
    """Lean's ``isIdRest``: can ``c`` continue an identifier?"""
    return _ID_REST_RE.match(c) is not None


class LexToken(NamedTuple):
    """One token of Lean source.

    Attributes:
        kind: ``ident``, ``num`` (natural literal), ``sci`` (scientific literal), ``str`` (string
            literal, or one literal piece of an interpolated string), ``char``, ``name`` (name literal),
            ``sym``, ``comment`` (``--`` or ``/- -/``), ``doc`` (``/--`` or ``/-!`` doc comment), or
            ``error`` (text Lean's lexer rejects; ``message`` says why).
        start: Offset of the first character.
        end: Offset after the last character.
        text: ``source[start:end]``.
        message: Lean's error text, for ``error`` tokens (also set on an unterminated comment, which
            still spans to the end of the input).
        interpolated: For ``str``: True when this is a piece of an interpolated string (``s!"…{``).
    """

    kind: str
    start: int
    end: int
    text: str
    message: str = ""
    interpolated: bool = False

    @property
    def is_trivia(self) -> bool:
        """True for comments (not doc comments, which are tokens for Lean)."""
        return self.kind == "comment"


class LexError(ValueError):
    """A literal lean-gym cannot give a value to (e.g. a numeral past :data:`MAX_NUMERAL_DIGITS`)."""


def ident_value(text: str) -> str:
    """The name an identifier denotes: ``«»`` escapes removed (``«x».y`` → ``x.y``)."""
    if "«" not in text:
        return text
    return ".".join(p[1:-1] if p.startswith("«") else p for p in _split_ident(text))


def _split_ident(text: str) -> list[str]:
    parts: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == "«":
            j = text.find("»", i)
            j = n - 1 if j < 0 else j
            parts.append(text[i : j + 1])
            i = j + 2
        else:
            j = text.find(".", i)
            j = n if j < 0 else j
            parts.append(text[i:j])
            i = j + 1
    return parts


def numeral_value(text: str) -> int | Fraction:
    """The value of a numeric literal (``num`` or ``sci`` token text).

    Raises:
        LexError: when the value needs more than :data:`MAX_NUMERAL_DIGITS` decimal digits.
    """
    t = text.replace("_", "")
    low = t[:2].lower()
    if low in ("0x", "0b", "0o"):
        base = {"0x": 16, "0b": 2, "0o": 8}[low]
        bits_per_digit = {16: 4, 2: 1, 8: 3}[base]
        if (len(t) - 2) * bits_per_digit > MAX_NUMERAL_DIGITS * 3.33:
            raise LexError(f"numeral too large ({len(t) - 2} digits in base {base})")
        value = int(t[2:], base)
        if value.bit_length() > MAX_NUMERAL_DIGITS * 3.32:
            raise LexError(f"numeral too large (over {MAX_NUMERAL_DIGITS} decimal digits)")
        return value
    mant, _, exp = t.lower().partition("e")
    whole, dot, frac = mant.partition(".")
    digits = len(whole) + len(frac)
    e = 0
    if exp:
        if len(exp.lstrip("+-")) > 6:
            raise LexError(f"numeral too large (exponent {exp})")
        e = int(exp)
    if digits > MAX_NUMERAL_DIGITS or digits + abs(e) > MAX_NUMERAL_DIGITS:
        raise LexError(f"numeral too large ({digits} digits; lean-gym's limit is {MAX_NUMERAL_DIGITS})")
    if not dot and not exp:
        return int(whole)
    frac_value = Fraction(int(whole + frac or "0"), 10 ** len(frac))
    return frac_value * (Fraction(10**e) if e >= 0 else Fraction(1, 10**-e))


class _Lexer:
    __slots__ = ("n", "out", "text")

    def __init__(self, text: str, end: int) -> None:
        self.text = text
        self.n = end
        self.out: list[LexToken] = []

    def add(self, kind: str, start: int, end: int, message: str = "", interpolated: bool = False) -> None:
        self.out.append(LexToken(kind, start, end, self.text[start:end], message, interpolated))

    def error(self, start: int, end: int, message: str) -> None:
        self.out.append(LexToken("error", start, end, self.text[start:end], message))

    def last_code(self) -> LexToken | None:
        for t in reversed(self.out):
            if t.kind != "comment":
                return t
        return None

    # -------------------------------------------------------------------------------------- main loop

    # C901: the lexer's main loop, one branch per token kind, as Lean's own reader.
    def run(self, i: int, stop_at_brace: bool = False) -> int:  # noqa: C901
        """Lex from ``i``; with ``stop_at_brace``, stop before the ``}`` closing an interpolation."""
        text, n = self.text, self.n
        depth = 0
        out = self.out
        while i < n:
            if not stop_at_brace:
                # the common tokens, one regex match each: plain names, numerals and symbols after spaces;
                # anything else (`slow`) is lexed below, one token at a time
                for fm in _FAST.finditer(text, i, n):
                    kind = fm.lastgroup or ""
                    if kind == "slow":
                        i = fm.start(kind)
                        break
                    s0, j = fm.start(kind), fm.end()
                    out.append(LexToken(kind, s0, j, text[s0:j]))
                else:
                    return n
            c = text[i]
            if c == " " or c == "\n":
                ws = _WS_RE.match(text, i)
                i = ws.end() if ws else i + 1
                continue
            if c == "\r":
                if i + 1 < n and text[i + 1] == "\n":
                    i += 2
                else:
                    self.error(i, i + 1, "isolated carriage returns are not allowed")
                    i += 1
                continue
            if c == "\t":
                self.error(i, i + 1, "tabs are not allowed; please configure your editor to expand them")
                i += 1
                continue
            if stop_at_brace:
                if c == "{":
                    depth += 1
                elif c == "}":
                    if depth == 0:
                        return i
                    depth -= 1
            nxt = text[i + 1] if i + 1 < n else ""
            if c == "-" and nxt == "-":
                j = text.find("\n", i, n)
                j = n if j < 0 else j
                self.add("comment", i, j)
                i = j
                continue
            if c == "/" and nxt == "-":
                i = self.block_comment(i)
                continue
            if c == '"':
                prev = self.last_code()
                if prev is not None and prev.kind == "ident" and prev.text in INTERPOLATION_HEADS:
                    i = self.interpolated(i)
                else:
                    i = self.string(i)
                continue
            if c == "'" and nxt != "'":
                prev = self.out[-1] if self.out else None
                if prev is not None and prev.kind == "sym" and prev.end == i and prev.text not in _OPENERS:
                    # `⁻¹'`-style tokens: whether this `'` ends a notation or starts a character literal
                    # depends on the notation table in scope, which no lexer outside Lean can know
                    self.error(prev.start, i + 1, AMBIGUOUS_QUOTE)
                i = self.char(i)
                continue
            if "0" <= c <= "9":
                i = self.number(i)
                continue
            if c == "`" and nxt and (nxt == "«" or _ID_FIRST_RE.match(nxt)):
                m = _IDENT_RE.match(text, i + 1, n)
                if m is None:  # `«` without its `»`
                    self.error(i, n, "unterminated identifier escape")
                    i = n
                else:
                    self.add("name", i, m.end())
                    i = m.end()
                continue
            if c == "r" and (nxt == '"' or nxt == "#"):
                j = i + 1
                while j < n and text[j] == "#":
                    j += 1
                if j < n and text[j] == '"':
                    i = self.raw_string(i, j - i - 1)
                    continue
            if c == "«" or _ID_FIRST_RE.match(c):
                i = self.ident(i)
                continue
            i = self.symbol(i)
        return i

    # ------------------------------------------------------------------------------------- comments

    def block_comment(self, i: int) -> int:
        text, n = self.text, self.n
        doc = i + 2 < n and text[i + 2] in "-!"
        depth, j = 1, i + (3 if doc else 2)
        while depth:
            m = _BLOCK_MARK.search(text, j, n)
            if m is None:
                self.add("doc" if doc else "comment", i, n, "unterminated comment")
                self.error(n, n, "unterminated comment")
                return n
            depth += 1 if m.group(0) == "/-" else -1
            j = m.end()
        self.add("doc" if doc else "comment", i, j)
        return j

    # -------------------------------------------------------------------------------------- strings

    def escape(self, j: int, in_string: bool, interpolated: bool = False) -> int:
        """Position after the escape whose ``\\`` is at ``j - 1``; ``-1 - pos`` on error at ``pos``."""
        text, n = self.text, self.n
        if j >= n:
            return -1 - j
        c = text[j]
        if c in "\\\"'rnt" or (interpolated and c == "{"):
            return j + 1
        if c == "x":
            for k in (j + 1, j + 2):
                if k >= n or text[k] not in _HEX:
                    return -1 - k
            return j + 3
        if c == "u":
            for k in range(j + 1, j + 5):
                if k >= n or text[k] not in _HEX:
                    return -1 - k
            return j + 5
        if in_string and c == "\n":  # a string gap: whitespace with exactly one newline
            k, seen = j + 1, True
            while k < n and text[k] in " \t\r\n":
                if text[k] == "\n":
                    return -1 - k  # "unexpected additional newline in string gap"
                k += 1
            return k if seen else -1 - k
        return -1 - j

    def string(self, i: int) -> int:
        text, n = self.text, self.n
        j = i + 1
        while True:
            m = _STR_SPECIAL.search(text, j, n)
            if m is None:
                self.error(i, n, "unterminated string literal")
                return i + 1  # Lean resumes one character after the opening quote
            j = m.end()
            if m.group(0) == '"':
                self.add("str", i, j)
                return j
            k = self.escape(j, True)
            if k < 0:
                pos = -1 - k
                self.error(i, pos, "invalid escape sequence")
                return max(pos, i + 1)
            j = k

    def interpolated(self, i: int) -> int:
        """``"…{term}…"``: literal pieces are ``str`` tokens, the terms are lexed as code."""
        text, n = self.text, self.n
        piece, j = i, i + 1
        while True:
            m = _ISTR_SPECIAL.search(text, j, n)
            if m is None:
                self.error(piece, n, "unterminated string literal")
                return n
            j = m.end()
            ch = m.group(0)
            if ch == '"':
                self.add("str", piece, j, interpolated=True)
                return j
            if ch == "\\":
                k = self.escape(j, True, interpolated=True)
                if k < 0:
                    pos = -1 - k
                    self.error(piece, pos, "invalid escape sequence")
                    return max(pos, piece + 1)
                j = k
                continue
            self.add("str", piece, j, interpolated=True)  # up to and including `{`
            k = self.run(j, stop_at_brace=True)
            if k >= n:
                self.error(n, n, "unterminated string literal")
                return n
            piece, j = k, k + 1  # the next piece starts with the closing `}`

    def raw_string(self, i: int, hashes: int) -> int:
        text, n = self.text, self.n
        close = '"' + "#" * hashes
        j = text.find(close, i + 2 + hashes, n)
        if j < 0:
            self.error(i, n, "unterminated raw string literal")
            return n
        end = j + len(close)
        self.add("str", i, end)
        return end

    def char(self, i: int) -> int:
        text, n = self.text, self.n
        j = i + 1
        if j >= n:
            self.error(i, n, "unexpected end of input")
            return n
        if text[j] == "\\":
            k = self.escape(j + 1, False)
            if k < 0:
                pos = -1 - k
                self.error(i, pos, "invalid escape sequence")
                return max(pos, i + 1)
            j = k
        else:
            j += 1
        if j < n and text[j] == "'":
            self.add("char", i, j + 1)
            return j + 1
        self.error(i, min(j + 1, n), "missing end of character literal")
        return min(j + 1, n)

    # ------------------------------------------------------------------------------ numbers, names

    def number(self, i: int) -> int:
        text, n = self.text, self.n
        # `h.1.2`, `(a, b).2`: a field index after `.` (Lean's fieldIdx reads digits only)
        if i > 0 and text[i - 1] == ".":
            prev = self.last_code()
            if prev is not None and prev.kind == "sym" and prev.text == "." and prev.end == i:
                j = i
                while j < n and "0" <= text[j] <= "9":
                    j += 1
                self.add("num", i, j)
                return j
        c1 = text[i + 1] if i + 1 < n else ""
        if text[i] == "0" and c1 in "bBoOxX" and c1:
            digits = {"b": "01", "o": "01234567", "x": "0123456789abcdefABCDEF"}[c1.lower()]
            j, need = i + 2, True
            while j < n and (text[j] == "_" or text[j] in digits):
                need = text[j] == "_"
                j += 1
            if need:
                self.error(i, j, "unexpected character")
                return j if j > i else i + 1
            self.add("num", i, j)
            return j
        m = _DEC_RE.match(text, i, n)
        j = m.end() if m else i + 1
        if j < n and text[j] == "_":  # `1_` then a non-digit
            self.error(i, j + 1, "unexpected character")
            return j + 1
        if j < n and text[j] in ".eE":
            if text[j] == ".":
                j += 1
                if j < n and "0" <= text[j] <= "9":
                    m = _DIGITS_RE.match(text, j, n)
                    j = m.end() if m else j
            if j < n and text[j] in "eE":
                k = j + 1
                if k < n and text[k] in "+-":
                    k += 1
                if k < n and "0" <= text[k] <= "9":
                    m = _DIGITS_RE.match(text, k, n)
                    j = m.end() if m else k
                else:
                    self.error(i, k, "missing exponent digits in scientific literal")
                    return k
            self.add("sci", i, j)
            return j
        self.add("num", i, j)
        return j

    def ident(self, i: int) -> int:
        text, n = self.text, self.n
        m = _IDENT_RE.match(text, i, n)
        if m is None:  # `«` with no `»`
            self.error(i, n, "unterminated identifier escape")
            return n
        j = m.end()
        word = m.group(0)
        # a token of the table at least as long as the identifier wins (`ℕ`, `ℝ`)
        for s in _SYM_FIRST.get(text[i], ()):
            if len(s) >= len(word) and text.startswith(s, i):
                self.add("sym", i, i + len(s))
                return i + len(s)
        self.add("ident", i, j)
        return j

    def symbol(self, i: int) -> int:
        text = self.text
        c = text[i]
        if c == "#" and i + 1 < self.n and _ID_FIRST_RE.match(text[i + 1]):
            m = _IDENT_RE.match(text, i + 1, self.n)
            j = m.end() if m else i + 2
            self.add("ident", i, j)  # a `#command` keyword (`#print`, `#eval`, `#exit`)
            return j
        end = 0
        for s in _SYM_FIRST.get(c, ()):
            if text.startswith(s, i):
                end = i + len(s)
                break
        else:
            cat = unicodedata.category(c)
            if cat[0] in "SP" or (cat[0] == "N" and cat != "Nd"):
                end = i + 1  # a notation token of some library (`∮`, `²`): code either way
        if not end:
            self.error(i, i + 1, "expected token")
            return i + 1
        # A subscript right after a symbol ends that notation (`::ₘ`, `→ₗ`, `:ₛ`): no token starts with a
        # subscript (`isIdFirst` excludes them), so in text Lean reads they are the end of a notation token,
        # and they cannot start a comment, string or character literal: code either way
        m = _SUBSCRIPT_RUN.match(text, end, self.n)
        if m is not None:
            end = m.end()
        self.add("sym", i, end)
        return end


# Lexing line by line. Where no token can run past the end of its line, the tokens of a text are the tokens
# of its lines, shifted: the lexer looks back past a line start only for a string literal (is it
# interpolated?), so a text without `"` qualifies when every line lexes without an error (a block comment,
# an escaped name, a character literal or a carriage return that runs on past its line is an error when the
# line is read alone). Every check of an RL run repeats most lines of the last one (the statement, the
# aesop clauses), so the lines' tokens are remembered: an LRU bounded by entries and by an estimate of their
# bytes, per process; LEAN_GYM_SIM_CACHE=0 in the environment turns it off.
_LINE_CACHE_ON = os.environ.get("LEAN_GYM_SIM_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")
_LINE_MAX_CHARS = 4096
_LINE_MAX_ENTRIES = 16_384
_LINE_MAX_BYTES = 16 << 20
_LINES: OrderedDict[str, tuple[tuple[Any, ...] | None, int]] = OrderedDict()
_line_bytes = 0
_new_token = tuple.__new__


def _line_tokens(line: str) -> tuple[Any, ...] | None:
    """The tokens of ``line`` read alone, or ``None`` when one of them is an error (see above).

    Tokens are plain tuples of :class:`LexToken`'s fields.
    """
    global _line_bytes
    hit = _LINES.get(line)
    if hit is not None:
        _LINES.move_to_end(line)
        return hit[0]
    lx = _Lexer(line, len(line))
    lx.run(0)
    # plain tuples: the collector stops tracking a tuple of strings and ints, never a named tuple
    toks: tuple[Any, ...] | None = tuple(tuple(t) for t in lx.out)
    if any(t.kind == "error" or t.message for t in lx.out):
        toks = None
    if len(line) <= _LINE_MAX_CHARS:
        size = 100 + len(line) + 150 * len(lx.out)
        _LINES[line] = (toks, size)
        _line_bytes += size
        while len(_LINES) > _LINE_MAX_ENTRIES or _line_bytes > _LINE_MAX_BYTES:
            _line_bytes -= _LINES.popitem(last=False)[1][1]
    return toks


def lex_lines(text: str) -> list[tuple[int, tuple[Any, ...]]] | None:
    """The tokens of ``text`` line by line: ``(offset of the line, its tokens with offsets into the line)``.

    Each token a plain tuple of :class:`LexToken`'s fields (``kind, start, end, text, message, interpolated``)
    for every line, or ``None`` when ``text`` cannot be read line by line (a string literal, or a token that
    runs past its line or is an error: then use :func:`lex`). Where it answers, shifting each line's tokens by
    its offset gives exactly :func:`lex`'s tokens. Lines are remembered (see above), so reading a text that
    repeats lines of earlier ones costs little.
    """
    if not _LINE_CACHE_ON or '"' in text:
        return None
    out: list[tuple[int, tuple[Any, ...]]] = []
    off = 0
    for line in text.split("\n"):
        toks = _line_tokens(line)
        if toks is None:
            return None
        out.append((off, toks))
        off += len(line) + 1
    return out


def _lex_by_lines(text: str) -> list[LexToken] | None:
    lines = lex_lines(text)
    if lines is None:
        return None
    out: list[LexToken] = []
    for off, toks in lines:
        out.extend([_new_token(LexToken, (k, s + off, e + off, tx, m, ip)) for k, s, e, tx, m, ip in toks])
    return out


def clear_line_cache() -> None:
    """Forget the remembered line tokens (and texts)."""
    global _line_bytes
    _LINES.clear()
    _line_bytes = 0
    forget_texts()


def forget_texts() -> None:
    """Forget the tokens of the last texts read whole.

    The simulator does at the end of each request: kept named tuples cost the garbage collector.
    """
    _lex_cached.cache_clear()


# Few texts (the readers of one check share them): named tuples stay tracked by the garbage collector,
# whose full collections scan them all.
@lru_cache(maxsize=16)
def _lex_cached(text: str) -> tuple[tuple[LexToken, ...], tuple[int, ...], tuple[int, ...]]:
    """Tokens, their starts, and the number of error tokens before each (a prefix count)."""
    out = _lex_by_lines(text) if "\n" in text else None
    if out is None:
        lx = _Lexer(text, len(text))
        lx.run(0)
        out = lx.out
    toks = tuple(out)
    errors = [0]
    n = 0
    for t in toks:
        if t.kind == "error":
            n += 1
        errors.append(n)
    return toks, tuple(t.start for t in toks), tuple(errors)


def lex(text: str, start: int = 0, end: int | None = None) -> list[LexToken]:
    """Every token of ``text[start:end]`` in order, comments included (``kind == "comment"``).

    Offsets are offsets into ``text``. Lexing never raises: text Lean rejects becomes ``error`` tokens
    (see :func:`lex_errors`), and lexing goes on where Lean's command loop would resume. A range that
    starts and ends between tokens of the whole text reuses the whole text's (cached) tokens.

    Example:
        >>> [t.text for t in lex("/- /- -/ -/ h' '\\"' «\\"» s!\\"{x}\\"") if t.kind != "comment"]
        ["h'", '\\'"\\'', '«"»', 's!', '"{', 'x', '}"']
    """
    toks, starts, _ = _lex_cached(text)
    if start == 0 and end is None:
        return list(toks)
    stop = len(text) if end is None else end
    if slices_whole(text, start, stop):
        return list(toks[bisect_left(starts, start) : bisect_left(starts, stop)])
    lx = _Lexer(text, stop)
    lx.run(start)
    return lx.out


def slices_whole(text: str, start: int, end: int) -> bool:
    """Whether :func:`lex` reads ``text[start:end]`` as a slice of the whole text's tokens.

    That is: no token crosses either end, and none in between is an error.
    """
    lines = lex_lines(text)
    if lines is not None:  # no error anywhere, no token across a line: look at the two lines only
        return not (_straddles(lines, start) or _straddles(lines, end))
    toks, starts, errors = _lex_cached(text)
    i = bisect_left(starts, start)
    j = bisect_left(starts, end)
    straddles = (i > 0 and toks[i - 1].end > start) or (j > 0 and toks[j - 1].end > end)
    return not straddles and errors[j] == errors[i]


def _straddles(lines: list[tuple[int, tuple[Any, ...]]], at: int) -> bool:
    """Whether a token of ``lines`` (:func:`lex_lines`) starts before offset ``at`` and ends after it."""
    k = bisect_right(lines, at, key=_line_offset) - 1
    if k < 0:
        return False
    off, toks = lines[k]
    r = at - off
    for t in toks:
        if t[1] >= r:
            return False
        if t[2] > r:
            return True
    return False


def _line_offset(line: tuple[int, tuple[Any, ...]]) -> int:
    return line[0]


def interpolated_reading(text: str, start: int) -> tuple[int, list[LexToken]]:
    """Read the string literal at ``text[start]`` as an interpolated string (as ``s!`` would).

    Returns:
        Where it ends, and its tokens (literal pieces and the code of its ``{…}``); the end is ``-1`` when
        it is not a well-formed interpolated string.
    """
    lx = _Lexer(text, len(text))
    end = lx.interpolated(start)
    if any(t.kind == "error" for t in lx.out):
        return -1, lx.out
    return end, lx.out


def code_tokens(text: str) -> list[LexToken]:
    """The tokens of ``text`` without comments (doc comments and errors kept)."""
    return [t for t in _lex_cached(text)[0] if t.kind != "comment"]


def lex_errors(text: str) -> list[LexToken]:
    """The ``error`` tokens of ``text`` (empty when Lean's lexer accepts all of it)."""
    return [t for t in _lex_cached(text)[0] if t.kind == "error"]
