"""The opt-in compiled simulator (``make compile-sim``, issue 22): the compile script's module list and what
``lean_gym.sim.native`` says about the files the import system would load.

Nothing here compiles (that takes minutes): the list must name every module of the simulator, compiled or
left out with a reason, so that a new module is never silently left interpreted; and a compiled module
older than its source must be reported, since the import system would run the old code.
"""

from __future__ import annotations

import importlib.util
import os
import warnings
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType

import pytest

import lean_gym.sim
from lean_gym.sim import native

ROOT = Path(__file__).resolve().parents[1]


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


def test_the_compile_list_names_every_module_of_the_simulator_once() -> None:
    cs = _compile_script()
    compiled, left_out = set(cs.MODULES), set(cs.LEFT_OUT)
    assert len(compiled) == len(cs.MODULES)  # no module twice
    assert not compiled & left_out
    assert all(cs.LEFT_OUT.values())  # each left out says why
    assert (compiled | left_out) - {"lean_gym.lean.lexer"} == _sim_modules()
    for name in cs.MODULES:
        assert cs.module_path(name).is_file(), name


def test_the_compile_list_keeps_out_what_mypyc_cannot_run() -> None:
    cs = _compile_script()
    # the package's __init__ has a module-level __getattr__ (the lazy SimRepl), which mypyc's module
    # initialisation crashes on; native reads the files to say whether the rest is compiled
    assert {"lean_gym.sim", "lean_gym.sim.native"} <= set(cs.LEFT_OUT)
    assert "lean_gym.sim.aesop_search" in cs.MODULES  # the module compiled() looks at


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
