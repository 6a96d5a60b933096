#!/usr/bin/env bash
# Set up a virtual environment (once) and run the whole test suite with lint and types.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
export PATH="$PWD/.venv/bin:$PATH"
echo "== ruff"; .venv/bin/ruff check agent_doc agent_doc_lsp tests bench scripts
echo "== mypy"; .venv/bin/mypy
echo "== lint-imports"; .venv/bin/lint-imports
echo "== pytest"; .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
