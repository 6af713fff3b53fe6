"""Write the API reference of lean-gym's public modules from their docstrings (``make docs``).

Usage: ``python scripts/api_docs.py [OUTPUT_DIR]`` (default ``build/api``, git-ignored). Uses pdoc
(Google-style docstrings). Exit status 1 when pdoc warns about anything (a name in ``__all__`` that does
not resolve, an annotation it cannot read, a bad docstring reference): ``tests/test_api_docs.py`` runs it.

Names that packages import lazily (``lean_gym.backends.SimBackend``, the recording wrappers, the DPO
policy) are resolved first, so the reference documents them where users import them from.
"""

from __future__ import annotations

import importlib
import re
import sys
import warnings
from pathlib import Path

#: The packages documented, with every public submodule (private ``_`` modules are left out).
PACKAGES = ("lean_gym", "lean_gym_agents")
#: Packages documented by their own page only: the simulator's internals are not an API (its modules are
#: split and documented by the simulator's own issue).
SHALLOW = ("lean_gym.sim",)


def public_modules() -> list[str]:
    """Every public module of :data:`PACKAGES`, by name (pdoc renders exactly these)."""
    import pkgutil

    names: list[str] = []
    for package in PACKAGES:
        root = importlib.import_module(package)
        names.append(package)
        for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
            parts = info.name.split(".")
            if any(p.startswith("_") for p in parts[1:]):
                continue
            if any(info.name.startswith(f"{s}.") for s in SHALLOW):
                continue
            names.append(info.name)
    return names


def _resolve_lazy_names(names: list[str]) -> None:
    """Put every lazily provided name of ``__all__`` into its module's namespace, where pdoc looks."""
    for mod in (importlib.import_module(n) for n in names):
        for name in getattr(mod, "__all__", ()):
            if name not in vars(mod):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)  # the deprecated homes still document
                    value = getattr(mod, name)
                vars(mod)[name] = value


def _specs(names: list[str]) -> list[str]:
    """The module specs to give pdoc: each public module once.

    pdoc walks a spec's submodules itself, except those a package's ``__all__`` leaves out; a module that an
    earlier spec's walk reached is not given again, and ``!`` patterns leave out the private and shallow ones.
    """
    from pdoc import extract

    skip = [r"!.*\._", *(rf"!{re.escape(m)}\..*" for m in SHALLOW)]
    reached: set[str] = set()
    specs: list[str] = []
    for name in names:
        if name in reached:
            continue
        specs.append(name)
        reached.update(extract.walk_specs([name, *skip]))
    return [*specs, *skip]


def build(output: Path) -> list[str]:
    """Write the reference under ``output``; returns pdoc's warnings (empty when there were none)."""
    import pdoc
    import pdoc.render

    names = public_modules()
    _resolve_lazy_names(names)
    pdoc.render.configure(docformat="google", show_source=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(*_specs(names), output_directory=output)
    return [
        f"{w.category.__name__}: {w.message}" for w in caught if not _inherited_typeddict_key(str(w.message))
    ]


def _inherited_typeddict_key(message: str) -> bool:
    """Pdoc's note on a key a ``TypedDict`` inherits (``HackableStepInfo`` from ``ProofStepInfo``).

    A ``TypedDict`` keeps no bases at run time, so pdoc cannot say where an inherited key comes from; the key
    is documented on the base. Only that note, and only for ``TypedDict`` classes, is not a warning here.
    """
    m = re.match(r"Cannot determine where ([\w.]+)\.(\w+)\.\w+ is taken from", message)
    if m is None:
        return False
    cls = getattr(importlib.import_module(m.group(1)), m.group(2), None)
    return isinstance(cls, type) and hasattr(cls, "__required_keys__")


def main(argv: list[str]) -> int:
    """Build the reference; print pdoc's warnings and the path of the index."""
    output = Path(argv[0]) if argv else Path("build") / "api"
    problems = build(output)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"api docs: {output / 'index.html'} ({len(problems)} warnings)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
