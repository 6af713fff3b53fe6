"""The full miniF2F is fetched, not shipped: ``lean-gym data fetch minif2f``, then found by name (issue 19).

Offline: a local HTTP server on 127.0.0.1 (and ``file://`` URLs) stands for GitHub; a hash mismatch and a
failed connection are one clear line each, and a dataset that was never fetched is found missing at once,
without a network attempt.
"""

from __future__ import annotations

import hashlib
import json
import threading
import urllib.request
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from lean_gym.cli import main
from lean_gym.data import MINIF2F_SAMPLE, load_theorems, remote
from lean_gym.data.remote import REMOTE_DATASETS, RemoteDataset, dataset_path, fetch_dataset
from lean_gym.errors import DatasetNotFoundError, DownloadError

SAMPLE = Path(MINIF2F_SAMPLE).read_bytes()
SHARED_MINIF2F = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "minif2f.jsonl"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 serving ``tmp_path/www``; yields its base URL."""
    www = tmp_path / "www"
    www.mkdir()
    (www / "minif2f.jsonl").write_bytes(SAMPLE)
    (www / "altered.jsonl").write_bytes(SAMPLE.replace(b"theorem", b"lemma", 1))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(www)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user cache, and no ../shared: what a user's machine has before the fetch."""
    d = tmp_path / "cache"
    monkeypatch.setenv("LEAN_GYM_DATA", str(d))
    monkeypatch.setattr(remote, "_SHARED_DATA", tmp_path / "no-shared")
    return d


def _pin(monkeypatch: pytest.MonkeyPatch, url: str, data: bytes = SAMPLE) -> None:
    """Point the dataset `minif2f` at ``url``, pinned to the hash of ``data`` (the sample stands for it)."""
    real = REMOTE_DATASETS["minif2f"]
    fake = RemoteDataset(
        "minif2f", url, hashlib.sha256(data).hexdigest(), real.filename, len(data), real.describes
    )
    monkeypatch.setitem(REMOTE_DATASETS, "minif2f", fake)


def _no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []

    def refuse(url: object, *a: object, **k: object) -> None:
        calls.append(str(url))
        raise AssertionError("a download was tried")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    return calls


@pytest.mark.shared
def test_the_pinned_hash_is_that_of_the_full_file() -> None:
    ds = REMOTE_DATASETS["minif2f"]
    assert ds.url.endswith("/2c4ba9119eef74d0d611f494261b2c5bae98c69a/datasets/minif2f.jsonl")
    assert ds.url.startswith("https://raw.githubusercontent.com/deepseek-ai/DeepSeek-Prover-V1.5/")
    if not SHARED_MINIF2F.is_file():
        pytest.skip(f"{SHARED_MINIF2F} not found: the hash cross-check is extra")
    data = SHARED_MINIF2F.read_bytes()
    assert hashlib.sha256(data).hexdigest() == ds.sha256 and len(data) == ds.size


def test_fetch_over_http_then_every_reader_finds_it_by_name(
    server: str,
    cache: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _pin(monkeypatch, f"{server}/minif2f.jsonl")
    assert main(["data", "fetch", "minif2f"]) == 0
    out = capsys.readouterr()
    assert out.out.strip() == str(cache / "minif2f.jsonl") and "downloading minif2f" in out.err
    assert (cache / "minif2f.jsonl").read_bytes() == SAMPLE
    calls = _no_network(monkeypatch)  # from here on, nothing downloads
    assert dataset_path("minif2f") == cache / "minif2f.jsonl"
    assert [t.name for t in load_theorems("minif2f", split="test")] == [
        t.name for t in load_theorems(MINIF2F_SAMPLE, split="test")
    ]
    assert fetch_dataset("minif2f") == cache / "minif2f.jsonl"  # already there and verified: no download
    cands = tmp_path / "cands.jsonl"
    name = load_theorems("minif2f", split="test")[0].name
    cands.write_text(json.dumps({"name": name, "proof": "  sorry"}) + "\n", encoding="utf-8")
    assert (
        main(["eval", str(cands), "--dataset", "minif2f", "--split", "test", "--backend", "sim", "--quiet"])
        == 0
    )
    assert "split test: 4 problems" in capsys.readouterr().out
    assert calls == []


def test_a_file_url_works_as_a_mirror(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _pin(monkeypatch, "https://example.invalid/never-used")
    got = fetch_dataset("minif2f", url=Path(MINIF2F_SAMPLE).as_uri())
    assert got.read_bytes() == SAMPLE


def test_a_hash_mismatch_saves_nothing_and_is_one_line(
    server: str, cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _pin(monkeypatch, f"{server}/altered.jsonl")
    with pytest.raises(
        DownloadError, match="has SHA-256 [0-9a-f]{64}, not minif2f's [0-9a-f]{64}; nothing was saved"
    ):
        fetch_dataset("minif2f")
    assert not (cache / "minif2f.jsonl").exists() and list(cache.iterdir()) == []  # no temp file left either
    assert main(["data", "fetch", "minif2f"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and err[0].startswith("downloading") and "nothing was saved" in err[1]


def test_a_failed_connection_is_one_line_and_no_retry(
    cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    _pin(monkeypatch, f"http://127.0.0.1:{port}/minif2f.jsonl")
    with pytest.raises(
        DownloadError, match=r"could not download minif2f from http://127\.0\.0\.1:\d+/minif2f\.jsonl: "
    ):
        fetch_dataset("minif2f")
    assert main(["data", "fetch", "minif2f"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and err[1].startswith("lean-gym data: could not download minif2f")
    assert not (cache / "minif2f.jsonl").exists()


def test_not_fetched_is_found_at_once_with_the_command_to_run(
    cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = _no_network(monkeypatch)
    with pytest.raises(DatasetNotFoundError, match=r"run `lean-gym data fetch minif2f`"):
        load_theorems("minif2f")
    cands = tmp_path / "c.jsonl"
    cands.write_text('{"name": "x", "proof": "  simp"}\n', encoding="utf-8")
    assert main(["eval", str(cands), "--dataset", "minif2f", "--split", "test", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "minif2f is not downloaded: run `lean-gym data fetch minif2f`" in err[0]
    assert calls == []


def test_a_near_miss_of_a_known_name_gets_a_did_you_mean(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _no_network(monkeypatch)
    with pytest.raises(DatasetNotFoundError, match="did you mean 'minif2f'"):
        load_theorems("minif2ff")
    with pytest.raises(DatasetNotFoundError, match="did you mean 'minif2f-sample'"):
        load_theorems("minif2f_sample")
    assert len(load_theorems("minif2f-sample")) == 8 and calls == []


@pytest.mark.shared
def test_the_shared_copy_is_used_when_nothing_was_fetched(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("LEAN_GYM_DATA", str(tmp_path / "empty-cache"))
    if not SHARED_MINIF2F.is_file():
        pytest.skip("../shared/data/minif2f.jsonl is extra")
    assert dataset_path("minif2f") == SHARED_MINIF2F.resolve() or dataset_path("minif2f") == SHARED_MINIF2F
    assert len(load_theorems("minif2f")) == 488


def test_satp_loop_says_where_to_get_minif2f_before_any_work(
    cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util
    import sys

    pytest.importorskip("lean_gym_agents")
    path = Path(__file__).resolve().parents[1] / "examples" / "satp_loop.py"
    spec = importlib.util.spec_from_file_location("satp_loop", path)
    assert spec is not None and spec.loader is not None
    loop = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "satp_loop", loop)
    spec.loader.exec_module(loop)
    calls = _no_network(monkeypatch)
    with pytest.raises(SystemExit) as info:
        loop.main(["--suite", "both", "--out", str(cache / "runs")])
    assert info.value.code == 2 and calls == [] and not (cache / "runs").exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "run `lean-gym data fetch minif2f`" in err[0]
