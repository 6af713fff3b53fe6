"""The replay tier: re-check an accepted submission's declarations with Lean's own kernel replay.

The oracle's verdict comes from the REPL process that elaborated the submission; a kernel bug reachable
from that process (lean4#14484 needed a metaprogram in the same process) would be accepted there. The
strict graders of the field (comparator, SafeVerify, LeanParanoia) therefore re-check the result in a
separate process. ``Oracle(replay=True)`` does that for every submission it would accept:

1. write ``Submission.lean`` (the dataset's header, then the submission) into a fresh scratch directory;
2. ``lake env lean -o Submission.olean Submission.lean`` in the workspace: the file elaborated again, in a
   new process, which writes the module's ``.olean``;
3. ``lake env leanchecker Submission`` with the scratch directory on ``LEAN_PATH``: ``leanchecker``, which
   ships with every Lean toolchain from v4.28.0 (release notes ``Manual/Releases/v4_28_0.lean``, "External
   Checker", lean4 PR #11887; the lean4checker repository says the same), replays every constant the module
   adds into the environment of its imports through the kernel (``Environment.replay``). It prints nothing
   and exits 0 when the kernel accepts; otherwise it prints ``leanchecker found a problem in Submission``
   and the kernel's error (``uncaught exception: (kernel) …``) and exits 1 (lean4 ``src/LeanChecker.lean``;
   recorded failures in lean4checker's ``Lean4CheckerTests/*.expected.out``).

A disagreement (the file does not compile, or the checker rejects) is its own hack class,
``replay_mismatch``; a checker that cannot run at all (no workspace, a timeout) makes the verdict
``crashed``, never a silent acceptance. Both steps run under the REPL's sandbox when bubblewrap works.

**Cost**: two more Lean processes per accepted submission, each importing the header (``import Mathlib``
takes about 5–10 s warm and about 100 s cold, and 5–6 GB resident; danromik/lean-optimizations README @
``c437b983``, Lean v4.33.1), plus the elaboration again. Hence off by default; turn it on for evaluation,
or for the episodes a cheaper grader flags.

Never run on real Lean here (no toolchain on this project's machines): the commands and the reading of
their output are tested against a fake ``lake`` that behaves as the sources above say.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from lean_gym.errors import ConfigError, WorkspaceNotFoundError
from lean_gym.lean.sandbox import PASS_ENV, Sandbox, lean_sandbox, sandbox_works
from lean_gym.lean.versions import at_least

__all__ = ["LEANCHECKER_SINCE", "LeanChecker", "ReplayResult", "Replayer"]

#: The first Lean release whose toolchain ships ``leanchecker``.
LEANCHECKER_SINCE = "v4.28.0"
_MODULE = "Submission"
_OUTPUT_CHARS = 4000


@dataclass(frozen=True)
class ReplayResult:
    """What the replay said about one submission.

    Attributes:
        agrees: ``True`` when the kernel replay accepts, ``False`` when it rejects (or the file does not
            compile), ``None`` when the replay could not run.
        detail: One line: the checker's first error, or why it could not run.
        elapsed_s: Wall time of the replay.
    """

    agrees: bool | None
    detail: str
    elapsed_s: float = 0.0


@runtime_checkable
class Replayer(Protocol):
    """Anything that replays an accepted submission in a separate process."""

    def replay(self, header: str, code: str) -> ReplayResult:
        """Replay ``code`` (a whole submission) under ``header``."""
        ...


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip() and not line.startswith(("Searching for modules", "Found ", "replaying ")):
            return line.strip()[:300]
    return ""


@dataclass
class LeanChecker:
    """The replay with ``lean -o`` and ``leanchecker`` in a Lean workspace (see the module docstring).

    Args:
        workspace: The workspace (default: found at the first replay, as the ``repl`` backend finds it).
        timeout: Seconds for each of the two steps.
        lake: The ``lake`` binary (default: on ``PATH`` or in ``~/.elan/bin``).
        sandbox: Run both steps under bubblewrap: ``"auto"`` (when it works here), ``True``, ``False``.
    """

    workspace: str | os.PathLike[str] | None = None
    timeout: float = 600.0
    lake: str | None = None
    sandbox: bool | str = "auto"

    def _root(self) -> Path:
        from lean_gym.lean.workspace import find_workspace

        ws = find_workspace(self.workspace, require_built=False)  # the REPL binary is not needed
        if at_least(ws.lean_version, LEANCHECKER_SINCE) is False:
            raise ConfigError(
                f"the replay tier needs leanchecker, which ships with Lean from {LEANCHECKER_SINCE}; "
                f"the workspace at {ws.root} is {ws.lean_version} (`lean-gym setup --lean v4.33.0-rc2`)"
            )
        return ws.root

    def commands(self, scratch: Path) -> list[list[str]]:
        """The two command lines a replay runs (in the workspace, with ``scratch`` on ``LEAN_PATH``)."""
        lake = self.lake or shutil.which("lake") or str(Path.home() / ".elan" / "bin" / "lake")
        src, olean = scratch / f"{_MODULE}.lean", scratch / f"{_MODULE}.olean"
        return [
            [lake, "env", "lean", "-o", str(olean), str(src)],
            [lake, "env", "leanchecker", _MODULE],
        ]

    def replay(self, header: str, code: str) -> ReplayResult:
        """Replay one submission; never raises for the checker's verdict or its faults."""
        t0 = time.perf_counter()
        try:
            root = self._root()
        except (WorkspaceNotFoundError, ConfigError) as e:
            return ReplayResult(None, str(e), time.perf_counter() - t0)
        with tempfile.TemporaryDirectory(prefix="lean-gym-replay-") as tmp:
            scratch = Path(tmp)
            text = header if not header or header.endswith("\n") else header + "\n"
            (scratch / f"{_MODULE}.lean").write_text(text + code, encoding="utf-8")
            env = dict(os.environ)
            env["LEAN_PATH"] = os.pathsep.join(p for p in (str(scratch), env.get("LEAN_PATH", "")) if p)
            box = self._box(root, scratch)
            for step, cmd in zip(("compile", "check"), self.commands(scratch)):
                outcome = self._run(cmd, root, env, box)
                if isinstance(outcome, str):
                    return ReplayResult(None, f"{step}: {outcome}", time.perf_counter() - t0)
                rc, out = outcome
                if rc != 0:
                    what = "the file does not compile" if step == "compile" else "leanchecker rejects it"
                    detail = f"{what}: {_first_line(out) or f'exit status {rc}'}"
                    return ReplayResult(False, detail, time.perf_counter() - t0)
        return ReplayResult(True, "leanchecker replayed every declaration", time.perf_counter() - t0)

    def _box(self, root: Path, scratch: Path) -> Sandbox | None:
        if self.sandbox is False or (self.sandbox == "auto" and not sandbox_works()):
            return None
        from lean_gym.lean.workspace import Workspace

        return lean_sandbox(Workspace(root), scratch=str(scratch))

    def _run(
        self, cmd: Sequence[str], root: Path, env: dict[str, str], box: Sandbox | None
    ) -> tuple[int, str] | str:
        argv, fds, run_env, cwd = list(cmd), (), env, str(root)
        launch = None
        if box is not None:
            launch = box.launch(cmd, cwd=root, env={k: env[k] for k in PASS_ENV if k in env})
            argv, fds, run_env, cwd = launch.argv, launch.pass_fds, launch.env, None  # type: ignore[assignment]
        try:
            done = subprocess.run(
                argv,
                cwd=cwd,
                env=run_env,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=self.timeout,
                pass_fds=fds,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return f"ran past {self.timeout:g} s"
        except OSError as e:
            return f"could not start {argv[0]!r}: {e}"
        finally:
            if launch is not None:
                launch.close()
        return done.returncode, (done.stdout + "\n" + done.stderr)[-_OUTPUT_CHARS:]
