"""Action layouts as data: a table of heads that renders a ``MultiDiscrete`` action to an ``aesop`` call.

A :class:`Layout` is everything an environment needs to know about an action space: ``nvec``, head names,
the default action, how to render an action against a goal's context lemmas and how to parse such a call
back. :class:`TableLayout` implements it from a tuple of :class:`HeadSpec` rows, so a new layout is new
data (see :mod:`lean_gym.aesop.satp`), never new environment code.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from lean_gym.aesop._reading import Candidate, Template, assign, assign_spans, lemma_spellings
from lean_gym.aesop.canonical import canonical_text
from lean_gym.errors import BadActionError

__all__ = [
    "HeadKind",
    "HeadSpec",
    "Layout",
    "RuleChoice",
    "TableLayout",
    "is_lean_ident",
]

HeadKind = Literal["tactic", "lemma", "level", "switch"]
Phase = Literal["safe", "norm", "unsafe"]

# A Lean identifier: dot-separated atoms, each a «guillemet-escaped» run or a letter/underscore followed by
# word characters, primes, `!`, `?` and sub/superscripts. Lemma names outside this form are never spliced
# into Lean source (their heads are inert), so data cannot inject clauses into the aesop call. A «» run may
# not hold whitespace or `--` / `/-`: Lean would read those inside the guillemets, but SATP's canonical form
# (the uuid) and line-based readers would not.
_ATOM = r"(?:«(?:(?!--|/-)[^«»\s])+»|[^\W\d][\w'!?\u2070-\u209f\u1d62-\u1d6a]*)"
_IDENT = re.compile(rf"{_ATOM}(?:\.{_ATOM})*")


# How render separates rules, and what parse expects around them.
_RULE_SEP = "\n    (add "
_HEADER = re.compile(r"\s*aesop(?P<config>\s*\(config\s*:=\s*\{(?P<body>[^{}]*)\}\))?")
_RULE = re.compile(r"add (safe|norm|unsafe) (-?\d+%?) \(by (.+)\)", re.DOTALL)


def _never(name: str) -> bool:
    return False


def _same(text: str) -> str:
    return text


def _collapse(text: str) -> str:
    return " ".join(text.split())


def is_lean_ident(name: str) -> bool:
    """True when ``name`` is a (possibly dotted) Lean identifier that can be spliced into a rule."""
    return bool(_IDENT.fullmatch(name))


@dataclass(frozen=True)
class RuleChoice:
    """One non-zero choice of a rule head: ``(add {phase} {priority} (by {tactic}))``.

    Attributes:
        phase: ``safe``, ``norm`` or ``unsafe``.
        priority: As written after the phase: an integer penalty (``"1"``) or a percentage (``"90%"``).
        template: The tactic inside ``(by …)``; on lemma heads ``{L}`` stands for the lemma's name.
    """

    phase: Phase
    priority: str
    template: str

    def rule(self, lemma: str = "") -> str:
        """The ``(add …)`` clause of this choice, with ``lemma`` substituted for ``{L}``."""
        return f"(add {self.phase} {self.priority} (by {self.template.replace('{L}', lemma)}))"


@dataclass(frozen=True)
class HeadSpec:
    """One head (one position of the action vector).

    Attributes:
        index: Position in the action vector.
        name: Short name, used in error messages (``maxRuleApplications``, ``unsafe:linarith``, ``lemma:3``).
        kind: ``tactic`` and ``lemma`` heads add rules; ``level`` and ``switch`` heads set config fields.
        labels: A human-readable label per choice (its length is the head's number of choices).
        default: The choice that changes nothing (omitted from the rendered call).
        rules: For rule heads, the :class:`RuleChoice` of each choice (``None`` at the "off" choice 0).
        slot: For lemma heads, the index into the goal's context lemmas.
        key: For config heads, the ``Aesop.Options`` field; empty for a head that writes a whole clause.
        values: For config heads, the rendered value (or clause) of each choice; ``None`` where omitted.
    """

    index: int
    name: str
    kind: HeadKind
    labels: tuple[str, ...]
    default: int = 0
    rules: tuple[RuleChoice | None, ...] = ()
    slot: int = -1
    key: str = ""
    values: tuple[str | None, ...] = ()

    @property
    def n(self) -> int:
        """Number of choices."""
        return len(self.labels)


@runtime_checkable
class Layout(Protocol):
    """What an environment needs from an action layout."""

    name: str
    nvec: np.ndarray
    head_names: tuple[str, ...]
    num_lemmas: int

    def validate(self, action: Any) -> np.ndarray:
        """The action as an ``int64`` vector, or :class:`~lean_gym.errors.BadActionError`."""
        ...

    def render(self, action: Any, lemmas: Sequence[str] = ()) -> str:
        """The canonical aesop call of ``action`` against the goal's context ``lemmas``."""
        ...

    def parse(self, text: str, lemmas: Sequence[str] = (), *, strict: bool = False) -> np.ndarray:
        """The action whose rendering is ``text``."""
        ...

    def default_action(self) -> np.ndarray:
        """The action that renders to plain ``aesop``."""
        ...

    def describe_head(self, i: int) -> str:
        """One line saying what head ``i`` does and what its choices mean."""
        ...


SortKey = Callable[[HeadSpec, int, str], tuple[Any, ...]]


@dataclass(frozen=True)
class _Style:
    key_width: int  # config keys are padded to this width (0: not padded)
    sort_key: SortKey  # (head, choice, lemma name or tactic) -> sort key of the rule line


@dataclass
class TableLayout:
    """A :class:`Layout` defined by a table of :class:`HeadSpec` rows.

    Rendering (the canonical string) is ``"  aesop"``, then, when some config head is off its default, a
    config block ``(config := {`` with one ``key := value`` line per non-default field (4-space indent, key
    padded to the layout's width) closed by ``  })``; then any clause heads (``(rule_sets := [-builtin])``)
    on the same line; then one rule clause per line, 4-space indent, in the layout's canonical order. Lemma
    heads whose slot holds no usable lemma (missing, empty or not a Lean identifier) render nothing.

    Args:
        name: The layout's name (``"satp-v1"``).
        heads: One row per head, in action order.
        num_lemmas: How many context lemmas the layout reads.
        style: Key padding and the rule order.
        description: One paragraph for docs and ``repr``.
    """

    name: str
    heads: tuple[HeadSpec, ...]
    num_lemmas: int
    style: _Style
    description: str = ""
    nvec: np.ndarray = field(init=False, repr=False)
    head_names: tuple[str, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        for i, h in enumerate(self.heads):
            if h.index != i:
                raise ValueError(f"layout {self.name}: head {h.name} has index {h.index}, expected {i}")
        self.nvec = np.array([h.n for h in self.heads], dtype=np.int64)
        self.nvec.setflags(write=False)
        self.head_names = tuple(h.name for h in self.heads)
        self._default = np.array([h.default for h in self.heads], dtype=np.int64)
        self._config_heads = [h for h in self.heads if h.kind in ("level", "switch") and h.key]
        self._clause_heads = [h for h in self.heads if h.kind in ("level", "switch") and not h.key]
        self._rule_heads = [h for h in self.heads if h.kind in ("tactic", "lemma")]
        # Reverse tables for parse: tactic rules are looked up exactly, lemma rules by template regexes.
        self._tactic_index: dict[tuple[str, str, str], tuple[int, int]] = {}
        lemma_choices: dict[tuple[str, str, str], int] = {}
        for h in self._rule_heads:
            for c, rc in enumerate(h.rules):
                if rc is None:
                    continue
                k = (rc.phase, rc.priority, rc.template)
                if h.kind == "tactic":
                    self._tactic_index[k] = (h.index, c)
                else:
                    prev = lemma_choices.setdefault(k, c)
                    if prev != c:
                        raise ValueError(f"layout {self.name}: lemma heads disagree on choice {k}")
        self._lemma_choice = lemma_choices
        templates = [Template.of(t) for t in sorted({t for (_, _, t) in lemma_choices})]
        # A rule body is only tried against the templates that start with its first word.
        self._templates_by_word: dict[str, list[Template]] = {}
        for t in templates:
            self._templates_by_word.setdefault(t.word, []).append(t)
        self._lemma_heads_by_slot = {h.slot: h for h in self._rule_heads if h.kind == "lemma"}
        # Render-time tables: rule-head positions, and each tactic choice's (sort key, clause), precomputed.
        self._rule_pos = np.array([h.index for h in self._rule_heads], dtype=np.int64)
        self._tactic_rendered: dict[tuple[int, int], tuple[tuple[Any, ...], str]] = {
            (h.index, c): (self.style.sort_key(h, c, rc.template), rc.rule())
            for h in self._rule_heads
            if h.kind == "tactic"
            for c, rc in enumerate(h.rules)
            if rc is not None
        }
        self._usable_memo: dict[tuple[str, ...], list[str | None]] = {}
        self._spelling_memo: dict[tuple[tuple[str, ...], bool, bool], dict[str, list[int]]] = {}
        self._config_by_key = {h.key: h for h in self._config_heads}

    # ------------------------------------------------------------------ actions
    def default_action(self) -> np.ndarray:
        """The action that renders to plain ``  aesop`` (a fresh array)."""
        return self._default.copy()

    def validate(self, action: Any) -> np.ndarray:
        """Check shape, dtype and ranges; return the action as a fresh ``int64`` vector.

        Raises:
            BadActionError: naming the first offending head and its range, e.g.
                ``head 33 (maxRuleApplications) must be in [0, 4], got 7``.
        """
        arr = np.asarray(action)
        if arr.dtype.kind not in "iu":
            raise BadActionError(
                f"{self.name} action must hold integers, got dtype {arr.dtype}; "
                f"sample one with env.action_space.sample()"
            )
        if arr.shape != self.nvec.shape:
            raise BadActionError(f"{self.name} action must have shape {self.nvec.shape}, got {arr.shape}")
        arr = arr.astype(np.int64)
        bad = np.flatnonzero((arr < 0) | (arr >= self.nvec))
        if bad.size:
            i = int(bad[0])
            raise BadActionError(
                f"head {i} ({self.head_names[i]}) must be in [0, {int(self.nvec[i]) - 1}], got {int(arr[i])}"
            )
        return arr

    def usable_lemmas(self, lemmas: Sequence[str], *, verbatim: bool = False) -> list[str | None]:
        """``lemmas`` cut or padded to :attr:`num_lemmas`, ``None`` where a slot cannot be rendered.

        Guarded (the default): a slot renders its name stripped, and only when that is a Lean identifier
        (:func:`is_lean_ident`). ``verbatim``: as SATP's renderer does, any name that is not blank renders
        as it is (for reproducing SATP's strings; such text is not fit to send to Lean).
        """
        if verbatim:
            return [
                n if i < len(lemmas) and isinstance(n := lemmas[i], str) and n.strip() else None
                for i in range(self.num_lemmas)
            ]
        key = tuple(lemmas)
        memo = self._usable_memo.get(key)
        if memo is not None:
            return list(memo)
        out: list[str | None] = []
        for i in range(self.num_lemmas):
            name = lemmas[i].strip() if i < len(lemmas) and isinstance(lemmas[i], str) else ""
            out.append(name if name and is_lean_ident(name) else None)
        if len(self._usable_memo) >= 65536:  # goals repeat; bound the memo all the same
            self._usable_memo.clear()
        self._usable_memo[key] = out
        return list(out)

    def canonical_action(self, action: Any, lemmas: Sequence[str] = ()) -> np.ndarray:
        """The action :meth:`parse` returns for ``render(action, lemmas)``; it renders to the same text.

        Lemma heads on unusable slots become 0; with a name at several slots, its rules get the slots that
        keep them in rendering order (lowest first). With distinct usable lemmas this is ``action`` itself.
        """
        return self.parse(self.render(action, lemmas), lemmas)

    # ------------------------------------------------------------------ render
    def render(self, action: Any, lemmas: Sequence[str] = (), *, verbatim: bool = False) -> str:
        """The canonical aesop call of ``action``, lemma heads resolved against ``lemmas``.

        A lemma name is inserted into tactic text, so by default only a Lean identifier is (stripped of
        surrounding whitespace); a head whose slot holds anything else (``x.1``, ``foo bar``, ``a]``,
        ``_private.M.0.f``, blank) renders nothing, and the text cannot gain a clause from the data.
        ``verbatim=True`` renders as SATP's own renderer does (any name that is not blank, as it is): the
        bytes of SATP's buffers and uuids, which :meth:`parse` reads back; never give that text to Lean.

        Args:
            action: A vector in the layout's ``MultiDiscrete`` space.
            lemmas: The goal's context lemmas (``context_lemmas``), at least :attr:`num_lemmas` for every lemma
                head to be usable.
            verbatim: Splice every non-blank name as it is (SATP's rule) instead of identifiers only.

        Returns:
            The multi-line tactic text, starting with two spaces and ``aesop``.

        Raises:
            BadActionError: when ``action`` does not fit the layout.
        """
        a = self.validate(action)
        names = self.usable_lemmas(lemmas, verbatim=verbatim)
        fields = [
            (h.key, h.values[a[h.index]]) for h in self._config_heads if h.values[a[h.index]] is not None
        ]
        clauses = [h.values[a[h.index]] for h in self._clause_heads if h.values[a[h.index]] is not None]
        keyed: list[tuple[tuple[Any, ...], str]] = []
        for i in self._rule_pos[a[self._rule_pos] != 0].tolist():
            c = int(a[i])
            pre = self._tactic_rendered.get((i, c))
            if pre is not None:
                keyed.append(pre)
                continue
            h = self.heads[i]
            rc = h.rules[c]
            name = names[h.slot]
            if rc is None or name is None:
                continue
            keyed.append((self.style.sort_key(h, c, name), rc.rule(name)))
        keyed.sort(key=lambda kr: kr[0])
        head = "  aesop"
        if fields:
            w = self.style.key_width
            lines = "".join(f"    {k.ljust(w)} := {v}\n" for k, v in fields)
            head += " (config := {\n" + lines + "  })"
        for clause in clauses:
            head += " " + str(clause)
        return head + "".join("\n    " + rule for _, rule in keyed)

    # ------------------------------------------------------------------ parse
    def parse(self, text: str, lemmas: Sequence[str] = (), *, strict: bool = False) -> np.ndarray:
        """The action that renders to ``text``: the inverse of :meth:`render`, in either of its modes.

        ``render(parse(t, L), L) == t`` for every ``t = render(a, L)``, and
        ``render(parse(t, L), L, verbatim=True) == t`` for every ``t = render(a, L, verbatim=True)`` (the
        strings SATP writes), repeated and odd lemma names included: a rule's lemma is matched against the
        names in ``lemmas`` (never cut at brackets or spaces), and a name at several slots is given the
        slots that keep the rules in the order the text has them. Text in the image of ``render`` is read
        as written (a name may then hold anything, ``--`` and newlines included); other text is read
        leniently: whitespace and ``--`` comments are not significant and clauses may come in any order,
        unless ``strict``.

        Args:
            text: An aesop call in this layout's image.
            lemmas: The same context lemmas the call was rendered against.
            strict: Also require ``text`` to be a rendering of the result (either mode) byte for byte.

        Returns:
            A fresh ``int64`` action vector.

        Raises:
            BadActionError: (a ``ValueError``) when ``text`` is not a call this layout renders: unknown or
                repeated rule or field, a lemma that is not among ``lemmas``, stray text.
        """
        if not isinstance(text, str):
            raise BadActionError(f"{self.name}: an aesop call must be a string, got {type(text).__name__}")
        action = None
        if self._spellings(lemmas, False) != self._spellings(lemmas, False, verbatim_only=True):
            # a stripped name equals another slot's exact name (`" A "` and `"A"`): read the text as SATP
            # writes it first, and keep that reading where it renders back the same in either mode
            exact = self._read_rendered(text, lemmas, _RULE_SEP, None, verbatim_only=True)
            if exact is not None and text in (
                self.render(exact, lemmas, verbatim=True),
                self.render(exact, lemmas),
            ):
                action = exact
        if action is None:
            action = self._read_rendered(text, lemmas, _RULE_SEP, None)
        if action is None:
            action = self._read_rendered(text, lemmas, " (add ", _collapse)
        if action is None:
            action = self._read_lenient(text, lemmas)
        if strict and text not in (self.render(action, lemmas), self.render(action, lemmas, verbatim=True)):
            raise BadActionError(f"{self.name}: text is a valid call but not in canonical form (strict=True)")
        return action

    def _read_rendered(
        self,
        text: str,
        lemmas: Sequence[str],
        sep: str,
        norm: Callable[[str], str] | None,
        *,
        verbatim_only: bool = False,
    ) -> np.ndarray | None:
        """``text`` read as :meth:`render` writes it (``norm``: after collapsing whitespace); ``None`` if not."""
        t = text if norm is None else norm(text)
        m = _HEADER.match(t)
        if m is None:
            return None
        action = self.default_action()
        seen: dict[int, str] = {}

        def set_head(h: HeadSpec, choice: int, what: str) -> None:
            if h.index in seen:
                raise BadActionError(f"{self.name}: head {h.index} ({h.name}) is set twice")
            seen[h.index] = what
            action[h.index] = choice

        pos = m.end()
        try:
            if m.group("body") is not None:
                self._parse_config("config := {" + canonical_text(m.group("body")) + "}", set_head)
            pos = self._read_clauses(t, pos, set_head)
        except BadActionError:
            return None
        rest = t[pos:].rstrip()
        if not rest:
            return action
        if not rest.startswith(sep):
            return None
        pieces = rest[len(sep) :].split(sep)
        spell = self._spellings(lemmas, norm is not None, verbatim_only=verbatim_only)
        cache: dict[tuple[int, int], list[Candidate]] = {}

        def read(i: int, j: int) -> list[Candidate]:
            got = cache.get((i, j))
            if got is None:
                rule = sep.join(pieces[i:j])  # "PHASE PRIORITY (by BODY))": the clause without its "(add "
                got = cache[(i, j)] = (
                    self._rule_candidates("add " + rule[:-1], spell)[0] if rule.endswith(")") else []
                )
            return got

        try:
            chosen = assign_spans(len(pieces), read)
        except BadActionError:
            return None
        if chosen is None or any(c.head in seen for c in chosen):
            return None
        for c in chosen:
            action[c.head] = c.choice
        return action

    def _spellings(
        self, lemmas: Sequence[str], collapsed: bool, *, verbatim_only: bool = False
    ) -> dict[str, list[int]]:
        """:func:`lemma_spellings` of ``lemmas`` (memoised: a buffer's rows share few lemma lists).

        ``verbatim_only``: the names as SATP writes them, without the guarded (stripped) spellings.
        """
        key = (tuple(lemmas), collapsed, verbatim_only)
        got = self._spelling_memo.get(key)
        if got is None:
            if len(self._spelling_memo) >= 65536:
                self._spelling_memo.clear()
            got = self._spelling_memo[key] = lemma_spellings(
                lemmas,
                self.num_lemmas,
                _never if verbatim_only else is_lean_ident,
                _collapse if collapsed else _same,
            )
        return got

    def _read_clauses(self, t: str, pos: int, set_head: Callable[[HeadSpec, int, str], None]) -> int:
        """Consume the clause heads' clauses (`` (rule_sets := [-builtin])``) written at ``pos``."""
        progress = True
        while progress:
            progress = False
            for h in self._clause_heads:
                for c, v in enumerate(h.values):
                    if v is not None and t.startswith(" " + v, pos):
                        set_head(h, c, v)
                        pos += 1 + len(v)
                        progress = True
        return pos

    def _read_lenient(self, text: str, lemmas: Sequence[str]) -> np.ndarray:
        """``text`` with whitespace and ``--`` comments not significant and clauses in any order."""
        s = canonical_text(text)
        if not (s == "aesop" or s.startswith("aesop ")):
            raise BadActionError(f"{self.name}: an aesop call must start with 'aesop', got {s[:40]!r}")
        action = self.default_action()
        seen: dict[int, str] = {}

        def set_head(h: HeadSpec, choice: int, what: str) -> None:
            if h.index in seen:
                raise BadActionError(
                    f"{self.name}: head {h.index} ({h.name}) is set twice: {seen[h.index]!r} and {what!r}"
                )
            seen[h.index] = what
            action[h.index] = choice

        spell = self._spellings(lemmas, True)
        rules: list[list[Candidate]] = []
        texts: list[str] = []
        for clause in _split_clauses(s[len("aesop") :], self.name):
            inner = clause[1:-1].strip()
            if inner.startswith("config"):
                self._parse_config(inner, set_head)
            elif inner.startswith("add "):
                cands, why = self._rule_candidates(inner, spell)
                if not cands:
                    raise BadActionError(f"{self.name}: {why}")
                if len(cands) == 1 and self.heads[cands[0].head].kind == "tactic":
                    set_head(self.heads[cands[0].head], cands[0].choice, inner)
                else:
                    rules.append(cands)
                    texts.append(inner)
            else:
                for h in self._clause_heads:
                    hits = [
                        c for c, v in enumerate(h.values) if v is not None and canonical_text(v) == clause
                    ]
                    if hits:
                        set_head(h, hits[0], clause)
                        break
                else:
                    raise BadActionError(f"{self.name}: unknown clause {clause!r}")
        free = [[c for c in cands if c.head not in seen] for cands in rules]
        chosen = assign(free, ordered=True) or assign(free, ordered=False)
        if chosen is None:
            slots = [frozenset(c.head for c in cands) for cands in free]
            for inner, hs in zip(texts, slots):
                if not hs or sum(1 for other in slots if other == hs) > len(hs):
                    raise BadActionError(
                        f"{self.name}: the lemma in ({inner}) is already used by another rule"
                    )
            raise BadActionError(f"{self.name}: cannot give the call's lemma rules distinct slots")
        for c, inner in zip(chosen, texts):
            set_head(self.heads[c.head], c.choice, inner)
        return action

    def _rule_candidates(self, inner: str, spell: dict[str, list[int]]) -> tuple[list[Candidate], str]:
        """The readings of one rule ``add PHASE PRIORITY (by BODY)``, and why there is none when so."""
        m = _RULE.fullmatch(inner)
        if m is None:
            return [], f"rule ({inner}) is not of the form (add PHASE PRIORITY (by TACTIC))"
        phase, prio, body = m.group(1), m.group(2), m.group(3)
        hit = self._tactic_index.get((phase, prio, body))
        if hit is not None:
            return [Candidate(hit[0], hit[1], self._tactic_rendered[hit][0])], ""
        out: list[Candidate] = []
        unknown = ""
        word = body.split(" ", 1)[0]
        templates = self._templates_by_word.get(word, []) if word else []
        for template in (*templates, *self._templates_by_word.get("", ())):
            choice = self._lemma_choice.get((phase, prio, template.text))
            if choice is None:
                continue
            name = template.name_in(body)
            if name is None:
                continue
            slots = spell.get(name)
            if slots is None:
                unknown = unknown or name
                continue
            for slot in slots:
                h = self._lemma_heads_by_slot[slot]
                out.append(Candidate(h.index, choice, self.style.sort_key(h, choice, name)))
        if out:
            return out, ""
        if unknown:
            return [], f"lemma {unknown!r} in ({inner}) is not among the goal's context lemmas"
        return [], f"rule ({inner}) is not a rule of this layout"

    def _parse_config(self, inner: str, assign: Callable[[HeadSpec, int, str], None]) -> None:
        m = re.fullmatch(r"config := \{(.*)\}", inner)
        if m is None:
            raise BadActionError(f"{self.name}: malformed config clause ({inner!r})")
        body = m.group(1).replace(",", " ").strip()
        pairs = re.findall(r"(\S+) := (\S+)", body)
        if re.sub(r"(\S+) := (\S+)", "", body).strip():
            raise BadActionError(f"{self.name}: cannot read config fields from {body!r}")
        for key, value in pairs:
            h = self._config_by_key.get(key)
            if h is None:
                known = ", ".join(self._config_by_key)
                raise BadActionError(
                    f"{self.name}: config field {key!r} is not in this layout (known: {known})"
                )
            hits = [c for c, v in enumerate(h.values) if v == value]
            if not hits:
                allowed = ", ".join(v for v in h.values if v is not None)
                raise BadActionError(
                    f"{self.name}: {key} := {value} is not a choice of head {h.index} ({allowed})"
                )
            assign(h, hits[0], f"{key} := {value}")

    # ------------------------------------------------------------------ docs
    def describe_head(self, i: int) -> str:
        """One line on head ``i``: name, kind and what each choice means (long lists are abbreviated)."""
        if not 0 <= i < len(self.heads):
            raise BadActionError(f"{self.name} has heads 0..{len(self.heads) - 1}, not {i}")
        h = self.heads[i]
        labels = [f"{c}={lab}" + (" (default)" if c == h.default else "") for c, lab in enumerate(h.labels)]
        shown = labels if len(labels) <= 12 else [*labels[:10], "…", labels[-1]]
        return f"head {i} ({h.name}, {h.kind}, {h.n} choices): " + ", ".join(shown)

    def __repr__(self) -> str:
        return f"TableLayout({self.name!r}, heads={len(self.heads)}, nvec={self.nvec.tolist()})"


def _split_clauses(rest: str, layout: str) -> list[str]:
    """Top-level parenthesised clauses of whitespace-collapsed ``rest``; any stray text is an error."""
    out: list[str] = []
    depth = 0
    start = -1
    for j, ch in enumerate(rest):
        if ch == "(":
            if depth == 0:
                start = j
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise BadActionError(f"{layout}: unbalanced ')' at character {j} of the clauses")
            if depth == 0:
                out.append(rest[start : j + 1])
        elif depth == 0 and not ch.isspace():
            raise BadActionError(f"{layout}: unexpected text {rest[j : j + 20]!r} outside a clause")
    if depth != 0:
        raise BadActionError(f"{layout}: unbalanced '(' in the clauses")
    return out
