.PHONY: install test test-slow lint typecheck bench check

install:
	pip install torch==2.13.0 -e ".[dev]"

test:
	python -m pytest -n auto

test-slow:
	python -m pytest -n auto -m slow

lint:
	ruff check lean_gym agents tests benchmarks examples
	ruff format --check lean_gym

typecheck:
	mypy
	MYPYPATH=agents mypy agents/lean_gym_agents

bench:
	python benchmarks/bench_repl_client.py

check: lint typecheck test
