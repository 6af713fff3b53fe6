.PHONY: install test test-slow format format-check lint typecheck doctest docs docs-check bench check compile-sim clean-compiled

# Every Python folder of the repository (what lint and the format check cover).
PY_DIRS = lean_gym agents tests benchmarks examples scripts

install:
	pip install torch==2.13.0 -e ".[dev]"

test:
	python -m pytest -n auto

test-slow:
	python -m pytest -n auto -m slow

format:
	ruff format .

format-check:
	ruff format --check .

lint:
	ruff check $(PY_DIRS)

typecheck:
	mypy
	MYPYPATH=agents mypy agents/lean_gym_agents

# The `>>>` examples of every module (Gymnasium's `pytest --doctest-modules`).
doctest:
	python -m pytest -n auto --doctest-modules lean_gym agents/lean_gym_agents

# The API reference from the docstrings, in build/api (git-ignored); fails on any pdoc warning.
docs:
	python scripts/api_docs.py build/api

bench:
	python benchmarks/bench_repl_client.py

# Opt-in: the aesop search compiled with mypyc, in place (about 20 s; needs a C compiler). The default install
# stays pure Python; `clean-compiled` goes back to it. See docs/simulator.md, "Memo tables and speed".
compile-sim:
	python scripts/compile_sim.py

clean-compiled:
	python scripts/compile_sim.py --clean

# What CI runs (.ci/run, in a fresh clone): format, lint, types, doctests, the API reference, the tests.
check: format-check lint typecheck doctest docs test
