"""Whether the simulator runs compiled (the opt-in mypyc build of issue 22), and mypyc's class options.

The simulator is pure Python. ``make compile-sim`` (``scripts/compile_sim.py``) compiles the aesop
search's modules with mypyc into extension modules beside the ``.py`` files, where Python's import system
prefers them; ``make clean-compiled`` removes them. A compiled function's calls do not count against
Python's recursion limit, so every recursion among compiled functions counts its own depth against
:data:`NATIVE_DEPTH` (``docs/simulator.md``, "Memo tables and speed"). Nothing here imports a module of the simulator: it looks at the files
the import system would pick, so it sits below every other module. :func:`mypyc_attr` is mypyc's decorator
of a class's options (a no-op without mypy installed): the few classes that must stay open to Python code
when compiled (subclassed, weakly referenced) say so with it.
"""

from __future__ import annotations

import warnings
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr
else:
    try:  # mypyc's options for a class (``@mypyc_attr(…)``): mypy, and with it mypy_extensions, is a dev tool
        from mypy_extensions import mypyc_attr
    except ImportError:  # an install without mypy runs pure Python, where the options mean nothing

        def mypyc_attr(*attrs, **kwattrs):
            return lambda cls: cls


__all__ = [
    "NATIVE_DEPTH",
    "TOO_DEEP",
    "compiled",
    "compiled_modules",
    "mypyc_attr",
    "stale_modules",
    "warn_if_stale",
]

#: The deepest a recursion among the compiled modules' functions may go: past it they raise ``RecursionError``,
#: which ``SimRepl.handle`` answers with Lean's ``maximum recursion depth`` error. Compiled, nothing else would
#: stop them before the C stack overflows and the process dies (mypyc does not count its calls against
#: Python's recursion limit: mypyc issue #582). Low enough that the pure build meets it before Python's limit
#: (each level costs the interpreter one or two frames, and a request's stack is some 30 to 100 frames deep
#: where these walks run), so that both builds stop at the same depth, whatever the stack below.
NATIVE_DEPTH: Final = 256
#: What a recursion past :data:`NATIVE_DEPTH` raises ``RecursionError`` with: the interpreter's own words, so
#: ``SimRepl.handle`` answers either alike.
TOO_DEEP: Final = "maximum recursion depth exceeded"

_SIM = Path(__file__).resolve().parent
#: The module whose form says whether the simulator runs compiled: the aesop search, where RL spends its time.
_MARKER = "aesop_search"


def _extension(source: Path) -> Path | None:
    """The extension module that the import system loads instead of ``source``, if there is one."""
    for suffix in EXTENSION_SUFFIXES:
        ext = source.with_name(source.stem + suffix)
        if ext.is_file():
            return ext
    return None


def _compiled_sources() -> list[tuple[str, Path, Path]]:
    """``(module name, source, extension)`` of every simulator module that loads from a compiled extension."""
    out: list[tuple[str, Path, Path]] = []
    for source in sorted(_SIM.rglob("*.py")):
        ext = _extension(source)
        if ext is not None:
            out.append(
                (".".join(("lean_gym", "sim", *source.relative_to(_SIM).with_suffix("").parts)), source, ext)
            )
    return out


def compiled_modules() -> list[str]:
    """The simulator's modules (``lean_gym.sim…``) that load from a compiled extension, by name."""
    return [name for name, _, _ in _compiled_sources()]


def compiled() -> bool:
    """Whether the simulator runs compiled: its search module loads from a mypyc extension.

    >>> isinstance(compiled(), bool)
    True
    """
    return _extension(_SIM / f"{_MARKER}.py") is not None


def stale_modules() -> list[str]:
    """The compiled modules whose ``.py`` changed after they were compiled: the extension, not the source,
    runs, until the build is redone (``make compile-sim``) or removed (``make clean-compiled``)."""
    return [name for name, source, ext in _compiled_sources() if source.stat().st_mtime > ext.stat().st_mtime]


def warn_if_stale() -> None:
    """Warn (``RuntimeWarning``) when a compiled module is older than its source: an edit would not run."""
    stale = stale_modules() if compiled() else []
    if stale:
        warnings.warn(
            f"the compiled simulator is older than its source ({', '.join(stale[:3])}"
            f"{', …' if len(stale) > 3 else ''}): the old code runs; run `make compile-sim` again or "
            "`make clean-compiled`",
            RuntimeWarning,
            stacklevel=2,
        )
