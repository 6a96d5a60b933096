#!/usr/bin/env bash
# Set up a virtual environment (once) and run the whole test suite with lint and types.
# Without arguments it also runs scripts/check_fresh_install.sh (the README's Quick
# start in a fresh copy with a clean HOME) and scripts/check_lowest_versions.sh
# (tests/unit with every runtime dependency at its declared floor); arguments go
# to pytest only.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# Before it had its own PyPI name this distribution was installed as
# "agent-doc" (that name is the original Rust tool's): drop such a stale install.
if .venv/bin/python -m pip show agent-doc >/dev/null 2>&1; then
  .venv/bin/python -m pip uninstall -q -y agent-doc
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
export PATH="$PWD/.venv/bin:$PATH"
echo "== ruff"; .venv/bin/ruff check agent_doc agent_doc_lsp tests bench scripts
echo "== mypy"; .venv/bin/mypy
echo "== lint-imports"; .venv/bin/lint-imports
if [ $# -eq 0 ]; then  # the full run (CI): also prove the Quick start on a clean install
  echo "== fresh install"; PYTHON="$PY" bash scripts/check_fresh_install.sh
  # the unit tests, and a real serve, presence and run --room (the share floors)
  echo "== lowest versions"; PYTHON="$PY" bash scripts/check_lowest_versions.sh \
    tests/unit tests/share/test_serve.py tests/share/test_presence.py tests/share/test_room_run.py
fi
echo "== pytest"; .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
