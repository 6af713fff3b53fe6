"""The opt-in compiled simulator (``make compile-sim``, issue 22): what it compiles, why its recursions are
bounded, and that it answers as the pure build does.

mypyc's compiled functions do not count their calls against Python's recursion limit (mypyc issue #582): a
recursion that stays among compiled functions is bounded by nothing but the C stack, whose overflow kills
the process. The build compiles only the aesop search's bookkeeping, and every recursion among its
functions counts its own depth against ``native.NATIVE_DEPTH`` (docs/simulator.md, "Memo tables and
speed"). The fast tests hold the compiled modules' recursions, read from the sources with a conservative
call graph (tests/call_graph.py), to that documented, guarded set, so that an edit adding an unguarded
recursion fails without a compiler. The slow tests build the extensions in a copy of the package and attack
them in child processes: input nested 20,000 deep, searches that build deep terms and trees, huge rule
lists; the compiled child must not crash and must answer exactly as the pure one, and both give the same
conformance report and verdict digests.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import warnings
from collections.abc import Iterator
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType

import pytest
from call_graph import CallGraph, recursion_cycles

import lean_gym.sim
from lean_gym.sim import native

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "simulator.md"

#: Every recursion among the compiled modules' functions (one cycle each: each calls itself), and what
#: bounds it. Each counts its depth in a ``depth`` argument and raises ``RecursionError`` past
#: ``native.NATIVE_DEPTH``, as the interpreter does past its limit (docs/simulator.md lists them too).
GUARDED = {
    "lean_gym.sim.aesop_cost._nodes": "a term's nodes (the cost model's size): the term's depth",
    "lean_gym.sim.aesop_cost._degree": "a term's polynomial degree: the term's depth",
    "lean_gym.sim.aesop_cost._monomials": "a term's monomials (nlinarith's cost): the term's depth",
    "lean_gym.sim.aesop_cost._squares": "a term's squares (nlinarith's cost): the term's depth",
    "lean_gym.sim.aesop_search.Search._script": "the proof's script: the proof's depth in the search tree",
    "lean_gym.sim.aesop_search.Search._safe_prefix": "the safe prefix's goals: the tree's depth",
}

#: The recursions the call graph cannot rule out that are no recursion, each checked by hand and below: a
#: call of a callable nothing names, which may be any function of the set.
AUDITED = {
    "lean_gym.sim.memo.clear_request_scoped": "runs the clears registered with request_scoped at a request's "
    "end: memo tables' `clear` and the lexer's forget_texts, none of which calls back into the simulator",
}

#: The double-underscore methods of the compiled classes, which Python may call from anywhere (``len``,
#: ``repr``): each calls nothing of the compiled modules, so none is part of a recursion (the call graph
#: does not follow their own implicit calls: this list is where a new one gets looked at).
LEAF_DUNDERS = {
    "lean_gym.sim.memo.IdentityMemo.__len__",
    "lean_gym.sim.memo.Memo.__len__",
    "lean_gym.sim.memo._Miss.__repr__",
}


def _compile_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compile_sim", ROOT / "scripts" / "compile_sim.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _sim_modules() -> set[str]:
    sim = ROOT / "lean_gym" / "sim"
    out = set()
    for p in sim.rglob("*.py"):
        parts = p.relative_to(sim).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.add(".".join(("lean_gym", "sim", *parts)))
    return out


# ------------------------------------------------------------------------------------ what is compiled


def test_the_compile_list_names_modules_of_the_simulator_once() -> None:
    cs = _compile_script()
    assert len(set(cs.MODULES)) == len(cs.MODULES)  # no module twice
    assert set(cs.MODULES) <= _sim_modules()
    assert not set(cs.MODULES) & set(cs.CANNOT_COMPILE)
    assert all(cs.CANNOT_COMPILE.values())  # each says why
    assert set(cs.CANNOT_COMPILE) <= _sim_modules()
    # the package's __init__ has a module-level __getattr__ (the lazy SimRepl), which mypyc's module
    # initialisation crashes on; native reads the files to say whether the rest is compiled
    assert {"lean_gym.sim", "lean_gym.sim.native"} <= set(cs.CANNOT_COMPILE)
    assert "lean_gym.sim.aesop_search" in cs.MODULES  # the module compiled() looks at


def test_the_docs_name_every_compiled_module() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name in _compile_script().MODULES:
        assert f"`{name.rsplit('.', 1)[1]}`" in text, name


# ---------------------------------------------------------------------- recursion among compiled code


def _graph() -> CallGraph:
    return CallGraph(ROOT, _compile_script().MODULES)


def test_every_recursion_among_compiled_functions_is_a_documented_guarded_one() -> None:
    cycles = recursion_cycles(ROOT, _compile_script().MODULES)
    assert cycles == sorted((name,) for name in {**GUARDED, **AUDITED}), (
        "a recursion among compiled functions must count its depth against native.NATIVE_DEPTH (or move to "
        f"an interpreted module); found: {cycles}"
    )


def test_the_audited_cycles_are_calls_of_an_unnamed_callable_and_nothing_else() -> None:
    g = _graph()
    assert set(g.unnamed) >= set(AUDITED)
    for name in AUDITED:
        # without its unnamed call the function would be no part of any cycle: only its own code names it
        named = {r for r in g.nodes[name].refs if r in g.nodes}
        assert name not in named


def test_what_a_request_s_end_runs_is_table_clears_and_forget_texts() -> None:
    # the hand check behind AUDITED, on what the simulator actually registered
    from lean_gym.sim import memo, syntax

    assert memo._REQUEST_SCOPED
    for clear in memo._REQUEST_SCOPED:
        owner = getattr(clear, "__self__", None)
        if clear is syntax.forget_texts:
            continue
        assert getattr(clear, "__name__", "") == "clear", clear
        assert isinstance(owner, (dict, memo.IdentityMemo, memo.Memo)), clear


def test_the_compiled_classes_dunders_are_the_audited_leaves() -> None:
    g = _graph()
    assert set(g.dunders) == LEAF_DUNDERS
    for name in LEAF_DUNDERS:
        assert not ({r for r in g.nodes[name].refs if r in g.nodes} - {name}), name


def _function(qualified: str) -> ast.FunctionDef:
    _, _, rest = qualified.partition(".sim.")
    module, *path = rest.split(".")
    tree = ast.parse((ROOT / "lean_gym" / "sim" / f"{module}.py").read_text(encoding="utf-8"))
    body: list[ast.stmt] = tree.body
    for part in path:
        found = next(s for s in body if isinstance(s, (ast.FunctionDef, ast.ClassDef)) and s.name == part)
        body = found.body
    assert isinstance(found, ast.FunctionDef)
    return found


@pytest.mark.parametrize("qualified", sorted(GUARDED))
def test_each_guarded_recursion_counts_its_depth_and_stops_at_the_bound(qualified: str) -> None:
    fn = _function(qualified)
    name = fn.name
    assert "depth" in [a.arg for a in fn.args.args], "the depth travels as an argument"
    stmts = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    first = stmts[0]
    # the first thing it does: `if depth > NATIVE_DEPTH: raise RecursionError(…)`
    assert isinstance(first, ast.If) and ast.unparse(first.test) == "depth > NATIVE_DEPTH", ast.unparse(first)
    assert isinstance(first.body[0], ast.Raise) and ast.unparse(first.body[0]).startswith(
        "raise RecursionError"
    )
    bumped = any(ast.unparse(s) == "depth += 1" for s in stmts[1:3])
    calls = [
        c
        for c in ast.walk(fn)
        if isinstance(c, ast.Call)
        and (
            (isinstance(c.func, ast.Name) and c.func.id == name)
            or (isinstance(c.func, ast.Attribute) and c.func.attr == name)
        )
    ]
    assert calls
    for c in calls:  # every recursive call passes a deeper depth
        passed = [ast.unparse(a) for a in c.args]
        assert ("depth + 1" in passed) or (bumped and "depth" in passed), ast.unparse(c)


def test_the_docs_give_each_guarded_recursion() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "NATIVE_DEPTH" in text
    for name in GUARDED:
        assert f"`{name.rsplit('.', 1)[1]}`" in text, name


def _deep_term(depth: int) -> tuple[object, ...]:
    t: tuple[object, ...] = ("fvar", "x")
    for _ in range(depth):
        t = ("+", "ℝ", t, ("fvar", "y"))
    return t


def test_the_guarded_term_walks_stop_just_past_the_bound_in_either_build() -> None:
    from lean_gym.sim import aesop_cost

    # the bound, not Python's limit, stops them (pure too: 257 levels are some 514 frames on this stack), so
    # both builds stop at the same level
    deepest, deep = _deep_term(native.NATIVE_DEPTH), _deep_term(native.NATIVE_DEPTH + 1)
    assert aesop_cost._term_size(deepest) == 1 + 2 * native.NATIVE_DEPTH
    assert aesop_cost.term_degree(deepest) == 1
    assert aesop_cost._monomials(deepest) == native.NATIVE_DEPTH + 1
    aesop_cost._squares(deepest, set())
    for walk in (
        lambda: aesop_cost._term_size(deep),
        lambda: aesop_cost.term_degree(deep),
        lambda: aesop_cost._monomials(deep),
        lambda: aesop_cost._squares(deep, set()),
    ):
        with pytest.raises(RecursionError, match="maximum recursion depth"):
            walk()


def _search_over_a_deep_tree(depth: int) -> tuple[object, object]:
    """A search whose tree is one proved path ``depth`` rule applications deep, through safe rules."""
    from lean_gym.sim.aesop_apply import parse_cached
    from lean_gym.sim.aesop_rules import Rule, elab_rules
    from lean_gym.sim.aesop_search import GNode, RNode, Search
    from lean_gym.sim.elab import Env
    from lean_gym.sim.tactics import TacticContext, goal_from_statement

    ctx = TacticContext(env=Env(imports=("Mathlib",)))
    goal = goal_from_statement("(p : Prop) (hp : p) : p", ctx)
    call = parse_cached("aesop")
    assert not isinstance(call, Exception)
    search = Search(goal, call, elab_rules(call, goal, ctx), ctx)
    rule = Rule("h", "safe", 0, "apply", "h")
    g = search.root
    for i in range(depth):
        child = GNode(goal, i + 2, 1.0, None, i + 1)
        r = RNode(rule, g, "apply h", [child])
        child.parent = r
        g.rapps.append(r)
        g.proof_rapp = r
        g = child
    return search, g


def test_the_guarded_tree_walks_stop_just_past_the_bound_in_either_build() -> None:
    deepest, _ = _search_over_a_deep_tree(native.NATIVE_DEPTH)
    assert deepest._script(deepest.root) == ["apply h"] * native.NATIVE_DEPTH  # type: ignore[attr-defined]
    assert len(deepest.safe_prefix_goals()) == 1  # type: ignore[attr-defined]
    search, _ = _search_over_a_deep_tree(native.NATIVE_DEPTH + 1)
    with pytest.raises(RecursionError, match="maximum recursion depth"):
        search._script(search.root)  # type: ignore[attr-defined]
    with pytest.raises(RecursionError, match="maximum recursion depth"):
        search.safe_prefix_goals()  # type: ignore[attr-defined]


# --------------------------------------------------------------- the call graph finds what it must find


def _graph_of(tmp_path: Path, sources: dict[str, str]) -> list[tuple[str, ...]]:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    for name, text in sources.items():
        (pkg / f"{name}.py").write_text(textwrap.dedent(text), encoding="utf-8")
    return recursion_cycles(tmp_path, [f"pkg.{n}" for n in sources if n != "interp"])


def test_the_call_graph_finds_recursion_however_it_is_spelt(tmp_path: Path) -> None:
    cycles = _graph_of(
        tmp_path,
        {
            "a": """
                from pkg.b import down
                from pkg.interp import helper

                def direct(t):
                    return direct(t[1])

                def up(t):  # mutual, across modules
                    return down(t)

                def by_key(ts):  # a builtin calls it back
                    return sorted(ts, key=by_key)

                def through_interpreted(t):  # Python's limit bounds this one
                    return helper(t)

                def handed_out(t):  # `helper` may be C (`functools.reduce`): counted, conservatively
                    return helper(handed_out, t)

                TABLE = {"k": lambda t: via_table(t)}

                def via_table(t):
                    return TABLE["k"](t)

                def apply(f, t):
                    return f(t)

                def via_callback(t):
                    return apply(lambda u: via_callback(u), t)

                def only_once(t):  # the callback here is not the caller: no recursion
                    return apply(len, t)

                class C:
                    def __init__(self, kids):
                        self.kids = kids

                    def by_name(self, name):  # a method looked up by its name
                        return getattr(self, name)(name)

                    def walk(self):
                        return [k.walk() for k in self.kids]

                    def __eq__(self, other):
                        return self.walk() == other
            """,
            "b": """
                def down(t):
                    from pkg.a import up
                    return up(t)
            """,
            "interp": """
                def helper(t):
                    from pkg.a import through_interpreted
                    return through_interpreted(t)
            """,
        },
    )
    found = {c for c in cycles}
    assert ("pkg.a.direct",) in found
    assert ("pkg.a.up", "pkg.b.down") in found
    assert ("pkg.a.by_key",) in found
    assert not any("pkg.a.through_interpreted" in c for c in found)
    assert ("pkg.a.handed_out",) in found
    assert any("pkg.a.via_table" in c for c in found)
    assert any("pkg.a.via_callback" in c for c in found)
    assert not any("pkg.a.only_once" in c for c in found)
    assert any("pkg.a.C.walk" in c for c in found)
    assert any("pkg.a.C.by_name" in c for c in found)
    assert any("pkg.a.C.__eq__" in c for c in found)  # `==` runs it from anywhere, itself included


# ------------------------------------------------------------------------------------ what native says


def test_compiled_is_what_the_package_reports() -> None:
    assert lean_gym.sim.compiled() is native.compiled()
    assert native.compiled() == ("lean_gym.sim.aesop_search" in native.compiled_modules())


def _fake_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    sim = tmp_path / "sim"
    (sim / "arith").mkdir(parents=True)
    for name in ("aesop_search.py", "terms.py", "arith/poly.py", "repl.py"):
        (sim / name).write_text("# source\n", encoding="utf-8")
    monkeypatch.setattr(native, "_SIM", sim)
    return sim


def _compile(source: Path, newer: bool) -> None:
    ext = source.with_name(source.stem + EXTENSION_SUFFIXES[0])
    ext.write_bytes(b"")
    t = source.stat().st_mtime
    os.utime(ext, (t + 10, t + 10) if newer else (t - 10, t - 10))


def test_a_tree_without_extensions_runs_pure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_tree(tmp_path, monkeypatch)
    assert not native.compiled()
    assert native.compiled_modules() == [] and native.stale_modules() == []


def test_extensions_beside_the_sources_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sim = _fake_tree(tmp_path, monkeypatch)
    _compile(sim / "terms.py", newer=True)
    _compile(sim / "arith" / "poly.py", newer=True)
    assert not native.compiled()  # the search module is what says so
    assert native.compiled_modules() == ["lean_gym.sim.arith.poly", "lean_gym.sim.terms"]
    _compile(sim / "aesop_search.py", newer=True)
    assert native.compiled()
    assert native.stale_modules() == []


def test_a_source_edited_after_compiling_is_stale_and_warned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sim = _fake_tree(tmp_path, monkeypatch)
    _compile(sim / "aesop_search.py", newer=True)
    _compile(sim / "terms.py", newer=False)  # the source is newer: the extension runs old code
    assert native.stale_modules() == ["lean_gym.sim.terms"]
    with pytest.warns(
        RuntimeWarning, match=r"older than its source \(lean_gym\.sim\.terms\).*make compile-sim"
    ):
        native.warn_if_stale()


def test_a_stale_extension_of_a_pure_tree_is_not_warned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # without the search module compiled the simulator is not a compiled build: nothing to warn about
    sim = _fake_tree(tmp_path, monkeypatch)
    _compile(sim / "terms.py", newer=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        native.warn_if_stale()


def test_clean_removes_the_extensions_of_any_earlier_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cs = _compile_script()
    root = tmp_path / "tree"
    for rel in ("lean_gym/sim/aesop_search.py", "lean_gym/sim/terms.py", "lean_gym/lean/lexer.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# source\n", encoding="utf-8")
    suffix = EXTENSION_SUFFIXES[0]
    built = [
        root / "lean_gym" / "sim" / f"aesop_search{suffix}",
        root / "lean_gym" / "sim" / f"terms{suffix}",  # compiled by the whole-simulator build of old
        root / "lean_gym" / "lean" / f"lexer{suffix}",
        root / "lean_gym" / f"_sim__mypyc{suffix}",
    ]
    for p in built:
        p.write_bytes(b"")
    monkeypatch.setattr(cs, "ROOT", root)
    monkeypatch.setattr(cs, "BUILD", root / "build" / "mypyc")
    assert cs.built_files() == sorted(built)
    cs.clean()
    assert not any(p.exists() for p in built)
    assert (root / "lean_gym" / "sim" / "terms.py").exists()


# ------------------------------------------------------------------ the compiled build, in a child process


def _no_compiler_reason() -> str | None:
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed (it comes with mypy, a dev dependency)"
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc}) to build the extensions with"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file():
        return "Python's headers (Python.h) are not installed"
    return None


@pytest.fixture(scope="session")
def trees(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """Two copies of the package: ``pure`` (no extension) and ``compiled`` (``compile_sim.py`` run there)."""
    reason = _no_compiler_reason()
    if reason is not None:
        pytest.skip(reason)
    base = tmp_path_factory.mktemp("sim_builds")
    build = _compile_script().copy_package
    out = {name: build(base / name, name == "compiled") for name in ("pure", "compiled")}
    yield out


def _env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), str(ROOT / "tests")])
    env.pop("PYTHONSTARTUP", None)
    return env


def _run(root: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    # run from the copy: `-c` and `-m` put the working directory first on the path
    return subprocess.run(
        [sys.executable, *args], cwd=root, capture_output=True, text=True, timeout=timeout, env=_env(root)
    )


@pytest.mark.slow
def test_the_copies_run_the_build_they_are_meant_to(trees: dict[str, Path]) -> None:
    code = "import lean_gym.sim as s, sys; print(s.compiled(), s.__file__)"
    for build, root in trees.items():
        done = _run(root, "-c", code)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == [
            str(build == "compiled"),
            str(root / "lean_gym" / "sim" / "__init__.py"),
        ]


def _probe(root: Path) -> list[dict[str, object]]:
    names = _run(root, str(ROOT / "tests" / "sim_deep_probe.py"), "--list").stdout.split()
    done = _run(root, str(ROOT / "tests" / "sim_deep_probe.py"), *names)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    # a crash (the C stack overflowing) is a signal's exit status and the probes after it missing
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:], [p["probe"] for p in lines])
    assert [p["probe"] for p in lines] == names
    return lines


@pytest.mark.slow
def test_deep_input_is_answered_by_the_compiled_build_as_by_the_pure_one(trees: dict[str, Path]) -> None:
    pure, compiled = _probe(trees["pure"]), _probe(trees["compiled"])
    assert {p["build"] for p in pure} == {"pure"} and {p["build"] for p in compiled} == {"compiled"}
    for p, c in zip(pure, compiled, strict=True):
        assert c["responses"] == p["responses"], p["probe"]
    # the nesting Python's limit stops is refused with Lean's words, not proved, by both
    refused = "maximum recursion depth has been reached"
    for p in compiled:
        if p["probe"] in ("parens", "parens_500", "and_chain", "or_chain", "not_nest", "and_nest"):
            assert refused in json.dumps(p["responses"], ensure_ascii=False), p["probe"]


_GUARDS_IN_A_CHILD = """
import sys
sys.path.insert(0, {tests!r})
import lean_gym.sim
from lean_gym.sim import aesop_cost, native
from test_sim_compiled import _deep_term, _search_over_a_deep_tree
assert lean_gym.sim.compiled()
sys.setrecursionlimit(1_000_000)  # Python's limit out of the way: only NATIVE_DEPTH stops compiled code
# built by loops, 50 times NATIVE_DEPTH (not much deeper: hashing a tuple some 100,000 deep overflows
# CPython's own C stack, pure or compiled)
deep = _deep_term(50_000)
search, _ = _search_over_a_deep_tree(50_000)
for name, walk in [
    ("term_size", lambda: aesop_cost._term_size(deep)),
    ("degree", lambda: aesop_cost.term_degree(deep)),
    ("monomials", lambda: aesop_cost._monomials(deep)),
    ("squares", lambda: aesop_cost._squares(deep, set())),
    ("script", lambda: search._script(search.root)),
    ("safe_prefix", lambda: search.safe_prefix_goals()),
]:
    try:
        walk()
        print(name, "answered", flush=True)
    except RecursionError:
        print(name, "RecursionError", flush=True)
"""


@pytest.mark.slow
def test_the_compiled_guards_stop_a_recursion_that_python_s_limit_no_longer_would(
    trees: dict[str, Path],
) -> None:
    done = _run(trees["compiled"], "-c", _GUARDS_IN_A_CHILD.format(tests=str(ROOT / "tests")))
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.split("\n")[:-1] == [
        f"{n} RecursionError"
        for n in ("term_size", "degree", "monomials", "squares", "script", "safe_prefix")
    ]


@pytest.mark.slow
@pytest.mark.parametrize("flags", [(), ("--disagreements", "--messages")], ids=["report", "every-case"])
def test_the_conformance_report_is_the_same_compiled(trees: dict[str, Path], flags: tuple[str, ...]) -> None:
    pure = _run(trees["pure"], "-m", "lean_gym.conformance", *flags)
    compiled = _run(trees["compiled"], "-m", "lean_gym.conformance", *flags)
    assert pure.returncode == compiled.returncode
    assert pure.stdout and compiled.stdout == pure.stdout  # byte for byte


@pytest.mark.slow
@pytest.mark.parametrize("workload", [("aesop", "--steps", "300"), ("proof", "--steps", "200")])
def test_the_workloads_verdicts_are_the_same_compiled(
    trees: dict[str, Path], workload: tuple[str, ...]
) -> None:
    bench = str(ROOT / "benchmarks" / "bench_sim_workloads.py")
    got = {}
    for build, root in trees.items():
        done = _run(root, bench, *workload, "--json")
        assert done.returncode == 0, done.stderr[-2000:]
        out = json.loads(done.stdout.splitlines()[-1])
        assert out["build"] == build and out["tree"] == str(root)
        got[build] = out["digest"]
    assert got["compiled"] == got["pure"]
