#!/bin/sh
# Build build/kimina-venv: Python >= 3.12 with kimina-client 0.2.1, the client the kimina-compatible endpoint of
# `lean-gym serve` is tested against (tests/test_serve_kimina.py). kimina-client 0.2.1 does not import on
# Python 3.11 (its models import typing.TypedDict, which pydantic refuses below 3.12), and its declared
# dependencies pull in `datasets` (~400 MB); it imports only the seven packages installed below (pygments is
# used but undeclared). Usage: sh scripts/kimina_venv.sh [python3.12]
set -eu
PY=${1:-}
if [ -z "$PY" ]; then
  for c in python3.13 python3.12 "$HOME/.pyenv/versions/3.12.1/bin/python" "$HOME/.pyenv/versions/3.13.0/bin/python"; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then PY=$c; break; fi
  done
fi
[ -n "$PY" ] || { echo "kimina_venv.sh: no Python >= 3.12 found; pass one: sh scripts/kimina_venv.sh /path/to/python3.12" >&2; exit 2; }
"$PY" -m venv build/kimina-venv
build/kimina-venv/bin/pip install -q --no-deps kimina-client==0.2.1
build/kimina-venv/bin/pip install -q httpx tenacity pydantic colorama tabulate tqdm pygments
build/kimina-venv/bin/python -c "import kimina_client; print('kimina-client', kimina_client.__name__, 'ok')"
