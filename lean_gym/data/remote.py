"""Datasets lean-gym knows by name but does not ship: where they come from, where they are kept, how to fetch.

The full miniF2F (488 rows) is not in the package (the package ships an 8-row sample,
:data:`lean_gym.data.MINIF2F_SAMPLE`). ``lean-gym data fetch minif2f`` downloads the file that most
whole-proof provers evaluate on, ``datasets/minif2f.jsonl`` of DeepSeek-Prover-V1.5 at a pinned commit,
checks its SHA-256 and keeps it in the user's cache directory; ``load_theorems("minif2f")`` then finds it
there. In a checkout that has ``../shared/data/minif2f.jsonl`` beside it (lean-gym's own development
machines), that file is used when nothing was fetched.

Nothing here touches the network except :func:`fetch_dataset`.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from lean_gym.errors import DatasetNotFoundError, DownloadError

__all__ = ["REMOTE_DATASETS", "RemoteDataset", "cache_dir", "dataset_path", "fetch_dataset"]


@dataclass(frozen=True)
class RemoteDataset:
    """A dataset file known by name: its pinned URL, its SHA-256 and what it holds.

    Attributes:
        name: The name ``load_theorems`` and ``lean-gym data fetch`` take.
        url: Where the file is downloaded from (pinned to one commit, so the hash holds).
        sha256: The file's SHA-256 (hex).
        filename: Its name in the cache directory.
        size: Its size in bytes (printed before a download).
        describes: One line: what the file holds and its licence.
    """

    name: str
    url: str
    sha256: str
    filename: str
    size: int
    describes: str


MINIF2F_COMMIT = "2c4ba9119eef74d0d611f494261b2c5bae98c69a"

REMOTE_DATASETS: dict[str, RemoteDataset] = {
    "minif2f": RemoteDataset(
        name="minif2f",
        url=(
            "https://raw.githubusercontent.com/deepseek-ai/DeepSeek-Prover-V1.5/"
            f"{MINIF2F_COMMIT}/datasets/minif2f.jsonl"
        ),
        sha256="d6654c88476ff14db19d57dea25bd955a240525fb52171e460f89d98f83d7dd5",
        filename="minif2f.jsonl",
        size=320856,
        describes=(
            "miniF2F in Lean 4, 488 rows (244 valid, 244 test), as packaged by DeepSeek-Prover-V1.5 "
            f"(datasets/minif2f.jsonl at {MINIF2F_COMMIT[:7]}; MIT; the statements are miniF2F's, Apache-2.0)"
        ),
    ),
}

# ../shared/data/ beside a checkout of the repository (never beside an installed package).
_SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def cache_dir() -> Path:
    """Where fetched datasets are kept.

    ``$LEAN_GYM_DATA``, else ``$XDG_CACHE_HOME/lean-gym``, else ``~/.cache/lean-gym``.
    """
    explicit = os.environ.get("LEAN_GYM_DATA")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "lean-gym"


def _known(name: str) -> RemoteDataset:
    try:
        return REMOTE_DATASETS[name]
    except KeyError:
        raise DatasetNotFoundError(
            f"no dataset called {name!r}; lean-gym fetches: {', '.join(sorted(REMOTE_DATASETS))}"
        ) from None


def dataset_path(name: str) -> Path:
    """The local file of dataset ``name``: the fetched copy, else ``../shared/data/`` beside a checkout.

    Raises:
        DatasetNotFoundError: when neither exists (the message says how to fetch it). No download is tried.
    """
    ds = _known(name)
    for candidate in (cache_dir() / ds.filename, _SHARED_DATA / ds.filename):
        if candidate.is_file():
            return candidate
    raise DatasetNotFoundError(
        f"{name} is not downloaded: run `lean-gym data fetch {name}` ({ds.size // 1000} kB from GitHub, "
        f"into {cache_dir()}), or pass the path of a miniF2F-format JSONL; "
        "an 8-row sample ships as lean_gym.data.MINIF2F_SAMPLE"
    )


def fetch_dataset(name: str, *, url: str | None = None, timeout: float = 30.0, force: bool = False) -> Path:
    """Download dataset ``name`` into :func:`cache_dir`, check its SHA-256, and return its path.

    One attempt, no retries: a failure is one :class:`DownloadError` whose message says what failed. The
    file is written to a temporary name and moved into place only once its hash matches, so a broken or
    altered download never becomes the cached copy.

    Args:
        name: A key of :data:`REMOTE_DATASETS` (``"minif2f"``).
        url: Download from here instead of the pinned URL (a mirror; the hash must still match).
        timeout: Seconds for the connection and each read.
        force: Download again even when a verified copy is already cached.

    Returns:
        The cached file.

    Raises:
        DatasetNotFoundError: for an unknown name.
        DownloadError: when the download fails or the file's SHA-256 is not the pinned one.
    """
    ds = _known(name)
    dest = cache_dir() / ds.filename
    if dest.is_file() and not force and _sha256(dest) == ds.sha256:
        return dest
    src = url or ds.url
    if urllib.parse.urlsplit(src).scheme not in ("https", "http", "file"):
        raise DownloadError(f"cannot download {name} from {src!r}: only https, http and file URLs are read")
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{ds.filename}.", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out:
            try:
                with urllib.request.urlopen(src, timeout=timeout) as resp:  # the scheme was checked above
                    while chunk := resp.read(1 << 16):
                        digest.update(chunk)
                        out.write(chunk)
            except (urllib.error.URLError, OSError, ValueError) as e:
                reason = getattr(e, "reason", None) or e
                raise DownloadError(f"could not download {name} from {src}: {reason}") from e
        got = digest.hexdigest()
        if got != ds.sha256:
            raise DownloadError(
                f"the file downloaded from {src} has SHA-256 {got}, not {name}'s {ds.sha256}; nothing was saved"
            )
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a cached dataset is an ordinary file
        os.replace(tmp, dest)
        return dest
    finally:
        tmp.unlink(missing_ok=True)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 16):
            h.update(chunk)
    return h.hexdigest()
