"""Where the real Lean workspace is, whether it is built, and the command line that runs its REPL.

The process layer's part of the workspace (:mod:`lean_gym.workspace` builds it and reports what is missing):
the backends find the REPL here without knowing about ``lean-gym setup`` or ``doctor``.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from lean_gym.errors import WorkspaceNotFoundError
from lean_gym.lean.versions import DEFAULT_LEAN_VERSION, release

__all__ = [
    "ENV_VAR",
    "LEAN_VERSION",
    "WORKSPACES_ENV_VAR",
    "Workspace",
    "default_workspace_path",
    "find_workspace",
    "find_workspaces",
    "repl_command",
    "workspace_path",
    "workspaces_root",
]

#: The Lean release ``lean_workspace/`` is pinned to, the default of ``lean-gym setup`` (Mathlib and the
#: REPL have a tag for it; :mod:`lean_gym.lean.versions` says why this one).
LEAN_VERSION = DEFAULT_LEAN_VERSION
#: The environment variable naming a workspace elsewhere.
ENV_VAR = "LEAN_GYM_WORKSPACE"
#: The environment variable naming the folder of the per-version workspaces (``<root>/<version>/``).
WORKSPACES_ENV_VAR = "LEAN_GYM_WORKSPACES"


@dataclass(frozen=True)
class Workspace:
    """A Lean workspace on disk and the paths that show whether it is built."""

    root: Path

    @property
    def toolchain(self) -> str | None:
        """The ``lean-toolchain`` pin, ``None`` when the file is missing."""
        f = self.root / "lean-toolchain"
        return f.read_text().strip() if f.exists() else None

    @property
    def repl_binary(self) -> Path:
        """Where Lake builds the REPL binary."""
        return self.root / ".lake" / "packages" / "REPL" / ".lake" / "build" / "bin" / "repl"

    @property
    def mathlib_olean(self) -> Path:
        """Where Mathlib's prebuilt ``Mathlib.olean`` lands (``lake exe cache get``)."""
        return (
            self.root
            / ".lake"
            / "packages"
            / "mathlib"
            / ".lake"
            / "build"
            / "lib"
            / "lean"
            / "Mathlib.olean"
        )

    @property
    def manifest(self) -> Path:
        """Lake's manifest of the pinned dependencies."""
        return self.root / "lake-manifest.json"

    @property
    def is_built(self) -> bool:
        """True when the REPL binary and Mathlib's oleans are both present."""
        return self.repl_binary.exists() and self.mathlib_olean.exists()

    @property
    def lean_version(self) -> str | None:
        """The Lean release of the toolchain pin (``v4.33.0-rc2``), ``None`` without one."""
        pin = self.toolchain
        if not pin:
            return None
        return pin.rsplit(":", 1)[-1].strip() or None

    @property
    def mathlib_version(self) -> str | None:
        """Mathlib's tag (or commit) as Lake resolved it (``lake-manifest.json``), ``None`` when unknown."""
        try:
            data = json.loads(self.manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        for pkg in data.get("packages", []) if isinstance(data, dict) else []:
            if isinstance(pkg, dict) and pkg.get("name") == "mathlib":
                rev = pkg.get("inputRev") or pkg.get("rev")
                return str(rev) if rev else None
        return None

    @property
    def versions(self) -> dict[str, str]:
        """``{"lean": …, "mathlib": …}``, the components known (what every result of it is stamped with)."""
        out = {"lean": self.lean_version, "mathlib": self.mathlib_version}
        return {k: v for k, v in out.items() if v}


def default_workspace_path() -> Path:
    """Where the workspace lives: ``$LEAN_GYM_WORKSPACE``, the repository's ``lean_workspace/``, or a cache."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    repo = Path(__file__).resolve().parents[2] / "lean_workspace"
    if (repo / "lakefile.toml").exists():
        return repo
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return cache / "lean-gym" / "lean_workspace"


def workspaces_root() -> Path:
    """The folder of the per-version workspaces: ``$LEAN_GYM_WORKSPACES`` or ``~/.cache/lean-gym/workspaces``."""
    if os.environ.get(WORKSPACES_ENV_VAR):
        return Path(os.environ[WORKSPACES_ENV_VAR]).expanduser()
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return cache / "lean-gym" / "workspaces"


def workspace_path(lean_version: str | None = None) -> Path:
    """Where the workspace of ``lean_version`` lives.

    The default version's is :func:`default_workspace_path` (``lean_workspace/``); any other version's is
    ``<workspaces_root()>/<version>``, so versions sit side by side.

    Raises:
        ConfigError: for a version without a REPL tag and a Mathlib tag on record.
    """
    if lean_version is None:
        return default_workspace_path()
    version = release(lean_version).lean
    default = default_workspace_path()
    if version == DEFAULT_LEAN_VERSION or Workspace(default).lean_version == version:
        return default
    return workspaces_root() / version


def find_workspaces() -> list[Workspace]:
    """Every workspace lean-gym knows of: the default one and each ``<workspaces_root()>/<version>``."""
    seen: list[Workspace] = []
    candidates = [default_workspace_path()]
    root = workspaces_root()
    if root.is_dir():
        candidates += sorted(p for p in root.iterdir() if p.is_dir())
    for c in candidates:
        if (c / "lakefile.toml").exists() or (c / "lakefile.lean").exists():
            if all(w.root != c for w in seen):
                seen.append(Workspace(c))
    return seen


def find_workspace(
    path: str | os.PathLike[str] | None = None,
    *,
    require_built: bool = True,
    lean_version: str | None = None,
) -> Workspace:
    """The Lean workspace at ``path``, or the one of ``lean_version``, or the default one.

    Args:
        path: A workspace (or a user's own Lake project with the REPL as a dependency).
        require_built: Also require the REPL binary and Mathlib's oleans.
        lean_version: The Lean release wanted (see :func:`workspace_path`); with ``path`` too, the
            workspace's pin must be that release.

    Raises:
        WorkspaceNotFoundError: when there is none, it is not built and ``require_built``, or its pin is
            not ``lean_version``.
        ConfigError: for a ``lean_version`` without a REPL tag and a Mathlib tag on record.
    """
    if path is not None:
        root = Path(path).expanduser()
    else:
        root = workspace_path(lean_version)
    ws = Workspace(root)
    flag = "" if lean_version is None else f" --lean {release(lean_version).lean}"
    if not (root / "lakefile.toml").exists() and not (root / "lakefile.lean").exists():
        raise WorkspaceNotFoundError(
            f"no Lean workspace at {root} (no lakefile). Run `lean-gym setup{flag}` to create and build one, "
            "or `lean-gym doctor` to see what is missing."
        )
    if lean_version is not None and ws.lean_version != release(lean_version).lean:
        raise WorkspaceNotFoundError(
            f"the Lean workspace at {root} is pinned to {ws.lean_version or 'no version'}, not "
            f"{release(lean_version).lean}. Run `lean-gym setup --lean {release(lean_version).lean}`."
        )
    if require_built and not ws.is_built:
        raise WorkspaceNotFoundError(
            f"the Lean workspace at {root} is not built (REPL binary or Mathlib oleans missing). "
            f"Run `lean-gym setup{flag}`, "
            "or `lean-gym doctor` for details."
        )
    return ws


def repl_command(ws: Workspace) -> list[str]:
    """The command line that starts the REPL inside the workspace's environment (``LEAN_PATH`` set by Lake)."""
    lake = shutil.which("lake") or str(Path.home() / ".elan" / "bin" / "lake")
    return [lake, "env", str(ws.repl_binary)]
