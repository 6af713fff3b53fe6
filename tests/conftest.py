"""Settings for the whole test session."""

from __future__ import annotations

import gc
import multiprocessing

import pytest

# A test session keeps a large heap (every library the suite imports, the simulator's tables) that each
# full collection of the garbage collector scans again. Collecting less often halves the suite's time in
# those scans (measured on the soundness tests: 3.1 s of 13.3 s in collections at the default thresholds,
# 1.7 s at these); nothing in the suite depends on when cyclic garbage is freed.
gc.set_threshold(10_000, 10, 10)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built lives as long as the session: keep it out of the collector's scans.

    Importing ``torchrl`` (tests/test_torchrl.py, at collection) sets the process-wide multiprocessing start
    method to ``spawn``; every ``AsyncVectorEnv`` of the session then started its workers by spawning (a new
    interpreter importing lean-gym per worker, 4x slower) where the same test run on its own forks. The
    start method goes back to the platform's default here, so that a test starts its processes the same way
    whatever else was collected; a test about another start method asks for it (``context="spawn"``).
    """
    if multiprocessing.get_start_method(allow_none=True) is not None:
        multiprocessing.set_start_method(None, force=True)
    gc.freeze()
