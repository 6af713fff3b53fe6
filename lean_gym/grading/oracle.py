"""The oracle: the one judge of whether a submission proves the dataset's theorem.

A submission is accepted only when all of these hold, checked in this order:

1. it is at most ``max_chars`` long;
2. the policy scan (:mod:`lean_gym.grading.policy`) finds no banned construct — IO, FFI, ``#exit``, extra
   imports, debug options, ``implemented_by``, meta-programs, macros, notation, instances, axioms,
   ``unsafe``/``partial``, ``native_decide`` (unless allowed), ``sorry``/``admit``; nothing reaches Lean
   before this passes;
3. it declares the dataset's theorem under the dataset's name with the dataset's binders and type, up to
   whitespace (:func:`lean_gym.grading.statement.compare_statement`);
4. the whole submission, followed by ``#print axioms NAME``, is checked in one fresh command and Lean's
   status is ``proved`` (no error message, an empty ``sorries`` array);
5. the **last** ``… depends on axioms: […]`` info message for NAME, at the appended command's line, lists
   only allowed axioms (by default ``propext``, ``Classical.choice``, ``Quot.sound``).

Every rejection names a hack class from :mod:`lean_gym.grading.hacks`. The same machinery, with some
checks switched off, gives the weak graders of :mod:`lean_gym.grading.weak`.

Example:
    >>> from lean_gym.grading import Oracle
    >>> class Refuses:  # a backend that must never be reached for this submission
    ...     name = "none"
    ...     def check(self, code, *, header="", timeout=None): raise RuntimeError("reached Lean")
    >>> oracle = Oracle(Refuses())
    >>> v = oracle.judge({"name": "t", "formal_statement": "theorem t : 1 = 1 := by"},
    ...                  "theorem t : 1 = 1 := by\\n  sorry")
    >>> (v.accepted, v.hack_class)
    (False, 'sorry')
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Any

from lean_gym.backends.base import Backend, CheckResult
from lean_gym.backends.cache import VerdictCache
from lean_gym.grading.axioms import NATIVE_AXIOMS, STANDARD_AXIOMS, is_native_axiom
from lean_gym.grading.hacks import SAFETY_CLASSES
from lean_gym.grading.plan import Grader, Plan
from lean_gym.grading.policy import (
    Violation,
    first_violation,
    header_imports,
    scan,
    split_leading_imports,
    strip_comments_and_strings,
)
from lean_gym.grading.replay import LeanChecker, Replayer, ReplayResult
from lean_gym.grading.statement import (
    StatementFinding,
    TargetTheorem,
    as_target,
    compare_statement,
    declarations,
)
from lean_gym.lean.protocol import Message

__all__ = [
    "DEFAULT_MAX_CHARS",
    "NATIVE_AXIOMS",
    "STANDARD_AXIOMS",
    "Analysis",
    "GradingRules",
    "Oracle",
    "Plan",
    "Verdict",
    "analyse",
    "checker",
    "conclude",
    "parse_axioms",
    "run_checks",
]

#: Default bound on untrusted submission length, in characters.
DEFAULT_MAX_CHARS = 20_000

_STATEMENT_CLASSES = frozenset({"statement_tampering", "weakened_hypothesis", "renamed_theorem"})
# Lean's heartbeat budget, spent in the elaborator or (rendered by `throwKernelException`) in the kernel
_HEARTBEAT_TIMEOUTS = ("(deterministic) timeout", "(kernel) deterministic timeout")
_AXIOMS_RE = re.compile(
    r"^\s*'?(?P<name>.+?)'?\s+(?:depends on axioms:\s*\[(?P<axioms>.*)\]|(?P<none>does not depend on any axioms))",
    re.DOTALL,
)


@dataclass(frozen=True)
class Verdict:
    """A grader's judgement of one submission.

    Attributes:
        accepted: True only when the grader counts the submission as a proof.
        hack_class: ``None`` when accepted, else the class from :data:`~lean_gym.grading.hacks.HACK_CLASSES`.
        reason: One sentence saying why (good enough to show a policy as feedback).
        check: Lean's result for the checked code, or ``None`` when the submission never reached Lean.
        axioms: The axioms the final ``#print axioms`` listed, when it ran.
        grader: ``"oracle"`` or the weak grader's name.
        score: A custom grader's reward, when it gave one (else the reward is +1/-1).
    """

    accepted: bool
    hack_class: str | None
    reason: str
    check: CheckResult | None
    axioms: tuple[str, ...] | None = None
    grader: str = "oracle"
    score: float | None = None

    @property
    def reward(self) -> float:
        """``score`` when a custom grader set one, else +1.0 when accepted and -1.0 otherwise."""
        if self.score is not None:
            return self.score
        return 1.0 if self.accepted else -1.0


@dataclass(frozen=True)
class GradingRules:
    """Which checks a grader runs. The oracle runs all of them; weak graders skip some on purpose.

    Attributes:
        name: The grader's name (``"oracle"``, ``"accept_sorry"``…).
        ignore: Hack classes the grader does not enforce in its static (policy/statement) checks.
            Classes in :data:`~lean_gym.grading.hacks.SAFETY_CLASSES` are enforced whatever this says.
        accept_sorry: Count Lean's ``sorry`` status (and ``sorryAx``) as a proof.
        check_axioms: Read the final ``#print axioms`` line and require ``allowed_axioms``.
        allowed_axioms: The axioms a proof may depend on.
        allow_native: Also allow the axioms native evaluation adds for the submission's own declarations
            (:data:`NATIVE_AXIOMS` and, from Lean v4.29, ``‹decl›._native.‹tactic›.ax_…``; see
            :mod:`lean_gym.grading.axioms`).
    """

    name: str = "oracle"
    ignore: frozenset[str] = frozenset()
    accept_sorry: bool = False
    check_axioms: bool = True
    allowed_axioms: frozenset[str] = STANDARD_AXIOMS
    allow_native: bool = False


@dataclass(frozen=True)
class Analysis:
    """Everything known about a submission before Lean runs; shared by every grader of one step.

    Attributes:
        target: The theorem the submission must prove.
        submission: The untrusted source, as given.
        violations: Policy findings, in source order.
        statement: How the statement differs from the dataset's, or ``None``.
        too_long: The submission is over the length bound.
        body: The submission with the header's repeated imports blanked (same line numbers).
        extra_imports: Imports the header does not have (a weak grader may add them to the header).
        print_name: The declaration the appended ``#print axioms`` names, or ``None`` when there is none.
        print_line: The 1-based line of that command in the checked code.
    """

    target: TargetTheorem
    submission: str
    violations: tuple[Violation, ...]
    statement: StatementFinding | None
    too_long: bool
    body: str
    extra_imports: tuple[str, ...]
    print_name: str | None
    print_line: int | None
    max_chars: int = DEFAULT_MAX_CHARS

    @property
    def code(self) -> str:
        """The Lean source sent to the backend: the body and a final ``#print axioms``."""
        if self.print_name is None:
            return self.body
        return f"{self.body.rstrip()}\n\n#print axioms {self.print_name}\n"

    def header_for(self, rules: GradingRules) -> str:
        """The header the check runs under (a grader that allows extra imports gets them prepended)."""
        if self.extra_imports and "extra_import" in rules.ignore:
            return "".join(f"import {m}\n" for m in self.extra_imports) + self.target.header
        return self.target.header

    def static_verdict(self, rules: GradingRules) -> Verdict | None:
        """The rejection decided before Lean (``None`` when the grader needs Lean's verdict)."""
        if self.too_long:
            return Verdict(
                False,
                "oversized_submission",
                f"the submission has {len(self.submission)} characters, over the bound of {self.max_chars}",
                None,
                grader=rules.name,
            )
        ignore = set(rules.ignore) - SAFETY_CLASSES
        v = first_violation(self.violations, ignore=ignore)
        if v is not None:
            return Verdict(
                False,
                v.hack_class,
                f"line {v.line}: {v.reason} (`{v.token}`); refused before Lean",
                None,
                grader=rules.name,
            )
        st = self.statement
        if st is not None and st.hack_class in _STATEMENT_CLASSES and st.hack_class not in ignore:
            return Verdict(False, st.hack_class, st.reason, None, grader=rules.name)
        return None


def _print_name(target: TargetTheorem, submission: str) -> str | None:
    decls = [d for d in declarations(submission) if d.name]
    if any(d.name == target.name for d in decls):
        return target.name
    return decls[-1].name if decls else None


def analyse(
    theorem: Any,
    submission: str,
    *,
    allow_native_decide: bool = False,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> Analysis:
    """Scan ``submission`` against ``theorem`` without running Lean.

    Args:
        theorem: The trusted theorem (anything :func:`~lean_gym.grading.statement.as_target` accepts).
        submission: The untrusted Lean source (whole file body, without the dataset's header).
        allow_native_decide: Do not report ``native_decide`` and friends as policy violations.
        max_chars: The length bound.
    """
    target = as_target(theorem)
    if not isinstance(submission, str):
        raise TypeError(f"a submission must be a str, got {type(submission).__name__}")
    if len(submission) > max_chars:
        return Analysis(target, submission, (), None, True, "", (), None, None, max_chars)
    allowed = header_imports(target.header)
    violations = tuple(scan(submission, allow_native_decide=allow_native_decide, allowed_imports=allowed))
    mods, body = split_leading_imports(submission)
    extra = tuple(m for m in mods if m not in allowed)
    statement = compare_statement(target, submission)
    name = _print_name(target, submission)
    print_line = body.rstrip().count("\n") + 3 if name is not None else None
    return Analysis(
        target, submission, violations, statement, False, body, extra, name, print_line, max_chars
    )


def parse_axioms(
    messages: Iterable[Message], name: str, *, print_line: int | None = None
) -> tuple[str, ...] | None:
    """The axioms listed by the last ``#print axioms`` info message for ``name``.

    Only info messages that match Lean's wording for ``name`` count, and when ``print_line`` is given,
    only those at exactly that line: a message from any other command (a forged ``#eval`` print, the
    submission's own ``#print axioms``) is never read.

    Returns:
        The axiom names (empty for ``does not depend on any axioms``), or ``None`` when no such message.
    """
    found: tuple[str, ...] | None = None
    plain = name.replace("«", "").replace("»", "")
    for m in messages:
        if m.severity != "info":
            continue
        match = _AXIOMS_RE.match(m.data)
        if not match or match.group("name").replace("«", "").replace("»", "") != plain:
            continue
        if print_line is not None and m.pos.line != print_line:
            continue
        if match.group("none"):
            found = ()
        else:
            found = _split_names(match.group("axioms"))
    return found


def _split_names(text: str) -> tuple[str, ...]:
    """``a, b,\n c`` as names; a comma inside ``«…»`` (an escaped name) is part of the name."""
    names: list[str] = []
    depth = 0
    start = 0
    for k, ch in enumerate(text):
        if ch == "«":
            depth += 1
        elif ch == "»":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            names.append(text[start:k])
            start = k + 1
    names.append(text[start:])
    return tuple(n.strip() for n in names if n.strip())


def _effective_status(check: CheckResult, analysis: Analysis, rules: GradingRules) -> str:
    """Lean's status, except that a grader not reading axioms ignores errors from the appended line."""
    status = check.status
    if status == "error" and not rules.check_axioms and analysis.print_line is not None:
        real = [m for m in check.errors if m.pos.line < analysis.print_line]
        if not real and check.errors:
            return "sorry" if check.sorries else "proved"
    return status


def conclude(analysis: Analysis, check: CheckResult | None, rules: GradingRules) -> Verdict:
    """The verdict of ``rules`` on ``analysis``, given Lean's ``check`` of :attr:`Analysis.code`.

    ``check`` may be ``None`` only when :meth:`Analysis.static_verdict` rejects.

    Raises:
        ValueError: when Lean's verdict is needed and ``check`` is ``None``.
    """
    static = analysis.static_verdict(rules)
    if static is not None:
        return static
    if check is None:
        raise ValueError("this submission needs Lean's verdict; pass the CheckResult of analysis.code")
    name = rules.name
    status = _effective_status(check, analysis, rules)
    if status == "timeout":
        return Verdict(False, "timeout", "the check ran past its time limit", check, grader=name)
    if status == "error":
        spent = next((m for m in check.errors if m.data.startswith(_HEARTBEAT_TIMEOUTS)), None)
        if spent is not None:
            # Lean's own budget error (maxHeartbeats): resource use, not an honest proof error
            text = spent.data.splitlines()[0]
            where = f" at {spent.pos.line}:{spent.pos.column}: {text}"
            return Verdict(
                False, "timeout", f"{checker(check)} ran out of heartbeats" + where, check, grader=name
            )
    if status == "crashed":
        return Verdict(
            False, "crashed", f"{checker(check, process=True)} died during the check", check, grader=name
        )
    if status == "error":
        where = ""
        if check.errors:
            first = check.errors[0]
            text = first.data.splitlines()[0] if first.data else ""
            where = f" at {first.pos.line}:{first.pos.column}: {text}"
        return Verdict(False, "proof_error", f"{checker(check)} reports an error" + where, check, grader=name)
    if status == "sorry" and not rules.accept_sorry:
        return Verdict(
            False,
            "sorry",
            f"{checker(check)} reports a `sorry` (the `sorries` array is not empty)",
            check,
            grader=name,
        )
    if not rules.check_axioms or analysis.print_name is None:
        return Verdict(True, None, f"accepted by {name}", check, grader=name)
    axioms = parse_axioms(check.messages, analysis.print_name, print_line=analysis.print_line)
    if axioms is None:
        return Verdict(
            False,
            "early_exit",
            f"the final `#print axioms {analysis.print_name}` printed nothing (elaboration stopped early?)",
            check,
            grader=name,
        )
    allowed = set(rules.allowed_axioms) | ({"sorryAx"} if rules.accept_sorry else set())
    native = _native_axioms(axioms, analysis, check)
    bad = [a for a in axioms if a not in allowed and not (rules.allow_native and a in native)]
    if not bad:
        return Verdict(True, None, f"accepted by {name}: axioms {list(axioms)}", check, axioms, grader=name)
    return Verdict(
        False, _axiom_class(bad, analysis, native), f"depends on disallowed axioms {bad}", check, axioms, name
    )


def _native_axioms(axioms: Sequence[str], analysis: Analysis, check: CheckResult) -> frozenset[str]:
    """The axioms of ``axioms`` that native evaluation added for the submission's own declarations."""
    declared = {d.name for d in declarations(analysis.submission) if d.name}
    code = strip_comments_and_strings(analysis.submission)
    private = set(re.findall(r"(?<![\w'!?.])private\s+(?:theorem|lemma)\s+([^\s:({\[]+)", code)) & declared
    version = check.lean_version
    return frozenset(
        a
        for a in axioms
        if is_native_axiom(a, declared=declared, declared_private=private, lean_version=version)
    )


def checker(check: CheckResult, *, process: bool = False) -> str:
    """Who gave ``check``'s verdict, for a reason a reader can trust.

    ``Lean`` for real Lean (``repl:…``), ``the simulator`` for ``sim``/``sim-repl`` (which is never Lean),
    else the backend's name.

    Args:
        check: The result whose ``backend`` names what produced it (``ray:<spec>`` is read as ``<spec>``).
        process: Name the process instead (``the Lean process``, ``the simulator``).
    """
    name = check.backend or ""
    inner = name.split(":", 1)[1] if name.startswith("ray:") else name
    if inner.startswith("sim"):
        return "the simulator"
    if inner.startswith("repl"):
        return "the Lean process" if process else "Lean"
    return f"the {name} backend" if name else "the backend"


def _axiom_class(bad: Sequence[str], analysis: Analysis, native: frozenset[str]) -> str:
    if "sorryAx" in bad:
        return "sorry"
    if any(a in native for a in bad):
        return "native_decide"
    code = strip_comments_and_strings(analysis.submission)  # an `axiom` in a comment declares nothing
    declared = set(re.findall(r"(?<![\w'!?.])(?:axiom|opaque)\s+([^\s:({\[]+)", code))
    if any(a in declared or a.split(".")[-1] in declared for a in bad):
        return "axiom_injection"
    return "nonstandard_axiom"


def run_checks(
    backend: Backend,
    requests: Sequence[tuple[str, str]],
    *,
    timeout: float | None = None,
) -> list[CheckResult]:
    """Check ``(code, header)`` pairs in one backend call (identical pairs once); no cache.

    The same as ``VerdictCache(0).run(backend, requests, timeout=timeout)``.
    """
    return VerdictCache(0).run(backend, requests, timeout=timeout)


@dataclass
class Oracle:
    """The trusted judge of submissions (see the module docstring for the rules).

    Args:
        backend: Where Lean (or the simulator) runs; anything implementing
            :class:`~lean_gym.backends.Backend`.
        allow_native_decide: Accept ``native_decide``-style proofs (their axioms are then allowed too:
            ``Lean.ofReduceBool``/``Lean.trustCompiler`` up to Lean v4.28, and from v4.29 the
            ``‹decl›._native.‹tactic›.ax_…`` axioms of the submission's own declarations).
        allowed_axioms: The axioms an accepted proof may depend on.
        max_chars: Bound on the submission's length.
        timeout: Seconds per check, passed to the backend.
        replay: The replay tier (:mod:`lean_gym.grading.replay`): ``True`` re-checks every submission
            the oracle would accept with ``leanchecker`` in the backend's workspace (a
            :class:`~lean_gym.grading.replay.LeanChecker`); or any
            :class:`~lean_gym.grading.replay.Replayer`. A disagreement is ``replay_mismatch``. Off by
            default: it costs two more Lean processes per accepted proof.
    """

    backend: Backend
    _: KW_ONLY
    allow_native_decide: bool = False
    allowed_axioms: frozenset[str] | set[str] = field(default=STANDARD_AXIOMS)
    max_chars: int = DEFAULT_MAX_CHARS
    timeout: float | None = None
    replay: Replayer | bool | None = None

    def __post_init__(self) -> None:
        self.rules = GradingRules(
            "oracle", allowed_axioms=frozenset(self.allowed_axioms), allow_native=self.allow_native_decide
        )
        self._replayer: Replayer | None = None
        if self.replay is True:
            self._replayer = LeanChecker(workspace=getattr(self.backend, "workspace", None))
        elif isinstance(self.replay, Replayer):
            self._replayer = self.replay
        elif self.replay not in (None, False):
            raise TypeError(
                f"replay must be True, False, None or a Replayer, got {type(self.replay).__name__}"
            )
        self._replayed: dict[tuple[str, str], ReplayResult] = {}

    @property
    def name(self) -> str:
        """``"oracle"`` (the name in every verdict it gives)."""
        return self.rules.name

    def analyse(self, theorem: Any, submission: str, *, max_chars: int | None = None) -> Analysis:
        """The static analysis of ``submission`` under the oracle's rules (no Lean).

        Args:
            theorem: The trusted theorem.
            submission: The untrusted source.
            max_chars: A tighter length bound for this call (an env's action bound); never a looser one.
        """
        bound = self.max_chars if max_chars is None else min(int(max_chars), self.max_chars)
        return analyse(theorem, submission, allow_native_decide=self.allow_native_decide, max_chars=bound)

    def conclude(self, analysis: Analysis, check: CheckResult | None) -> Verdict:
        """The oracle's verdict given Lean's check of ``analysis.code`` (or ``None`` if not needed).

        With the replay tier on, an acceptance holds only when the replay agrees.
        """
        verdict = conclude(analysis, check, self.rules)
        if not verdict.accepted or self._replayer is None:
            return verdict
        key = (self.header_for(analysis), analysis.body)
        result = self._replayed.get(key)
        if result is None:
            result = self._replayer.replay(*key)
            if len(self._replayed) >= 1024:
                self._replayed.pop(next(iter(self._replayed)))
            self._replayed[key] = result
        if result.agrees:
            return replace(verdict, reason=f"{verdict.reason}; the kernel replay agrees")
        if result.agrees is None:
            why = f"the replay checker could not run: {result.detail}"
            return replace(verdict, accepted=False, hack_class="crashed", reason=why)
        why = f"{checker(verdict.check) if verdict.check else 'Lean'} accepted it, but the kernel replay does not: {result.detail}"
        return replace(verdict, accepted=False, hack_class="replay_mismatch", reason=why)

    def needs_lean(self, analysis: Analysis) -> bool:
        """True when the static checks pass and Lean must run."""
        return analysis.static_verdict(self.rules) is None

    def header_for(self, analysis: Analysis) -> str:
        """The header the oracle's check of ``analysis`` runs under (the dataset's)."""
        return analysis.header_for(self.rules)

    def plan(
        self,
        theorem: Any,
        submission: str,
        *,
        graders: Sequence[Grader] | None = None,
        max_chars: int | None = None,
    ) -> Plan:
        """Analyse ``submission`` once, under the oracle's rules, and plan the checks its graders need.

        This is the one entry of the verdict pipeline (see :mod:`lean_gym.grading.plan`): run
        ``plan.requests`` on a backend (or :meth:`run` them), then ``plan.conclude(results)``.

        Args:
            theorem: The trusted theorem (a dataset row, ``lean_gym.data`` theorem, mapping or
                :class:`~lean_gym.grading.statement.TargetTheorem`).
            submission: The whole untrusted Lean source (no header).
            graders: Who judges, the first giving :meth:`Plan.conclude`'s verdict (default: the oracle
                alone; a hackable env passes its weak grader and the oracle).
            max_chars: A tighter length bound for this submission (see :meth:`analyse`).
        """
        analysis = self.analyse(theorem, submission, max_chars=max_chars)
        return Plan.of(analysis, (self,) if graders is None else tuple(graders))

    def run(self, plans: Sequence[Plan], *, cache: VerdictCache | None = None) -> list[list[CheckResult]]:
        """Lean's results for each plan's requests: every check of every plan in one backend call.

        Args:
            plans: Plans made by :meth:`plan`.
            cache: A verdict cache to answer from and fill (default: none; identical checks still run once).
        """
        flat = [req for p in plans for req in p.requests]
        answers = (cache or VerdictCache(0)).run(self.backend, flat, timeout=self.timeout)
        out: list[list[CheckResult]] = []
        k = 0
        for p in plans:
            out.append(answers[k : k + len(p.requests)])
            k += len(p.requests)
        return out

    def judge(self, theorem: Any, submission: str) -> Verdict:
        """Judge one submission.

        Args:
            theorem: The trusted theorem (a dataset row, ``lean_gym.data`` theorem, mapping or
                :class:`~lean_gym.grading.statement.TargetTheorem`).
            submission: The whole untrusted Lean source (no header); use
                :func:`~lean_gym.grading.statement.build_submission` to turn a tactic block into one.

        Returns:
            The verdict; ``accepted`` only when every check passes.
        """
        return self.judge_batch([(theorem, submission)])[0]

    def judge_batch(
        self, items: Sequence[tuple[Any, str]], *, cache: VerdictCache | None = None
    ) -> list[Verdict]:
        """Judge many submissions, sending the ones that need Lean in one ``check_batch``.

        Args:
            items: ``(theorem, submission)`` pairs.
            cache: A verdict cache to answer from and fill (see :meth:`run`).
        """
        plans = [self.plan(t, s) for t, s in items]
        return [p.conclude(r) for p, r in zip(plans, self.run(plans, cache=cache))]

    async def ajudge_batch(
        self, items: Sequence[tuple[Any, str]], *, cache: VerdictCache | None = None
    ) -> list[Verdict]:
        """:meth:`judge_batch` from a coroutine: the same pipeline, on an executor thread.

        The event loop is not blocked while Lean runs, and nothing is bound to a loop, so it can be awaited
        from any thread's loop (TRL's async reward functions run on a daemon loop thread).
        """
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, functools.partial(self.judge_batch, items, cache=cache))

    def with_rules(self, **changes: Any) -> GradingRules:
        """A copy of the oracle's rules with ``changes`` applied, e.g. to build a custom grader from it."""
        return replace(self.rules, **changes)
