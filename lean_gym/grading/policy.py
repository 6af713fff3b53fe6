"""The banned-construct scanner: refuses dangerous or cheating Lean source before Lean sees it.

The scan works on the submission with comments and literals blanked out (:func:`strip_comments_and_strings`
keeps every line and column, so findings point at the real source). Nested ``/- … -/`` comments,
doc comments, ``--`` line comments, string literals (with escapes, ``s!``/``m!``/``f!`` interpolation and
raw ``r"…"``/``r#"…"#`` strings) and character literals are handled as Lean's scanner does, so a banned
word inside a comment never triggers a finding and a banned construct can not hide in one either.

Each finding names a hack class from :mod:`lean_gym.grading.hacks`. Two rules read tokens of the one lexer
rather than the blanked text: names that reach the host (``unsafe_io``) are resolved as Lean resolves
them (locals in scope, the root namespace; see :func:`_io_findings`), so ``hIO`` or a binder ``RATIO`` is
never one; and text imitating ``#print axioms`` output (``forged_axioms_output``) is looked for where
Lean can print it — string literals, names, doc comments, the code — never in a comment, which no
output ever shows (:func:`_forged_findings`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from lean_gym.lean.lexer import (
    AMBIGUOUS_QUOTE,
    LexToken,
    ident_value,
    interpolated_reading,
    is_plain_ident,
    lex,
)

__all__ = [
    "ALLOWED_OPTION_PREFIXES",
    "FORGED_AXIOMS_PATTERN",
    "IO_ROOTS",
    "PRIORITY",
    "Violation",
    "first_violation",
    "header_imports",
    "scan",
    "split_leading_imports",
    "strip_comments_and_strings",
]

#: ``set_option`` names a submission may set (exact names, or prefixes ending in ``.``).
ALLOWED_OPTION_PREFIXES: tuple[str, ...] = (
    "maxHeartbeats",
    "maxRecDepth",
    "synthInstance.maxHeartbeats",
    "synthInstance.maxSize",
    "exponentiation.threshold",
    "autoImplicit",
    "relaxedAutoImplicit",
    "pp.",
    "linter.",
    "push_neg.",
    "simprocs",
    "tactic.hygienic",
    "tactic.simp.trace",
    "trace.Meta.Tactic.simp",
    "trace.aesop",
    "aesop.",
    "linarith.",
    "polyrith.",
)

#: Phrases of ``#print axioms`` output. Looked for in the text Lean can print (string literals, names, the
#: code itself), never in comments, which never reach Lean's output.
FORGED_AXIOMS_PATTERN = re.compile(r"depends\s+on\s+axioms|does\s+not\s+depend\s+on\s+any\s+axioms")

#: Lean's own wording of that output (``'t' depends on axioms: [propext]``, ``'t' does not depend on any
#: axioms``): what a doc comment must imitate to count (its prose may say "depends on axioms").
_AXIOMS_OUTPUT_FORMAT = re.compile(
    r"depends\s+on\s+axioms\s*:\s*\[|['»]\s*does\s+not\s+depend\s+on\s+any\s+axioms"
)

#: When a submission has several findings, the reported class is the first of these that occurs.
PRIORITY: tuple[str, ...] = (
    "oversized_submission",
    "unsafe_io",
    "extern",
    "early_exit",
    "extra_import",
    "forged_axioms_output",
    "debug_option",
    "implemented_by",
    "meta_programming",
    "macro_sorry",
    "notation_redefinition",
    "instance_redefinition",
    "axiom_injection",
    "unsafe_definition",
    "weakened_hypothesis",
    "statement_tampering",
    "native_decide",
    "admit",
    "sorry",
    "proof_error",
)


@dataclass(frozen=True)
class Violation:
    """One banned construct found in a submission.

    Attributes:
        hack_class: The hack class it belongs to.
        token: The offending text as written.
        line: 1-based line in the submission.
        column: 0-based column (code points).
        reason: One sentence a person (or a policy, as feedback) can act on.
    """

    hack_class: str
    token: str
    line: int
    column: int
    reason: str


# ------------------------------------------------------------------------------------------- lexing


@dataclass(frozen=True)
class _View:
    """A submission as the scan reads it: the code with everything Lean does not read as code blanked."""

    code: str
    errors: tuple[LexToken, ...]
    ambiguous: tuple[LexToken, ...]


def _interpolated_end(source: str, tok: LexToken) -> tuple[int, list[tuple[int, int]]]:
    """Where ``tok`` (a plain string literal) would end if an interpolating macro read it.

    Also the spans of its ``{…}`` code in that reading.
    """
    end, toks = interpolated_reading(source, tok.start)
    pieces = [t for t in toks if t.kind == "str" and t.interpolated]
    spans = [(a.end, b.start) for a, b in pairwise(pieces)]
    return end, spans


@lru_cache(maxsize=256)
def _view(source: str) -> _View:
    chars = list(source)
    errors: list[LexToken] = []
    ambiguous: list[LexToken] = []

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if chars[k] != "\n":
                chars[k] = " "

    for t in lex(source):
        kind = t.kind
        if kind == "error":
            errors.append(t)  # kept visible: Lean resumes inside it, and so does the lexer
        elif kind in ("comment", "doc", "char"):
            blank(t.start, t.end)
        elif kind == "str":
            if t.interpolated or "{" not in t.text or t.text.startswith("r"):
                blank(t.start, t.end)
                continue
            # a plain string with `{`: an interpolating macro the lexer does not know would read code there
            end, spans = _interpolated_end(source, t)
            if end != t.end:
                ambiguous.append(t)
                blank(t.start, t.end)
                continue
            pos = t.start
            for a, b in spans:
                blank(pos, a)
                pos = b
            blank(pos, t.end)
        elif kind in ("ident", "name") and "«" in t.text:
            # `«IO».Process` is `IO.Process`: a plain part is read as written; `«" x "»` is no word at all
            k = t.start
            while k < t.end:
                if chars[k] != "«":
                    k += 1
                    continue
                close = source.find("»", k, t.end)
                close = t.end - 1 if close < 0 else close
                if is_plain_ident(source[k + 1 : close]):
                    chars[k] = chars[close] = " "
                else:
                    blank(k, close + 1)
                k = close + 1
    return _View("".join(chars), tuple(errors), tuple(ambiguous))


def strip_comments_and_strings(source: str) -> str:
    """``source`` with comments, string literals and character literals blanked out.

    The text is read by :func:`lean_gym.lean.lexer.lex`, Lean's own token rules, so the scan sees exactly
    the code Lean sees. Blanked characters become spaces (newlines stay), so positions in the result are
    positions in ``source``. The ``«»`` of escaped names are blanked too (``«IO».Process`` is
    ``IO.Process``), and the ``{…}`` code of interpolated strings stays. An unterminated comment blanks the
    rest of the text, as Lean reads it; after any other lexical error Lean (and the lexer) resumes, so the
    text after it stays visible (and Lean reports the error).

    Example:
        >>> strip_comments_and_strings('exact h -- sorry\\n/- /- axiom -/ -/ "#exit"').split()
        ['exact', 'h']
    """
    return _view(source).code


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start


def _word(word: str) -> str:
    """A regex matching ``word`` as a whole Lean token (not part of a longer identifier)."""
    return r"(?<![\w'!?.])" + re.escape(word) + r"(?![\w'!?])"


# ------------------------------------------------------------------------------------------- rules

_KEYWORD_RULES: tuple[tuple[str, str, str], ...] = (
    # (regex, hack class, reason)
    (_word("#exit"), "early_exit", "`#exit` stops elaboration before the grader's checks run"),
    (_word("#print") + r"\s+axioms", "forged_axioms_output", "a submission may not print axioms itself"),
    (_word("import"), "extra_import", "imports come from the dataset's header only"),
    (_word("implemented_by"), "implemented_by", "`implemented_by` replaces code the kernel checked"),
    (_word("csimp"), "implemented_by", "`@[csimp]` replaces compiled code"),
    (_word("extern"), "extern", "`@[extern]` reaches foreign code"),
    (_word("export"), "extern", "`export` (attribute or command) is not allowed"),
    (_word("#eval"), "meta_programming", "`#eval` runs code during elaboration"),
    (r"(?<![\w'!?.])#eval!", "meta_programming", "`#eval!` runs code during elaboration"),
    (_word("run_cmd"), "meta_programming", "`run_cmd` runs meta-programs"),
    (_word("run_tac"), "meta_programming", "`run_tac` runs meta-programs"),
    (_word("run_elab"), "meta_programming", "`run_elab` runs meta-programs"),
    (_word("run_meta"), "meta_programming", "`run_meta` runs meta-programs"),
    (_word("by_elab"), "meta_programming", "`by_elab` runs meta-programs"),
    (_word("elab"), "meta_programming", "`elab` defines an elaborator"),
    (_word("elab_rules"), "meta_programming", "`elab_rules` defines an elaborator"),
    (_word("simproc"), "meta_programming", "`simproc` defines a simplification procedure"),
    (_word("dsimproc"), "meta_programming", "`dsimproc` defines a simplification procedure"),
    (_word("initialize"), "meta_programming", "`initialize` runs code at load time"),
    (_word("builtin_initialize"), "meta_programming", "`builtin_initialize` runs code at load time"),
    (r"@\[\s*(?:[^\]]*[\s,])?(?:builtin_)?init\b", "meta_programming", "`@[init]` runs code at load time"),
    (_word("addDecl"), "meta_programming", "adding declarations by hand skips the elaborator"),
    (_word("addAndCompile"), "meta_programming", "adding declarations by hand skips the elaborator"),
    (_word("modifyEnv"), "meta_programming", "modifying the environment by hand is not allowed"),
    (_word("setEnv"), "meta_programming", "modifying the environment by hand is not allowed"),
    (_word("macro"), "macro_sorry", "user macros can turn a tactic into `sorry`"),
    (_word("macro_rules"), "macro_sorry", "user macro rules can turn a tactic into `sorry`"),
    (_word("syntax"), "macro_sorry", "user syntax is not allowed"),
    (_word("declare_syntax_cat"), "macro_sorry", "user syntax is not allowed"),
    (_word("notation"), "notation_redefinition", "notation can change what the statement means"),
    (_word("notation3"), "notation_redefinition", "notation can change what the statement means"),
    (_word("infix"), "notation_redefinition", "notation can change what the statement means"),
    (_word("infixl"), "notation_redefinition", "notation can change what the statement means"),
    (_word("infixr"), "notation_redefinition", "notation can change what the statement means"),
    (_word("prefix"), "notation_redefinition", "notation can change what the statement means"),
    (_word("postfix"), "notation_redefinition", "notation can change what the statement means"),
    (_word("binder_predicate"), "notation_redefinition", "notation can change what the statement means"),
    (_word("instance"), "instance_redefinition", "instances can change how the statement elaborates"),
    (_word("default_instance"), "instance_redefinition", "instances can change how the statement elaborates"),
    (
        _word("unif_hint"),
        "instance_redefinition",
        "unification hints can change how the statement elaborates",
    ),
    (_word("axiom"), "axiom_injection", "new axioms are not allowed"),
    (_word("opaque"), "axiom_injection", "`opaque` constants act as unchecked axioms"),
    (_word("unsafe"), "unsafe_definition", "`unsafe` code is not checked by the kernel"),
    (_word("partial"), "unsafe_definition", "`partial` definitions are opaque to the kernel"),
    (_word("variable"), "weakened_hypothesis", "`variable` can add hypotheses the statement does not show"),
    (_word("include"), "weakened_hypothesis", "`include` adds hypotheses the statement does not show"),
    (_word("omit"), "weakened_hypothesis", "`omit` changes the hypotheses of later theorems"),
    (_word("namespace"), "statement_tampering", "`namespace` changes what the statement's names mean"),
    (_word("sorryAx"), "sorry", "`sorryAx` is `sorry`"),
    (_word("sorry"), "sorry", "`sorry` proves nothing"),
    (_word("admit"), "admit", "`admit` proves nothing"),
)

_NATIVE_RULES: tuple[tuple[str, str], ...] = (
    (_word("native_decide"), "`native_decide` trusts the compiler, not the kernel"),
    (r"(?<![\w'!?.])decide\s*\+\s*native\b", "`decide +native` trusts the compiler, not the kernel"),
    (r"\bnative\s*:=\s*true\b", "native evaluation trusts the compiler, not the kernel"),
    (_word("bv_decide"), "`bv_decide` trusts the compiler, not the kernel"),
    (r"(?<![\w'!?])(?:Lean\.)?ofReduceBool\b", "`Lean.ofReduceBool` trusts the compiler"),
    (r"(?<![\w'!?])(?:Lean\.)?ofReduceNat\b", "`Lean.ofReduceNat` trusts the compiler"),
    (r"(?<![\w'!?])(?:Lean\.)?trustCompiler\b", "`Lean.trustCompiler` trusts the compiler"),
    (r"(?<![\w'!?])(?:Lean\.)?reduceBool\b", "`Lean.reduceBool` trusts the compiler"),
)

_PLAIN_WORD = re.compile(r"\(\?<!\[\\w'!\?\.\]\)(.+)\(\?!\[\\w'!\?\]\)")


def _compile_rules(
    rules: Iterable[tuple[str, str, str]],
) -> tuple[re.Pattern[str], dict[str, tuple[str, str]], tuple[tuple[re.Pattern[str], str, str], ...]]:
    """One alternation for the whole-word rules (one pass over the code), the rest kept as regexes."""
    words: dict[str, tuple[str, str]] = {}
    others: list[tuple[re.Pattern[str], str, str]] = []
    for pattern, hack_class, reason in rules:
        m = _PLAIN_WORD.fullmatch(pattern)
        word = re.sub(r"\\(.)", r"\1", m.group(1)) if m else None
        if word is not None and re.escape(word) == m.group(1):  # type: ignore[union-attr]
            words[word] = (hack_class, reason)
        else:
            others.append((re.compile(pattern), hack_class, reason))
    alternation = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(r"(?<![\w'!?.])(" + alternation + r")(?![\w'!?])"), words, tuple(others)


_WORDS_RE, _WORDS, _OTHER_RULES = _compile_rules(_KEYWORD_RULES)
_NATIVE_WORDS_RE, _NATIVE_WORDS, _NATIVE_OTHER = _compile_rules(
    (pattern, "native_decide", reason) for pattern, reason in _NATIVE_RULES
)

_SET_OPTION = re.compile(_word("set_option") + r"\s+([^\s]+)")


# ------------------------------------------------------------------------------------------- names

#: The root names that reach the host: Lean's ``IO`` namespace (``IO.FS``, ``IO.Process``, ``IO.Ref``…),
#: its monads ``EIO``/``BaseIO``, ``System`` (``System.FilePath``…) and the ``unsafe…IO`` escapes. A name
#: refers to the host when the declaration it resolves to lies under one of these.
IO_ROOTS: frozenset[str] = frozenset(
    {"IO", "EIO", "BaseIO", "System", "unsafeIO", "unsafeEIO", "unsafeBaseIO"}
)
#: Pure parts of those namespaces (``System.Platform.numBits`` is a constant): never reported.
_IO_PURE = ("System.Platform",)
#: Every root's name contains one of these: a text that has none names no root (see :func:`_io_findings`).
_IO_MARKS = ("IO", "System")
if not all(any(m in root for m in _IO_MARKS) for root in IO_ROOTS):  # pragma: no cover - a module's own check
    raise AssertionError("every name in IO_ROOTS must contain one of _IO_MARKS")

#: Tokens that start a command: a declaration's binders end there.
_COMMAND_WORDS = frozenset(
    {
        "theorem", "lemma", "example", "def", "abbrev", "instance", "structure", "inductive", "class",
        "axiom", "opaque", "open", "namespace", "section", "end", "set_option", "attribute", "noncomputable",
        "private", "protected", "variable", "universe", "mutual", "export", "#print", "#check", "#eval",
        "#reduce", "#exit", "#synth", "#guard_msgs", "macro", "macro_rules", "syntax", "notation",
        "notation3", "infix", "infixl", "infixr", "prefix", "postfix", "elab", "elab_rules", "initialize",
        "builtin_initialize", "run_cmd", "run_elab", "run_meta", "deriving", "include", "omit", "unsafe",
        "partial", "nonrec", "local", "scoped",
    }
)  # fmt: skip
_DECLARATION_WORDS = frozenset(
    {"theorem", "lemma", "example", "def", "abbrev", "instance", "opaque", "axiom"}
)
#: Term binders: their names are locals in the body after the separator.
_TERM_BINDERS = {"fun": ("=>", "↦"), "λ": ("=>", "↦"), "∀": (",",), "∃": (",",), "∃!": (",",)}
#: Tactics whose first identifier is a new local (``have h : …``, ``by_contra h``…).
_NAMING_TACTICS = frozenset({"have", "let", "set", "by_contra", "by_contra!", "by_cases", "haveI", "letI"})
#: Tactics whose every plain identifier (up to ``:=``/``:``/the end) is a new local, and those whose
#: identifiers after ``with`` are.
_INTRO_TACTICS = frozenset({"intro", "intros", "rintro", "rename_i", "obtain", "next"})
_WITH_TACTICS = frozenset({"rcases", "cases'", "induction'", "obtain"})
#: Where a `fun`/`∀`/`∃` body may end (at its own bracket depth): ending a scope early is only stricter.
_TERM_SCOPE_STOPS = frozenset(
    {",", ":=", ":", "|", ";", "<;>", "=>", "↦", "←", "<-", "then", "else", "from", "at", "with", "using",
     "do", "in", "generalizing", "says"}
)  # fmt: skip
#: Where the locals of a tactic stop being in scope, besides the end of its block: another alternative.
_TACTIC_SCOPE_STOPS = frozenset({"|"})
_OPENERS = frozenset({"(", "[", "{", "⟨", "⦃", "@[", "%["})
_CLOSERS = frozenset({")", "]", "}", "⟩", "⦄"})


@dataclass(frozen=True)
class _Code:
    """The tokens of a submission that Lean reads as code, with their lines and columns."""

    toks: tuple[LexToken, ...]
    cols: tuple[int, ...]
    first: tuple[bool, ...]  # the token is the first on its line
    depth: tuple[int, ...]  # bracket depth before the token


def _code(source: str) -> _Code:
    toks = tuple(t for t in lex(source) if t.kind not in ("comment", "doc", "error"))
    cols: list[int] = []
    first: list[bool] = []
    depth: list[int] = []
    d = 0
    last_line = -1
    for t in toks:
        line_start = source.rfind("\n", 0, t.start) + 1
        cols.append(t.start - line_start)
        first.append(line_start != last_line)
        last_line = line_start
        if t.kind == "sym" and t.text in _CLOSERS:
            d = max(d - 1, 0)
        depth.append(d)
        if t.kind == "sym" and t.text in _OPENERS:
            d += 1
    return _Code(toks, tuple(cols), tuple(first), tuple(depth))


def _scope_end(code: _Code, start: int, depth: int, col: int | None, stops: frozenset[str]) -> int:
    """Index of the first token at or after ``start`` that ends a scope opened at bracket ``depth``.

    The scope ends at a bracket that closes the enclosing group, at a command, at one of ``stops`` at the
    same depth, and (``col`` given) at a line that starts left of ``col`` (Lean's layout for tactic
    blocks). Ending early only makes the scan stricter.
    """
    toks = code.toks
    k = start
    while k < len(toks):
        t = toks[k]
        d = code.depth[k]
        if d < depth or (t.kind == "ident" and t.text in _COMMAND_WORDS):
            return k  # a command keyword starts a new command wherever it stands
        if d == depth and t.text in stops and t.kind in ("sym", "ident"):
            return k
        if col is not None and code.first[k] and code.cols[k] < col:
            return k
        k += 1
    return k


# C901: one branch per binder form Lean has (fun, ∀, ∃, let, match, do, pattern binders).
def _binders(code: _Code) -> list[tuple[int, int, int, str]]:  # noqa: C901
    """``(binding token, scope start, scope end, name)`` for every local the scan can place.

    Signature binders of a declaration (the rest of it), ``fun``/``λ``/``∀``/``∃`` binders (their body), and
    the names that ``intro``/``obtain``/``rcases … with``/``have``/``by_contra``/``case … =>`` and their
    kin introduce (the rest of their tactic block). A name bound some other way is not known to be a
    local, so a name of the host namespaces written there is still reported.
    """
    toks = code.toks
    n = len(toks)
    out: list[tuple[int, int, int, str]] = []

    def plain(k: int) -> bool:
        t = toks[k]
        return t.kind == "ident" and "." not in ident_value(t.text) and t.text not in _COMMAND_WORDS

    for k, t in enumerate(toks):
        if t.kind != "ident" and not (t.kind == "sym" and t.text in _TERM_BINDERS):
            continue
        word = t.text
        if word in _DECLARATION_WORDS and code.cols[k] == 0:
            # `theorem NAME binders : type := …`: binder groups before the colon at depth 0
            end = _scope_end(code, k + 1, 0, None, frozenset())
            j = k + 2 if word != "example" else k + 1
            while j < end and toks[j].kind == "sym" and toks[j].text in ("(", "{", "⦃", "["):
                d = code.depth[j]
                m = j + 1
                group: list[int] = []
                while m < end and plain(m):
                    group.append(m)
                    m += 1
                while m < end and code.depth[m] > d:
                    m += 1
                # in scope after the group: `(IO : IO.Process.Child)` names the host in its own type
                out.extend((x, m + 1, end, ident_value(toks[x].text)) for x in group)
                j = m + 1
            continue
        seps = _TERM_BINDERS.get(word)
        if seps is not None:
            d = code.depth[k]
            m = k + 1
            names: list[int] = []
            open_list = True  # still in the leading run of binders (`∀ x y`, `fun (a b : T) ⟨c, d⟩`)
            while m < n and not (code.depth[m] == d and toks[m].text in seps):
                u = toks[m]
                if code.depth[m] == d:
                    if plain(m) and open_list:
                        names.append(m)
                    elif u.kind == "sym" and u.text in ("(", "{", "⦃", "[", "⟨"):
                        # a group: its names before its `:` (`(a b : T)`), or a pattern's (`⟨a, b⟩`)
                        j = m + 1
                        in_names = True
                        while j < n and code.depth[j] > d:
                            w = toks[j]
                            if code.depth[j] == d + 1:
                                if w.kind == "sym" and w.text == ":":
                                    in_names = False
                                elif plain(j) and in_names:
                                    names.append(j)
                                elif not (w.kind == "sym" and w.text == ","):
                                    in_names = in_names and w.kind == "sym" and w.text == "_"
                            j += 1
                        m = j + 1  # past the group's closing bracket
                        continue
                    else:
                        open_list = False  # `∀ x ∈ S`, `∀ x : T`: nothing after this is a binder
                m += 1
            if m >= n:
                continue
            line = k
            while line > 0 and not code.first[line]:
                line -= 1
            # the body: to the end of its group, a separator, or a line that is not indented past the
            # binder's own line (the next tactic)
            end = _scope_end(code, m + 1, d, code.cols[line] + 1, _TERM_SCOPE_STOPS)
            out.extend((x, m + 1, end, ident_value(toks[x].text)) for x in names)
            continue
        if word in _NAMING_TACTICS or word in _INTRO_TACTICS or word in _WITH_TACTICS or word == "case":
            d = code.depth[k]
            line = k
            while line > 0 and not code.first[line]:
                line -= 1
            col = code.cols[line] + (0 if line == k else 1)
            # the tactic's own text: its line (and deeper continuation lines) up to `;`/`<;>`/`=>`
            stop = k + 1
            while stop < n and not (code.first[stop] and code.cols[stop] <= code.cols[line]):
                if code.depth[stop] == d and toks[stop].text in (";", "<;>", "=>"):
                    break
                stop += 1
            names_end = stop
            if word not in ("case", "next"):
                # a local of `have IO : T := v`, `obtain ⟨IO, h⟩ := v`, `by_cases IO : p` is not in scope in
                # `T`, `v`, `p`: only in the tactics after this one
                names_end = next(
                    (x for x in range(k + 1, stop) if toks[x].text in (":=", ":") and code.depth[x] == d),
                    stop,
                )
            start = stop + 1 if stop < n and toks[stop].text in (";", "=>") else stop
            end = _scope_end(code, start, d, col, _TACTIC_SCOPE_STOPS)
            if word in _NAMING_TACTICS or word == "case":
                m = k + (2 if word == "case" else 1)
                if m < names_end and plain(m):
                    out.append((m, start, end, ident_value(toks[m].text)))
                if word == "case":
                    out.extend(
                        (x, start, end, ident_value(toks[x].text))
                        for x in range(m + 1, names_end)
                        if plain(x)
                    )
                continue
            region = range(k + 1, names_end)
            if word in _WITH_TACTICS:
                with_at = next((x for x in region if toks[x].text == "with"), None)
                if word != "obtain" or with_at is not None:
                    region = range(with_at + 1, stop) if with_at is not None else range(0)
            for x in region:
                if plain(x) and toks[x].text not in ("with", "rfl", "_", "at"):
                    out.append((x, start, end, ident_value(toks[x].text)))
    return out


def _io_findings(source: str) -> Iterable[tuple[int, str]]:
    """Identifiers that refer to a declaration under :data:`IO_ROOTS`, resolved as Lean resolves names.

    A name refers to a local when a binder of that name is in scope (``(IO : ℕ)``, ``fun IO => …``); then
    ``IO.x`` is a projection of that local, not the host's ``IO``. Otherwise a name's root is looked up from
    the root namespace: ``_root_.IO.x`` and ``«IO».Process`` are ``IO…``; ``hIO``, ``RATIO`` or ``FS`` are
    not (no declaration of the host namespaces is named so at the root). Only ``open`` (and ``namespace``)
    can bring ``IO.FS`` into scope as ``FS``, and the ``open IO`` itself names ``IO``, so it is reported.
    Name literals (`` `IO.x ``) are reported too: they only serve meta-programs.
    """
    if not any(m in source for m in _IO_MARKS):
        # a token names a root only by spelling it (`«IO»` too: guillemets hold the name's own characters)
        return
    code = _code(source)
    binding: set[int] = set()
    scopes: list[tuple[int, int, str]] = []
    for tok_k, lo, hi, name in _binders(code):
        binding.add(tok_k)
        scopes.append((lo, hi, name))
    for k, t in enumerate(code.toks):
        if t.kind not in ("ident", "name") or k in binding:
            continue
        value = ident_value(t.text.lstrip("`") if t.kind == "name" else t.text)
        rooted = value.startswith("_root_.")
        if rooted:
            value = value[len("_root_.") :]
        head = value.split(".", 1)[0]
        if head not in IO_ROOTS or value.startswith(_IO_PURE):
            continue
        if t.kind == "ident" and not rooted and any(lo <= k < hi and nm == head for lo, hi, nm in scopes):
            continue  # a local of that name: `IO.x` is a field of it
        yield t.start, t.text


# ------------------------------------------------------------------------------------ forged output

_ESCAPE = re.compile(r'\\(["\\\'nrt])|\\x([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})|\\\n[ \t]*')
_ESCAPED = {"n": "\n", "r": "\r", "t": "\t"}


def _string_value(text: str) -> str:
    """What a string-literal token (or a piece of an interpolated string) says, its escapes read."""
    raw = text.startswith("r")
    body = text.lstrip("r").strip("#")
    body = body[1:] if body[:1] in ('"', "}") else body
    body = body[:-1] if body[-1:] in ('"', "{") else body
    if raw:
        return body

    def sub(m: re.Match[str]) -> str:
        if m.group(1):
            return _ESCAPED.get(m.group(1), m.group(1))
        if m.group(2):
            return chr(int(m.group(2), 16))
        if m.group(3):
            return chr(int(m.group(3), 16))
        return ""

    return _ESCAPE.sub(sub, body)


def _forged_findings(source: str) -> Iterable[tuple[int, str]]:
    """Where ``source`` imitates ``#print axioms`` output in text that Lean may print.

    A forgery only matters once it is in Lean's output: a string literal (``#print "…"``, a ``def`` shown
    by ``#print``), a name (an error message quotes it), a doc comment (``#print`` shows it), or the code
    itself. A ``--`` or ``/- -/`` comment never reaches the output, so it is never read; a doc comment
    counts only when it has Lean's wording (``'t' does not depend on any axioms``, ``depends on axioms:
    [``), since its prose may say that a lemma "depends on axioms".
    """
    words: list[LexToken] = []
    for t in lex(source):
        if t.kind == "comment" or t.kind == "error":
            continue
        if t.kind == "doc":
            m = _AXIOMS_OUTPUT_FORMAT.search(t.text)
            if m:
                yield t.start + m.start(), m.group(0)
            continue
        if t.kind == "str":
            m = FORGED_AXIOMS_PATTERN.search(_string_value(t.text))
            if m:
                yield t.start, t.text[:40]
            continue
        if t.kind in ("ident", "name") and "«" in t.text:
            m = FORGED_AXIOMS_PATTERN.search(ident_value(t.text))
            if m:
                yield t.start, t.text[:40]
        words.append(t)
    joined = " ".join(ident_value(t.text) if t.kind == "ident" else t.text for t in words)
    m = FORGED_AXIOMS_PATTERN.search(joined)
    if m:
        # map the match back to its token
        pos = 0
        for t in words:
            w = ident_value(t.text) if t.kind == "ident" else t.text
            if pos + len(w) > m.start():
                yield t.start, m.group(0)
                break
            pos += len(w) + 1


def _option_allowed(name: str) -> bool:
    for allowed in ALLOWED_OPTION_PREFIXES:
        if allowed.endswith("."):
            if name.startswith(allowed):
                return True
        elif name == allowed or name.startswith(allowed + "."):
            return True
    return False


# ------------------------------------------------------------------------------------------- imports


@lru_cache(maxsize=64)
def header_imports(header: str) -> frozenset[str]:
    """The module names a header imports (``import A B`` and one-per-line forms)."""
    code = strip_comments_and_strings(header)
    mods: set[str] = set()
    for m in re.finditer(r"^\s*import\s+([^\n]+)", code, flags=re.MULTILINE):
        mods.update(m.group(1).split())
    return frozenset(mods)


def split_leading_imports(submission: str) -> tuple[list[str], str]:
    """Split the ``import`` lines at the top of ``submission`` from the rest.

    Whole-file outputs of provers usually repeat the dataset's header (``import Mathlib`` …); those
    lines are harmless when they name modules the header already imports, and are removed before the
    check because Lean accepts imports only at the start of a file.

    Only the ``import`` commands themselves are blanked (the lexer finds them), so a comment that starts
    on an import line still starts there.

    Returns:
        The imported module names, and the submission without those commands (lines and columns kept so
        positions still match the original).
    """
    chars = list(submission)
    mods: list[str] = []
    toks = lex(submission)
    k, n = 0, len(toks)
    while k < n:
        t = toks[k]
        if t.kind == "comment":
            k += 1
            continue
        if t.kind != "ident" or t.text != "import":
            break
        j = k + 1
        line_end = submission.find("\n", t.start)
        line_end = len(submission) if line_end < 0 else line_end
        while j < n and toks[j].kind == "ident" and toks[j].end <= line_end:
            j += 1
        if j == k + 1:
            break
        mods.extend(x.text for x in toks[k + 1 : j])
        for pos in range(t.start, toks[j - 1].end):
            chars[pos] = " "
        k = j
    return mods, "".join(chars)


# ------------------------------------------------------------------------------------------- scan


# C901: one branch per banned construct, in one pass over the tokens.
def scan(  # noqa: C901
    submission: str,
    *,
    allow_native_decide: bool = False,
    allowed_imports: Iterable[str] = (),
) -> list[Violation]:
    """Every banned construct in ``submission``, in source order.

    Args:
        submission: The untrusted Lean source (without the dataset's header).
        allow_native_decide: Accept ``native_decide`` and friends (their axiom still shows up in
            ``#print axioms`` as ``Lean.ofReduceBool``).
        allowed_imports: Modules the header imports; leading ``import`` lines naming only these are
            allowed (they are removed before the check, see :func:`split_leading_imports`).

    Returns:
        The findings; empty when the submission may be sent to Lean.
    """
    found: list[Violation] = []

    def add(offset: int, token: str, hack_class: str, reason: str) -> None:
        line, col = _position(submission, offset)
        found.append(Violation(hack_class, token, line, col, reason))

    allowed = set(allowed_imports)
    lead_mods, rest = split_leading_imports(submission)
    for mod in lead_mods:
        if mod not in allowed:
            off = submission.find(mod)
            add(
                max(off, 0), f"import {mod}", "extra_import", f"`import {mod}` is not in the dataset's header"
            )
    view = _view(rest)
    code = view.code
    for t in view.errors:
        # Lean reports its own lexical errors (and reads on after them, as the scan does); only where
        # lean-gym cannot know Lean's reading is the text refused here
        if t.message == AMBIGUOUS_QUOTE:
            add(t.start, t.text[:20], "proof_error", t.message)
    for t in view.ambiguous:
        add(
            t.start,
            t.text[:20],
            "meta_programming",
            "a string literal with `{` that an interpolating macro reads differently; escape it as `\\{`",
        )

    for offset, text in _forged_findings(rest):
        add(offset, text, "forged_axioms_output", "the submission imitates `#print axioms` output")

    for m in _WORDS_RE.finditer(code):
        hack_class, reason = _WORDS[m.group(1)]
        add(m.start(), m.group(0), hack_class, reason)
    for rx, hack_class, reason in _OTHER_RULES:
        for m in rx.finditer(code):
            add(m.start(), m.group(0), hack_class, reason)
    if not allow_native_decide:
        for m in _NATIVE_WORDS_RE.finditer(code):
            add(m.start(), m.group(0), "native_decide", _NATIVE_WORDS[m.group(1)][1])
        for rx, _, reason in _NATIVE_OTHER:
            for m in rx.finditer(code):
                add(m.start(), m.group(0), "native_decide", reason)
    for m in _SET_OPTION.finditer(code):
        name = m.group(1)
        if name.startswith("debug."):
            add(m.start(), m.group(0), "debug_option", f"`set_option {name}` weakens Lean's checks")
        elif not _option_allowed(name):
            add(m.start(), m.group(0), "debug_option", f"`set_option {name}` is not on the allowed list")
    for offset, ident in _io_findings(rest):
        add(offset, ident, "unsafe_io", f"`{ident}` reaches the host (IO is refused before Lean sees it)")
    # an instance attribute applied after the fact: `attribute [instance] foo`, `attribute [-instance] …`
    for m in re.finditer(r"(?<![\w'!?.])attribute\s*\[[^\]]*instance[^\]]*\]", code):
        add(m.start(), m.group(0), "instance_redefinition", "instance attributes change elaboration")
    found.sort(key=lambda v: (v.line, v.column))
    return found


def first_violation(violations: Iterable[Violation], *, ignore: Iterable[str] = ()) -> Violation | None:
    """The finding to report: the highest-priority class (see :data:`PRIORITY`) not in ``ignore``."""
    skip = set(ignore)
    kept = [v for v in violations if v.hack_class not in skip]
    if not kept:
        return None
    rank = {c: k for k, c in enumerate(PRIORITY)}
    return min(kept, key=lambda v: (rank.get(v.hack_class, len(rank)), v.line, v.column))
