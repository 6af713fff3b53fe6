"""Commands: ``import``, ``set_option``, ``open``, ``namespace``/``section``/``end``, ``theorem``/``lemma``/
``example``/``def``/``axiom``, ``#print axioms``, ``#check``.

:func:`run_commands` elaborates a whole ``cmd`` string in an environment and returns the new environment,
the messages (with source offsets) and the sorries it met. Declarations are checked with the tactic
interpreter (:mod:`lean_gym.sim.tactics`) or the proof-term checker (:mod:`lean_gym.sim.proofs`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lean_gym.sim.elab import Decl, ElabError, Elaborator, Env, parse_signature, parse_signature_ex
from lean_gym.sim.goals import Goal
from lean_gym.sim.syntax import ParseError, Source, Syn, Token, TokenStream, numeral, parse_term, tokenize
from lean_gym.sim.terms import Term, TermTooLarge, is_prop_type, pretty, type_term, user_name
from lean_gym.sim.unify import canon

__all__ = ["OUTSIDE_SUBSET", "CommandOutput", "Msg", "axioms_text", "parse_signature", "run_commands"]


@dataclass(frozen=True)
class Msg:
    """A message with source offsets ``[start, end)``."""

    severity: str
    start: int
    end: int
    data: str


@dataclass
class CommandOutput:
    """What elaborating a ``cmd`` produced."""

    env: Env
    src: Source
    messages: list[Msg] = field(default_factory=list)
    sorries: list[tuple[Goal, int, int, str | None]] = field(default_factory=list)
    tactics: list[tuple[str, tuple[Goal, ...], int, int]] = field(default_factory=list)
    heartbeats: list[tuple[str, int]] = field(default_factory=list)
    """Simulated heartbeats each declaration's proof used (name, heartbeats), in order (tests compare them)."""
    unread: list[Msg] = field(default_factory=list)
    """Commands the simulator could not read: a declaration whose signature it did not elaborate, or a command
    outside its subset (the conformance runner counts those cases apart; never part of the REPL's answer)."""


_DECL_KW = {
    "theorem",
    "lemma",
    "example",
    "def",
    "abbrev",
    "axiom",
    "instance",
    "structure",
    "inductive",
    "class",
    "opaque",
}
_CMD_KW = _DECL_KW | {
    "import",
    "open",
    "set_option",
    "namespace",
    "section",
    "end",
    "#print",
    "#check",
    "#check_simp",
    "#norm_num",
    "#eval",
    "#reduce",
    "variable",
    "universe",
    "noncomputable",
    "private",
    "protected",
    "@[",
    "attribute",
    "macro",
    "syntax",
    "notation",
    "infix",
    "mutual",
    "#exit",
    "#guard_msgs",
}
_UNMODELLED_COMMANDS = frozenset(
    {
        # commands of Lean core and Aesop that the simulator does not model (not unknown to Lean)
        "#check_tactic",
        "#check_tactic_failure",
        "#guard",
        "#guard_expr",
        "#synth",
        "add_aesop_rules",
        "erase_aesop_rules",
        "declare_aesop_rule_set",
        "elab",
        "macro_rules",
        "simproc",
        "dsimproc",
    }
)


_LEAN_KEYWORDS = {
    "sorry",
    "by",
    "fun",
    "have",
    "show",
    "from",
    "at",
    "with",
    "then",
    "else",
    "if",
    "do",
    "let",
    "in",
    "match",
    "calc",
    "suffices",
    "obtain",
    "where",
    "deriving",
    "λ",
    "Type",
    "Sort",
    "Prop",
}


#: Module roots an ``import`` may name: Lean's own (``Init``, ``Std``, ``Lean``, ``Lake``) and the packages of
#: lean-gym's Lean workspace (Mathlib and what it requires). Any other root is not on Lean's search path.
KNOWN_MODULE_ROOTS = frozenset(
    {
        "Init",
        "Std",
        "Lean",
        "Lake",
        "Mathlib",
        "Aesop",
        "Batteries",
        "Qq",
        "Plausible",
        "ProofWidgets",
        "LeanSearchClient",
        "ImportGraph",
    }
)


def unknown_module_message(module: str) -> str:
    """Lean's error for ``import module`` when no search-path entry has the module's root.

    The first paragraph is Lean's wording (``findOLean`` in Lean core's ``src/Lean/Util/Path.lean``,
    leanprover/lean4 at 0514f7ca8b364a819e87d4d87b255796ab7c2b97); Lean then lists its search path, which
    the simulator does not have, so the last line names the roots it knows instead.
    """
    root = module.split(".")[0]
    return (
        f"unknown module prefix '{root}'\n\nNo directory '{root}' or file '{root}.olean' in the search path "
        f"entries:\n(the simulator's module roots: {', '.join(sorted(KNOWN_MODULE_ROOTS))})"
    )


def _attribute_only(toks: list[Token], i: int, j: int) -> bool:
    """Whether ``toks[i:j]`` is an attribute list ``@[…]`` and nothing else."""
    depth = 0
    for k in range(i, j):
        x = toks[k].text
        if x in ("[", "@["):
            depth += 1
        elif x == "]":
            depth -= 1
            if depth == 0:
                return k == j - 1
    return False


_OPEN_BRACKETS = frozenset({"(", "[", "{", "⟨", "⦃", "@[", "%["})
_CLOSE_BRACKETS = frozenset({")", "]", "}", "⟩", "⦄"})


def _command_end(toks: list[Token], i: int, n: int) -> int:
    """Where the command starting at ``toks[i]`` ends: at the next token that starts a line at column 0.

    A `by` block at column 0 is Lean's "expected command" error (the REPL's line_breaks transcript), so
    such a token ends the command, except where Lean's parser reads on without a column check: a
    definition's equations (``| 0 => …``), the body right after ``:=`` (``declBody`` is a plain term, so
    ``:=`` then ``by {`` at column 0 is read: Lean core's tests/lean/run/induction1.lean), and the inside of
    brackets (Lean parses them ``withoutPosition``). A command keyword at column 0 ends it in every case
    (Lean's parser fails there and resumes at it).
    """
    j = i + 1
    depth = 1 if toks[i].kind == "sym" and toks[i].text in _OPEN_BRACKETS else 0
    while j < n:
        tj = toks[j]
        if tj.first and tj.col == 0 and not (tj.kind == "sym" and tj.text == "|"):
            if toks[i].text == "@[" and _attribute_only(toks, i, j):
                pass  # `@[attr]` on its own line belongs to the declaration below it
            elif _is_cmd_start(tj) or not (depth > 0 or toks[j - 1].text == ":="):
                break
        if tj.kind == "sym":
            if tj.text in _OPEN_BRACKETS:
                depth += 1
            elif tj.text in _CLOSE_BRACKETS and depth > 0:
                depth -= 1
        j += 1
    return j


def _is_cmd_start(tok: Token) -> bool:
    return (
        tok.text in _CMD_KW
        or tok.text in _UNMODELLED_COMMANDS
        or (tok.kind == "sym" and tok.text in ("#", "@["))
    )


def axioms_text(name: str, axioms: set[str] | frozenset[str]) -> str:
    """Lean's ``#print axioms`` line (names sorted as Lean's ``Name.cmp`` sorts them)."""
    if not axioms:
        return f"'{name}' does not depend on any axioms"
    ordered = sorted(axioms, key=lambda a: (a.count(".") + 1, a.split(".")))
    return f"'{name}' depends on axioms: [{', '.join(ordered)}]"


#: What every message of the simulator about syntax it does not model says.
OUTSIDE_SUBSET = re.compile(r"outside (?:the simulator's|its Lean) (?:Lean )?subset")


class _Runner:
    def __init__(self, text: str, env: Env, fresh: bool, all_tactics: bool = False) -> None:
        self._signature_read = False
        self._in_declaration = False
        self.all_tactics = all_tactics
        self.src = Source(text)
        self.env = env
        self.fresh = fresh
        self.out = CommandOutput(env, self.src)
        self.pending_options: dict[str, object] | None = None
        # `variable`s in scope, one per name: the name and its binder's tokens `(name : type)`, in order;
        # and, per open section/namespace, how many there were when it opened
        self.variables: list[tuple[str, list[Token]]] = []
        self._scopes: list[int] = []

    def msg(self, severity: str, start: int, end: int, data: str) -> None:
        self.out.messages.append(Msg(severity, start, end, data))

    def run(self) -> CommandOutput:
        text = self.src.text
        try:
            toks = tokenize(text, self.src)
        except ParseError as parse_err:
            self.msg("error", parse_err.start, parse_err.end, parse_err.message)
            return self.out
        i = 0
        n = len(toks) - 1
        seen_non_import = False
        while i < n:
            t = toks[i]
            j = _command_end(toks, i, n)
            # `set_option … in` / `open … in` take the next command with them
            while j < n and toks[j - 1].text == "in" and t.text in ("set_option", "open", "variable"):
                j = _command_end(toks, j, n)
            if not _is_cmd_start(t):
                what = (
                    "unexpected identifier"
                    if t.kind == "ident" and t.text not in _LEAN_KEYWORDS
                    else f"unexpected token '{t.text}'"
                )
                self.msg("error", t.start, t.end, f"{what}; expected command")
                # skip to the next command keyword
                k = i + 1
                while k < n and not (_is_cmd_start(toks[k]) and toks[k].first):
                    k += 1
                i = k
                continue
            seg = [*toks[i:j], toks[n] if j >= n else _eof_at(toks[j])]
            if t.text == "import":
                if seen_non_import or not self.fresh:
                    self.msg(
                        "error",
                        t.start,
                        t.end,
                        "invalid 'import' command, it must be used in the beginning of the file",
                    )
                else:
                    names = [x.text for x in seg[1:-1]]
                    unknown = next(
                        (x for x in seg[1:-1] if x.text.split(".")[0] not in KNOWN_MODULE_ROOTS), None
                    )
                    if unknown is not None:
                        # Lean stops at the header: nothing of the file is elaborated (the REPL reports the
                        # exception of `findOLean` as one error and an empty environment)
                        self.msg("error", unknown.start, unknown.end, unknown_module_message(unknown.text))
                        self.out.env = self.env
                        return self.out
                    self.env = self.env.extend(imports=self.env.imports + tuple(names))
                i = j
                continue
            seen_non_import = True
            try:
                self.command(seg)
            except (ParseError, ElabError) as err:
                self.msg("error", err.start, err.end, err.message)
                # a declaration whose statement the simulator did not read, whatever modifiers come before
                # its keyword (`set_option … in`, `noncomputable`, `@[simp]`, `private`)
                if OUTSIDE_SUBSET.search(err.message) or (self._in_declaration and not self._signature_read):
                    self.out.unread.append(self.out.messages[-1])
            i = j
        self.out.env = self.env
        return self.out

    # ------------------------------------------------------------------------------------ commands

    def command(self, seg: list[Token]) -> None:
        self._signature_read = False
        self._in_declaration = False
        ts = TokenStream(seg, stop_col=-1)
        t = ts.tok
        kw = t.text
        if kw == "set_option":
            ts.advance()
            name = ts.advance()
            val_tok = ts.advance()
            if name.kind != "ident" or val_tok.kind == "eof":
                raise ParseError("unexpected token; expected identifier", name.start, name.end)
            val: object = val_tok.text
            if val_tok.kind == "num":
                val = numeral(val_tok)
            elif val_tok.text in ("true", "false"):
                val = val_tok.text == "true"
            if ts.is_word("in"):
                ts.advance()
                rest = seg[ts.i :]
                saved = self.env
                self.env = self.env.extend(options={**self.env.options, name.text: val})
                try:
                    self.command(rest)
                finally:
                    # the option applied to that command only (even when it failed); keep new declarations
                    self.env = self.env.extend(options=saved.options)
                return
            self.env = self.env.extend(options={**self.env.options, name.text: val})
            self._expect_end(ts)
            return
        if kw == "open":
            ts.advance()
            names: list[str] = []
            while ts.tok.kind == "ident" and ts.tok.text != "in":
                names.append(ts.advance().text)
                if ts.is_sym("(") and names:
                    # `open Complex (abs)` opens only the names listed: the simulator's names never live in
                    # those namespaces, so it opens nothing (an explicit name would only add an overload)
                    names.pop()
                    ts.advance()
                    while ts.tok.kind == "ident":
                        ts.advance()
                    ts.expect_sym(")")
            if ts.is_word("in"):
                ts.advance()
                saved_opens = self.env.opens
                self.env = self.env.extend(opens=self.env.opens + tuple(names))
                try:
                    self.command(seg[ts.i :])
                finally:
                    self.env = self.env.extend(opens=saved_opens)
                return
            self.env = self.env.extend(opens=self.env.opens + tuple(names))
            self._expect_end(ts)
            return
        if kw in ("namespace", "section"):
            self._scopes.append(len(self.variables))
            ts.advance()
            if kw == "namespace":
                name = ts.advance()
                ns = f"{self.env.namespace}.{name.text}" if self.env.namespace else name.text
                self.env = self.env.extend(namespace=ns)
            elif ts.tok.kind == "ident":
                ts.advance()
            self._expect_end(ts)
            return
        if kw == "end":
            if self._scopes:
                del self.variables[self._scopes.pop() :]
            ts.advance()
            if ts.tok.kind == "ident" and self.env.namespace:
                end_name = ts.advance().text
                ns = self.env.namespace
                if ns == end_name or ns.endswith("." + end_name):
                    self.env = self.env.extend(namespace=ns[: -len(end_name)].rstrip("."))
            self._expect_end(ts)
            return
        if kw == "noncomputable":
            ts.advance()
            if ts.is_word("section"):
                ts.advance()
                self._expect_end(ts)
                return
            self.command(seg[ts.i :])
            return
        if kw in ("private", "protected"):
            ts.advance()
            self.command(seg[ts.i :])
            return
        if kw == "@[" or (t.kind == "sym" and t.text == "@["):
            depth = 1
            ts.advance()
            while ts.tok.kind != "eof" and depth:
                x = ts.advance()
                if x.text in ("[", "@["):
                    depth += 1
                elif x.text == "]":
                    depth -= 1
                elif x.text in ("irreducible", "irreducible_def", "semireducible") and depth == 1:
                    # the simulator unfolds every definition: honouring irreducibility is not modelled
                    raise ParseError(f"`@[{x.text}]` is outside the simulator's Lean subset", x.start, x.end)
                elif x.text == "aesop" and depth == 1:
                    # a global Aesop rule changes what every later `aesop` call may use: not modelled
                    raise ParseError(
                        "`@[aesop]` rules are outside the simulator's Lean subset", x.start, x.end
                    )
            self.command(seg[ts.i :])
            return
        if kw == "#print":
            ts.advance()
            if ts.is_word("axioms"):
                ts.advance()
                name_tok = ts.advance()
                d = self.env.lookup(name_tok.text)
                if d is None:
                    raise ElabError(f"Unknown constant `{name_tok.text}`", name_tok.start, name_tok.end)
                self.msg("info", t.start, name_tok.end, axioms_text(d.name, d.axioms))
                self._expect_end(ts)
                return
            raise ParseError("the simulator supports `#print axioms NAME` only", t.start, t.end)
        if kw == "#check":
            ts.advance()
            syn = parse_term(ts, 0)
            self._expect_end(ts)
            if syn.kind == "show":
                self._check_show(t, syn)
                return
            self.msg("info", t.start, t.end, self._check_text(syn))
            return
        if kw == "#norm_num":
            self.msg("info", t.start, t.end, self._norm_num_text(ts))
            return
        if kw == "variable":
            self._variable(seg)
            return
        if kw == "#check_simp":
            self._check_simp(seg)
            return
        if (
            kw
            in (
                "#eval",
                "#reduce",
                "universe",
                "structure",
                "inductive",
                "class",
                "instance",
                "mutual",
                "macro",
                "syntax",
                "notation",
                "infix",
                "attribute",
                "opaque",
                "#exit",
                "#guard_msgs",
            )
            or kw in _UNMODELLED_COMMANDS
        ):
            raise ParseError(f"`{kw}` is outside the simulator's Lean subset", t.start, t.end)
        if kw in _DECL_KW:
            self._in_declaration = True
            self.declaration(ts)
            return
        raise ParseError(f"unexpected token '{kw}'; expected command", t.start, t.end)

    # ------------------------------------------------------------------------------------ variables

    def _variable(self, seg: list[Token]) -> None:
        """``variable (a b : ℕ) {c : ℤ}`` (``… in cmd``): section variables, one binder per name.

        A theorem takes the variables its statement names (with those their types name); a definition or
        an example is elaborated with all of them (:meth:`_with_variables`); a term command
        (``#check_simp``) sees all of them. Instance binders and binders whose type the
        simulator does not elaborate are refused as its other signatures are.
        """
        i = 1
        new: list[tuple[str, list[Token]]] = []
        while seg[i].kind != "eof" and not (seg[i].kind == "ident" and seg[i].text == "in"):
            open_tok = seg[i]
            if open_tok.text == "[":
                raise ParseError(
                    "instance binders `[…]` are outside the simulator's subset", open_tok.start, open_tok.end
                )
            close = {"(": ")", "{": "}", "⦃": "⦄", "{{": "}}"}.get(open_tok.text)
            if close is None:
                raise ParseError(
                    f"unexpected token '{open_tok.text}'; expected command", open_tok.start, open_tok.end
                )
            j, depth = i + 1, 1
            while seg[j].kind != "eof" and depth:
                if seg[j].text == open_tok.text:
                    depth += 1
                elif seg[j].text == close:
                    depth -= 1
                j += 1
            group = seg[i:j]
            colon = next((k for k, x in enumerate(group) if x.kind == "sym" and x.text == ":"), None)
            if colon is None or depth:
                raise ParseError("unexpected token; expected ':'", open_tok.start, open_tok.end)
            names = group[1:colon]
            if not names or any(x.kind != "ident" for x in names):
                raise ParseError("unexpected binder; expected identifier", open_tok.start, open_tok.end)
            for name in names:
                new.append((name.text, [group[0], name, *group[colon:]]))
            i = j
        # elaborate the binders now, in the scope of the earlier variables: an error is Lean's, at the command
        self._variable_goal([*self.variables, *new])
        self.variables.extend(new)
        if seg[i].kind == "ident" and seg[i].text == "in":
            # `variable … in cmd`: the variables hold for the one command
            try:
                self.command(seg[i + 1 :])
            finally:
                del self.variables[len(self.variables) - len(new) :]

    def _variable_tokens(self, variables: list[tuple[str, list[Token]]]) -> list[Token]:
        return [tok for _, toks in variables for tok in toks]

    def _variable_goal(self, variables: list[tuple[str, list[Token]]]) -> Goal:
        """The variables as the locals of a goal (its target ``True``)."""
        toks = self._variable_tokens(variables)
        if not toks:
            return Goal((), ("True",), None, not self.env.mathlib)
        last = toks[-1]
        tail = [
            Token("sym", ":", last.end, last.end, last.line, last.col, False),
            Token("ident", "True", last.end, last.end, last.line, last.col, False),
            Token("eof", "", last.end, last.end, last.line, last.col, False),
        ]
        hyps3, _, _ = parse_signature_ex(TokenStream([*toks, *tail]), self.env, self.src)
        return Goal(tuple((n, t) for n, t, _ in hyps3), ("True",), None, not self.env.mathlib)

    def _with_variables(self, seg: list[Token], at: int, statement_only: bool) -> list[Token]:
        """``seg`` with the binders of section variables inserted at ``at`` (after its name), in the order
        they were declared: for a theorem (``statement_only``) those its statement names and those their
        types name; for a definition or example all of them (Lean elaborates the body with every variable
        in its context, the goal shows them, and drops the unused ones afterwards)."""
        if not self.variables:
            return seg
        if not statement_only:
            return [*seg[:at], *self._variable_tokens(self.variables), *seg[at:]]
        end = next((k for k in range(at, len(seg)) if seg[k].kind == "sym" and seg[k].text == ":="), len(seg))
        used = {x.text.split(".")[0] for x in seg[at:end] if x.kind == "ident"}
        chosen: set[int] = set()
        for k in range(len(self.variables) - 1, -1, -1):
            name, toks = self.variables[k]
            if name in used or k in chosen:
                chosen.add(k)
                # a later variable shadows an earlier one of its name; its type's names are used too
                used.discard(name)
                used |= {x.text.split(".")[0] for x in toks[2:] if x.kind == "ident"}
        if not chosen:
            return seg
        extra = self._variable_tokens([self.variables[k] for k in sorted(chosen)])
        return [*seg[:at], *extra, *seg[at:]]

    def _check_simp(self, seg: list[Token]) -> None:
        """``#check_simp t ~> r`` (Lean core's ``checkSimp``, ``#check_tactic t ~> r by simp``): ``simp`` on
        the goal ``CheckGoal t`` leaves ``CheckGoal t'`` with ``t'`` reducibly defeq to ``r``, every
        section variable in scope."""
        from lean_gym.sim.simp import SimpSet, simp_term
        from lean_gym.sim.tactics import TacticContext, TacticError
        from lean_gym.sim.unify import canon_reducible

        kw = seg[0]
        k = next(
            (
                k
                for k in range(1, len(seg) - 1)
                if seg[k].text == "~" and seg[k + 1].text == ">" and seg[k].end == seg[k + 1].start
            ),
            None,
        )
        if k is None or (seg[k - 1].text == "!" and seg[k - 1].end == seg[k].start):
            raise ParseError(
                "this `#check_simp` form is outside the simulator's Lean subset", kw.start, kw.end
            )
        t_ts = TokenStream([*seg[1:k], _eof_at(seg[k])])
        t_syn = parse_term(t_ts, 0)
        self._expect_end(t_ts)
        r_ts = TokenStream(seg[k + 2 :])
        r_syn = parse_term(r_ts, 0)
        self._expect_end(r_ts)
        # a term the simulator does not elaborate is not read (as a declaration's statement)
        self._in_declaration, self._signature_read = True, False
        goal = self._variable_goal(self.variables)
        ctx = TacticContext(env=self.env)
        el = ctx.elaborator(goal)
        if el.synth_leaf_type(t_syn) == "Prop":
            t, want = el.elab_prop(t_syn), el.elab_prop(r_syn)
        else:
            t, ty = el.elab_term(t_syn, None)
            if ty not in ("ℕ", "ℤ", "ℚ", "ℝ"):
                raise ParseError(
                    "this `#check_simp` term is outside the simulator's Lean subset", kw.start, kw.end
                )
            want = el.elab_arith(r_syn, ty)
        self._signature_read = True
        try:
            got = simp_term(t, SimpSet(ctx))
        except (TacticError, TermTooLarge) as e:  # a timeout, the recursion limit, the term-size bound
            raise ElabError(str(e), kw.start, seg[-1].start) from None
        if got == t:
            raise ElabError("simp made no progress", kw.start, seg[-1].start)
        if canon_reducible(got) != canon_reducible(want):
            at = not self.env.mathlib
            nm = goal.display_names()
            raise ElabError(
                f"Term reduces to\n  {pretty(got, at, nm)}\nbut is expected to reduce to \n  {pretty(want, at, nm)}",
                kw.start,
                seg[-1].start,
            )

    def _check_show(self, kw: Token, syn: Syn) -> None:
        """``#check show T by tac`` (or ``from e``) for a proposition ``T``: the proof's errors, then its type.

        Lean elaborates the term (a failing proof becomes ``sorry``) and prints it with its type:
        ``have this := sorry;\nthis : T`` (``tests/lean/run/decideNative.lean`` at 1d6e5f683d54, line 89).
        A proof that succeeds would print its proof term, which the simulator does not build: that case is
        outside its subset.
        """
        from lean_gym.sim.proofs import ProofChecker
        from lean_gym.sim.tactics import LogMessage, TacticContext

        at = not self.env.mathlib
        target = Elaborator(self.env, {}).elab_prop(syn.args[1])
        ctx = TacticContext(env=self.env, decl_name=None)
        ctx.src = self.src
        try:
            ProofChecker(Goal((), target, None, at), ctx).check(syn, target)
        except ElabError as e:
            ctx.messages.append(LogMessage("error", e.message, e.start, e.end))
        errors = [m for m in ctx.messages if m.severity == "error"]
        if not errors and not ctx.sorries:
            raise ParseError(
                "`#check` of a proof that succeeds is outside the simulator's Lean subset", kw.start, kw.end
            )
        for m in ctx.messages:
            self.msg(m.severity, m.start, m.end, m.data)
        self.msg("info", kw.start, kw.end, f"have this := sorry;\nthis : {pretty(target, at)}")

    def _check_text(self, syn: Syn) -> str:
        el = Elaborator(self.env, {})
        if syn.kind == "ident":
            d = self.env.lookup(syn.args[0])
            if d is None:
                raise ElabError(f"Unknown identifier `{syn.args[0]}`", syn.start, syn.end)
            at = not self.env.mathlib
            binders = " ".join(
                ("(" if e else "{") + f"{user_name(n)} : {pretty(ty, at)}" + (")" if e else "}")
                for n, ty, e in d.binders
            )
            head = f"{d.name} {binders}".rstrip() if binders else d.name
            return f"{head} : {pretty(d.type, at)}"
        t, ty = el.elab_term(syn, None)
        at = not self.env.mathlib
        tyname = (
            {"ℕ": "Nat", "ℤ": "Int", "ℚ": "Rat", "ℝ": "Real"}.get(ty, ty)
            if at and isinstance(ty, str)
            else ty
        )
        return f"{pretty(t, at)} : {tyname}"

    def _norm_num_text(self, ts: TokenStream) -> str:
        """``#norm_num e``: Mathlib's ``elabNormNumCmd`` prints the
        norm_num form of ``e`` (simp lemmas and extensions), or fails as norm_num does; ``only``, lemma lists
        and ``:`` are outside the simulator's subset."""
        from lean_gym.sim.simp import SimpSet, simp_term
        from lean_gym.sim.tactics import TacticContext, TacticError

        kw = ts.advance()
        if not self.env.mathlib:
            raise ParseError("unexpected identifier; expected command", kw.start, kw.end)
        if ts.is_word("only") or ts.tok.text in ("[", ":"):
            raise ParseError(
                "`#norm_num` with options is outside the simulator's Lean subset", kw.start, kw.end
            )
        syn = parse_term(ts, 0)
        self._expect_end(ts)
        try:
            t, _ = Elaborator(self.env, {}).elab_term(syn, None)
        except ElabError:
            t = Elaborator(self.env, {}).elab_prop(syn)  # `Nat.Prime 7`: a predicate elab_term does not read
        try:
            new = simp_term(t, SimpSet(TacticContext(env=self.env), default=True, eval_fields=True))
        except (TacticError, TermTooLarge) as e:  # a timeout, the recursion limit, the term-size bound
            raise ElabError(str(e), kw.start, kw.end) from None
        if canon(new) == canon(t):
            raise ElabError("norm_num failed to simplify", kw.start, kw.end)
        return pretty(new, not self.env.mathlib)

    def _expect_end(self, ts: TokenStream) -> None:
        if ts.tok.kind != "eof":
            t = ts.tok
            raise ParseError(f"unexpected token '{t.text}'; expected command", t.start, t.end)

    def declaration(self, ts: TokenStream) -> None:
        from lean_gym.sim.proofs import ProofChecker
        from lean_gym.sim.tactics import (
            LogMessage,
            TacticContext,
            TacticError,
            run_block,
            unsolved_goals_message,
        )

        kw_tok = ts.advance()
        kw = kw_tok.text
        if kw in ("instance",):
            raise ParseError("`instance` is outside the simulator's subset", kw_tok.start, kw_tok.end)
        if kw == "example":
            name = "_example"
            name_tok = kw_tok
        else:
            name_tok = ts.advance()
            if name_tok.kind != "ident":
                raise ParseError(
                    f"unexpected token '{name_tok.text}'; expected identifier", name_tok.start, name_tok.end
                )
            name = name_tok.text
            if self.env.namespace:
                name = f"{self.env.namespace}.{name}"
        if self.variables:
            # the section variables the declaration uses become its first binders
            toks = self._with_variables(ts.toks, ts.i, statement_only=kw in ("theorem", "lemma"))
            if toks is not ts.toks:
                at = ts.i
                ts = TokenStream(toks, stop_col=ts.stop_col)
                ts.i = at
        hyps3, target, is_type = parse_signature_ex(
            ts, self.env, self.src, allow_no_type=kw in ("def", "abbrev")
        )
        hyps = [(n, t) for n, t, _ in hyps3]
        if kw != "axiom" and ts.tok.kind != "eof" and not ts.is_sym(":=") and not ts.is_sym("|"):
            # the statement goes on past where the simulator's term parser stopped (a postfix notation it
            # does not know, `a⁻`): it has not read the statement, whatever Lean makes of the rest
            raise ts.unexpected("':=', 'where' or '|'")
        self._signature_read = True
        if kw in ("theorem", "lemma") and target is not None and not is_prop_type(target):
            raise ElabError(
                f"type of theorem '{name}' is not a proposition\n  {pretty(target, not self.env.mathlib)}",
                name_tok.start,
                name_tok.end,
            )
        if kw != "example" and self.env.declared(name):
            raise ElabError(f"'{name}' has already been declared", name_tok.start, name_tok.end)
        ascii_pp = not self.env.mathlib
        if kw == "axiom":
            self._expect_end(ts)
            if target is None:
                raise ts.unexpected("':'")
            self.env = self.env.extend([Decl(name, "axiom", tuple(hyps3), target, None, frozenset({name}))])
            return
        if not ts.is_sym(":="):
            if ts.is_sym("|"):
                raise ParseError(
                    "definitions by pattern matching are outside the simulator's Lean subset",
                    ts.tok.start,
                    ts.tok.end,
                )
            if ts.tok.kind == "eof":
                raise ParseError(
                    "unexpected end of input; expected ':=', 'where' or '|'", ts.last_end(), ts.last_end()
                )
            raise ts.unexpected("':=', 'where' or '|'")
        ts.advance()
        ctx = TacticContext(env=self.env, decl_name=None if kw == "example" else name)
        ctx.src = self.src
        if self.all_tactics:
            ctx.tactic_log = []
        if target is not None and is_prop_type(target) and kw != "example":
            ctx.decl_type = Decl(name, "theorem", tuple(hyps3), target)
        errors_before = len(self.out.messages)
        value: Term | None = None
        if target is None:
            # def f := value (type inferred)
            body = parse_term(TokenStream(ts.toks[ts.i :], stop_col=0), 0)
            el = Elaborator(self.env, *_scope(hyps))
            value, vty = el.elab_term(body, None)
            # a proposition's type is the term PROP itself (`Elaborator.elab_term`), wrapped as a name is
            target = ("type", vty) if isinstance(vty, tuple) else type_term(vty or "ℕ")
            self.env = self.env.extend(
                [Decl(name, "def", tuple(hyps3), target, value, frozenset(), reducible=kw == "abbrev")]
            )
            return
        goal = Goal(tuple(hyps), target, None, ascii_pp)
        if ts.is_word("by"):
            by_tok = ts.advance()
            start = ts.tok.start
            end = ts.toks[-2].end if len(ts.toks) >= 2 and ts.toks[-2].end > by_tok.end else by_tok.end
            block_end = max(end, by_tok.end)
            try:
                rest = run_block(self.src, start, block_end, [goal], ctx, outer_col=0)
            except TacticError as tac_err:
                s = tac_err.start if tac_err.start is not None else by_tok.start
                en = tac_err.end if tac_err.end is not None else block_end
                ctx.messages.append(LogMessage("error", tac_err.message, s, en))
                ctx.axioms.add("sorryAx")
                rest = []
            if rest:
                ctx.messages.append(
                    LogMessage("error", unsolved_goals_message(rest), by_tok.start, block_end)
                )
                ctx.axioms.add("sorryAx")
        else:
            body = parse_term(ts, 0)
            self._expect_end(ts)
            try:
                if is_type:
                    if body.kind == "ident" and body.args[0] == "sorry":
                        from lean_gym.sim.tactics import SorryRecord

                        ctx.sorries.append(SorryRecord(goal, body.start, body.end))
                        ctx.axioms.add("sorryAx")
                    else:
                        el = Elaborator(self.env, *_scope(hyps))
                        tname = target[1] if target[0] == "type" else None
                        if tname in ("ℕ", "ℤ", "ℚ", "ℝ"):
                            value = el.elab_arith(body, tname)
                        else:
                            value, _ = el.elab_term(body, tname)
                else:
                    ProofChecker(goal, ctx).check(body, target)
            except ElabError as elab_err:
                ctx.messages.append(LogMessage("error", elab_err.message, elab_err.start, elab_err.end))
                ctx.axioms.add("sorryAx")
        self.out.heartbeats.append((name, ctx.heartbeats))
        # messages, in the order they were logged
        had_error = False
        for m in ctx.messages:
            self.msg(m.severity, m.start, m.end, m.data)
            had_error = had_error or m.severity == "error"
        for rec in ctx.sorries:
            self.out.sorries.append((rec.goal, rec.start, rec.end, None if kw == "example" else name))
        if ctx.tactic_log is not None:
            self.out.tactics.extend(ctx.tactic_log)
        if ctx.self_reference and not had_error:
            self.msg(
                "error", name_tok.start, name_tok.end, _termination_text(name.split(".")[-1], bool(hyps))
            )
            had_error = True
            return
        if ctx.sorries and not had_error and len(self.out.messages) == errors_before + len(ctx.messages):
            self.msg("warning", name_tok.start, name_tok.end, "declaration uses `sorry`")
        if kw == "example":
            return
        dkind = "def" if is_type else "theorem"
        self.env = self.env.extend(
            [Decl(name, dkind, tuple(hyps3), target, value, frozenset(ctx.axioms), reducible=kw == "abbrev")]
        )


def _scope(hyps: list[tuple[str, Term]]) -> tuple[dict[str, Term], dict[str, str]]:
    """The elaborator's view of signature locals: user name → type and user name → id."""
    return {user_name(n): t for n, t in hyps}, {user_name(n): n for n, _ in hyps}


def _termination_text(name: str, has_args: bool) -> str:
    if not has_args:
        return (
            f"fail to show termination for\n  {name}\nwith errors\nfailed to infer structural recursion:\n"
            f"no parameters suitable for structural recursion\n\nwell-founded recursion cannot be used, `{name}` "
            "does not take any (non-fixed) arguments"
        )
    return (
        f"fail to show termination for\n  {name}\nwith errors\nfailed to infer structural recursion:\n"
        "Not considering parameter of a proposition type: it is not an inductive datatype\n\n"
        "Could not find a decreasing measure."
    )


def _eof_at(tok: Token) -> Token:
    return Token("eof", "", tok.start, tok.start, tok.line, tok.col, True)


def run_commands(text: str, env: Env, fresh: bool = True, all_tactics: bool = False) -> CommandOutput:
    """Elaborate ``text`` (one or more commands) in ``env``.

    Args:
        text: The ``cmd`` string.
        env: The environment to start from.
        fresh: Whether this starts a new environment (``import`` is allowed only then, as in the REPL).
        all_tactics: Record every tactic run (the REPL's ``allTactics``).
    """
    return _Runner(text, env, fresh, all_tactics).run()
