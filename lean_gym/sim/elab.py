"""Elaboration: parsed :class:`~lean_gym.sim.syntax.Syn` trees to typed terms, and the environment.

Arithmetic is elaborated the way Lean's ``binop%`` elaborator does it: the leaves of a tree of ``+ - * / %``
(and both sides of a relation) are typed first, the tree takes the largest of their types in the order
``ℕ < ℤ < ℚ < ℝ`` (or the expected type, or ``ℕ`` when nothing says otherwise), numerals take that type,
and leaves of a smaller type get a coercion ``↑``. This is what makes ``x < n`` with ``n : ℕ`` and
``x : ℝ`` read ``x < ↑n``, as in Lean.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from lean_gym.sim.syntax import Syn
from lean_gym.sim.terms import (
    FALSE,
    NUM_RANK,
    NUM_TYPES,
    PROP,
    TRUE,
    Term,
    type_term,
)

__all__ = ["BUILTIN_TYPES", "Decl", "ElabError", "Elaborator", "Env", "LocalContext"]


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
    "Prop": "Prop",
    "Unit": "Unit",
    "Bool": "Bool",
}


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
    """

    name: str
    kind: str
    binders: tuple[tuple[str, Term, bool], ...]
    type: Term
    value: Term | None = None
    axioms: frozenset[str] = frozenset()
    tyvars: tuple[tuple[str, frozenset[str]], ...] = ()


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


def _library() -> dict[str, Decl]:
    global _LIB
    if _LIB is None:
        from lean_gym.sim.library import _loading, lookup_decls

        lib = lookup_decls()
        if _loading or not lib:
            return lib
        _LIB = lib
    return _LIB


LocalContext = dict[str, Term]
"""Name → type of each local in scope (data variables map to types, hypotheses to propositions)."""


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
}


class Elaborator:
    """Turns :class:`Syn` into typed :data:`Term`s in a local context and an environment.

    Args:
        env: The environment (declarations and options).
        lctx: Locals in scope, name → type; extended in place for binders and restored afterwards.
    """

    __slots__ = ("env", "flex", "lctx")

    def __init__(self, env: Env, lctx: LocalContext) -> None:
        self.env = env
        self.lctx = lctx
        self.flex: dict[str, str] = {}

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
                return type_term(BUILTIN_TYPES[name])
            if name in ("Type", "Sort"):
                raise ElabError("type universes are outside the simulator's subset", syn.start, syn.end)
        if k == "paren":
            return self.elab_type(syn.args[0])
        if k == "binop" and syn.args[0] == "→":
            a = self._type_or_prop(syn.args[1])
            b = self._type_or_prop(syn.args[2])
            if a[0] in ("type", "arrow") and b[0] in ("type", "arrow"):
                return ("arrow", a, b)
            return ("→", a, b)
        return self.elab_prop(syn)

    def _type_or_prop(self, syn: Syn) -> Term:
        return self.elab_type(syn)

    def is_type_syntax(self, syn: Syn) -> bool:
        k = syn.kind
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
                    return ("var", name)
                if ty == PROP:
                    return ("var", name)
                raise ElabError(
                    f"type mismatch\n  {name}\nhas type\n  {_show(ty)} : Type\nbut is expected to have type\n  Prop : Type",
                    syn.start,
                    syn.end,
                )
            d = self.env.lookup(name)
            if d is not None and d.kind == "def" and d.type == PROP:
                return ("var", name)
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

    def _elab_binder(self, syn: Syn, prop: bool) -> Term:
        q, groups, body = syn.args
        binders: list[tuple[str, Term]] = []
        preds: list[tuple[int, str, Syn]] = []
        saved: dict[str, Term | None] = {}
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
                            for part in rest:
                                guess = self._prescan(part, name)
                                if guess is not None:
                                    self.flex[bty_t[1]] = guess
                                    break
                ty = self.elab_type(ty_syn) if ty_syn is not None else None
                if ty is None and pred_op is not None:
                    bty = self.synth_leaf_type(bound)
                    ty = type_term(bty) if bty in NUM_TYPES else None
                for tok in names:
                    name = tok.text
                    if name not in saved:
                        saved[name] = self.lctx.get(name)
                    bty_t = ty if ty is not None else type_term(f"?{name}{len(self.flex)}_{len(binders)}")
                    self.lctx[name] = bty_t
                    binders.append((name, bty_t))
                    if pred_op is not None:
                        preds.append((len(binders) - 1, pred_op, bound))
            for name, bty_t in binders:
                if bty_t[0] == "type" and bty_t[1].startswith("?") and bty_t[1] not in self.flex:
                    guess = self._prescan(body, name)
                    if guess is not None:
                        self.flex[bty_t[1]] = guess
            pred_terms: dict[int, Term] = {}
            for idx, op, bound in preds:
                name = binders[idx][0]
                pred_terms[idx] = self._elab_rel(op, Syn("ident", (name,), bound.start, bound.start), bound)
            b = self.elab_prop(body) if q != "fun" else self.elab_term(body, None)[0]
        finally:
            for name, old in saved.items():
                if old is None:
                    self.lctx.pop(name, None)
                else:
                    self.lctx[name] = old
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

    def _prescan(self, syn: Syn, name: str) -> str | None:
        """The type a still-untyped binder ``name`` gets from its first typed use in ``syn``."""
        stack = [syn]
        while stack:
            u = stack.pop()
            k = u.kind
            if k == "app" and u.args[0].kind == "ident":
                fty = self._local_type(u.args[0].args[0])
                for a in u.args[1]:
                    if fty is None or fty[0] != "arrow":
                        break
                    if a.kind == "ident" and a.args[0] == name and fty[1][0] == "type":
                        return fty[1][1]
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
                        return ty
            for a in u.args:
                if isinstance(a, Syn):
                    stack.append(a)
                elif isinstance(a, tuple):
                    stack.extend(x for x in a if isinstance(x, Syn))
        return None

    def _elab_rel(self, op: str, a: Syn, b: Syn) -> Term:
        leaves: list[Syn] = []
        self._collect_leaves(a, leaves)
        self._collect_leaves(b, leaves)
        ty = None
        for leaf in leaves:
            ty = _max_type(ty, self.synth_leaf_type(leaf))
        if ty is None:
            ty = "ℕ"
        if ty == "Prop" and op in ("=", "≠"):
            return (op, "Prop", self.elab_prop(a), self.elab_prop(b))
        if op in ("<", "≤", ">", "≥") and ty not in NUM_TYPES:
            raise ElabError(f"failed to synthesize\n  LT {ty}", a.start, b.end)
        return (op, ty, self.elab_arith(a, ty), self.elab_arith(b, ty))

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
                if name == "abs":
                    return self.synth_leaf_type(syn.args[1][0]) if len(syn.args[1]) == 1 else None
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

    def elab_arith(self, syn: Syn, ty: str) -> Term:
        """Elaborate an arithmetic expression at type ``ty``, coercing leaves of smaller types."""
        k = syn.kind
        if k == "paren":
            return self.elab_arith(syn.args[0], ty)
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
                if op == "%" and ty in ("ℚ", "ℝ"):
                    raise ElabError(f"failed to synthesize\n  HMod {ty} {ty} ?m", syn.start, syn.end)
                if ty not in NUM_TYPES:
                    raise ElabError(
                        f"failed to synthesize\n  H{_OPNAME[op]} {ty} {ty} ?m", syn.start, syn.end
                    )
                return (op, ty, self.elab_arith(syn.args[1], ty), self.elab_arith(syn.args[2], ty))
            if op == "^":
                base = self.elab_arith(syn.args[1], ty)
                exp, ety = self.elab_term(syn.args[2], None)
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
            return ("neg", ty, self.elab_arith(syn.args[0], ty))
        if k == "postfix" and syn.args[0] == "⁻¹":
            if ty not in ("ℚ", "ℝ"):
                raise ElabError(f"failed to synthesize\n  Inv {_ascii(ty, self.env)}", syn.start, syn.end)
            return ("inv", ty, self.elab_arith(syn.args[1], ty))
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

    def elab_term(self, syn: Syn, expected: str | None) -> tuple[Term, str | None]:
        """Elaborate a data term; returns the term and its type name (``None`` if unknown)."""
        k = syn.kind
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
                    return ("var", name), assigned
                return ("var", name), (lty[1] if lty[0] == "type" else "?fn")
            d = self.env.lookup(name)
            if d is not None:
                if d.kind == "def":
                    return ("var", name), (d.type[1] if d.type[0] == "type" else "?fn")
                if d.kind == "fn":
                    return ("var", name), "?fn"
            if name in ("true", "false"):
                return ("bool", name == "true"), "Bool"
            if name in ("True", "False") or name in BUILTIN_TYPES:
                return (
                    (self.elab_prop(syn), "Prop")
                    if name in ("True", "False")
                    else (type_term(BUILTIN_TYPES[name]), "Type")
                )
            if name in BUILTIN_FNS or name == "abs":
                return ("var", name), "?fn"
            if d is not None:
                raise ElabError(f"`{name}` is a proof, not a value", syn.start, syn.end)
            raise ElabError(f"Unknown identifier `{name}`", syn.start, syn.end)
        if k == "binop":
            op = syn.args[0]
            if op in _ARITH_SYN or op == "^":
                aty = self._tree_type(syn, expected if expected in NUM_TYPES else None) or "ℕ"
                return self.elab_arith(syn, aty), aty
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
            inner, src_ty = self.elab_term(syn.args[0], None)
            target = expected if expected in NUM_TYPES else None
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
            return ("abs", aty, self.elab_arith(syn.args[0], aty)), aty
        if k == "app":
            head, args = syn.args
            if head.kind == "ident":
                name = head.args[0]
                if name in self.lctx:
                    return self._elab_local_app(head, args, self.lctx[name])
                if name == "abs" and len(args) == 1:
                    return self.elab_term(Syn("abs", (args[0],), syn.start, syn.end), expected)
                if name in BUILTIN_FNS:
                    atys, rty = BUILTIN_FNS[name]
                    if len(args) != len(atys):
                        raise ElabError(
                            f"function `{name}` expects {len(atys)} argument(s)", syn.start, syn.end
                        )
                    targs = tuple(self.elab_arith(a, t) for a, t in zip(args, atys))
                    return ("app", ("var", name), targs), rty
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
                    return ("app", ("var", name), targs), d.type[1] if d.type[0] == "type" else None
                if d is None:
                    raise ElabError(f"Unknown identifier `{name}`", head.start, head.end)
            raise ElabError(_unsupported(syn), syn.start, syn.end)
        if k == "postfix" and syn.args[0] == "!":
            inner = self.elab_arith(syn.args[1], "ℕ")
            return ("app", ("var", "Nat.factorial"), (inner,)), "ℕ"
        if k in ("not", "binder"):
            if k == "binder" and syn.args[0] == "fun":
                raise ElabError(_unsupported(syn), syn.start, syn.end)
            return self.elab_prop(syn), "Prop"
        if k == "sorry" or (k == "ident" and syn.args[0] == "sorry"):
            return ("sorry",), expected
        raise ElabError(_unsupported(syn), syn.start, syn.end)

    def _elab_local_app(self, head: Syn, args: tuple[Syn, ...], ty: Term) -> tuple[Term, str | None]:
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
            return ("app", ("var", name), tuple(targs)), PROP  # type: ignore[return-value]
        return ("app", ("var", name), tuple(targs)), rty


_OPNAME = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div", "%": "Mod"}


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
        return " ".join([syn_text(syn.args[0])] + [syn_text(a) for a in syn.args[1]])
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
