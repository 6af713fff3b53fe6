"""Settings for the whole test session."""

from __future__ import annotations

import gc
import multiprocessing
import signal

import pytest

# A test session keeps a large heap (every library the suite imports, the simulator's tables) that each
# full collection of the garbage collector scans again. Collecting less often halves the suite's time in
# those scans (measured on the soundness tests: 3.1 s of 13.3 s in collections at the default thresholds,
# 1.7 s at these); nothing in the suite depends on when cyclic garbage is freed.
gc.set_threshold(10_000, 10, 10)

# A session started where SIGINT is ignored (a background job of a script, `nohup`) passes that on to every
# process a test starts, and a Python started with SIGINT ignored never raises KeyboardInterrupt: the tests
# that interrupt a child with SIGINT (tests/test_examples.py) then wait for a child that cannot stop. A
# Python handler here is not inherited through exec, so children start with the default, as from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The longest tests (measured with `pytest -n 2 --durations=0` on 2 busy cores, longest first; each takes
# several seconds, most of them in subprocesses). They run first, so that pytest-xdist hands them out while
# every worker still has short tests queued behind them, not last, where one long test keeps one worker
# busy after the other has finished. The other tests of their files follow them, so that a file stays on one
# worker (pyproject's `--dist worksteal` hands out runs of neighbouring tests): its module-scoped fixtures
# and per-process caches (the whole corpus run of tests/test_conformance_ci.py, the help texts of
# tests/test_doc_figures.py) are computed once, not once per worker. Only the order changes: no test
# depends on it.
_LONG_FIRST = (
    "tests/test_tooling.py::test_the_api_reference_builds_without_a_warning",
    "tests/test_examples.py::test_docs_runnable_blocks_run_as_written_and_show_something",
    "tests/test_agents_docs.py::test_satp_loop_compares_the_two_samplers",
    "tests/test_doc_figures.py::test_every_command_on_the_pages_exists_with_its_flags",
    "tests/test_sim_memo.py::test_the_whole_conformance_corpus_is_answered_the_same_with_and_without_the_memo",
    "tests/test_cli.py::test_every_user_error_is_one_line_and_a_nonzero_exit",
    "tests/test_examples.py::test_sb3_ppo_ctrl_c_is_one_line",
    "tests/test_families.py::test_every_theorem_is_true_on_small_domains",
    "tests/test_families.py::test_every_theorem_of_every_split_is_proved_by_some_config",
    "tests/test_agents_metrics.py::test_each_episode_ends_with_its_statistics_in_info",
    "tests/test_agents.py::test_thompson_finds_the_layout_s_default_action_in_every_env_kind",
    "tests/test_selftest.py::test_selftest_on_recorded_lean_meets_every_threshold",
    "tests/test_agents_resume.py::test_an_interrupted_thompson_run_resumes_to_the_uninterrupted_result",
    "tests/test_selftest.py::test_sim_repl_gives_the_simulators_figures",
    "tests/test_agents_docs.py::test_the_custom_agent_example_in_the_docs_runs",
    "tests/test_sim_arith.py::test_linarith_and_nlinarith_sound_on_random_points",
    "tests/test_agents.py::test_runner_drives_every_env_kind",
    "tests/test_agents_cli.py::test_every_agent_trains_from_the_shell",
    "tests/test_aesop_grammar.py::test_random_actions_render_valid_calls_that_round_trip",
    "tests/test_conformance_ci.py::test_the_whole_corpus_runs",
    # the same corpus run (tests/corpus_run.py), on the same worker
    "tests/test_sim_kernel.py::test_no_case_of_the_corpus_meets_a_refusal",
    "tests/test_sim_memo.py::test_a_search_sized_by_the_budget_left_is_replayed_only_where_it_reads_the_same_budget",
    "tests/test_sim_arith.py::test_omega_sound_against_brute_force",
    "tests/test_agents_resume.py::test_the_cli_stops_on_sigterm_and_resumes_to_the_uninterrupted_files",
    "tests/test_tactic_env.py::test_recycled_process_is_rebuilt_too",
)
_RANK = {name: i for i, name in enumerate(_LONG_FIRST)}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move the tests of :data:`_LONG_FIRST` to the front, longest first, each file's other tests right
    after its first long test (in the file's order); the rest keep their order."""
    ranks = [_RANK.get(item.nodeid.split("[", 1)[0]) for item in items]
    first: dict[str, int] = {}
    for item, rank in zip(items, ranks):
        if rank is not None:
            first[str(item.path)] = min(rank, first.get(str(item.path), rank))
    order = {
        id(item): (rank, 0, 0) if rank is not None else (first.get(str(item.path), len(_RANK)), 1, i)
        for i, (item, rank) in enumerate(zip(items, ranks))
    }
    items.sort(key=lambda item: order[id(item)])


def _default_start_method() -> None:
    """Importing ``torchrl`` (tests/test_torchrl.py's tests) sets the process-wide multiprocessing start
    method to ``spawn``; every later ``AsyncVectorEnv`` of the session then started its workers by spawning
    (a new interpreter importing lean-gym per worker, 4x slower) where the same test run on its own forks.
    The start method goes back to the platform's default, so that a test starts its processes the same way
    whatever ran before it; a test about another start method asks for it (``context="spawn"``)."""
    if multiprocessing.get_start_method(allow_none=True) is not None:
        multiprocessing.set_start_method(None, force=True)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built lives as long as the session: keep it out of the collector's scans."""
    _default_start_method()
    gc.freeze()


def pytest_runtest_teardown(item: pytest.Item) -> None:
    """After each test: the platform's start method again (see :func:`_default_start_method`)."""
    _default_start_method()
