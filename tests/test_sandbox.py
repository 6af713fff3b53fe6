"""The bubblewrap sandbox, attacked from inside: files, secrets, network, sockets, processes, memory.

Each attack is a Python program run in the sandbox the REPL pool uses for the simulator's process
(:meth:`Sandbox.for_python`), printing what it managed; the assertions are about the host afterwards too.
Skipped, with the reason, where bubblewrap is not installed or cannot make namespaces here; the
seccomp-dependent parts also where ``pyseccomp`` is missing.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from lean_gym.backends.repl import ReplBackend, sim_command
from lean_gym.errors import ConfigError, MissingDependencyError
from lean_gym.lean.pool import tree_memory_mb
from lean_gym.lean.repl import _with_memory_limit
from lean_gym.lean.sandbox import Sandbox, resolve_sandbox, sandbox_works, seccomp_available

pytestmark = pytest.mark.skipif(
    not sandbox_works(), reason="bubblewrap is not installed or cannot create namespaces here"
)
needs_seccomp = pytest.mark.skipif(not seccomp_available(), reason="pyseccomp/libseccomp not available")


def _attack(
    tmp_path: Path, program: str, *, box: Sandbox | None = None, memory_mb: int | None = None
) -> dict:  # type: ignore[type-arg]
    """Run ``program`` inside the sandbox; it sets ``out`` (a dict), printed as JSON on the last line."""
    code_dir = tmp_path / "code"
    code_dir.mkdir(exist_ok=True)
    script = code_dir / "attack.py"
    script.write_text(
        "import json, os, sys\nout = {}\n"
        + textwrap.dedent(program)
        + "\nprint(json.dumps(out), flush=True)\n"
    )
    box = box or Sandbox.for_python(read_only=(str(code_dir),))
    launch = box.launch(
        [sys.executable, str(script)], cwd=None, env={"LANG": "C.UTF-8", "SECRET_TOKEN": "ok"}
    )
    argv, _ = _with_memory_limit(launch.argv, memory_mb)
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, pass_fds=launch.pass_fds)
    finally:
        launch.close()
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _try(expr: str, key: str) -> str:
    return textwrap.dedent(f"""
        try:
            {expr}
            out[{key!r}] = "ok"
        except BaseException as e:
            out[{key!r}] = type(e).__name__ + ": " + str(e)
    """)


def test_cannot_write_outside_its_scratch(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("host")
    repo = Path(__file__).resolve().parents[1]
    program = (
        _try(f"open({str(outside)!r}, 'w').write('hacked')", "tmp_file")
        + _try(f"open({str(repo / 'HACKED')!r}, 'w').write('x')", "repo")
        + _try("open('/usr/HACKED', 'w').write('x')", "usr")
        + _try("open('/etc/passwd', 'a').write('x')", "etc")
        + _try("open(os.path.join(os.environ['HOME'], 'fine.txt'), 'w').write('x')", "scratch")
        + _try("open('/tmp/fine.txt', 'w').write('x')", "own_tmp")
    )
    out = _attack(tmp_path, program)
    assert out["scratch"] == "ok" and out["own_tmp"] == "ok"
    for key in ("repo", "usr", "etc"):
        assert out[key] != "ok", key
    # /tmp inside is the sandbox's own tmpfs: the write may succeed there, never on the host's file
    assert outside.read_text() == "host" and not (repo / "HACKED").exists()


def test_cannot_read_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = tmp_path / "secret.key"
    secret.write_text("s3cr3t")
    repo = Path(__file__).resolve().parents[1]
    home = Path.home()
    monkeypatch.setenv("LEAN_GYM_TEST_SECRET", "s3cr3t")
    program = (
        _try(f"out['read'] = open({str(secret)!r}).read()", "secret")
        + _try(f"out['home'] = os.listdir({str(home)!r})", "home_dir")
        + "out['env'] = sorted(os.environ)\n"
        + f"out['parent'] = sorted(os.listdir({str(repo.parent)!r}))\n"
    )
    out = _attack(tmp_path, program, box=Sandbox.for_python(read_only=(str(tmp_path / "code"),)))
    assert out["secret"] != "ok" and "read" not in out
    # of the home directory only the bound interpreter's own folder may show (here pyenv's, under /root)
    bound = {
        Path(p).relative_to(home).parts[0]
        for p in Sandbox.for_python().read_only
        if Path(p).is_relative_to(home)
    }
    assert set(out.get("home", [])) <= bound
    assert "LEAN_GYM_TEST_SECRET" not in out["env"] and "SECRET_TOKEN" in out["env"]
    assert set(out["env"]) <= {"LANG", "SECRET_TOKEN", "PATH", "HOME", "TMPDIR", "LC_CTYPE", "PWD"}
    # beside lean-gym's own checkout, nothing of its parent folder (other checkouts, notes) is there
    assert set(out["parent"]) <= {repo.name}


def test_no_capabilities_and_no_remount(tmp_path: Path) -> None:
    program = textwrap.dedent("""
        status = open('/proc/self/status').read()
        out['cap_eff'] = status.split('CapEff:')[1].split()[0]
        import ctypes, ctypes.util
        libc = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6', use_errno=True)
        MS_REMOUNT, MS_BIND = 32, 4096
        rc = libc.mount(b'none', b'/usr', None, MS_REMOUNT | MS_BIND, None)
        out['remount'] = [rc, ctypes.get_errno()]
    """)
    out = _attack(tmp_path, program)
    assert out["cap_eff"] == "0000000000000000"
    assert out["remount"][0] == -1


def test_no_network(tmp_path: Path) -> None:
    program = textwrap.dedent("""
        import socket
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.settimeout(5)
            s.connect(('1.1.1.1', 80))
            out['connect'] = 'ok'
        except BaseException as e:
            out['connect'] = type(e).__name__ + ': ' + str(e)
        try:
            socket.getaddrinfo('example.com', 80)
            out['dns'] = 'ok'
        except BaseException as e:
            out['dns'] = type(e).__name__
    """)
    out = _attack(tmp_path, program)
    assert out["connect"] != "ok" and out["dns"] != "ok"


@needs_seccomp
def test_cannot_open_a_socket_or_reach_a_host_socket(tmp_path: Path) -> None:
    path = tmp_path / "host.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    accepted: list[bytes] = []

    def serve() -> None:
        listener.settimeout(30)
        try:
            conn, _ = listener.accept()
            accepted.append(conn.recv(100))
            conn.close()
        except OSError:
            pass

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    program = "import socket\n"
    for fam in ("AF_INET", "AF_INET6", "AF_UNIX", "AF_NETLINK", "AF_PACKET"):
        program += _try(
            f"socket.socket(socket.{fam}, socket.SOCK_DGRAM if '{fam}' != 'AF_PACKET' else socket.SOCK_RAW)",
            fam,
        )
    program += _try("socket.socketpair()", "socketpair")
    # the host's socket path, bound into the sandbox on purpose: still no connection
    program += _try(
        f"c = socket.socket(socket.AF_UNIX); c.connect({str(path)!r}); c.send(b'escaped')", "host_socket"
    )
    box = Sandbox.for_python(read_only=(str(tmp_path / "code"), str(tmp_path)))
    out = _attack(tmp_path, program, box=box)
    # The sandbox has exited: the host connects last, which wakes the listener (closing it would not wake
    # accept(), which then sat out its 30 s timeout). A connection from the sandbox would have been queued
    # first, so the first connection accepted must be the host's own.
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as host:
        host.connect(str(path))
        host.sendall(b"host")
        t.join(timeout=35)
    listener.close()
    for key in ("AF_INET", "AF_INET6", "AF_UNIX", "AF_NETLINK", "AF_PACKET", "socketpair", "host_socket"):
        assert out[key].startswith("PermissionError"), (key, out[key])
    assert accepted == [b"host"]


@needs_seccomp
def test_fork_bomb_gets_nowhere_but_threads_work(tmp_path: Path) -> None:
    program = textwrap.dedent("""
        import threading, subprocess
        n = 0
        for _ in range(50):
            try:
                pid = os.fork()
            except OSError as e:
                out['fork'] = type(e).__name__
                break
            if pid == 0:
                os._exit(0)
            n += 1
        out['forked'] = n
        try:
            subprocess.run(['/usr/bin/true'])
            out['spawn'] = 'ok'
        except OSError as e:
            out['spawn'] = type(e).__name__
        box = []
        t = threading.Thread(target=lambda: box.append(1)); t.start(); t.join()
        out['thread'] = box
    """)
    out = _attack(tmp_path, program)
    assert out["forked"] == 0 and out["fork"] == "BlockingIOError"
    assert out["spawn"] != "ok" and out["thread"] == [1]


def test_processes_are_confined_to_their_own_pid_namespace(tmp_path: Path) -> None:
    me = os.getpid()
    program = (
        _try(f"os.kill({me}, 0)", "kill_host")
        + "out['pids'] = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n"
    )
    out = _attack(tmp_path, program)
    assert out["kill_host"] != "ok" and max(out["pids"]) < 10  # bwrap, its init and the program


def test_memory_is_bounded_by_the_backstop(tmp_path: Path) -> None:
    program = _try("blob = bytearray(1024 * 1024 * 1024)", "alloc")
    out = _attack(tmp_path, program, memory_mb=512)
    assert out["alloc"].startswith("MemoryError")


# ---------------------------------------------------------------------------------- the pool's process
PROOFS = [
    "theorem t (x : Nat) : x + 0 = x := by simp",
    "theorem u (a b : Nat) : a + b = b + a := by omega",
    "theorem v : (2 : Nat) + 2 = 5 := by decide",
    "theorem w (p : Prop) : p := by sorry",
    "theorem z : 1 = 1 := by\n  bad_tactic",
]


def test_every_check_gets_its_verdict_in_the_sandbox() -> None:
    with ReplBackend(command=sim_command(), pool_size=1) as plain:
        expected = [(r.status, [m.data for m in r.messages]) for r in plain.check_batch(PROOFS)]
    with ReplBackend(command=sim_command(), pool_size=1, sandbox=True) as boxed:
        got = [(r.status, [m.data for m in r.messages]) for r in boxed.check_batch(PROOFS)]
        import psutil

        assert boxed.sandboxed
        pid = boxed.pool.pids[0]
        leaf = [pid, *(c.pid for c in psutil.Process(pid).children(recursive=True))][-1]
        assert os.readlink(f"/proc/{leaf}/ns/net") != os.readlink("/proc/self/ns/net")
    assert got == expected
    assert [s for s, _ in got] == ["proved", "proved", "error", "sorry", "error"]


def test_auto_and_switches() -> None:
    assert resolve_sandbox(None, sim_command(), None) is None
    assert resolve_sandbox(False, sim_command(), None) is None
    box = resolve_sandbox("auto", sim_command(), None)
    assert isinstance(box, Sandbox) and any(
        Path(sys.prefix).resolve().as_posix().startswith(p) for p in box.read_only
    )
    with pytest.raises(ConfigError, match="sandbox must be"):
        resolve_sandbox("yes", sim_command(), None)


def test_missing_bwrap_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(MissingDependencyError, match="apt-get install bubblewrap.*sandbox=False"):
        Sandbox().launch(["true"], cwd=None, env={})


def test_private_memory_is_below_resident_and_recycles() -> None:
    with ReplBackend(command=sim_command(), pool_size=1, max_private_mb=1.0) as b:
        b.check("theorem t (x : Nat) : x + 0 = x := by simp")
        rss, private = tree_memory_mb(os.getpid())
        assert 0 < private <= rss
        b.check("theorem t (x : Nat) : x + 0 = x := by simp")
        assert b.stats.recycles >= 1  # a Python process owns more than 1 MiB
    with ReplBackend(command=sim_command(), pool_size=1, max_private_mb=1e6) as b:
        b.check_batch(PROOFS[:2])
        assert b.stats.recycles == 0


def test_real_lean_sandbox_finds_elan_and_its_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside, HOME is the scratch: elan must be told where it lives, and see it, read-only."""
    from lean_gym.lean.sandbox import lean_sandbox
    from lean_gym.lean.workspace import Workspace

    elan = tmp_path / "elan"
    (elan / "toolchains").mkdir(parents=True)
    (tmp_path / "ws").mkdir()
    monkeypatch.setenv("ELAN_HOME", str(elan))
    box = lean_sandbox(Workspace(tmp_path / "ws"))
    assert box.processes and set(box.read_only) == {str(tmp_path / "ws"), str(elan)}
    program = (
        "out['elan'] = os.environ.get('ELAN_HOME')\n"
        + "out['toolchains'] = os.path.isdir(os.path.join(os.environ['ELAN_HOME'], 'toolchains'))\n"
        + _try("open(os.path.join(os.environ['ELAN_HOME'], 'x'), 'w')", "write_elan")
    )
    merged = Sandbox.for_python(read_only=(str(tmp_path / "code"), *box.read_only), setenv=box.setenv)
    out = _attack(tmp_path, program, box=merged)
    assert out["elan"] == str(elan) and out["toolchains"] is True and out["write_elan"] != "ok"
