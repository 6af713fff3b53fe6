"""Elaboration: parsed :class:`~lean_gym.sim.syntax.Syn` trees to typed terms, and the environment.

Arithmetic is elaborated the way Lean's ``binop%`` elaborator does it: the leaves of a tree of ``+ - * / %``
(and both sides of a relation) are typed first, the tree takes the largest of their types in the order
``ℕ < ℤ < ℚ < ℝ`` (or the expected type, or ``ℕ`` when nothing says otherwise), numerals take that type,
and leaves of a smaller type get a coercion ``↑``. This is what makes ``x < n`` with ``n : ℕ`` and
``x : ℝ`` read ``x < ↑n``, as in Lean.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from lean_gym.sim.memo import MISS, Memo
from lean_gym.sim.memo import enabled as memo_enabled
from lean_gym.sim.syntax import ParseError, Source, Syn, Token, TokenStream, parse_term, sub_syns, syn_any
from lean_gym.sim.terms import (
    FALSE,
    FVAR_SEP,
    LIST_NIL,
    NUM_RANK,
    NUM_TYPES,
    ORDERED_TYPES,
    PROP,
    TRUE,
    Term,
    canonical_id,
    free_vars,
    fvar_mark,
    fvar_serial,
    list_cons,
    new_fvar,
    remember_renaming,
    rename_fvars,
    type_term,
    user_name,
)

__all__ = [
    "BUILTIN_TYPES",
    "Decl",
    "ElabError",
    "Elaborator",
    "Env",
    "LocalContext",
    "env_key",
    "parse_signature",
    "parse_signature_ex",
    "register_library",
]


class ElabError(Exception):
    """An elaboration error at ``[start, end)`` with Lean's message text."""

    def __init__(self, message: str, start: int = -1, end: int = -1) -> None:
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = end


BUILTIN_TYPES: dict[str, str] = {
    "ℕ": "ℕ",
    "Nat": "ℕ",
    "ℤ": "ℤ",
    "Int": "ℤ",
    "ℚ": "ℚ",
    "Rat": "ℚ",
    "ℝ": "ℝ",
    "Real": "ℝ",
    "ℂ": "ℂ",
    "Complex": "ℂ",
    "Prop": "Prop",
    "Unit": "Unit",
    "Bool": "Bool",
}

#: Type names that exist only with Mathlib: ``ℕ``/``ℤ``/``ℚ``/``ℝ`` are Mathlib notations (Lean core spells
#: ``Nat`` and ``Int``), ``Real`` is Mathlib's, and ``Rat`` is not refused by core Lean everywhere the
#: simulator would need it (refusing it is never stronger than Lean).
MATHLIB_TYPE_NAMES = frozenset({"ℕ", "ℤ", "ℚ", "ℝ", "Real", "Rat", "ℂ", "Complex"})


def mathlib_name_error(name: str, start: int, end: int) -> ElabError:
    """The error for a Mathlib-only name used under a header that does not import Mathlib.

    The first line is Lean's (``Unknown identifier``, as in the REPL's ``dup_msg`` transcript); in a
    declaration's signature Lean would instead bind the name as an auto-bound implicit (a type variable),
    which the simulator does not model, so it refuses the statement either way.
    """
    return ElabError(
        f"Unknown identifier `{name}`\n\n`{name}` is Mathlib's, and the header does not import Mathlib "
        "(add `import Mathlib`); in a signature Lean would bind it as an auto-bound implicit type variable, "
        "which the simulator does not model",
        start,
        end,
    )


@dataclass(frozen=True)
class Decl:
    """A declaration in the environment.

    Attributes:
        name: Its full name.
        kind: ``theorem``, ``axiom``, ``def`` or ``fn`` (a built-in function symbol).
        binders: ``(name, type, explicit)`` for each binder before the colon.
        type: The statement (theorems, axioms) or the type (defs, functions) after the binders.
        value: A def's body (``None`` for opaque symbols).
        axioms: The axioms its proof depends on (``sorryAx`` for a sorry, the name itself for an axiom).
        reducible: A def Lean unfolds at reducible transparency (``abbrev``): the arithmetic tactics'
            atoms are compared up to it.
    """

    name: str
    kind: str
    binders: tuple[tuple[str, Term, bool], ...]
    type: Term
    value: Term | None = None
    axioms: frozenset[str] = frozenset()
    tyvars: tuple[tuple[str, frozenset[str]], ...] = ()
    reducible: bool = False


@dataclass
class Env:
    """An environment snapshot: declarations, options, open namespaces and whether Mathlib is imported.

    Snapshots are immutable by convention: :meth:`extend` returns a new one that shares the old tables.
    """

    decls: Mapping[str, Decl] = field(default_factory=dict)
    options: Mapping[str, object] = field(default_factory=dict)
    opens: tuple[str, ...] = ()
    imports: tuple[str, ...] = ()
    namespace: str = ""

    @property
    def mathlib(self) -> bool:
        return any(i == "Mathlib" or i.startswith("Mathlib.") for i in self.imports)

    def lookup(self, name: str) -> Decl | None:
        """The declaration ``name`` resolves to (local decls, then the built-in library, with ``open``s)."""
        d = self.decls.get(name)
        if d is not None:
            return d
        if self.namespace:
            d = self.decls.get(f"{self.namespace}.{name}")
            if d is not None:
                return d
        lib = _library()
        d = lib.get(name)
        if d is not None:
            return d
        for ns in self.opens:
            full = f"{ns}.{name}"
            d = self.decls.get(full) or lib.get(full)
            if d is not None:
                return d
        return None

    def declared(self, name: str) -> bool:
        """Whether the full name ``name`` is already taken: by a declaration of this environment, a
        built-in function (``Nat.succ``, ``Nat.sqrt``) or, with Mathlib imported, a library lemma."""
        return name in self.decls or name in BUILTIN_FNS or (self.mathlib and name in _library())

    def extend(self, decls: Iterable[Decl] = (), **changes: object) -> Env:
        new_decls = dict(self.decls)
        for d in decls:
            new_decls[d.name] = d
        kw: dict[str, object] = {
            "decls": new_decls,
            "options": self.options,
            "opens": self.opens,
            "imports": self.imports,
            "namespace": self.namespace,
        }
        kw.update(changes)
        return Env(**kw)  # type: ignore[arg-type]

    def heartbeats(self) -> int:
        v = self.options.get("maxHeartbeats", 200000)
        return int(v) if isinstance(v, int) else 200000


_LIB: dict[str, Decl] | None = None
_LIB_LOADER: Callable[[], dict[str, Decl]] | None = None


def register_library(loader: Callable[[], dict[str, Decl]]) -> None:
    """Make :meth:`Env.lookup` resolve names in ``loader()``'s declarations (the built-in lemma library).

    :mod:`lean_gym.sim.library` registers itself when imported (the library sits above elaboration: its
    statements are elaborated). ``loader`` returns ``{}`` while it is still loading; that is not cached.
    """
    global _LIB, _LIB_LOADER
    _LIB_LOADER = loader
    _LIB = None


def _library() -> dict[str, Decl]:
    global _LIB
    if _LIB is None:
        if _LIB_LOADER is None:
            return {}
        lib = _LIB_LOADER()
        if not lib:
            return lib
        _LIB = lib
    return _LIB


LocalContext = dict[str, Term]
"""Name → type of each local in scope (data variables map to types, hypotheses to propositions)."""


def _is_fun_syn(syn: Syn) -> bool:
    while syn.kind == "paren":
        syn = syn.args[0]
    return syn.kind == "binder" and syn.args[0] == "fun"


_VALUE_HEADS = ("+", "-", "*", "/", "%", "^", "neg", "abs", "inv", "num", "cast")


def _value_type(t: Term, bound: dict[str, Term]) -> Term | None:
    """The type of an elaborated value: a number type, ``Prop``, or a function type (``fun`` terms), or
    ``None`` when the term does not say."""
    h = t[0]
    if h == "fun":
        body = _value_type(t[3], {**bound, t[1]: t[2]})
        return None if body is None else ("arrow", t[2], body)
    if h in _VALUE_HEADS and type(t[1]) is str and t[1] in NUM_TYPES:
        return type_term(t[1])
    if h == "var":
        return bound.get(t[1])
    if h in ("=", "≠", "<", "≤", ">", "≥", "∣", "∧", "∨", "→", "↔", "¬", "∀", "∃", "True", "False"):
        return PROP
    return None


def _is_list_syntax(syn: Syn) -> bool:
    while syn.kind == "paren":
        syn = syn.args[0]
    return syn.kind == "listlit" or (syn.kind == "binop" and syn.args[0] == "::")


def _max_type(a: str | None, b: str | None) -> str | None:
    if a is None:
        return b
    if b is None:
        return a
    if a in NUM_RANK and b in NUM_RANK:
        return a if NUM_RANK[a] >= NUM_RANK[b] else b
    return a


_ARITH_SYN = {"+", "-", "*", "/", "%"}
_REL_SYN = {"=", "≠", "<", "≤", ">", "≥", "∣"}
_LOGIC_SYN = {"∧", "∨", "→", "↔"}

# built-in function symbols: name -> (argument types, result type)
BUILTIN_FNS: dict[str, tuple[tuple[str, ...], str]] = {
    "Nat.succ": (("ℕ",), "ℕ"),
    "Nat.pred": (("ℕ",), "ℕ"),
    "Int.natAbs": (("ℤ",), "ℕ"),
    "Int.toNat": (("ℤ",), "ℕ"),
    "Nat.factorial": (("ℕ",), "ℕ"),
    "Nat.gcd": (("ℕ", "ℕ"), "ℕ"),
    "Nat.lcm": (("ℕ", "ℕ"), "ℕ"),
    "Int.gcd": (("ℤ", "ℤ"), "ℕ"),
    "Nat.sqrt": (("ℕ",), "ℕ"),
    # Mathlib functions that only norm_num's extensions evaluate (`Nat.minFac`, `Nat.log` are defined by
    # well-founded recursion, which `decide` and `rfl` do not unfold; `Nat.fib` is left to norm_num too)
    "Nat.minFac": (("ℕ",), "ℕ"),
    "Nat.log": (("ℕ", "ℕ"), "ℕ"),
    "Nat.fib": (("ℕ",), "ℕ"),
    "Nat.primeFactorsList": (("ℕ",), "List ℕ"),
    # Mathlib functions the simulator cannot compute (issue 21: miniF2F-test states with them): opaque
    # constants at the types miniF2F uses them, so a tactic sees an application as an atom and knows no
    # lemma about it but those in the library (none is evaluated: `eval_term` has no rule for them)
    "Real.sqrt": (("ℝ",), "ℝ"),
    "Real.log": (("ℝ",), "ℝ"),
    "Real.exp": (("ℝ",), "ℝ"),
    "Real.sin": (("ℝ",), "ℝ"),
    "Real.cos": (("ℝ",), "ℝ"),
    "Real.tan": (("ℝ",), "ℝ"),
    "Real.logb": (("ℝ", "ℝ"), "ℝ"),
    "Int.floor": (("ℝ",), "ℤ"),
    "Int.ceil": (("ℝ",), "ℤ"),
    "Real.rpow": (("ℝ", "ℝ"), "ℝ"),
    "Nat.digits": (("ℕ", "ℕ"), "List ℕ"),
    "Nat.ofDigits": (("ℕ", "List ℕ"), "ℕ"),
    "List.sum": (("List ℕ",), "ℕ"),
}
#: Mathlib constants kept opaque (no rule evaluates them), with their types.
OPAQUE_CONSTS: dict[str, str] = {"Real.pi": "ℝ", "Complex.I": "ℂ"}
#: Mathlib predicates kept opaque (issue 21: miniF2F-test states with them), with the argument types the
#: simulator accepts: no rule decides them; only hypotheses and library lemmas speak about them.
OPAQUE_PREDS: dict[str, tuple[str, ...]] = {
    "Nat.Prime": ("ℕ",),
    "Odd": ("ℕ", "ℤ"),
    "Even": ("ℕ", "ℤ"),
}
#: The opaque ones among :data:`BUILTIN_FNS` (no evaluation rule; only library lemmas speak about them).
OPAQUE_FNS = frozenset(
    {"Real.sqrt", "Real.log", "Real.exp", "Real.sin", "Real.cos", "Real.tan", "Real.logb", "Int.floor",
     "Int.ceil", "Real.rpow", "Nat.digits", "Nat.ofDigits", "List.sum", "Nat.minFac", "Nat.log", "Nat.fib",
     "Nat.primeFactorsList"}
)  # fmt: skip


class Elaborator:
    """Turns :class:`Syn` into typed :data:`Term`s in a local context and an environment.

    Name resolution is Lean's: a name is the innermost enclosing binder, else the last local of that user
    name (an ``fvar``), else a constant of the environment.

    Args:
        env: The environment (declarations and options).
        lctx: Names in scope, user name → type; extended in place for binders and restored afterwards.
        fvars: User name → local id for the names of ``lctx`` that are locals of a goal (the others are
            bound variables, written ``("var", name)``).
    """

    __slots__ = ("env", "flex", "fvars", "lctx")

    def __init__(self, env: Env, lctx: LocalContext, fvars: dict[str, str] | None = None) -> None:
        self.env = env
        self.lctx = lctx
        self.fvars: dict[str, str] = fvars if fvars is not None else {}
        self.flex: dict[str, str] = {}

    def _ref(self, name: str) -> Term:
        """The term for the local or bound variable ``name`` (``name`` is in ``lctx``)."""
        fid = self.fvars.get(name)
        return ("var", name) if fid is None else ("fvar", fid)

    def _local_type(self, name: str) -> Term | None:
        """The type of local ``name``, resolving a binder whose type is still being inferred."""
        ty = self.lctx.get(name)
        if ty is not None and ty[0] == "type" and ty[1].startswith("?"):
            got = self.flex.get(ty[1])
            return type_term(got) if got is not None else ty
        return ty

    # ------------------------------------------------------------------------------------- types

    def elab_type(self, syn: Syn) -> Term:
        """A type term (``ℕ``, ``Prop``, ``ℝ → ℝ``) or, failing that, a proposition (for binders)."""
        k = syn.kind
        if k == "ident":
            name = syn.args[0]
            if name in BUILTIN_TYPES:
                if name in MATHLIB_TYPE_NAMES and not self.env.mathlib:
                    raise mathlib_name_error(name, syn.start, syn.end)
                return type_term(BUILTIN_TYPES[name])
            if name in ("Type", "Sort"):
                raise ElabError("type universes are outside the simulator's subset", syn.start, syn.end)
        if k == "paren":
            return self.elab_type(syn.args[0])
        finset = self._finset_type(syn)
        if finset is not None:
            return finset
        if syn.kind == "app" and syn.args[0].kind == "ident" and syn.args[0].args[0] == "List":
            args = syn.args[1]
            if len(args) == 1 and args[0].kind == "ident" and BUILTIN_TYPES.get(args[0].args[0]) in NUM_TYPES:
                return type_term(f"List {BUILTIN_TYPES[args[0].args[0]]}")  # `List T`: Lean core's lists
        if k == "binop" and syn.args[0] == "→":
            a = self._type_or_prop(syn.args[1])
            b = self._type_or_prop(syn.args[2])
            if a[0] in ("type", "arrow") and b[0] in ("type", "arrow"):
                return ("arrow", a, b)
            return ("→", a, b)
        return self.elab_prop(syn)

    def _finset_type(self, syn: Syn) -> Term | None:
        """``Finset T`` for a number type ``T`` (an opaque type: its terms are locals, ``∈`` and ``.card``
        are opaque), else ``None``."""
        if not (syn.kind == "app" and syn.args[0].kind == "ident" and syn.args[0].args[0] == "Finset"):
            return None
        args = syn.args[1]
        if self.env.mathlib and len(args) == 1 and args[0].kind == "ident":
            elem = BUILTIN_TYPES.get(args[0].args[0])
            if elem in NUM_TYPES:
                return type_term(f"Finset {elem}")
        return None

    def _finset_local(self, syn: Syn) -> tuple[Term, str] | None:
        """A local ``S : Finset T``: its reference and ``T``."""
        while syn.kind == "paren":
            syn = syn.args[0]
        if syn.kind != "ident":
            return None
        ty = self._local_type(syn.args[0])
        if ty is not None and ty[0] == "type" and str(ty[1]).startswith("Finset "):
            return self._ref(syn.args[0]), str(ty[1]).split(" ", 1)[1]
        return None

    def _projection(self, name: str) -> tuple[Term, str] | None:
        """Field notation on a local the simulator keeps opaque: ``S.card`` (``S : Finset T``, ℕ),
        ``q.num`` (ℤ) and ``q.den`` (ℕ) for ``q : ℚ``; the term and its type."""
        base, dot, field = name.rpartition(".")
        if not dot or base not in self.lctx or not self.env.mathlib:
            return None
        if field == "card":
            got = self._finset_local(Syn("ident", (base,), 0, 0))
            return None if got is None else (("app", ("const", "Finset.card"), (got[0],)), "ℕ")
        if field in ("num", "den") and self._local_type(base) == type_term("ℚ"):
            fn, ty = ("Rat.num", "ℤ") if field == "num" else ("Rat.den", "ℕ")
            return ("app", ("const", fn), (self._ref(base),)), ty
        return None

    def _type_or_prop(self, syn: Syn) -> Term:
        return self.elab_type(syn)

    def is_type_syntax(self, syn: Syn) -> bool:
        k = syn.kind
        if self._finset_type(syn) is not None:
            return True
        if k == "ident":
            return syn.args[0] in BUILTIN_TYPES
        if k == "paren":
            return self.is_type_syntax(syn.args[0])
        if k == "binop" and syn.args[0] == "→":
            return self.is_type_syntax(syn.args[1]) and self.is_type_syntax(syn.args[2])
        return False

    # --------------------------------------------------------------------------------- propositions

    def elab_prop(self, syn: Syn) -> Term:
        """Elaborate a proposition.

        Raises:
            ElabError: with Lean's wording for unknown identifiers, type mismatches and syntax outside
                the subset.
        """
        k = syn.kind
        if k == "paren":
            return self.elab_prop(syn.args[0])
        if k == "binop":
            op = syn.args[0]
            if op in _LOGIC_SYN:
                a = self.elab_prop(syn.args[1])
                b = self.elab_prop(syn.args[2])
                return (op, a, b)
            if op in _REL_SYN:
                return self._elab_rel(op, syn.args[1], syn.args[2])
            if op == "∈":
                got = self._finset_local(syn.args[2])
                if got is not None:
                    return ("∈", got[1], self.elab_arith(syn.args[1], got[1]), got[0])
                raise ElabError(_unsupported(syn), syn.start, syn.end)
            raise ElabError(f"type mismatch: `{op}` does not produce a proposition here", syn.start, syn.end)
        if k == "not":
            return ("¬", self.elab_prop(syn.args[0]))
        if k == "ident":
            name = syn.args[0]
            if name == "True":
                return TRUE
            if name == "False":
                return FALSE
            ty = self._local_type(name)
            if ty is not None:
                if ty[0] == "type" and ty[1].startswith("?"):
                    self.flex[ty[1]] = "Prop"
                    return self._ref(name)
                if ty == PROP:
                    return self._ref(name)
                raise ElabError(
                    f"type mismatch\n  {name}\nhas type\n  {_show(ty)} : Type\nbut is expected to have type\n  Prop : Type",
                    syn.start,
                    syn.end,
                )
            d = self.env.lookup(name)
            if d is not None and d.kind == "def" and d.type == PROP:
                return ("const", name)
            if d is None:
                raise ElabError(f"Unknown identifier `{name}`", syn.start, syn.end)
            raise ElabError(f"type mismatch: `{name}` is not a proposition", syn.start, syn.end)
        if k == "binder":
            return self._elab_binder(syn, prop=True)
        if k == "app":
            head = syn.args[0]
            if head.kind == "ident" and head.args[0] in self.lctx:
                ty = self.lctx[head.args[0]]
                t, rty = self._elab_local_app(head, syn.args[1], ty)
                if rty == PROP:
                    return t
            if head.kind == "ident" and head.args[0] in OPAQUE_PREDS and self.env.mathlib:
                return self._elab_opaque_pred(head.args[0], syn)
            if (
                head.kind == "ident"
                and self.env.lookup(head.args[0]) is None
                and head.args[0] not in self.lctx
            ):
                raise ElabError(f"Unknown identifier `{head.args[0]}`", head.start, head.end)
            raise ElabError("function expected to produce a proposition", syn.start, syn.end)
        if k == "ascr":
            return self.elab_prop(syn.args[0])
        if k == "num":
            raise ElabError(
                f"failed to synthesize\n  OfNat Prop {syn.args[0]}\nnumerals are polymorphic in Lean, but the numeral `{syn.args[0]}` cannot be used in a context where the expected type is\n  Prop\ndue to the absence of the instance above",
                syn.start,
                syn.end,
            )
        raise ElabError(_unsupported(syn), syn.start, syn.end)

    def _elab_finset(self, syn: Syn) -> tuple[Term, str]:
        """``Finset.range n`` or ``Finset.Icc a b`` (over ℕ or ℤ): the set term and its element type."""
        while syn.kind == "paren":
            syn = syn.args[0]
        local = self._finset_local(syn)
        if local is not None:
            return local
        if syn.kind == "app" and syn.args[0].kind == "ident":
            name, args = syn.args[0].args[0], syn.args[1]
            if name == "Finset.range" and len(args) == 1:
                return ("app", ("const", name), (self.elab_arith(args[0], "ℕ"),)), "ℕ"
            if name == "Finset.filter" and len(args) == 2:
                return self._elab_filter(args[0], args[1])
            if name == "Finset.Icc" and len(args) == 2:
                ety = _max_type(self._tree_type(args[0], None), self._tree_type(args[1], None)) or "ℕ"
                if ety in ("ℕ", "ℤ"):
                    bounds = (self.elab_arith(args[0], ety), self.elab_arith(args[1], ety))
                    return ("app", ("const", name), bounds), ety
        raise ElabError(
            "the simulator supports big operators only over `Finset.range n`, `Finset.Icc a b` on ℕ or ℤ and locals "
            "`S : Finset T` "
            "(outside its Lean subset)",
            syn.start,
            syn.end,
        )

    def _elab_filter(self, pred: Syn, set_syn: Syn) -> tuple[Term, str]:
        """``Finset.filter (fun x => p) s``: opaque, printed as Lean does (``Finset.filter (fun x => p) s``)."""
        set_term, elem = self._elab_finset(set_syn)
        while pred.kind == "paren":
            pred = pred.args[0]
        if not (pred.kind == "binder" and pred.args[0] == "fun" and len(pred.args[1]) == 1):
            raise ElabError(_unsupported(pred), pred.start, pred.end)
        names, ty_syn, pred_op, _ = pred.args[1][0]
        if len(names) != 1 or pred_op is not None:
            raise ElabError(_unsupported(pred), pred.start, pred.end)
        if ty_syn is not None and self.elab_type(ty_syn) != type_term(elem):
            raise ElabError(_unsupported(pred), pred.start, pred.end)
        x = names[0].text
        saved, saved_fv = self.lctx.get(x), self.fvars.pop(x, None)
        self.lctx[x] = type_term(elem)
        try:
            body = self.elab_prop(pred.args[2])
        finally:
            self._unbind(x, saved, saved_fv)
        return ("app", ("const", "Finset.filter"), (("fun", x, type_term(elem), body), set_term)), elem

    def _bigop_body_type(self, syn: Syn) -> str | None:
        """The type a big operator's body has on its own, its variable bound (``None``: polymorphic)."""
        _, x, set_syn, body = syn.args
        try:
            _, elem = self._elab_finset(set_syn)
        except ElabError:
            return None
        saved, saved_fv = self.lctx.get(x), self.fvars.pop(x, None)
        self.lctx[x] = type_term(elem)
        try:
            return self._tree_type(body, None)
        finally:
            self._unbind(x, saved, saved_fv)

    def _unbind(self, x: str, saved: Term | None, saved_fv: str | None) -> None:
        if saved is None:
            self.lctx.pop(x, None)
        else:
            self.lctx[x] = saved
        if saved_fv is not None:
            self.fvars[x] = saved_fv

    def _shadow(self, name: str, saved: dict[str, Term | None], saved_fv: dict[str, str]) -> None:
        """Before binding ``name`` in a binder group: the first time, record what ``name`` stood for (its type
        in ``saved``, and its local in ``saved_fv``: the binder shadows the local of that name inside the
        body), for :meth:`_unbind_all`."""
        if name not in saved:
            saved[name] = self.lctx.get(name)
            if name in self.fvars:
                saved_fv[name] = self.fvars.pop(name)

    def _unbind_all(self, saved: dict[str, Term | None], saved_fv: dict[str, str]) -> None:
        """Undo a binder group's bindings: what :meth:`_shadow` recorded is put back."""
        for name, old in saved.items():
            if old is None:
                self.lctx.pop(name, None)
            else:
                self.lctx[name] = old
        self.fvars.update(saved_fv)

    def _elab_list(self, syn: Syn, expected: str | None) -> tuple[Term, str | None]:
        """A list literal ``[a, b, c]`` of numbers (``List T``): Lean's ``«term[_]»`` macro, the chain
        ``List.cons a (List.cons b (List.cons c List.nil))``, printed ``[a, b, c]``."""
        elem = expected.split(" ", 1)[1] if expected and expected.startswith("List ") else None
        if elem is None:
            for e in syn.args:
                elem = _max_type(elem, self._tree_type(e, None))
            elem = elem or "ℕ"
        if elem not in NUM_TYPES:
            raise ElabError(_unsupported(syn), syn.start, syn.end)
        out: Term = LIST_NIL
        # [::-1], not reversed(), which mypyc cannot compile over a sequence of Any (docs/simulator.md)
        for e in syn.args[::-1]:
            out = list_cons(self.elab_arith(e, elem), out)
        return out, f"List {elem}"

    def _list_elem_type(self, syn: Syn) -> str | None:
        """The element type a list literal or ``::`` chain has on its own (``None``: numerals only)."""
        while syn.kind == "paren":
            syn = syn.args[0]
        if syn.kind == "listlit":
            elem = None
            for e in syn.args:
                elem = _max_type(elem, self._tree_type(e, None))
            return elem
        if syn.kind == "binop" and syn.args[0] == "::":
            return _max_type(self._list_elem_type(syn.args[2]), self._tree_type(syn.args[1], None))
        ty = self.synth_leaf_type(syn)
        return ty.split(" ", 1)[1] if ty is not None and ty.startswith("List ") else None

    def _elab_cons(self, syn: Syn, expected: str | None) -> tuple[Term, str | None]:
        """``d :: L`` (``List.cons d L``): the element type from the expected ``List T``, else the tail's,
        else the head's (a numeral: ℕ)."""
        _, hd, tl = syn.args
        elem = expected.split(" ", 1)[1] if expected and expected.startswith("List ") else None
        if elem is None:
            tty = self.synth_leaf_type(tl)
            elem = tty.split(" ", 1)[1] if tty and tty.startswith("List ") else None
        if elem is None:
            elem = self._tree_type(hd, None) or "ℕ"
        if elem not in NUM_TYPES:
            raise ElabError(_unsupported(syn), syn.start, syn.end)
        tail, got = self.elab_term(tl, f"List {elem}")
        if got != f"List {elem}":
            raise ElabError(
                f"type mismatch\n  {syn_text(tl)}\nhas type\n  {got}\nbut is expected to have type\n  List {elem}",
                tl.start,
                tl.end,
            )
        return list_cons(self.elab_arith(hd, elem), tail), f"List {elem}"

    def _elab_bigop(self, syn: Syn, expected: str | None) -> tuple[Term, str | None]:
        """``∑ x ∈ s, f`` as Lean elaborates it, ``Finset.sum s (fun x => f)`` (``∏``: ``Finset.prod``),
        at the expected type, else the body's own type, else ℕ (a numeral's default). Opaque: no rule
        evaluates it (Mathlib's ``Finset.sum_range_succ`` and norm_num's big-operator extension are not
        modelled), so only what holds of any term holds of it."""
        op, x, set_syn, body = syn.args
        set_term, elem = self._elab_finset(set_syn)
        bty = expected if expected in NUM_TYPES else (self._bigop_body_type(syn) or "ℕ")
        if bty not in NUM_TYPES:
            raise ElabError(_unsupported(syn), syn.start, syn.end)
        saved, saved_fv = self.lctx.get(x), self.fvars.pop(x, None)
        self.lctx[x] = type_term(elem)
        try:
            b = self.elab_arith(body, bty)
        finally:
            self._unbind(x, saved, saved_fv)
        fn = "Finset.sum" if op == "∑" else "Finset.prod"
        return ("app", ("const", fn), (set_term, ("fun", x, type_term(elem), b))), bty

    def _elab_opaque_pred(self, name: str, syn: Syn) -> Term:
        """``Nat.Prime p``, ``Odd n``, ``Even n``: Mathlib predicates the simulator keeps opaque."""
        args = syn.args[1]
        if len(args) != 1:
            raise ElabError(f"function `{name}` expects 1 argument(s)", syn.start, syn.end)
        allowed = OPAQUE_PREDS[name]
        t, aty = self.elab_term(args[0], allowed[0] if len(allowed) == 1 else None)
        if aty not in allowed:
            raise ElabError(
                f"the simulator does not support `{name}` at type {aty} (outside its Lean subset)",
                syn.start,
                syn.end,
            )
        return ("app", ("const", name), (t,))

    def _elab_binder(self, syn: Syn, prop: bool) -> Term:
        q, groups, body = syn.args
        binders: list[tuple[str, Term]] = []
        preds: list[tuple[int, str, Syn]] = []
        saved: dict[str, Term | None] = {}
        saved_fv: dict[str, str] = {}
        try:
            for gi, (names, ty_syn, pred_op, bound) in enumerate(groups):
                if ty_syn is not None or pred_op is not None:
                    # untyped binders so far take their type from a typed use in what follows
                    rest = (
                        [g[1] for g in groups[gi:] if g[1] is not None]
                        + [g[3] for g in groups[gi:] if g[3] is not None]
                        + [body]
                    )
                    for name, bty_t in binders:
                        if bty_t[0] == "type" and bty_t[1].startswith("?") and bty_t[1] not in self.flex:
                            self._infer_binder(name, bty_t[1], rest, syn)
                ty = self.elab_type(ty_syn) if ty_syn is not None else None
                if ty is None and pred_op is not None:
                    bty = self.synth_leaf_type(bound)
                    ty = type_term(bty) if bty in NUM_TYPES else None
                for tok in names:
                    name = tok.text
                    self._shadow(name, saved, saved_fv)
                    bty_t = ty if ty is not None else type_term(f"?{name}{len(self.flex)}_{len(binders)}")
                    self.lctx[name] = bty_t
                    binders.append((name, bty_t))
                    if pred_op is not None:
                        preds.append((len(binders) - 1, pred_op, bound))
            for bi, (name, bty_t) in enumerate(binders):
                if bty_t[0] == "type" and bty_t[1].startswith("?") and bty_t[1] not in self.flex:
                    # `∃ n > 0, p` is `∃ n, n > 0 ∧ p` (Lean's `binderPred`): the bound is a use of `n`
                    own = [bound for idx, _, bound in preds if idx == bi]
                    self._infer_binder(name, bty_t[1], [*own, body], syn)
            pred_terms: dict[int, Term] = {}
            for idx, op, bound in preds:
                name = binders[idx][0]
                pred_terms[idx] = self._elab_rel(op, Syn("ident", (name,), bound.start, bound.start), bound)
            b = self.elab_prop(body) if q != "fun" else self.elab_term(body, None)[0]
        finally:
            self._unbind_all(saved, saved_fv)
        resolved: list[tuple[str, Term]] = []
        for name, ty in binders:
            if ty[0] == "type" and ty[1].startswith("?"):
                ty = type_term(self.flex.get(ty[1], "ℕ"))
            resolved.append((name, ty))
        out = b
        for idx in range(len(resolved) - 1, -1, -1):
            name, ty = resolved[idx]
            if idx in pred_terms:
                out = ("→", pred_terms[idx], out) if q == "∀" else ("∧", pred_terms[idx], out)
            if ty[0] not in ("type", "arrow") and q in ("∀", "∃"):
                # a binder over a proof: `∀ (_ : p), q` is `p → q`, `∃ (_ : p), q` is `p ∧ q`
                out = ("→" if q == "∀" else "∧", ty, out)
                continue
            out = (q, name, ty, out)
        return out

    def _infer_binder(self, name: str, flex: str, parts: list[Syn], binder: Syn) -> None:
        """Fix the type of the untyped binder ``name`` from its uses in ``parts``, or refuse.

        Lean elaborates an untyped binder's type by unification, in an order (``binop%``, postponed
        default instances, ascriptions) the simulator does not replay. So the type is taken only when every
        typed use agrees; with no typed use it is ``ℕ`` (Lean's default numeral instance) when a numeral is
        around, and any disagreement (``x / 2 = 0 ∧ (x : ℝ) = 1``) is an elaboration error, never a guess.

        Raises:
            ElabError: when the uses do not determine one type.
        """
        found: set[str] = set()
        numerals = False
        for part in parts:
            self._prescan(part, name, found)
            numerals = numerals or syn_any(part, lambda u: u.kind == "num")
        if len(found) == 1:
            self.flex[flex] = next(iter(found))
            return
        if not found and numerals:
            return  # the default instance: elaboration below makes it ℕ
        what = " and ".join(sorted(found)) if found else "nothing"
        raise ElabError(
            f"the simulator cannot be sure how Lean elaborates the type of `{name}` (its uses suggest "
            f"{what}); give the binder a type, e.g. `({name} : ℝ)`",
            binder.start,
            binder.end,
        )

    def _prescan(self, syn: Syn, name: str, found: set[str]) -> None:
        """Add to ``found`` every type a typed use of the still-untyped binder ``name`` in ``syn`` implies."""
        stack = [syn]
        while stack:
            u = stack.pop()
            k = u.kind
            if k == "ascr" and u.args[0].kind == "ident" and u.args[0].args[0] == name:
                asc = self.elab_type(u.args[1])
                found.add(str(asc[1]) if asc[0] == "type" else "a function type")
                continue
            if k == "cast" and u.args[0].kind == "ident" and u.args[0].args[0] == name:
                found.add("a coercion")
                continue
            if k == "binder" and any(tok.text == name for grp in u.args[1] for tok in grp[0]):
                continue  # shadowed inside
            if k == "app" and u.args[0].kind == "ident":
                head = u.args[0].args[0]
                fty = self._local_type(head)
                params: list[Term] = []
                if fty is None:
                    # a def or built-in function: its parameters' types
                    d = self.env.lookup(head)
                    if d is not None and d.kind == "def":
                        params = [bty for _, bty, _ in d.binders]
                    elif head in BUILTIN_FNS:
                        params = [type_term(t) for t in BUILTIN_FNS[head][0]]
                    elif head in ("min", "max") and len(u.args[1]) == 2:
                        # `min a b`: both arguments have one type (Lean's unifier), the other's
                        for a, other in (u.args[1], u.args[1][::-1]):
                            oty = self._tree_type(other, None)
                            if a.kind == "ident" and a.args[0] == name and oty in NUM_TYPES:
                                found.add(oty)
                for a, pty in zip(u.args[1], params):
                    if a.kind == "ident" and a.args[0] == name and pty[0] == "type":
                        found.add(pty[1])
                for a in u.args[1]:
                    if fty is None or fty[0] != "arrow":
                        break
                    if a.kind == "ident" and a.args[0] == name and fty[1][0] == "type":
                        found.add(fty[1][1])
                    fty = fty[2]
            if k == "binop" and (u.args[0] in _ARITH_SYN or u.args[0] in _REL_SYN or u.args[0] == "^"):
                leaves: list[Syn] = []
                self._collect_leaves(u.args[1], leaves)
                if u.args[0] != "^":
                    self._collect_leaves(u.args[2], leaves)
                if any(x.kind == "ident" and x.args[0] == name for x in leaves):
                    ty = None
                    for leaf in leaves:
                        if not (leaf.kind == "ident" and leaf.args[0] == name):
                            ty = _max_type(ty, self.synth_leaf_type(leaf))
                    if ty in NUM_TYPES:
                        found.add(ty)
            stack.extend(sub_syns(u))

    def _elab_rel(self, op: str, a: Syn, b: Syn) -> Term:
        if op in ("=", "≠") and (_is_fun_syn(a) or _is_fun_syn(b)):
            fun_eq = self._elab_fun_eq(op, a, b)
            if fun_eq is not None:
                return fun_eq
        leaves: list[Syn] = []
        self._collect_leaves(a, leaves)
        self._collect_leaves(b, leaves)
        ty = None
        for leaf in leaves:
            ty = _max_type(ty, self.synth_leaf_type(leaf))
        if any(_is_list_syntax(leaf) for leaf in leaves) and not (ty or "").startswith("List "):
            # list literals of numerals only: their elements' type, else ℕ (a numeral's default instance)
            elem = None
            for leaf in leaves:
                elem = _max_type(elem, self._list_elem_type(leaf))
            ty = f"List {elem or 'ℕ'}"
        if ty is None:
            ty = "ℕ"
        if ty == "Prop" and op in ("=", "≠"):
            return (op, "Prop", self.elab_prop(a), self.elab_prop(b))
        if op in ("<", "≤", ">", "≥") and ty not in ORDERED_TYPES:
            raise ElabError(f"failed to synthesize\n  LT {ty}", a.start, b.end)
        if op == "∣" and ty == "ℂ":
            # `Dvd ℂ` exists (a monoid's) but says nothing a statement means: refused, not guessed
            raise ElabError(_unsupported_complex("∣"), a.start, b.end)
        # `binrel%`: both sides are trees whose leaves are elaborated on their own (`leaf=True`)
        return (op, ty, self.elab_arith(a, ty, leaf=True), self.elab_arith(b, ty, leaf=True))

    def _lattice_type(self, args: tuple[Syn, ...], expected: str | None) -> str:
        """The type of ``min a b``/``max a b`` as Lean's application elaborator fixes it: the first argument
        whose type is known on its own (the other is coerced to it), else the expected type, else ℕ (a
        numeral's default). An argument of a larger type than that is Lean's type mismatch: refused."""
        known = [self._tree_type(a, None) for a in args]
        ty = next((t for t in known if t is not None), None) or (expected if expected in NUM_TYPES else "ℕ")
        if ty not in NUM_TYPES or any(t is not None and _max_type(t, ty) != ty for t in known):
            raise ElabError(_unsupported(args[0]), args[0].start, args[-1].end)
        return ty

    def _elab_fun_eq(self, op: str, a: Syn, b: Syn) -> Term | None:
        """``f = g`` where a side is a ``fun``: Lean's ``Eq`` elaborates both sides at one function type,
        so a ``fun`` whose binders have no type takes them from the other side
        (``(fun x : ℝ => x * x^2) = (fun y => y^2 * y)`` is an equation at ``ℝ → ℝ``). The type comes from a
        side whose type is known on its own: a local of a function type, or a ``fun`` whose binders are all
        typed (its body's type then known); ``None`` when neither side gives one."""
        ty = self._fun_type_of(a) or self._fun_type_of(b)
        if ty is None:
            return None
        return (op, "?fn", self.elab_value(a, ty), self.elab_value(b, ty))

    def _fun_type_of(self, syn: Syn) -> Term | None:
        """The function type of ``syn`` when it is known without the context: a local of a function type,
        or a ``fun`` whose binders are all typed and whose body's type is then determined."""
        while syn.kind == "paren":
            syn = syn.args[0]
        if syn.kind == "ident":
            lty = self._local_type(syn.args[0])
            return lty if lty is not None and lty[0] == "arrow" else None
        if not _is_fun_syn(syn) or any(g[1] is None or g[2] is not None for g in syn.args[1]):
            return None
        try:
            t = self._elab_binder(syn, prop=False)
        except ElabError:
            return None
        return _value_type(t, {})

    # ------------------------------------------------------------------------------------- arithmetic

    def _collect_leaves(self, syn: Syn, out: list[Syn]) -> None:
        k = syn.kind
        if k == "binop" and syn.args[0] in _ARITH_SYN:
            self._collect_leaves(syn.args[1], out)
            self._collect_leaves(syn.args[2], out)
        elif k == "binop" and syn.args[0] == "^":
            self._collect_leaves(syn.args[1], out)
        elif k in ("neg", "paren"):
            self._collect_leaves(syn.args[0], out)
        elif k == "postfix" and syn.args[0] == "⁻¹":
            self._collect_leaves(syn.args[1], out)
        else:
            out.append(syn)

    def _tree_type(self, syn: Syn, start: str | None) -> str | None:
        """The largest leaf type of the arithmetic tree ``syn`` (``start`` included), or ``None``."""
        leaves: list[Syn] = []
        self._collect_leaves(syn, leaves)
        best = start
        for leaf in leaves:
            best = _max_type(best, self.synth_leaf_type(leaf))
        return best

    def synth_leaf_type(self, syn: Syn) -> str | None:
        """The type a leaf has on its own (``None`` for numerals and other polymorphic leaves)."""
        k = syn.kind
        if k == "bigop":
            return self._bigop_body_type(syn)
        if k == "listlit":
            elem = None
            for e in syn.args:
                elem = _max_type(elem, self._tree_type(e, None))
            return f"List {elem}" if elem in NUM_TYPES else None
        if k == "binop" and syn.args[0] == "::":
            tty = self.synth_leaf_type(syn.args[2])
            if tty is not None and tty.startswith("List "):
                return tty
            elem = self._tree_type(syn.args[1], None)
            return f"List {elem}" if elem in NUM_TYPES else None
        if k == "ident":
            name = syn.args[0]
            ty = self._local_type(name)
            if ty is not None:
                if ty[0] == "type" and ty[1].startswith("?"):
                    return None
                return ty[1] if ty[0] == "type" else "?fn" if ty[0] == "arrow" else "Prop"
            d = self.env.lookup(name)
            if d is not None and d.kind == "def" and not d.binders:
                return d.type[1] if d.type[0] == "type" else None
            if name in ("True", "False"):
                return "Prop"
            if name in ("true", "false"):
                return "Bool"
            if name in OPAQUE_CONSTS and self.env.mathlib:
                return OPAQUE_CONSTS[name]
            proj = self._projection(name)
            if proj is not None:
                return proj[1]
            return None
        if k == "ascr":
            ty = self.elab_type(syn.args[1])
            return ty[1] if ty[0] == "type" else None
        if k in ("paren", "abs"):
            return self._tree_type(syn.args[0], None)
        if k == "app":
            head = syn.args[0]
            if head.kind == "ident":
                name = head.args[0]
                if name in self.lctx:
                    ty = self.lctx[name]
                    for _ in syn.args[1]:
                        if ty[0] != "arrow":
                            return None
                        ty = ty[2]
                    return ty[1] if ty[0] == "type" else None
                if name in BUILTIN_FNS:
                    return BUILTIN_FNS[name][1]
                if name == "Finset.card" and len(syn.args[1]) == 1:
                    return "ℕ"
                if name == "abs":
                    return self.synth_leaf_type(syn.args[1][0]) if len(syn.args[1]) == 1 else None
                if name in ("min", "max") and len(syn.args[1]) == 2:
                    return self._lattice_type(syn.args[1], None)
                d = self.env.lookup(name)
                if d is not None and d.kind == "def" and d.type[0] == "type":
                    return d.type[1]
            return None
        if k == "postfix" and syn.args[0] == "!":
            return "ℕ"
        if k in ("binop", "not", "binder"):
            if k == "binop" and syn.args[0] not in _REL_SYN | _LOGIC_SYN:
                return None
            return "Prop"
        return None

    def elab_arith(self, syn: Syn, ty: str, leaf: bool = False) -> Term:
        """Elaborate an arithmetic expression at type ``ty``, coercing leaves of smaller types.

        This is Lean's ``binop%``/``binrel%`` elaborator (``Lean/Elab/Extra.lean``, ``Op.toTree``,
        ``analyze``, ``applyCoe``): ``+ - * / %``, ``-x`` (``unop%``), the base of ``^`` (``rightact%``) and
        parentheses are nodes of one tree; anything else is a *leaf*, elaborated on its own, without the
        tree's type, and coerced to the tree's (maximal) type ``ty`` as a whole. So with ``x : ℤ`` the leaf
        ``|x / 2|`` of a tree at ℝ is ``↑|x / 2|`` (integer division inside), not ``|↑x / 2|``. A leaf
        whose type is unknown on its own (a numeral, ``↑e``, an untyped binder) takes ``ty``, as Lean's
        unifier gives it.

        Args:
            syn: The syntax.
            ty: The type to elaborate at: the expected type (``leaf=False``: a function argument or an
                ascription, which Lean propagates into the term), or the maximal type of the tree ``syn``
                is part of (``leaf=True``).
            leaf: ``syn`` sits in a ``binop%``/``binrel%`` tree whose type is ``ty``.
        """
        k = syn.kind
        if k == "paren":
            return self.elab_arith(syn.args[0], ty, leaf)
        if k == "num":
            v = syn.args[0]
            if isinstance(v, Fraction):
                if ty not in ("ℚ", "ℝ"):
                    raise ElabError(
                        f"failed to synthesize\n  OfScientific {_ascii(ty, self.env)}", syn.start, syn.end
                    )
                return ("num", ty, v)
            if ty not in NUM_TYPES:
                raise ElabError(
                    f"failed to synthesize\n  OfNat {_ascii(ty, self.env)} {v}\nnumerals are polymorphic in Lean, but the numeral `{v}` cannot be used in a context where the expected type is\n  {_ascii(ty, self.env)}\ndue to the absence of the instance above",
                    syn.start,
                    syn.end,
                )
            return ("num", ty, v)
        if k == "binop":
            op = syn.args[0]
            if op in _ARITH_SYN:
                if op == "%" and ty in ("ℚ", "ℝ", "ℂ"):
                    raise ElabError(f"failed to synthesize\n  HMod {ty} {ty} ?m", syn.start, syn.end)
                if ty not in NUM_TYPES:
                    raise ElabError(
                        f"failed to synthesize\n  H{_OPNAME[op]} {ty} {ty} ?m", syn.start, syn.end
                    )
                return (
                    op,
                    ty,
                    self.elab_arith(syn.args[1], ty, leaf=True),
                    self.elab_arith(syn.args[2], ty, leaf=True),
                )
            if op == "^":
                base = self.elab_arith(syn.args[1], ty, leaf=True)
                exp, ety = self.elab_term(syn.args[2], None)
                if ety == "ℝ" and ty == "ℝ":
                    # a real exponent: Mathlib's `Real.rpow`, opaque here (no rule evaluates it; only the
                    # library's lemmas speak about it)
                    return ("app", ("const", "Real.rpow"), (base, exp))
                if ety != "ℕ":
                    raise ElabError(
                        "the simulator supports only natural-number exponents (`x ^ n` with `n : ℕ`)",
                        syn.args[2].start,
                        syn.args[2].end,
                    )
                return ("^", ty, base, exp)
        if k == "neg":
            if ty == "ℕ":
                raise ElabError("failed to synthesize\n  Neg ℕ", syn.start, syn.end)
            return ("neg", ty, self.elab_arith(syn.args[0], ty, leaf=True))
        if k == "postfix" and syn.args[0] == "⁻¹":
            if ty not in ("ℚ", "ℝ", "ℂ"):
                raise ElabError(f"failed to synthesize\n  Inv {_ascii(ty, self.env)}", syn.start, syn.end)
            return ("inv", ty, self.elab_arith(syn.args[1], ty, leaf=True))
        own = self.synth_leaf_type(syn) if leaf else None
        if own in NUM_RANK and own != ty:
            # a leaf of a tree: elaborated at its own type, then coerced as a whole (below)
            t, lty = self.elab_term(syn, own)
        else:
            t, lty = self.elab_term(syn, ty)
        if lty == ty or lty is None:
            return t
        if lty in NUM_RANK and ty in NUM_RANK and NUM_RANK[lty] < NUM_RANK[ty]:
            return ("cast", ty, lty, t)
        raise ElabError(
            f"type mismatch\n  {syn_text(syn)}\nhas type\n  {lty}\nbut is expected to have type\n  {ty}",
            syn.start,
            syn.end,
        )

    def elab_term(self, syn: Syn, expected: str | None) -> tuple[Term, str | Term | None]:
        """Elaborate a data term; returns the term and its type name (``None`` if unknown; the term
        :data:`PROP` for a local predicate applied, ``p 1``)."""
        k = syn.kind
        if k == "bigop":
            return self._elab_bigop(syn, expected)
        if k == "listlit":
            return self._elab_list(syn, expected)
        if k == "num":
            nty = expected or "ℕ"
            return self.elab_arith(syn, nty), nty
        if k == "ident":
            name = syn.args[0]
            lty = self._local_type(name)
            if lty is not None:
                if lty[0] == "type" and lty[1].startswith("?"):
                    assigned = expected if expected in NUM_TYPES or expected in ("Prop", "Bool") else "ℕ"
                    self.flex[lty[1]] = assigned or "ℕ"
                    return self._ref(name), assigned
                return self._ref(name), (lty[1] if lty[0] == "type" else "?fn")
            d = self.env.lookup(name)
            if d is not None:
                if d.kind == "def":
                    return ("const", name), (d.type[1] if d.type[0] == "type" else "?fn")
                if d.kind == "fn":
                    return ("const", name), "?fn"
            if name in ("true", "false"):
                return ("bool", name == "true"), "Bool"
            if name in OPAQUE_CONSTS and self.env.mathlib and d is None:
                return ("const", name), OPAQUE_CONSTS[name]
            proj = self._projection(name) if d is None else None
            if proj is not None:
                return proj
            if name in MATHLIB_TYPE_NAMES and not self.env.mathlib:
                raise mathlib_name_error(name, syn.start, syn.end)
            if name in ("True", "False") or name in BUILTIN_TYPES:
                return (
                    (self.elab_prop(syn), "Prop")
                    if name in ("True", "False")
                    else (type_term(BUILTIN_TYPES[name]), "Type")
                )
            if name in BUILTIN_FNS or name == "abs":
                return ("const", name), "?fn"
            if d is not None:
                raise ElabError(f"`{name}` is a proof, not a value", syn.start, syn.end)
            raise ElabError(f"Unknown identifier `{name}`", syn.start, syn.end)
        if k == "binop":
            op = syn.args[0]
            if op in _ARITH_SYN or op == "^":
                aty = self._tree_type(syn, expected if expected in NUM_TYPES else None) or "ℕ"
                return self.elab_arith(syn, aty), aty
            if op == "::":
                return self._elab_cons(syn, expected)
            return self.elab_prop(syn), "Prop"
        if k == "postfix" and syn.args[0] == "⁻¹":
            ity = self._tree_type(syn, expected if expected in NUM_TYPES else None) or "ℝ"
            return self.elab_arith(syn, ity), ity
        if k in ("neg",):
            found = self._tree_type(syn, expected if expected in NUM_TYPES else None)
            nty = found or expected or "ℤ"
            return self.elab_arith(syn, nty), nty
        if k == "paren":
            return self.elab_term(syn.args[0], expected)
        if k == "ascr":
            asc = self.elab_type(syn.args[1])
            if asc[0] != "type":
                raise ElabError(_unsupported(syn), syn.start, syn.end)
            tname = str(asc[1])
            if tname in NUM_TYPES:
                return self.elab_arith(syn.args[0], tname), tname
            t, _ = self.elab_term(syn.args[0], tname)
            return t, tname
        if k == "cast":
            target = expected if expected in NUM_TYPES else None
            lit = syn.args[0]
            while lit.kind == "paren":
                lit = lit.args[0]
            if lit.kind == "num" and target is not None:
                # `↑2` at a known type: the literal takes that type and the coercion is gone (Lean shows `2`)
                return self.elab_term(lit, target)
            inner, src_ty = self.elab_term(syn.args[0], None)
            if target is None or src_ty is None:
                raise ElabError("cannot infer the target type of `↑`", syn.start, syn.end)
            if src_ty == target:
                return inner, target
            if src_ty not in NUM_RANK or NUM_RANK[src_ty] > NUM_RANK[target]:
                raise ElabError(
                    f"type mismatch\n  {syn_text(syn.args[0])}\nhas type\n  {src_ty}\nbut is expected to have type\n  {target}",
                    syn.start,
                    syn.end,
                )
            return ("cast", target, src_ty, inner), target
        if k == "abs":
            aty = self._tree_type(syn.args[0], expected if expected in NUM_TYPES else None) or "ℕ"
            if aty == "ℕ":
                raise ElabError("failed to synthesize\n  Lattice ℕ", syn.start, syn.end)
            if aty == "ℂ":
                raise ElabError("failed to synthesize\n  Lattice ℂ", syn.start, syn.end)
            return ("abs", aty, self.elab_arith(syn.args[0], aty)), aty
        if k == "app":
            head, args = syn.args
            if head.kind == "ident":
                name = head.args[0]
                if name in self.lctx:
                    return self._elab_local_app(head, args, self.lctx[name])
                if name == "abs" and len(args) == 1:
                    return self.elab_term(Syn("abs", (args[0],), syn.start, syn.end), expected)
                if name in ("min", "max") and len(args) == 2 and name not in self.env.decls:
                    # `Min.min a b`/`Max.max a b` of one linear order: written `min a b`, opaque but to
                    # the tactics that know it (omega's `Int.min_def`, positivity's `evalMin`/`evalMax`)
                    mty = self._lattice_type(args, expected)
                    return ("app", ("const", name), tuple(self.elab_arith(a, mty) for a in args)), mty
                if name == "Finset.card" and len(args) == 1 and self.env.mathlib:
                    set_term, _ = self._elab_finset(args[0])
                    return ("app", ("const", "Finset.card"), (set_term,)), "ℕ"
                if name in BUILTIN_FNS:
                    atys, rty = BUILTIN_FNS[name]
                    if len(args) != len(atys):
                        raise ElabError(
                            f"function `{name}` expects {len(atys)} argument(s)", syn.start, syn.end
                        )
                    targs = tuple(self.elab_arith(a, t) for a, t in zip(args, atys))
                    return ("app", ("const", name), targs), rty
                d = self.env.lookup(name)
                if d is not None and d.kind == "def" and d.binders:
                    if len(args) != len(d.binders):
                        raise ElabError(
                            f"function `{name}` expects {len(d.binders)} argument(s)", syn.start, syn.end
                        )
                    targs = tuple(
                        self.elab_arith(a, bty[1])
                        if bty[0] == "type" and bty[1] in NUM_TYPES
                        else self.elab_term(a, None)[0]
                        for a, (_, bty, _) in zip(args, d.binders)
                    )
                    return ("app", ("const", name), targs), d.type[1] if d.type[0] == "type" else None
                if d is None:
                    raise ElabError(f"Unknown identifier `{name}`", head.start, head.end)
            raise ElabError(_unsupported(syn), syn.start, syn.end)
        if k == "postfix" and syn.args[0] == "!":
            inner = self.elab_arith(syn.args[1], "ℕ")
            return ("app", ("const", "Nat.factorial"), (inner,)), "ℕ"
        if k in ("not", "binder"):
            if k == "binder" and syn.args[0] == "fun":
                raise ElabError(_unsupported(syn), syn.start, syn.end)
            return self.elab_prop(syn), "Prop"
        if k == "sorry" or (k == "ident" and syn.args[0] == "sorry"):
            return ("sorry",), expected
        raise ElabError(_unsupported(syn), syn.start, syn.end)

    def elab_value(self, syn: Syn, ty: Term) -> Term:
        """Elaborate ``syn`` as a value of the type term ``ty``: a number type, ``Prop``, or a function type
        (``fun x => …``, ``(· + 1)``, or a local of that type)."""
        if ty[0] == "type" and ty[1] in NUM_TYPES:
            return self.elab_arith(syn, str(ty[1]))
        if ty == PROP:
            return self.elab_prop(syn)
        if ty[0] == "arrow":
            inner = syn
            while inner.kind == "paren":
                inner = inner.args[0]
            if inner.kind == "binder" and inner.args[0] == "fun":
                return self.elab_fun(inner, ty)
            t, got = self.elab_term(syn, None)
            if got == "?fn" and inner.kind == "ident" and self._local_type(inner.args[0]) == ty:
                return t
            raise ElabError(_unsupported(syn), syn.start, syn.end)
        return self.elab_term(syn, str(ty[1]) if ty[0] == "type" else None)[0]

    def elab_fun(self, syn: Syn, ty: Term) -> Term:
        """``fun x y => body`` against the function type ``ty`` (Lean's ``elabFunBinders`` with the expected
        type): each binder takes the next domain of ``ty`` (a binder's own type must be that domain) and the
        body is elaborated at what is left. The binders are bound variables of the ``fun`` terms."""
        _, groups, body = syn.args
        binders: list[tuple[Token, Term]] = []
        for names_toks, ty_syn, pred_op, _ in groups:
            if pred_op is not None:
                raise ElabError(_unsupported(syn), syn.start, syn.end)
            for tok in names_toks:
                if ty[0] != "arrow":
                    raise ElabError(
                        f"function expected, the expected type is\n  {_show(ty)}", tok.start, tok.end
                    )
                dom = ty[1]
                if ty_syn is not None and self.elab_type(ty_syn) != dom:
                    raise ElabError(
                        f"type mismatch: the binder `{tok.text}` does not have type {_show(dom)}",
                        tok.start,
                        tok.end,
                    )
                binders.append((tok, dom))
                ty = ty[2]
        saved: dict[str, Term | None] = {}
        saved_fv: dict[str, str] = {}
        try:
            for tok, dom in binders:
                self._shadow(tok.text, saved, saved_fv)
                self.lctx[tok.text] = dom
            out = self.elab_value(body, ty)
        finally:
            self._unbind_all(saved, saved_fv)
        for tok, dom in reversed(binders):
            out = ("fun", tok.text, dom, out)
        return out

    def _elab_local_app(self, head: Syn, args: tuple[Syn, ...], ty: Term) -> tuple[Term, str | Term | None]:
        name = head.args[0]
        targs: list[Term] = []
        for a in args:
            if ty[0] != "arrow":
                raise ElabError(
                    f"function expected at\n  {name}\nterm has type\n  {_show(ty)}", head.start, a.end
                )
            dom = ty[1]
            if dom[0] == "type" and dom[1] in NUM_TYPES:
                targs.append(self.elab_arith(a, dom[1]))
            else:
                targs.append(self.elab_term(a, dom[1] if dom[0] == "type" else None)[0])
            ty = ty[2]
        rty = ty[1] if ty[0] == "type" else "?fn"
        if ty == PROP:
            return ("app", self._ref(name), tuple(targs)), PROP
        return ("app", self._ref(name), tuple(targs)), rty


def parse_signature(
    ts: TokenStream, env: Env, src: Source, allow_no_type: bool = False
) -> tuple[list[tuple[str, Term]], Term | None]:
    """Parse ``binders : type`` (stopping before ``:=``); return the hypotheses and the target.

    Raises:
        ParseError: for syntax outside the subset.
        ElabError: for unknown names and ill-typed binders.
    """
    hyps, target, _ = parse_signature_ex(ts, env, src, allow_no_type)
    return [(n, t) for n, t, _ in hyps], target


# ------------------------------------------------------------------------------------------ memo keys

_ENV_KEYS: dict[int, tuple[Env, int]] = {}
_ENV_IDS: dict[object, int] = {}
_ENV_SERIAL = itertools.count()


def env_key(env: Env) -> int:
    """What elaboration and tactics can read of ``env`` (declarations, opens, imports, namespace, options
    but ``maxHeartbeats``, which only sets the budget), interned as an int: environments with the same
    contents get the same number, and a number is never given to two different contents (memo keys,
    :mod:`lean_gym.sim.memo`). Computed once per snapshot object."""
    hit = _ENV_KEYS.get(id(env))
    if hit is not None and hit[0] is env:
        return hit[1]
    try:
        key: object = (
            tuple(sorted(env.decls.items())) if env.decls else (),
            tuple(sorted((k, v) for k, v in env.options.items() if k != "maxHeartbeats")),
            tuple(env.opens),
            tuple(env.imports),
            env.namespace,
        )
        hash(key)
    except TypeError:
        key = ("unhashable", next(_ENV_SERIAL))
    n = _ENV_IDS.get(key)
    if n is None:
        if len(_ENV_IDS) > 4096:
            _ENV_IDS.clear()  # numbers are never reused: a cleared one only misses
        n = _ENV_IDS[key] = next(_ENV_SERIAL)
    if len(_ENV_KEYS) > 4096:
        _ENV_KEYS.clear()
    _ENV_KEYS[id(env)] = (env, n)  # the snapshot is kept alive with its id, so the id is never reused
    return n


# Elaborated statements: the binders and type of a theorem are elaborated once per process for the same
# tokens in the same environment. The parse reads the tokens from where it starts up to the one it stops at
# (the `:=`), and nothing else, so the key is what determines those tokens (the text they span, the first
# one's column and whether it starts its line) with the layout column and the environment. Every local of the answer is one the parse made, in
# binder order: a replay makes fresh ones in the same order, so no two checks share a local.
_STATEMENTS = Memo("elab.statements", max_entries=8192, max_bytes=32 << 20)


def parse_signature_ex(
    ts: TokenStream, env: Env, src: Source, allow_no_type: bool = False
) -> tuple[list[tuple[str, Term, bool]], Term | None, bool]:
    """:func:`parse_signature` that also says which binders are explicit and whether the type is a type
    (a data declaration) rather than a proposition (memoised, see above)."""
    if not memo_enabled():
        return _parse_signature(ts, env, src, allow_no_type)
    toks = ts.toks
    i0 = ts.i
    j = i0
    n = len(toks)
    while j < n - 1 and not (toks[j].kind == "sym" and toks[j].text == ":="):
        j += 1
    # the tokens from i0 to j are a function of the text they span, of the column of the first and of
    # whether it starts its line (every later token's column and line start are read off the text)
    first = toks[i0]
    key = (
        env_key(env),
        allow_no_type,
        ts.stop_col,
        first.col,
        first.first,
        src.text[first.start : toks[j].end],
    )
    hit = _STATEMENTS.get(key)
    if hit is not MISS:
        holes, flags, target, is_type = hit
        ids = {h: new_fvar(user_name(h)) for h in holes}
        ts.i = j
        hyps = []
        for h, (ty, e, cty, occ) in zip(holes, flags):
            t = rename_fvars(ty, ids)
            # the goal made of these binders is canonically these terms (its k-th local is binder k)
            remember_renaming(t, cty, tuple((ids.get(x, x), c) for x, c in occ))
            hyps.append((ids[h], t, e))
        tgt = None
        if target is not None:
            tgt = rename_fvars(target[0], ids)
            remember_renaming(tgt, target[1], tuple((ids.get(x, x), c) for x, c in target[2]))
        return hyps, tgt, is_type
    mark = fvar_mark()
    hyps, target, is_type = _parse_signature(ts, env, src, allow_no_type)
    if ts.i == j:
        made = [fid for fid, _, _ in hyps]
        mentioned: set[str] = set()
        for _, ty, _ in hyps:
            free_vars(ty, mentioned)
        if target is not None:
            free_vars(target, mentioned)
        mine = set(made)
        if (
            all(fvar_serial(f) > mark for f in made)
            and all(m in mine or FVAR_SEP not in m for m in mentioned)
            and sorted(made, key=fvar_serial) == made
        ):
            holes = tuple(f"{user_name(f)}{FVAR_SEP}n{k}" for k, f in enumerate(made))
            ren = dict(zip(made, holes))
            canon = {h: canonical_id(h, k) for k, h in enumerate(holes)}

            def forms(t: Term) -> tuple[Term, Term, tuple[tuple[str, str | None], ...]]:
                stored = rename_fvars(t, ren)
                return (
                    stored,
                    rename_fvars(stored, canon),
                    tuple((x, canon.get(x)) for x in free_vars(stored)),
                )

            flags = []
            for _, ty, e in hyps:
                stored, cty, occ = forms(ty)
                flags.append((stored, e, cty, occ))
            tgt = None if target is None else forms(target)
            _STATEMENTS.put(key, (holes, tuple(flags), tgt, is_type), 200 + 100 * (j - i0))
    return hyps, target, is_type


_BinderGroup = tuple[Token, list[Token], Syn | None]


def _signature_syntax(ts: TokenStream, allow_no_type: bool) -> tuple[list[_BinderGroup], Syn | None]:
    """The binder groups ``(x y : T)``, ``{x}``, ``⦃x : T⦄`` and the syntax of the type after ``:``."""
    groups: list[_BinderGroup] = []
    while ts.tok.kind == "sym" and ts.tok.text in ("(", "{", "⦃", "[") and not ts.at_stop():
        open_tok = ts.advance()
        close = {"(": ")", "{": "}", "⦃": "⦄", "[": "]"}[open_tok.text]
        if open_tok.text == "[":
            raise ParseError(
                "instance binders `[…]` are outside the simulator's subset", open_tok.start, open_tok.end
            )
        names: list[Token] = []
        while ts.tok.kind == "ident" or (ts.tok.kind == "sym" and ts.tok.text == "_"):
            names.append(ts.advance())
        if not names:
            raise ts.unexpected("identifier")
        ty_syn: Syn | None = None
        if ts.is_sym(":"):
            ts.advance()
            saved = ts.stop_col
            ts.stop_col = -1
            ty_syn = parse_term(ts, 0)
            ts.stop_col = saved
        elif not ts.is_sym(close):
            raise ts.unexpected("':'")
        ts.expect_sym(close)
        groups.append((open_tok, names, ty_syn))
    target: Syn | None = None
    if ts.is_sym(":"):
        ts.advance()
        target = parse_term(ts, 0)
    elif not allow_no_type:
        raise ts.unexpected("':'")
    return groups, target


def _parse_signature(
    ts: TokenStream, env: Env, src: Source, allow_no_type: bool = False
) -> tuple[list[tuple[str, Term, bool]], Term | None, bool]:
    groups, target_syn = _signature_syntax(ts, allow_no_type)
    auto: list[Token] = []
    while True:
        try:
            return _elab_signature(groups, target_syn, env, auto)
        except ElabError as e:
            tok = _auto_bound_candidate(e, env, groups, target_syn, auto)
            if tok is None:
                raise
            auto.append(tok)


def _auto_bound_candidate(
    e: ElabError, env: Env, groups: list[_BinderGroup], target: Syn | None, auto: list[Token]
) -> Token | None:
    """The name an ``Unknown identifier`` error of a signature is about, when Lean would bind it as an
    auto-bound implicit instead (``autoImplicit``, on by default): a name Lean's strict rule accepts
    (``isValidAutoBoundImplicitName``: one character, then digits, subscripts, ``_`` or ``'``). Lean's
    default ``relaxedAutoImplicit`` binds any unbound atomic name, but a longer one may be a constant Lean
    knows and the simulator does not (``min``, ``id``), so the simulator binds only these; under an ``open``
    a short name may be a constant of the namespace (``I`` under ``open Complex``), so none then."""
    if env.options.get("autoImplicit", True) in (False, "false") or env.opens:
        return None
    msg = e.message
    if not msg.startswith("Unknown identifier `"):
        return None
    name = msg[len("Unknown identifier `") :].split("`", 1)[0]
    if not name or not _AUTO_BOUND_SUFFIX.fullmatch(name[1:]) or not name[0].isalpha():
        return None
    if name in _AUTO_BOUND_NEVER or any(t.text == name for t in auto):
        return None
    if any(tok.text == name for _, names, _ in groups for tok in names):
        return None  # a binder of that name comes later: not modelled
    return Token("ident", name, e.start, e.end, 0, 0, False)


#: What may follow the first character of an auto-bound implicit's name (Lean's ``isValidAutoBoundSuffix``).
_AUTO_BOUND_SUFFIX = re.compile(r"[0-9_'\u2080-\u2089\u2090-\u209c\u1d62-\u1d6a\u2c7c]*")
#: Single letters that are notations or keywords rather than names.
_AUTO_BOUND_NEVER = frozenset({"λ", "Π", "Σ", "ℕ", "ℤ", "ℚ", "ℝ", "ℂ"})


def _elab_signature(
    groups: list[_BinderGroup], target_syn: Syn | None, env: Env, auto: list[Token]
) -> tuple[list[tuple[str, Term, bool]], Term | None, bool]:
    """Elaborate a signature's binders and type; ``auto`` are its auto-bound implicits (they come first,
    as Lean adds them in front of the binders)."""
    untyped = [tok for _, names, ty in groups if ty is None for tok in names]
    fixed = _infer_signature_types(groups, target_syn, env, auto) if auto or untyped else {}
    lctx: dict[str, Term] = {}
    fvars: dict[str, str] = {}
    el = Elaborator(env, lctx, fvars)
    hyps: list[tuple[str, Term, bool]] = []
    for tok in auto:
        fid = new_fvar(tok.text)
        auto_ty = type_term(fixed[tok.text])
        hyps.append((fid, auto_ty, False))
        lctx[tok.text] = auto_ty
        fvars[tok.text] = fid
    for open_tok, names, ty_syn in groups:
        ty = el.elab_type(ty_syn) if ty_syn is not None else None
        for tok in names:
            # each binder is a new local; a repeated name shadows the older one (shown `h₀✝`)
            bty = ty if ty is not None else type_term(fixed[tok.text])
            fid = new_fvar(tok.text)
            hyps.append((fid, bty, open_tok.text == "("))
            lctx[tok.text] = bty
            fvars[tok.text] = fid
    target: Term | None = None
    is_type_target = False
    if target_syn is not None:
        if el.is_type_syntax(target_syn):
            target = el.elab_type(target_syn)
            is_type_target = True
        else:
            target = el.elab_prop(target_syn)
    return hyps, target, is_type_target


def _infer_signature_types(
    groups: list[_BinderGroup], target_syn: Syn | None, env: Env, auto: list[Token]
) -> dict[str, str]:
    """The types of the signature's auto-bound implicits and untyped binders (``{m}``), as Lean's unifier
    and default instances fix them over the whole header: the one type their typed uses agree on, else ℕ
    (the default instance of a numeral) where a use sits in an arithmetic or relation tree with an integer
    numeral. Anything else (no use that types it, a use as a proposition or a function, a decimal or a
    negation that the default ℕ would not take) is refused: the simulator cannot be sure of Lean's reading.

    Raises:
        ElabError: the refusal (or an elaboration error of the signature).
    """
    toks = [*auto, *(t for _, names, ty in groups if ty is None for t in names)]
    where = {t.text: t for t in toks}
    flex = [t.text for t in toks]
    parts: list[Syn] = [ty for _, _, ty in groups if ty is not None]
    if target_syn is not None:
        parts.append(target_syn)
    # the binders' own types, for the typed uses of the names (a binder of a name still untyped stays so)
    probe = Elaborator(env, {name: type_term(f"?{name}") for name in flex}, {})
    for _, names, ty_syn in groups:
        if ty_syn is not None:
            try:
                bty: Term | None = probe.elab_type(ty_syn)
            except (ElabError, ParseError):
                bty = None
            for tok in names:
                if bty is not None and tok.text not in flex:
                    probe.lctx[tok.text] = bty
    probe.flex.clear()  # what elaborating the types guessed for the names is no evidence
    out: dict[str, str] = {}
    todo = list(flex)
    while todo:
        left: list[str] = []
        for name in todo:
            found: set[str] = set()
            numeral = False
            for part in parts:
                probe._prescan(part, name, found)
                numeral = numeral or _numeral_beside(part, name, probe)
                if _prop_operand(part, name):
                    found.add("Prop")  # an operand of `∧ ∨ ¬ ↔` (`And : Prop → Prop → Prop`, …)
            if found == {"Prop"}:
                out[name] = "Prop"
            elif len(found) == 1 and next(iter(found)) in NUM_TYPES:
                out[name] = next(iter(found))
            elif not found and numeral:
                out[name] = "ℕ"
            elif found:
                raise ElabError(
                    f"the simulator cannot be sure how Lean elaborates the type of `{name}` (its uses "
                    f"suggest {' and '.join(sorted(found))}); outside the simulator's Lean subset",
                    where[name].start,
                    where[name].end,
                )
            else:
                left.append(name)
                continue
            probe.lctx[name] = type_term(out[name])  # a use beside it types the others (one unifier)
        if len(left) == len(todo):
            raise ElabError(
                f"the simulator cannot be sure how Lean elaborates the type of `{left[0]}` (its uses suggest "
                "nothing: Lean makes it a universe-polymorphic implicit); outside the simulator's Lean subset",
                where[left[0]].start,
                where[left[0]].end,
            )
        todo = left
    return out


def _prop_operand(syn: Syn, name: str) -> bool:
    """Whether ``name`` is an operand of ``∧``, ``∨``, ``↔`` or ``¬`` in ``syn`` (where Lean's unifier makes it
    a proposition; a binder type or a side of ``→`` only makes it some ``Sort u``)."""
    stack = [syn]
    while stack:
        u = stack.pop()
        operands: tuple[Syn, ...] = ()
        if u.kind == "binop" and u.args[0] in ("∧", "∨", "↔"):
            operands = (u.args[1], u.args[2])
        elif u.kind == "not":
            operands = (u.args[0],)
        for op in operands:
            while op.kind == "paren":
                op = op.args[0]
            if op.kind == "ident" and op.args[0] == name:
                return True
        if u.kind == "binder" and any(tok.text == name for grp in u.args[1] for tok in grp[0]):
            continue  # shadowed inside
        stack.extend(sub_syns(u))
    return False


def _numeral_beside(syn: Syn, name: str, el: Elaborator) -> bool:
    """Whether ``name`` is a leaf of an arithmetic or relation tree of ``syn`` that has an integer numeral
    leaf and no leaf that keeps Lean's default instance ℕ from applying (a decimal, a negation)."""
    stack = [syn]
    while stack:
        u = stack.pop()
        if u.kind == "binop" and (u.args[0] in _ARITH_SYN or u.args[0] in _REL_SYN or u.args[0] == "^"):
            leaves: list[Syn] = []
            el._collect_leaves(u.args[1], leaves)
            if u.args[0] != "^":
                el._collect_leaves(u.args[2], leaves)
            if any(x.kind == "ident" and x.args[0] == name for x in leaves):
                if syn_any(u, lambda x: x.kind == "neg") or any(
                    x.kind == "num" and not isinstance(x.args[0], int) for x in leaves
                ):
                    return False
                if any(x.kind == "num" for x in leaves):
                    return True
        if u.kind == "binder" and any(tok.text == name for grp in u.args[1] for tok in grp[0]):
            continue  # shadowed inside
        stack.extend(sub_syns(u))
    return False


_OPNAME = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div", "%": "Mod"}


def _unsupported_complex(what: str) -> str:
    return f"the simulator does not support `{what}` on ℂ (outside its Lean subset)"


def _ascii(ty: str, env: Env) -> str:
    if env.mathlib:
        return ty
    return {"ℕ": "Nat", "ℤ": "Int", "ℚ": "Rat", "ℝ": "Real"}.get(ty, ty)


def _show(ty: Term) -> str:
    from lean_gym.sim.terms import pretty

    return pretty(ty)


def syn_text(syn: Syn) -> str:
    """A rough rendering of a syntax tree (for error messages)."""
    k = syn.kind
    if k in ("ident", "num"):
        return str(syn.args[0])
    if k == "binop":
        return f"{syn_text(syn.args[1])} {syn.args[0]} {syn_text(syn.args[2])}"
    if k == "paren":
        return f"({syn_text(syn.args[0])})"
    if k == "app":
        return " ".join(
            [syn_text(syn.args[0])]
            + [
                f"({syn_text(a)})" if a.kind in ("binder", "app", "binop") else syn_text(a)
                for a in syn.args[1]
            ]
        )
    if k == "binder" and syn.args[0] == "fun":
        names = " ".join(tok.text.replace("✝", "") for grp in syn.args[1] for tok in grp[0])
        return f"fun {names} => {syn_text(syn.args[2])}"
    if k == "proj":
        return f"{syn_text(syn.args[0])}.{syn.args[1]}"
    return k


def _unsupported(syn: Syn) -> str:
    k = syn.kind
    if k == "binop":
        return f"the simulator does not support `{syn.args[0]}` here (outside its Lean subset)"
    if k == "postfix":
        return f"the simulator does not support `{syn.args[0]}` here (outside its Lean subset)"
    if k == "by":
        return "a `by` block is not allowed here in the simulator's subset"
    return f"the simulator does not support this {k} term here (outside its Lean subset)"
