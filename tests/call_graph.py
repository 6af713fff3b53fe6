"""A conservative call graph of a set of modules, read with ``ast``, and the recursion cycles in it.

What it is for: mypyc's compiled functions do not count their calls against Python's recursion limit, so a
recursion whose every call stays among compiled functions is bounded by nothing but the C stack
(``docs/simulator.md``, "Memo tables and speed"). :func:`recursion_cycles` lists those recursions for the
modules ``scripts/compile_sim.py`` compiles, so that a test holds them to the documented, guarded set.

Over-approximate by design (a spurious edge makes the test fail loudly; a missed one would hide a recursion):

* a function *referenced* (not only called) by another gets an edge from it: a builtin that takes it
  (``sorted(key=f)``, ``map``, ``lru_cache``'s wrapper) may call it within the referencing function;
* a call of a callable the graph cannot name by its spelling (a parameter, a local, a table's entry, a
  function's result) reaches what flows there: a lambda or function named at the call sites of the
  parameter, a table's lambdas, the functions a function returns; where the flow is not one of those
  (a callable from outside the set, ``getattr(self, name)``), it reaches every function of the set;
* ``x.name`` reaches every method ``name`` of every class of the set, unless ``x`` is ``self`` (the
  class's own method, or a base's in the set), a class or a module of the set, ``super()``, or an
  attribute of ``self`` that the class declares as a builtin container (``dict``, ``list``, …);
  ``x.name(...)`` where ``name`` is no method of the set but a data attribute of one of its classes is a
  call of an unnamed callable;
* naming a class reaches its ``__init__``/``__post_init__``/``__new__``; every other double-underscore
  method of a class in the set (``__eq__``, ``__len__``, ``__repr__``, …) may run implicitly anywhere, so
  every function reaches it (the test pins that list: each is a leaf).

A call into a module outside the set ends the path there: Python code there runs interpreted, and each
interpreted frame counts against Python's recursion limit, which bounds every cycle through it (so is a
``@contextlib.contextmanager`` function: only contextlib's Python code enters it); a builtin or other C code
calls back only what it is handed (the first rule) or a dunder (the last).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

_CONSTRUCTORS = ("__init__", "__post_init__", "__new__")
_CONTAINERS = frozenset({"dict", "list", "set", "frozenset", "tuple", "OrderedDict", "deque", "str", "int"})
_BUILTINS = frozenset(dir(builtins))
_TOP = "<any escaped function>"
_STARRED = ast.Starred(value=ast.Constant(value=None), ctx=ast.Load())  # an argument not known
# expressions whose value is never a function
_NOT_CALLABLE = (
    ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp,
    ast.GeneratorExp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.JoinedStr,
)  # fmt: skip


@dataclass
class _Node:
    name: str  # module.qualname; a lambda: enclosing.<lambda:LINE:COL>
    module: str
    cls: str | None  # the class (qualified) of a method, or of the method a lambda or nested def sits in
    fn: ast.AST | None  # the def or lambda
    parts: list[ast.AST]  # what runs when it is called
    scope: dict[str, str]  # local names bound to nested defs of enclosing functions → node names
    self_name: str | None = None  # the first parameter of a method
    params: list[str] = field(default_factory=list)
    refs: set[str] = field(default_factory=set)  # nodes reached by name
    escaped: set[str] = field(default_factory=set)  # nodes referenced as values
    unnamed_calls: list[ast.expr] = field(default_factory=list)  # callees the graph cannot name


@dataclass
class _Module:
    name: str
    globals: dict[str, str] = field(default_factory=dict)  # a module-level name → node, class, module
    imported: set[str] = field(default_factory=set)  # names imported from outside the set
    classes: dict[str, list[str]] = field(default_factory=dict)  # qualified class → its bases as written
    values: dict[str, list[ast.expr]] = field(default_factory=dict)  # a module-level variable → its values


class CallGraph:
    """The call graph of ``modules`` (dotted names), read from their sources under ``root``.

    Attributes:
        edges: Each function (by qualified name) → the functions it may call directly.
        escaped: The functions used as values somewhere (what an unnamed callable may be).
        dunders: The double-underscore methods Python may call implicitly.
        unnamed: Each function → the callees it calls that the graph resolved by their flow, as written.
    """

    def __init__(self, root: Path, modules: Iterable[str]) -> None:
        self.modules = {m: _Module(m) for m in modules}
        self.nodes: dict[str, _Node] = {}
        self.methods: dict[str, list[str]] = {}  # method name → qualified methods
        self.data_attrs: set[str] = set()  # attribute names the set's classes store data under
        self.container_fields: dict[str, set[str]] = {}  # class → its attributes of a builtin container type
        trees = {}
        for m in self.modules:
            path = root.joinpath(*m.split(".")).with_suffix(".py")
            trees[m] = ast.parse(path.read_text(encoding="utf-8"))
        for m, tree in trees.items():
            self._collect_defs(m, tree)
        for m, tree in trees.items():
            self._collect_imports(m, tree)
        value_escaped: set[str] = set()
        for m, mod in self.modules.items():
            for name, exprs in mod.values.items():
                holder = _Node(f"{m}.{name}", m, None, None, list(exprs), {})
                self._scan(holder)
                value_escaped |= holder.escaped | holder.refs
        for node in list(self.nodes.values()):
            self._scan(node)
        self.escaped = sorted(value_escaped | {e for n in self.nodes.values() for e in n.escaped})
        self.dunders = sorted(q for name, qs in self.methods.items() for q in qs if _implicit_dunder(name))
        self.unnamed = {n.name: [ast.unparse(c) for c in n.unnamed_calls] for n in self.nodes.values()}
        self.unnamed = {k: v for k, v in self.unnamed.items() if v}
        # A function that calls a parameter (``tracked(…, run)``) is read once per call site in the set, with
        # what that site passes (``F@caller:line:col``): merging its call sites would join unrelated callers
        # into one cycle. Where it is used as a value (then anything may call it), the merged reading stands.
        self.edges: dict[str, set[str]] = {}
        higher = {n.name for n in self.nodes.values() if any(self._param_call(n, c) for c in n.unnamed_calls)}
        for n in list(self.nodes.values()):
            out = {r for r in n.refs if r in self.nodes and (r not in higher or r in n.escaped)}
            for site, target in self._call_sites(n):
                if target in higher and target not in n.escaped:
                    clone = f"{target}@{n.name}:{site.lineno}:{site.col_offset}"
                    self.edges[clone] = self._base_edges(self.nodes[target], n, site)
                    out.add(clone)
            self.edges[n.name] = out | self._base_edges(n, None, None)
        # a function behind contextlib's wrapper (`@contextmanager`) is only ever entered through that
        # wrapper's Python code: its module name binds the wrapper, so no path reaches it without an
        # interpreted frame
        wrapped = {q for q, n in self.nodes.items() if _python_wrapped(n)}
        for out in self.edges.values():
            out -= wrapped

    def _param_call(self, n: _Node, callee: ast.expr) -> bool:
        return isinstance(callee, ast.Name) and callee.id in n.params

    def _call_sites(self, n: _Node) -> list[tuple[ast.Call, str]]:
        """The calls in ``n`` of a function of the set named as written (``f(…)``, ``self.m(…)``)."""
        out = []
        for part in n.parts:
            for sub in _walk_own(part):
                if not isinstance(sub, ast.Call):
                    continue
                f = sub.func
                if isinstance(f, ast.Name):
                    q = self._named(n, f.id)
                    if q is not None and q in self.nodes:
                        out.append((sub, q))
                elif isinstance(f, ast.Attribute):
                    for q in sorted(self._attribute(n, f) or ()):
                        out.append((sub, q))
        return out

    def _base_edges(self, n: _Node, caller: _Node | None, site: ast.Call | None) -> set[str]:
        """What ``n`` calls besides the functions it names: its unnamed callees (read at ``site`` in
        ``caller`` where given) and the implicit dunders."""
        out: set[str] = set()
        for callee in n.unnamed_calls:
            if caller is not None and site is not None and self._param_call(n, callee):
                assert isinstance(callee, ast.Name)
                arg = self._argument(n, callee.id, site)
                got = (
                    {_TOP}
                    if arg is _STARRED
                    else set()
                    if arg is None
                    else self._values_of(caller, arg, set())
                )
            else:
                got = self._values_of(n, callee, set())
            # a callable nothing names may be any function of the set: one used as a value, or a method looked
            # up by a name computed at run time (`getattr(self, name)`)
            out |= set(self.nodes) if _TOP in got else got
        if caller is not None:
            out |= {r for r in n.refs if r in self.nodes}
        if not _implicit_dunder(n.name.rsplit(".", 1)[1]):
            out.update(self.dunders)  # a dunder's own implicit calls: the test pins each as a leaf
        return out

    def _argument(self, n: _Node, param: str, site: ast.Call) -> ast.expr | None:
        """The expression ``site`` passes for ``param`` of ``n``; ``None`` for the default, :data:`_STARRED`
        where it cannot say (``*args``, ``**kwargs``)."""
        if any(isinstance(a, ast.Starred) for a in site.args) or any(k.arg is None for k in site.keywords):
            return _STARRED
        arg = next((k.value for k in site.keywords if k.arg == param), None)
        if arg is not None:
            return arg
        assert isinstance(n.fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        positional = [a.arg for a in n.fn.args.posonlyargs + n.fn.args.args]
        if n.self_name is not None and isinstance(n.fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            positional = positional[1:]
        if param in positional and positional.index(param) < len(site.args):
            return site.args[positional.index(param)]
        return None

    # ---------------------------------------------------------------- definitions

    def _collect_defs(self, m: str, tree: ast.Module) -> None:
        mod = self.modules[m]
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                mod.globals[stmt.name] = f"{m}.{stmt.name}"
                self._add_function(m, stmt, f"{m}.{stmt.name}", None, {})
            elif isinstance(stmt, ast.ClassDef):
                mod.globals[stmt.name] = f"{m}.{stmt.name}"
                self._add_class(m, stmt, f"{m}.{stmt.name}")
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
                # a module-level variable (a table of lambdas): what it holds escapes; reading it calls
                # nothing, calling what it holds reaches its lambdas and functions
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
                for name in names:
                    mod.values.setdefault(name, []).append(stmt.value)
                    mod.globals.setdefault(name, f"{m}.{name}")
                if names:
                    self._add_lambdas(m, f"{m}.{names[0]}", [stmt.value], {}, None, None)

    def _add_class(self, m: str, cls: ast.ClassDef, q: str) -> None:
        self.modules[m].classes[q] = [ast.unparse(b) for b in cls.bases]
        containers = self.container_fields.setdefault(q, set())
        for stmt in cls.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                self.data_attrs.add(stmt.target.id)
                if _container(stmt.annotation):
                    containers.add(stmt.target.id)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                fq = f"{q}.{stmt.name}"
                self.methods.setdefault(stmt.name, []).append(fq)
                self._add_function(m, stmt, fq, q, {})
                for sub in ast.walk(stmt):
                    if isinstance(sub, ast.AnnAssign) and isinstance(sub.target, ast.Attribute):
                        if _container(sub.annotation):
                            containers.add(sub.target.attr)
            elif isinstance(stmt, ast.ClassDef):
                self._add_class(m, stmt, f"{q}.{stmt.name}")

    def _add_function(
        self,
        m: str,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        q: str,
        cls: str | None,
        scope: dict[str, str],
    ) -> None:
        args = fn.args.posonlyargs + fn.args.args
        method = cls is not None and q.count(".") == cls.count(".") + 1
        self_name = args[0].arg if method and args and not _is_static(fn) else None
        inner = dict(scope)
        for stmt in _nested_defs(fn):
            inner[stmt.name] = f"{q}.{stmt.name}"
        for sub in ast.walk(fn):
            if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store):
                self.data_attrs.add(sub.attr)
        node = _Node(q, m, cls, fn, list(fn.body), inner, self_name)
        node.params = [a.arg for a in args + fn.args.kwonlyargs]
        self.nodes[q] = node
        for stmt in _nested_defs(fn):
            self._add_function(m, stmt, f"{q}.{stmt.name}", cls, inner)
            self.nodes[f"{q}.{stmt.name}"].self_name = self_name  # a closure sees the method's `self`
        self._add_lambdas(m, q, node.parts, inner, cls, self_name)

    def _add_lambdas(
        self,
        m: str,
        q: str,
        parts: list[ast.AST],
        scope: dict[str, str],
        cls: str | None,
        self_name: str | None,
    ) -> None:
        for part in parts:
            for lam in _own_lambdas(part):
                lq = f"{q}.<lambda:{lam.lineno}:{lam.col_offset}>"
                node = self.nodes[lq] = _Node(lq, m, cls, lam, [lam.body], scope, self_name)
                node.params = [a.arg for a in lam.args.posonlyargs + lam.args.args + lam.args.kwonlyargs]
                self._add_lambdas(m, lq, [lam.body], scope, cls, self_name)

    def _collect_imports(self, m: str, tree: ast.Module) -> None:
        mod = self.modules[m]
        for stmt in ast.walk(tree):
            if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
                for a in stmt.names:
                    local = a.asname or a.name
                    full = f"{stmt.module}.{a.name}"
                    if full in self.modules:  # a module of the set, imported by name
                        mod.globals[local] = full
                    elif stmt.module in self.modules and a.name in self.modules[stmt.module].globals:
                        mod.globals[local] = self.modules[stmt.module].globals[a.name]
                        if a.name in self.modules[stmt.module].values:
                            mod.values[local] = self.modules[stmt.module].values[a.name]
                    else:
                        mod.imported.add(local)
            elif isinstance(stmt, ast.Import):
                for a in stmt.names:
                    local = a.asname or a.name.split(".")[0]
                    if a.name in self.modules and a.asname:
                        mod.globals[local] = a.name
                    else:
                        mod.imported.add(local)

    # ---------------------------------------------------------------- references

    def _module_of(self, q: str) -> str:
        return max((m for m in self.modules if q.startswith(m + ".")), key=len)

    def _is_class(self, q: str) -> bool:
        return q in self.modules[self._module_of(q)].classes if "." in q else False

    def _mro(self, cls: str) -> list[str]:
        out = [cls]
        mod = self.modules[self._module_of(cls)]
        for b in mod.classes.get(cls, []):
            q = mod.globals.get(b)
            if q is not None and self._is_class(q):
                out += self._mro(q)
        return out

    def _method_of(self, cls: str, name: str) -> str | None:
        for base in self._mro(cls):
            if f"{base}.{name}" in self.nodes:
                return f"{base}.{name}"
        return None

    def _named(self, node: _Node, name: str) -> str | None:
        """The node, class, module or module-level variable a bare name means in ``node``."""
        if name in node.scope:
            return node.scope[name]
        if _is_local(node, name):
            return None
        return self.modules[node.module].globals.get(name)

    def _targets(self, q: str) -> set[str]:
        if q in self.modules:
            return set()
        if self._is_class(q):
            return {t for b in self._mro(q) for d in _CONSTRUCTORS if (t := f"{b}.{d}") in self.nodes}
        return {q} if q in self.nodes else set()

    def _scan(self, node: _Node) -> None:
        called = {id(sub.func) for part in node.parts for sub in _walk_own(part) if isinstance(sub, ast.Call)}
        for part in node.parts:
            for sub in _walk_own(part):
                if isinstance(sub, ast.Lambda):
                    lq = f"{node.name}.<lambda:{sub.lineno}:{sub.col_offset}>"
                    if lq in self.nodes:
                        node.refs.add(lq)
                        node.escaped.add(lq)
                elif isinstance(sub, ast.Call) and not isinstance(sub.func, (ast.Name, ast.Attribute)):
                    node.unnamed_calls.append(sub.func)  # `table[k](x)`, `f()()`
                elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                    self._scan_name(node, sub, id(sub) in called)
                elif isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Load):
                    targets = self._attribute(node, sub)
                    if targets is None:
                        if id(sub) in called:
                            node.unnamed_calls.append(sub)
                        continue
                    node.refs |= targets
                    if id(sub) not in called:
                        node.escaped |= targets

    def _scan_name(self, node: _Node, sub: ast.Name, is_call: bool) -> None:
        q = self._named(node, sub.id)
        if q is None:
            mod = self.modules[node.module]
            if (
                is_call
                and sub.id not in mod.imported
                and (_is_local(node, sub.id) or sub.id not in _BUILTINS)
            ):
                node.unnamed_calls.append(sub)  # a parameter's or a local's callable
            return
        if q in self.nodes or self._is_class(q):
            targets = self._targets(q)
            node.refs |= targets
            if not is_call and not self._is_class(q):
                node.escaped |= targets
        elif is_call:  # a module-level variable called: what it holds
            node.unnamed_calls.append(sub)

    def _attribute(self, node: _Node, sub: ast.Attribute) -> set[str] | None:
        """The functions ``sub`` (``x.name``) may mean; ``None`` for data of a class of the set, which may be
        a callable the graph cannot name."""
        base = sub.value
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id == "super":
            if node.cls is None:
                return set()
            for b in self._mro(node.cls)[1:]:
                own = self._method_of(b, sub.attr)
                if own is not None:
                    return {own}
            return set()  # a base outside the set (`Exception`): no function of the set
        if isinstance(base, ast.Name):
            if node.self_name is not None and base.id == node.self_name and node.cls is not None:
                own = self._method_of(node.cls, sub.attr)
                if own is not None:
                    return {own}
                return None if sub.attr in self.data_attrs else set()
            q = self._named(node, base.id)
            if q is not None and q in self.modules:
                g = self.modules[q].globals.get(sub.attr)
                return self._targets(g) if g is not None else set()
            if q is not None and self._is_class(q):
                own = self._method_of(q, sub.attr)
                return {own} if own is not None else set()
            if q is None and base.id in self.modules[node.module].imported:
                return set()  # a module or class outside the set (`heapq.heappush`, `math.comb`)
        if (
            isinstance(base, ast.Attribute)
            and isinstance(base.value, ast.Name)
            and node.self_name is not None
            and base.value.id == node.self_name
            and node.cls is not None
            and any(base.attr in self.container_fields.get(c, ()) for c in self._mro(node.cls))
        ):
            return set()  # a builtin container's method (`self._data.clear()`)
        named = set(self.methods.get(sub.attr, []))
        if named:
            return named
        # a method of a class outside the set (interpreted, or a builtin's), or data of one of ours
        return None if sub.attr in self.data_attrs else set()

    # ---------------------------------------------------------------- what flows into an unnamed call

    def _values_of(self, node: _Node, expr: ast.expr, seen: set[tuple[str, str]]) -> set[str]:
        """The functions ``expr`` (in ``node``) may evaluate to, or a set holding :data:`_TOP`."""
        if isinstance(expr, ast.Lambda):
            lq = f"{node.name}.<lambda:{expr.lineno}:{expr.col_offset}>"
            return {lq} if lq in self.nodes else {_TOP}
        if isinstance(expr, ast.Name):
            return self._values_of_name(node, expr, seen)
        if isinstance(expr, ast.Subscript) or (
            isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get"
        ):
            table = expr.value if isinstance(expr, ast.Subscript) else expr.func.value  # type: ignore[union-attr]
            if isinstance(table, ast.Name):
                q = self._named(node, table.id)
                held = self.modules[node.module].values.get(table.id) if q is not None else None
                if held is not None and q is not None:
                    return self._held(q, held)
            return {_TOP}
        if isinstance(expr, ast.Call):
            callees = self._values_of(node, expr.func, seen)
            if _TOP in callees or not callees:
                # what a function outside the set returns may be one of ours (`getattr(self, name)`)
                return {_TOP}
            out = set()
            for c in callees:  # what the called function returns
                callee = self.nodes[c]
                results = [callee.fn.body] if isinstance(callee.fn, ast.Lambda) else _returns(callee)
                for ret in results:
                    out |= self._values_of(callee, ret, seen) if ret is not None else set()
            return out
        if isinstance(expr, ast.Attribute):
            got = self._attribute(node, expr)
            return {_TOP} if got is None else got
        if isinstance(expr, (ast.BoolOp, ast.IfExp)):
            branches = expr.values if isinstance(expr, ast.BoolOp) else [expr.body, expr.orelse]
            return set().union(*(self._values_of(node, b, seen) for b in branches))
        return set() if isinstance(expr, _NOT_CALLABLE) else {_TOP}

    def _values_of_name(self, node: _Node, expr: ast.Name, seen: set[tuple[str, str]]) -> set[str]:
        if expr.id in node.params:
            return self._param_values(node, expr.id, seen)
        if _is_local(node, expr.id) and expr.id not in node.scope:
            out: set[str] = set()
            for value in _assigned(node, expr.id):
                out |= {_TOP} if value is None else self._values_of(node, value, seen)
            return out
        q = self._named(node, expr.id)
        if q is None:
            return set() if expr.id in self.modules[node.module].imported or expr.id in _BUILTINS else {_TOP}
        if q in self.nodes or self._is_class(q):
            return self._targets(q)
        held = self.modules[self._module_of(q)].values.get(q.rsplit(".", 1)[1])
        return {_TOP} if held is None else self._held(q, held)

    def _held(self, q: str, values: list[ast.expr]) -> set[str]:
        """The functions a module-level variable's values hold (a table of lambdas)."""
        m = self._module_of(q)
        holder = _Node(q, m, None, None, list(values), {})
        self._scan(holder)
        return holder.escaped | holder.refs

    def _param_values(self, node: _Node, param: str, seen: set[tuple[str, str]]) -> set[str]:
        """What the call sites of ``node`` in the set pass for ``param``; :data:`_TOP` where ``node`` is itself
        a value (a callback: anything may call it with anything).

        A call from outside the set may pass anything too, but it starts a chain, it does not repeat one: a
        recursion through ``node`` calls it again from inside the set (whose call sites are read here) or
        through an interpreted function (which bounds it)."""
        if (node.name, param) in seen:
            return set()  # the same flow, already being followed
        seen = seen | {(node.name, param)}
        if node.name in self.escaped or node.fn is None:
            return {_TOP}
        out: set[str] = set()
        for caller in list(self.nodes.values()):
            for site, target in self._call_sites(caller):
                if target != node.name:
                    continue
                arg = self._argument(node, param, site)
                if arg is _STARRED:
                    return {_TOP}
                if arg is not None:
                    out |= self._values_of(caller, arg, seen)
        return out

    # ---------------------------------------------------------------- cycles

    def cycles(self) -> list[tuple[str, ...]]:
        """The strongly connected components with a cycle (two or more functions, or one that calls itself),
        each sorted, the list sorted."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        on: set[str] = set()
        stack: list[str] = []
        out: list[tuple[str, ...]] = []
        for start in sorted(self.edges):
            if start in index:
                continue
            # an iterative Tarjan (a recursion here would be ironic)
            work: list[tuple[str, list[str]]] = [(start, sorted(self.edges[start]))]
            index[start] = low[start] = len(index)
            stack.append(start)
            on.add(start)
            while work:
                v, succ = work[-1]
                if succ:
                    w = succ.pop()
                    if w not in index:
                        index[w] = low[w] = len(index)
                        stack.append(w)
                        on.add(w)
                        work.append((w, sorted(self.edges[w])))
                    elif w in on:
                        low[v] = min(low[v], index[w])
                    continue
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1 or v in self.edges[v]:
                        out.append(tuple(sorted({c.split("@", 1)[0] for c in comp})))
        return sorted(set(out))


def recursion_cycles(root: Path, modules: Iterable[str]) -> list[tuple[str, ...]]:
    """Every recursion among the functions of ``modules`` (see the module's docstring for what counts)."""
    return CallGraph(root, modules).cycles()


def _python_wrapped(node: _Node) -> bool:
    if not isinstance(node.fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return any(
        ast.unparse(d) in ("contextmanager", "contextlib.contextmanager") for d in node.fn.decorator_list
    )


def _implicit_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and name not in _CONSTRUCTORS


def _container(annotation: ast.expr) -> bool:
    head = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return isinstance(head, ast.Name) and head.id in _CONTAINERS


def _is_static(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)


def _is_local(node: _Node, name: str) -> bool:
    """Whether ``name`` is a parameter or is bound in ``node``'s own body (not a global)."""
    if name in node.params:
        return True
    if node.fn is None:
        return False
    for part in node.parts:
        for sub in _walk_own(part):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store) and sub.id == name:
                return True
            if isinstance(sub, (ast.Global, ast.Nonlocal)) and name in sub.names:
                return False
    return name in node.scope


def _assigned(node: _Node, name: str) -> list[ast.expr | None]:
    """The values bound to the local ``name`` in ``node`` (``None`` for a binding that is no plain
    assignment: a loop variable, an unpacking, a ``with``'s target)."""
    out: list[ast.expr | None] = []
    for part in node.parts:
        for sub in _walk_own(part):
            if isinstance(sub, ast.Assign) and len(sub.targets) == 1 and isinstance(sub.targets[0], ast.Name):
                if sub.targets[0].id == name:
                    out.append(sub.value)
                    continue
            if isinstance(sub, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With, ast.NamedExpr)):
                for t in ast.walk(sub):
                    if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store) and t.id == name:
                        if isinstance(sub, ast.AnnAssign) and sub.value is not None:
                            out.append(sub.value)
                        else:
                            out.append(None)
    return out


def _returns(node: _Node) -> list[ast.expr | None]:
    out: list[ast.expr | None] = []
    for part in node.parts:
        for sub in _walk_own(part):
            if isinstance(sub, ast.Return):
                out.append(sub.value)
    return out


def _nested_defs(fn: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions defined directly in ``fn``'s body (not inside a nested function)."""
    out: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(n)
        elif not isinstance(n, (ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))
    return out


def _walk_own(part: ast.AST) -> list[ast.AST]:
    """The nodes of ``part`` outside nested functions' and lambdas' bodies (theirs are nodes of their own);
    a nested function's decorators and defaults run with ``part``, so they are kept."""
    out: list[ast.AST] = []
    todo = [part]
    while todo:
        n = todo.pop()
        out.append(n)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            todo.extend(n.decorator_list)
            todo.extend(d for d in n.args.defaults + n.args.kw_defaults if d is not None)
            continue
        if isinstance(n, ast.Lambda):
            todo.extend(d for d in n.args.defaults + n.args.kw_defaults if d is not None)
            continue
        if isinstance(n, ast.ClassDef):
            continue
        todo.extend(ast.iter_child_nodes(n))
    return out


def _own_lambdas(part: ast.AST) -> list[ast.Lambda]:
    """The lambdas of ``part`` not inside another lambda or a nested function."""
    out: list[ast.Lambda] = []
    todo = [part]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Lambda):
            out.append(n)
            continue
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(n))
    return out
