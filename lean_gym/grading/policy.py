"""The banned-construct scanner: refuses dangerous or cheating Lean source before Lean sees it.

The scan works on the submission with comments and literals blanked out (:func:`strip_comments_and_strings`
keeps every line and column, so findings point at the real source). Nested ``/- … -/`` comments,
doc comments, ``--`` line comments, string literals (with escapes, ``s!``/``m!``/``f!`` interpolation and
raw ``r"…"``/``r#"…"#`` strings) and character literals are handled as Lean's scanner does, so a banned
word inside a comment never triggers a finding and a banned construct can not hide in one either.

Each finding names a hack class from :mod:`lean_gym.grading.hacks`. The one exception to "scan the code
only" is :data:`FORGED_AXIOMS_PATTERN`, which is looked for in the raw text too: no honest proof quotes
``#print axioms`` output.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from lean_gym.lean.lexer import AMBIGUOUS_QUOTE, LexToken, interpolated_reading, is_plain_ident, lex

__all__ = [
    "ALLOWED_OPTION_PREFIXES",
    "FORGED_AXIOMS_PATTERN",
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

#: Raw-text phrases that imitate ``#print axioms`` output.
FORGED_AXIOMS_PATTERN = re.compile(r"depends\s+on\s+axioms|does\s+not\s+depend\s+on\s+any\s+axioms")

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
    """Where ``tok`` (a plain string literal) would end if an interpolating macro read it, and the spans of
    its ``{…}`` code in that reading."""
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

# Identifier components that reach the host: IO actions, the file system, processes.
_IDENT = re.compile(r"(?<![\w'!?.])[^\W\d][\w'!?]*(?:\.[^\W\d][\w'!?]*)*")
_IO_PARTS = frozenset({"IO", "System", "FilePath", "Process", "FS", "Handle", "EIO", "BaseIO", "IORef"})
_SET_OPTION = re.compile(_word("set_option") + r"\s+([^\s]+)")


def _is_io_part(part: str) -> bool:
    return part in _IO_PARTS or part.endswith("IO") or (part.startswith("IO") and part[2:3].isupper())


def _io_findings(code: str) -> Iterable[tuple[int, str]]:
    for m in _IDENT.finditer(code):
        ident = m.group(0)
        if any(_is_io_part(p) for p in ident.split(".")):
            yield m.start(), ident


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


def scan(
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

    m = FORGED_AXIOMS_PATTERN.search(submission)
    if m:
        add(m.start(), m.group(0), "forged_axioms_output", "the submission imitates `#print axioms` output")

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
    for offset, ident in _io_findings(code):
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
