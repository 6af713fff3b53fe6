"""Compile the simulator with mypyc, in place, as an opt-in speed-up (``make compile-sim``; issue 22).

The simulator stays pure Python: this script is never needed, and the default install never runs it. It
compiles the modules of :data:`MODULES` with mypyc (shipped with mypy, a ``dev`` dependency) into extension
modules that sit beside their ``.py`` files, where Python's import system prefers them; their shared runtime
is one more extension, ``lean_gym/_sim__mypyc*.so``. Only the aesop search's bookkeeping is compiled
(:data:`MODULES`, and why only those). The ``.py`` files stay the source of truth: edit them,
then compile again (a stale extension runs the old code) or remove the extensions (``make clean-compiled``,
``python scripts/compile_sim.py --clean``). :func:`lean_gym.sim.compiled` says which one runs.

Needs a C compiler and Python's headers; the build takes about 20 seconds. Generated files (the extensions,
``build/mypyc``) are git-ignored. What mypyc cannot compile or run as written is kept out of the code (see
``docs/simulator.md``, "Memo tables and speed", for the list, for what differs compiled and for why the
compiled functions' recursions are bounded).

Usage::

    python scripts/compile_sim.py            # compile in place
    python scripts/compile_sim.py --clean    # remove what it built
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The modules compiled: the aesop search's bookkeeping, where random aesop actions spend most of their time
#: (the search tree, memo replays, failure probes, rule costs). Every other module stays interpreted: the
#: elaborator, the tactics and the term functions recurse as deep as their input, and an interpreted frame
#: counts against Python's recursion limit where a compiled one does not (docs/simulator.md, "Memo tables and
#: speed"). A module joins this list only if every recursion among compiled functions is bounded: the test
#: tests/test_sim_compiled.py lists those recursions from the sources and holds them to the documented set.
MODULES = (
    "lean_gym.sim.aesop",
    "lean_gym.sim.aesop_apply",
    "lean_gym.sim.aesop_cost",
    "lean_gym.sim.aesop_rules",
    "lean_gym.sim.aesop_search",
    "lean_gym.sim.memo",
)

#: Modules that cannot be compiled at all, and why (the rest of the simulator could be, but stays interpreted
#: for the reason above).
CANNOT_COMPILE = {
    "lean_gym.sim": "its module-level __getattr__ (the lazy SimRepl) crashes mypyc's module initialisation",
    "lean_gym.sim.native": "says whether the rest runs compiled, from the files",
}

#: The shared runtime of the compiled modules: ``lean_gym/_sim__mypyc*.so``, inside the package (so an
#: editable install, which puts only ``lean_gym`` on the path, finds it).
GROUP = "lean_gym._sim"

BUILD = ROOT / "build" / "mypyc"

# mypy's options for the compile: the project's, except that the third-party packages the rest of
# lean_gym imports (the simulator imports none of them) are skipped, which takes type checking from
# minutes to seconds; mypyc compiles only MODULES, whose types do not depend on them.
_MYPY_INI = """\
[mypy]
python_version = 3.11
ignore_missing_imports = True
check_untyped_defs = True
follow_imports = silent

[mypy-torch.*,gymnasium.*,numpy.*,transformers.*,datasets.*,huggingface_hub.*,ray.*,matplotlib.*,scipy.*,pandas.*,pydantic.*,tyro.*]
follow_imports = skip
"""


def module_path(name: str) -> Path:
    """The source file of module ``name`` under the repository root."""
    return ROOT.joinpath(*name.split(".")).with_suffix(".py")


def built_files() -> list[Path]:
    """The extension modules that exist now beside the simulator's and the lexer's sources, and the runtime.

    What ``--clean`` removes: those of :data:`MODULES`, and any that an earlier build with another list left
    (the whole simulator, once), which would otherwise go on running.
    """
    sources = [*(ROOT / "lean_gym" / "sim").rglob("*.py"), ROOT / "lean_gym" / "lean" / "lexer.py"]
    found = [ext for src in sources for ext in src.parent.glob(src.stem + ".*.so")]
    found += (ROOT / "lean_gym").glob(GROUP.rsplit(".", 1)[1] + "__mypyc.*.so")
    return sorted(set(found))


def clean() -> None:
    """Remove the compiled extensions and the build folder: the simulator runs from its ``.py`` files."""
    for p in built_files():
        p.unlink()
    shutil.rmtree(BUILD, ignore_errors=True)


def compile_in_place() -> None:
    """Compile :data:`MODULES` with mypyc, the extensions written beside the sources."""
    from mypyc.build import mypycify
    from setuptools import setup

    BUILD.mkdir(parents=True, exist_ok=True)
    ini = BUILD / "mypy.ini"
    ini.write_text(_MYPY_INI, encoding="utf-8")
    paths = [str(module_path(m).relative_to(ROOT)) for m in MODULES]
    extensions = mypycify(
        ["--config-file", str(ini), *paths],
        opt_level="3",
        multi_file=True,
        target_dir=str(BUILD / "c"),
        group_name=GROUP,
    )
    for ext in extensions:  # mypyc writes a dotted group's headers one folder down and forgets to look there
        ext.include_dirs.append(str(BUILD / "c" / Path(*GROUP.split(".")[:-1])))
    setup(
        name="lean-gym-sim-compiled",
        ext_modules=extensions,
        script_args=[
            "build_ext",
            "--inplace",
            "--parallel=2",  # the small per-module extensions beside the large shared one
            f"--build-temp={BUILD / 'tmp'}",
            f"--build-lib={BUILD / 'lib'}",
        ],
    )


def copy_package(into: Path, compiled: bool, folders: tuple[str, ...] = ("lean_gym",)) -> Path:
    """This repository's ``folders`` copied into ``into``, built there when ``compiled``; returns ``into``.

    The copy holds no compiled extension; when ``compiled``, this script is copied beside it and run there
    (the benchmark's and the tests' pure and compiled trees of the same code).

    Raises:
        RuntimeError: when the build fails (it needs mypyc, a C compiler and Python's headers), with the
            end of the build's output.
    """
    skip = shutil.ignore_patterns("*.so", "__pycache__")
    for folder in folders:
        shutil.copytree(ROOT / folder, into / folder, ignore=skip)
    if compiled:
        (into / "scripts").mkdir(exist_ok=True)
        script = into / "scripts" / "compile_sim.py"
        shutil.copy2(Path(__file__), script)
        built = subprocess.run(
            [sys.executable, str(script)],
            cwd=into,
            capture_output=True,
            text=True,
            timeout=600,
            env=dict(os.environ, PYTHONPATH=str(into)),
        )
        if built.returncode != 0:
            raise RuntimeError(f"scripts/compile_sim.py failed in {into}:\n{built.stderr[-3000:]}")
    return into


def main(argv: list[str] | None = None) -> int:
    """Compile in place (or, with ``--clean``, remove the build); returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clean", action="store_true", help="remove the compiled extensions and build/mypyc")
    args = ap.parse_args(argv)
    os.chdir(ROOT)  # mypyc resolves the modules' paths from the working directory
    clean()  # a module dropped from MODULES, or a stale build, must not outlive this run
    if not args.clean:
        compile_in_place()
        print(f"compiled {len(MODULES)} modules: {len(built_files())} extensions in place", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
