"""Where the real Lean workspace is, whether it is built, and the command line that runs its REPL.

The process layer's part of the workspace (:mod:`lean_gym.workspace` builds it and reports what is missing):
the backends find the REPL here without knowing about ``lean-gym setup`` or ``doctor``.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from lean_gym.errors import WorkspaceNotFoundError

__all__ = ["ENV_VAR", "LEAN_VERSION", "Workspace", "default_workspace_path", "find_workspace", "repl_command"]

#: The Lean release ``lean_workspace/`` is pinned to (Mathlib and the REPL have a tag for it).
LEAN_VERSION = "v4.27.0"
#: The environment variable naming a workspace elsewhere.
ENV_VAR = "LEAN_GYM_WORKSPACE"


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


def default_workspace_path() -> Path:
    """Where the workspace lives: ``$LEAN_GYM_WORKSPACE``, the repository's ``lean_workspace/``, or a cache."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    repo = Path(__file__).resolve().parents[2] / "lean_workspace"
    if (repo / "lakefile.toml").exists():
        return repo
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return cache / "lean-gym" / "lean_workspace"


def find_workspace(path: str | os.PathLike[str] | None = None, *, require_built: bool = True) -> Workspace:
    """The Lean workspace at ``path`` (or the default location).

    Raises:
        WorkspaceNotFoundError: when there is none, or it is not built and ``require_built``.
    """
    root = Path(path).expanduser() if path is not None else default_workspace_path()
    ws = Workspace(root)
    if not (root / "lakefile.toml").exists() and not (root / "lakefile.lean").exists():
        raise WorkspaceNotFoundError(
            f"no Lean workspace at {root} (no lakefile). Run `lean-gym setup` to create and build one, "
            "or `lean-gym doctor` to see what is missing."
        )
    if require_built and not ws.is_built:
        raise WorkspaceNotFoundError(
            f"the Lean workspace at {root} is not built (REPL binary or Mathlib oleans missing). "
            "Run `lean-gym setup`, or `lean-gym doctor` for details."
        )
    return ws


def repl_command(ws: Workspace) -> list[str]:
    """The command line that starts the REPL inside the workspace's environment (``LEAN_PATH`` set by Lake)."""
    lake = shutil.which("lake") or str(Path.home() / ".elan" / "bin" / "lake")
    return [lake, "env", str(ws.repl_binary)]
