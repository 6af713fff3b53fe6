"""An OS sandbox for every REPL process: bubblewrap, no network, a read-only view, one scratch directory.

On real Lean, elaboration runs arbitrary metaprograms; lean-gym's policy scan refuses the ones it knows
(``#eval``, ``run_cmd``, IO…), and this is the wall behind it. :class:`Sandbox` turns a command line into
a ``bwrap`` command line (bubblewrap, the Debian package ``bubblewrap``):

* every namespace unshared (``--unshare-all``): no network unless asked, its own PIDs, IPC and hostname;
* ``--cap-drop ALL``: lean-gym often runs as root (CI, containers), and bwrap as root keeps every
  capability unless told otherwise; with them, a sandboxed process re-mounted a read-only bind read-write
  and wrote the host file behind it (measured on this project's machine, research notes of issue 24);
* a file system built from nothing: ``/usr`` (and the ``/bin``, ``/lib`` links), ``/etc/ld.so.cache``,
  the paths given as ``read_only`` (the interpreter or toolchain, the workspace), all read-only; a fresh
  ``/tmp``, ``/dev`` and ``/proc``; one writable scratch directory, which is also ``HOME``. Nothing else of
  the host is there: no home directory, no secrets, no host UNIX sockets (``--ro-bind / /`` would let a
  process connect to any socket path on the host: measured, same notes);
* ``--clearenv``: only the variables named here reach the process;
* a seccomp filter (when the ``pyseccomp`` package and the system's ``libseccomp`` load) that makes
  ``socket()`` and ``socketpair()`` fail for every address family, and, unless ``processes=True``, makes creating a process
  fail (``fork``, ``vfork``, ``clone`` without ``CLONE_THREAD``, ``clone3``), while threads still work:
  a REPL needs neither, and a fork bomb gets nowhere. Also refused: ``ptrace``, the kernel keyring
  (``keyctl``, ``add_key``, ``request_key``: not namespaced), ``bpf``, ``userfaultfd``,
  ``perf_event_open`` and ``io_uring_setup``;
* ``--die-with-parent`` and ``--new-session``: killing the pool's process kills everything inside.

Memory is bounded outside the sandbox (``RLIMIT_AS`` through ``prlimit``, see :mod:`lean_gym.lean.repl`).

Example:
    >>> import sys
    >>> box = Sandbox.for_python(bwrap="/usr/bin/bwrap", seccomp=False)  # the path is not run here
    >>> launch = box.launch([sys.executable, "-m", "lean_gym.sim"], cwd=None, env={"LANG": "C.UTF-8"})
    >>> launch.argv[:2], "--cap-drop" in launch.argv, launch.argv[-2:]
    (['/usr/bin/bwrap', '--unshare-all'], True, ['-m', 'lean_gym.sim'])
    >>> launch.close()
"""

from __future__ import annotations

import errno
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lean_gym.lean.workspace import Workspace

from lean_gym.errors import ConfigError, MissingDependencyError

__all__ = [
    "PASS_ENV",
    "Launch",
    "Sandbox",
    "bwrap_path",
    "elan_home",
    "lean_paths",
    "lean_sandbox",
    "python_paths",
    "resolve_sandbox",
    "sandbox_works",
    "seccomp_available",
]

#: Variables passed into the sandbox from the caller's environment (when the caller gives none).
PASS_ENV: tuple[str, ...] = (
    "PATH", "LANG", "LC_ALL", "LEAN_PATH", "LEAN_SYSROOT", "LEAN_SRC_PATH", "LEAN_ABORT_ON_PANIC",
    "PYTHONHASHSEED", "PYTHONPATH",
)  # fmt: skip

_DENIED_SYSCALLS = (
    "ptrace", "keyctl", "add_key", "request_key", "bpf", "userfaultfd", "perf_event_open", "io_uring_setup",
)  # fmt: skip
_CLONE_THREAD = 0x00010000


def bwrap_path() -> str | None:
    """Where ``bwrap`` is, ``None`` when bubblewrap is not installed."""
    return shutil.which("bwrap")


def seccomp_available() -> bool:
    """True when a seccomp filter can be built here (``pyseccomp`` over the system's ``libseccomp``)."""
    try:
        import pyseccomp  # noqa: F401
    except (ImportError, OSError, RuntimeError):
        return False
    return True


def python_paths() -> tuple[str, ...]:
    """The read-only paths this Python needs inside a sandbox (its prefixes and lean-gym's own source)."""
    import lean_gym

    paths = {
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        str(Path(sys.executable).resolve().parent.parent),
        str(Path(lean_gym.__file__).resolve().parent.parent),
    }
    return tuple(sorted(p for p in paths if p and os.path.isdir(p)))


def elan_home() -> Path:
    """Elan's home (its toolchains and the ``lean``/``lake`` proxies): ``$ELAN_HOME`` or ``~/.elan``."""
    return Path(os.environ.get("ELAN_HOME", Path.home() / ".elan"))


def lean_paths(ws: Workspace) -> tuple[str, ...]:
    """The read-only paths real Lean needs inside a sandbox: the workspace and elan's home (toolchains)."""
    return tuple(str(p) for p in (ws.root, elan_home()) if p.exists())


def lean_sandbox(ws: Workspace, **kwargs: Any) -> Sandbox:
    """The sandbox of real Lean in ``ws``.

    The workspace and elan's home read-only, ``ELAN_HOME`` set, and processes allowed (``lake env`` starts
    the REPL); ``kwargs`` are other :class:`Sandbox` fields.
    """
    return Sandbox(
        read_only=lean_paths(ws), processes=True, setenv=(("ELAN_HOME", str(elan_home())),), **kwargs
    )


@functools.lru_cache(maxsize=1)
def sandbox_works() -> bool:
    """True when bubblewrap is installed and can make its namespaces here (probed once per process).

    Inside an unprivileged container, or where ``kernel.apparmor_restrict_unprivileged_userns=1``,
    ``bwrap`` is installed but cannot run; then the sandbox is not used by ``"auto"``.
    """
    if bwrap_path() is None:
        return False
    try:
        launch = Sandbox(seccomp=False).launch(["/usr/bin/true"], cwd=None, env={})
    except (OSError, ConfigError, MissingDependencyError):
        return False
    try:
        done = subprocess.run(launch.argv, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        launch.close()
    return done.returncode == 0


def resolve_sandbox(
    spec: bool | str | Sandbox | None, command: Sequence[str], cwd: str | os.PathLike[str] | None
) -> Sandbox | None:
    """The sandbox a ``sandbox=`` argument means for ``command`` run in ``cwd``.

    ``True`` and ``"auto"`` build one: for this Python (the simulator), :meth:`Sandbox.for_python`;
    otherwise the command's own directory and ``cwd``, read-only. ``"auto"`` is ``None`` where
    :func:`sandbox_works` is false; ``True`` then fails at the first start (bwrap's own message).

    Raises:
        ConfigError: for any other value.
    """
    if spec is None or spec is False:
        return None
    if isinstance(spec, Sandbox):
        return spec
    if spec not in (True, "auto"):
        raise ConfigError(f"sandbox must be True, False, 'auto' or a Sandbox, got {spec!r}")
    if spec == "auto" and not sandbox_works():
        return None
    exe = shutil.which(command[0]) or command[0]
    if os.path.realpath(exe) == os.path.realpath(sys.executable):
        return Sandbox.for_python(read_only=tuple(str(cwd) for cwd in (cwd,) if cwd))
    paths = {str(Path(os.path.realpath(exe)).parent)} | ({str(cwd)} if cwd else set())
    return Sandbox(read_only=tuple(sorted(p for p in paths if os.path.exists(p))))


@dataclass(frozen=True)
class Launch:
    """A sandboxed command ready for ``subprocess.Popen``.

    Attributes:
        argv: The ``bwrap …`` command line.
        env: The environment of ``bwrap`` itself (the process inside gets only what ``--setenv`` sets).
        pass_fds: File descriptors the child must inherit (the seccomp program).
        scratch: The writable directory, ``HOME`` inside.
        owns_scratch: The launch made the scratch directory and :meth:`close` removes it.
    """

    argv: list[str]
    env: dict[str, str]
    pass_fds: tuple[int, ...]
    scratch: Path
    owns_scratch: bool = False
    _fds: list[int] = field(default_factory=list, repr=False)

    def started(self) -> None:
        """Close this side's copy of the passed descriptors (call right after the child started)."""
        while self._fds:
            with _suppress_oserror():
                os.close(self._fds.pop())

    def close(self) -> None:
        """Release what the launch holds: its descriptors and, when it made it, the scratch directory."""
        self.started()
        if self.owns_scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)


class _suppress_oserror:
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, value: object, tb: object) -> bool:
        return isinstance(value, OSError)


@dataclass(frozen=True)
class Sandbox:
    """How to run a REPL process under bubblewrap (see the module docstring for what it shuts out).

    Attributes:
        read_only: Host paths visible, read-only, at the same place (the interpreter or the Lean toolchain,
            the workspace). ``/usr`` is always there.
        scratch: The one writable directory (``None``: a fresh one per process, removed when it stops).
        network: Keep the host's network (default: none at all).
        seccomp: Apply the seccomp filter (``None``: when :func:`seccomp_available`; ``True``: required).
        processes: Allow the process to create processes (``lake env`` does; the REPL itself does not).
        bwrap: The ``bwrap`` binary (``None``: found on ``PATH``).
        setenv: More variables set inside, as ``(name, value)`` pairs (e.g. ``ELAN_HOME``: inside,
            ``HOME`` is the scratch directory, so elan would not find its toolchains by ``~/.elan``).
    """

    read_only: tuple[str, ...] = ()
    scratch: str | None = None
    network: bool = False
    seccomp: bool | None = None
    processes: bool = False
    bwrap: str | None = None
    setenv: tuple[tuple[str, str], ...] = ()

    @classmethod
    def for_python(cls, *, read_only: Sequence[str] = (), **kwargs: bool | str | None) -> Sandbox:
        """A sandbox for a Python command of this interpreter (the simulator's REPL process).

        Args:
            read_only: More read-only paths, beside the interpreter's and lean-gym's.
            **kwargs: The other fields of :class:`Sandbox`.
        """
        return cls(read_only=python_paths() + tuple(read_only), **kwargs)  # type: ignore[arg-type]

    def binary(self) -> str:
        """The ``bwrap`` path.

        Raises:
            MissingDependencyError: bubblewrap is not installed (one line saying how to install it).
        """
        found = self.bwrap or bwrap_path()
        if not found:
            raise MissingDependencyError(
                "bubblewrap not found: the sandbox needs it (apt-get install bubblewrap), or pass sandbox=False"
            )
        return found

    def launch(
        self, command: Sequence[str], *, cwd: str | os.PathLike[str] | None, env: Mapping[str, str] | None
    ) -> Launch:
        """The sandboxed form of ``command`` run in ``cwd`` (which must be under a read-only path or the scratch).

        Args:
            command: The command line to run inside.
            cwd: Its working directory (``None``: the scratch directory).
            env: The variables it gets (``None``: :data:`PASS_ENV` from this process's environment);
                ``HOME`` and ``TMPDIR`` are always the scratch directory.

        Raises:
            MissingDependencyError: no ``bwrap``, or ``seccomp=True`` without ``pyseccomp``.
            ConfigError: a ``read_only`` path or the scratch directory that does not exist.
        """
        bwrap = self.binary()
        owns = self.scratch is None
        scratch = Path(tempfile.mkdtemp(prefix="lean-gym-box-")) if owns else Path(str(self.scratch))
        if not scratch.is_dir():
            raise ConfigError(f"sandbox scratch directory {scratch} does not exist")
        argv = [bwrap, "--unshare-all"]
        if self.network:
            argv.append("--share-net")
        argv += ["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv"]
        source = dict(os.environ) if env is None else dict(env)
        keep = PASS_ENV if env is None else tuple(source)
        for key in keep:
            if key in source and key not in ("HOME", "TMPDIR"):
                argv += ["--setenv", key, source[key]]
        if "PATH" not in source:
            argv += ["--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin"]
        argv += ["--setenv", "HOME", str(scratch), "--setenv", "TMPDIR", str(scratch)]
        for key, value in self.setenv:
            argv += ["--setenv", key, value]
        argv += ["--ro-bind", "/usr", "/usr"]
        for name in ("bin", "sbin", "lib", "lib32", "lib64"):
            host = Path("/") / name
            if host.is_symlink():
                argv += ["--symlink", os.readlink(host), str(host)]
            elif host.is_dir():
                argv += ["--ro-bind", str(host), str(host)]
        argv += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
        argv += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]  # before any bind under /tmp
        for path in self.read_only:
            if not os.path.exists(path):
                if owns:
                    shutil.rmtree(scratch, ignore_errors=True)
                raise ConfigError(f"sandbox read-only path {path} does not exist")
            real = os.path.realpath(path)
            argv += ["--ro-bind", real, real]
            if real != os.path.abspath(path):
                argv += ["--ro-bind", real, os.path.abspath(path)]
        argv += ["--bind", str(scratch), str(scratch)]
        argv += ["--remount-ro", "/"]  # the sandbox's own root too: only /tmp and the scratch take writes
        argv += ["--chdir", os.path.abspath(cwd) if cwd is not None else str(scratch)]
        fds: list[int] = []
        if self._wants_seccomp():
            fd = self._seccomp_fd()
            fds.append(fd)
            argv += ["--seccomp", str(fd)]
        argv += ["--", *command]
        return Launch(argv, dict(os.environ), tuple(fds), scratch, owns, fds)

    def _wants_seccomp(self) -> bool:
        if self.seccomp is False:
            return False
        if seccomp_available():
            return True
        if self.seccomp:
            raise MissingDependencyError(
                "the sandbox's seccomp filter needs pyseccomp and libseccomp: pip install pyseccomp "
                "(and apt-get install libseccomp2), or pass seccomp=None to go without it"
            )
        return False

    def _seccomp_fd(self) -> int:
        """A file descriptor, positioned at 0, holding the filter as a BPF program."""
        import pyseccomp as sc

        f = sc.SyscallFilter(defaction=sc.ALLOW)
        for call in ("socket", "socketpair"):  # every address family: no socket at all
            f.add_rule(sc.ERRNO(errno.EACCES), call)
        for call in _DENIED_SYSCALLS:
            f.add_rule(sc.ERRNO(errno.EPERM), call)
        if not self.processes:
            for call in ("fork", "vfork"):
                f.add_rule(sc.ERRNO(errno.EAGAIN), call)
            # a new thread passes CLONE_THREAD; a new process does not
            f.add_rule(sc.ERRNO(errno.EAGAIN), "clone", sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, 0))
            # clone3 takes its flags in memory a filter cannot read: ENOSYS makes libc fall back to clone
            f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
        with tempfile.TemporaryFile() as tmp:
            f.export_bpf(tmp)
            tmp.flush()
            fd = os.dup(tmp.fileno())
        os.lseek(fd, 0, os.SEEK_SET)
        return fd
