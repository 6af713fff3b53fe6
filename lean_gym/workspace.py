"""The real Lean workspace: where it is, whether it is built, how to build it, and what is missing.

``lean_workspace/`` is a Lake project pinned to the default Lean release (v4.33.0-rc2; the reason is in
:mod:`lean_gym.lean.versions`) that requires Mathlib and the leanprover-community REPL at their tags of
the same name. ``lean-gym setup --lean vX.Y.Z`` builds the workspace of any release in
:data:`~lean_gym.lean.versions.RELEASES` beside it (``~/.cache/lean-gym/workspaces/vX.Y.Z``, or
``$LEAN_GYM_WORKSPACES/vX.Y.Z``) and refuses, before any work, a version without both tags. :func:`setup`
needs internet (elan, the toolchain, ``lake exe cache get`` for Mathlib's prebuilt oleans, the REPL
binary); :func:`doctor` reports, line by line, what is present and what is missing, how to fix each
piece, and every workspace it knows with its versions.

Finding a workspace and its REPL command live in :mod:`lean_gym.lean.workspace` (the process layer,
which the backends use); they are importable from here too.

The paths follow Lake's layout (``.lake/packages/<dep>/.lake/build/...``). None of this has been run
against a real toolchain in lean-gym's own CI, which has no internet: the tests cover the detection logic on
fake workspace trees and the commands that would run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lean_gym.errors import ConfigError
from lean_gym.lean.versions import DEFAULT_LEAN_VERSION, RELEASES, LeanRelease, release
from lean_gym.lean.workspace import (
    ENV_VAR,
    LEAN_VERSION,
    Workspace,
    default_workspace_path,
    find_workspace,
    find_workspaces,
    repl_command,
    workspace_path,
)

__all__ = [
    "ENV_VAR",
    "LEAN_VERSION",
    "WORKSPACE_FILES",
    "Check",
    "Workspace",
    "default_workspace_path",
    "doctor",
    "find_workspace",
    "repl_command",
    "setup",
    "workspace_files",
]


def workspace_files(lean: LeanRelease) -> dict[str, str]:
    """The files of ``lean``'s workspace: its toolchain pin, and Mathlib and the REPL at its tags."""
    return {
        "lean-toolchain": f"{lean.toolchain}\n",
        "lakefile.toml": f"""name = "lean_gym_workspace"
version = "0.1.0"
defaultTargets = ["LeanGymWorkspace"]

# Pinned so that Lean, Mathlib, Aesop and the REPL all agree: each tags one release per Lean version.
[[require]]
name = "mathlib"
git = "https://github.com/leanprover-community/mathlib4"
rev = "{lean.mathlib}"

[[require]]
name = "REPL"
git = "https://github.com/leanprover-community/repl"
rev = "{lean.lean}"

[[lean_lib]]
name = "LeanGymWorkspace"
""",
        "LeanGymWorkspace.lean": "import LeanGymWorkspace.Basic\n",
        "LeanGymWorkspace/Basic.lean": """import Mathlib
import Aesop

/-! The smoke check `lean-gym doctor` runs once everything is built. -/

theorem lean_gym_smoke (a b : ℕ) : a + b = b + a := by
  omega
""",
    }


#: The files of the default workspace, written by ``lean-gym setup`` where the repository's
#: ``lean_workspace/`` is not at hand (a wheel install); a test checks they equal the repository's copies.
WORKSPACE_FILES: dict[str, str] = workspace_files(release(DEFAULT_LEAN_VERSION))

SMOKE_CODE = "theorem lean_gym_doctor_smoke (x : ℝ) (h : 0 < x) : 0 < x ^ 2 + x := by positivity"
SMOKE_HEADER = "import Mathlib\nimport Aesop"


# ------------------------------------------------------------------------------------------------ doctor


@dataclass(frozen=True)
class Check:
    """One line of the doctor's report."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    skipped: bool = False  # not run (``ok`` is then False): the report says SKIP, not FAIL
    advisory: bool = False  # information, not a requirement of real Lean: the report says WARN, not MISSING


def _tool_version(tool: str, runner: Callable[[Sequence[str]], str | None]) -> str | None:
    exe = shutil.which(tool) or (
        str(Path.home() / ".elan" / "bin" / tool) if tool in ("elan", "lean", "lake") else None
    )
    if exe is None or not Path(exe).exists():
        return None
    return runner([exe, "--version"])


def _run_version(cmd: Sequence[str]) -> str | None:
    try:
        out = subprocess.run(list(cmd), capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (out.stdout or out.stderr).strip().splitlines()
    return text[0] if out.returncode == 0 and text else None


def doctor(
    path: str | os.PathLike[str] | None = None,
    *,
    smoke: bool = True,
    runner: Callable[[Sequence[str]], str | None] = _run_version,
) -> list[Check]:
    """Check, line by line, everything real Lean needs; run a smoke check when all of it is there.

    Args:
        path: The workspace to inspect (default location otherwise).
        smoke: Run one real check through the REPL when everything is present.
        runner: How to run ``tool --version`` (injectable for tests).

    Returns:
        One :class:`Check` per item, in order: elan, lean, lake, workspace, toolchain pin, Mathlib oleans,
        REPL binary, smoke check, and (always) the simulator.
    """
    root = Path(path).expanduser() if path is not None else default_workspace_path()
    ws = Workspace(root)
    checks: list[Check] = []
    elan = _tool_version("elan", runner)
    checks.append(
        Check(
            "elan",
            elan is not None,
            elan or "not found on PATH or in ~/.elan/bin",
            "install it: curl https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh -sSf | "
            "sh -s -- -y --default-toolchain none   (then open a new shell, or add ~/.elan/bin to PATH)",
        )
    )
    lean = _tool_version("lean", runner)
    checks.append(
        Check(
            "lean",
            lean is not None,
            lean or "not found",
            f"`lean-gym setup` installs the pinned toolchain ({LEAN_VERSION}) through elan",
        )
    )
    lake = _tool_version("lake", runner)
    checks.append(
        Check(
            "lake", lake is not None, lake or "not found", "comes with the Lean toolchain: `lean-gym setup`"
        )
    )
    has_lakefile = (root / "lakefile.toml").exists() or (root / "lakefile.lean").exists()
    checks.append(
        Check(
            "workspace",
            has_lakefile,
            str(root) if has_lakefile else f"no lakefile at {root}",
            "run `lean-gym setup` (it writes and builds the workspace)",
        )
    )
    checks.append(_pin_check(ws))
    checks.append(
        Check(
            "Mathlib oleans",
            ws.mathlib_olean.exists(),
            str(ws.mathlib_olean) if ws.mathlib_olean.exists() else "not downloaded",
            f"cd {root} && lake exe cache get   (downloads prebuilt Mathlib, ~5 GB)",
        )
    )
    checks.append(
        Check(
            "REPL binary",
            ws.repl_binary.exists(),
            str(ws.repl_binary) if ws.repl_binary.exists() else "not built",
            f"cd {root} && lake build repl",
        )
    )
    checks.append(_workspaces_check())
    checks.append(_sandbox_check())
    if all(c.ok or c.advisory for c in checks) and smoke:
        checks.append(_smoke(ws))
    elif smoke:
        checks.append(
            Check(
                "smoke check",
                False,
                "skipped: fix the lines above first",
                "then run `lean-gym doctor` again",
                skipped=True,
            )
        )
    checks.append(_sim_check())
    return checks


def _pin_check(ws: Workspace) -> Check:
    pin, version = ws.toolchain, ws.lean_version
    fix = (
        f"a Lean release with a REPL tag and a Mathlib tag: `lean-gym setup --lean {DEFAULT_LEAN_VERSION} --force` "
        f"(or another of {', '.join(r.lean for r in RELEASES)})"
    )
    if pin is None or version is None:
        return Check("toolchain pin", False, "no lean-toolchain file", fix)
    try:
        rel = release(version)
    except ConfigError:
        return Check("toolchain pin", False, f"{pin}: not a release lean-gym has the tags of", fix)
    mathlib = ws.mathlib_version or "not resolved yet"
    detail = f"{pin}, Mathlib {mathlib}, SATP layout {rel.satp_layout}"
    if rel.lean != DEFAULT_LEAN_VERSION:
        detail += f" (not the default {DEFAULT_LEAN_VERSION}: {rel.note})"
    return Check("toolchain pin", True, detail)


def _workspaces_check() -> Check:
    found = find_workspaces()
    if not found:
        return Check("workspaces", True, "none yet", advisory=True)
    parts = [f"{w.lean_version or '?'} at {w.root} ({'built' if w.is_built else 'not built'})" for w in found]
    return Check("workspaces", True, "; ".join(parts), advisory=True)


def _sandbox_check() -> Check:
    from lean_gym.lean.sandbox import bwrap_path, sandbox_works, seccomp_available

    where = bwrap_path()
    if where is None:
        return Check(
            "sandbox",
            False,
            "bubblewrap not found: Lean processes run without an OS sandbox",
            "install it: apt-get install bubblewrap (and pip install pyseccomp for the socket/process filter)",
            advisory=True,
        )
    if not sandbox_works():
        return Check(
            "sandbox",
            False,
            f"{where} cannot create namespaces here (an unprivileged container?): no OS sandbox",
            "run the container with user namespaces allowed, or let the container be the sandbox",
            advisory=True,
        )
    seccomp = "with" if seccomp_available() else "without (pip install pyseccomp)"
    return Check("sandbox", True, f"bubblewrap at {where}, {seccomp} the seccomp filter", advisory=True)


def _smoke(ws: Workspace) -> Check:
    from lean_gym.backends.repl import ReplBackend

    boxed = False
    try:
        # the backend `repl` builds, so the check runs as checks will: sandboxed where bubblewrap works
        backend = ReplBackend.lean(workspace=ws.root, pool_size=1, timeout=300, memory_limit_mb=None)
        boxed = backend.sandboxed
        try:
            res = backend.check(SMOKE_CODE, header=SMOKE_HEADER)
        finally:
            backend.close()
    except Exception as e:
        return Check(
            "smoke check",
            False,
            f"{type(e).__name__}: {e}",
            "see the message; `lean-gym setup --force` rebuilds"
            + ("; if only the sandbox fails, pass sandbox=False and report it" if boxed else ""),
        )
    ok = res.status == "proved"
    where = "on real Lean, in the sandbox" if boxed else "on real Lean"
    fix = res.messages_text(400) + ("\n(sandboxed: try sandbox=False to tell the two apart)" if boxed else "")
    return Check("smoke check", ok, f"{res.status} in {res.elapsed_s:.1f} s {where}", "" if ok else fix)


def _sim_check() -> Check:
    try:
        from lean_gym.backends.sim import SimBackend

        res = SimBackend().check("theorem doctor_sim (x : ℕ) : x + 0 = x := by simp", header="import Mathlib")
        ok = res.status == "proved"
        detail = f"built-in simulator answers ({res.status}); used when no Lean is set up (not Lean)"
    except Exception as e:
        ok, detail = False, f"{type(e).__name__}: {e}"
    return Check("simulator", ok, detail, "reinstall lean-gym: pip install -e .")


def format_report(checks: Sequence[Check]) -> str:
    """The doctor's report as text: one line per check, with the fix under each missing piece."""
    lines = []
    for c in checks:
        if c.ok:
            mark = "ok  "
        elif c.advisory:
            mark = "WARN"
        elif c.skipped:
            mark = "SKIP"
        else:
            mark = "MISSING" if c.name not in ("smoke check", "simulator") else "FAIL"
        lines.append(f"[{mark:^7}] {c.name:<15} {c.detail}")
        if not c.ok and c.fix:
            lines.append(f"{'':10}{'':15} fix: {c.fix}")
    real = [c for c in checks if c.name != "simulator" and not c.advisory]
    if all(c.ok for c in real):
        lines.append("Real Lean is ready: backend='auto' will use it.")
        lines.append(
            "First run `lean-gym selftest --backend repl`: it holds this install to Lean's recorded behaviour "
            "(attach its --json output to a bug report)."
        )
    else:
        lines.append(
            "Real Lean is not ready: backend='auto' falls back to the simulator (results say backend='sim')."
        )
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------ setup


ELAN_INIT_URL = "https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh"


def setup_steps(root: Path) -> list[tuple[str, list[str]]]:
    """The commands ``lean-gym setup`` runs, in order (shown by ``--dry-run``)."""
    elan_bin = Path.home() / ".elan" / "bin"
    lake = shutil.which("lake") or str(elan_bin / "lake")
    steps: list[tuple[str, list[str]]] = []
    if shutil.which("elan") is None and not (elan_bin / "elan").exists():
        # two steps, each one program, so that a failed download is seen as such (in `curl … | sh` the
        # pipeline's status is sh's, which succeeds on an empty script)
        script = str(root / ".elan-init.sh")
        steps.append(("download elan's installer", ["curl", "-fsSL", "-o", script, ELAN_INIT_URL]))
        steps.append(("install elan", ["sh", script, "-y", "--default-toolchain", "none"]))
    steps += [
        ("resolve dependencies (Mathlib, REPL)", [lake, "update"]),
        ("download Mathlib's prebuilt oleans", [lake, "exe", "cache", "get"]),
        ("build the workspace", [lake, "build"]),
        ("build the REPL binary", [lake, "build", "repl"]),
    ]
    return steps


def write_workspace(root: Path, *, force: bool = False, lean: LeanRelease | None = None) -> list[Path]:
    """Write the files of ``lean``'s workspace (default release) into ``root``, keeping existing ones unless ``force``."""
    written = []
    files = WORKSPACE_FILES if lean is None else workspace_files(lean)
    for rel, text in files.items():
        f = root / rel
        if f.exists() and not force:
            continue
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text, encoding="utf-8")
        written.append(f)
    return written


def setup(
    path: str | os.PathLike[str] | None = None,
    *,
    dry_run: bool = False,
    force: bool = False,
    echo: Callable[[str], None] = print,
    lean: str | None = None,
) -> int:
    """Create and build the workspace of one Lean release. Needs internet (GitHub, the Mathlib cache).

    Args:
        path: Where (default: the release's own folder, :func:`~lean_gym.lean.workspace.workspace_path`).
        dry_run: Print the steps, run nothing, write nothing.
        force: Rewrite the workspace files (and re-pin a workspace of another release).
        echo: Where progress lines go.
        lean: The Lean release (default :data:`~lean_gym.lean.versions.DEFAULT_LEAN_VERSION`); it must
            have a REPL tag and a Mathlib tag on record.

    Returns:
        0 on success, else the exit status of the step that failed (its name is echoed).

    Raises:
        ConfigError: before any work, for a release without both tags, or a workspace at ``path`` pinned
            to another release (without ``force``).
    """
    rel = release(lean or DEFAULT_LEAN_VERSION)
    root = Path(path).expanduser() if path is not None else workspace_path(rel.lean)
    pinned = Workspace(root).lean_version
    if pinned is not None and pinned != rel.lean and not force:
        raise ConfigError(
            f"the workspace at {root} is pinned to {pinned}, not {rel.lean}: pass --force to re-pin it, "
            "or --workspace for another folder"
        )
    echo(
        f"Lean {rel.lean}: REPL {rel.repl_commit[:12]}, Mathlib {rel.mathlib_commit[:12]} (their {rel.lean} tags)"
    )
    if dry_run:
        echo(f"(dry run) would write the workspace files into {root}")
    else:
        root.mkdir(parents=True, exist_ok=True)
        for f in write_workspace(root, force=force, lean=rel):
            echo(f"wrote {f}")
    env = dict(os.environ)
    env["PATH"] = f"{Path.home() / '.elan' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    for name, cmd in setup_steps(root):
        echo(f"==> {name}: {' '.join(cmd)}  (in {root})")
        if dry_run:
            continue
        try:
            code = subprocess.call(cmd, cwd=root, env=env)
        except OSError as e:
            echo(
                f"setup failed at '{name}': {e}. Is there internet access? `lean-gym doctor` shows what is missing."
            )
            return 127
        if code != 0:
            echo(f"setup failed at '{name}' (exit status {code}). `lean-gym doctor` shows what is missing.")
            return code
    if not dry_run:
        echo("done. Run `lean-gym doctor` to check the workspace with a real Lean smoke check.")
    return 0


if __name__ == "__main__":  # pragma: no cover
    print(format_report(doctor()))
    sys.exit(0)
