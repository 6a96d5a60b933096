#!/usr/bin/env bash
# Set up a virtual environment (once) and run the whole test suite with lint and types.
# Without arguments it also runs scripts/check_fresh_install.sh (the README's Quick
# start in a fresh copy with a clean HOME) and scripts/check_lowest_versions.sh
# (tests/unit with every runtime dependency at its declared floor); arguments go
# to pytest only.
#
# pytest runs in parallel (pytest-xdist): AGENT_DOC_TEST_JOBS workers (default 4
# — most tests wait on subprocesses, editors and sockets, so 4 workers keep two
# cores busy; 0 runs in one process), scheduled by --dist loadgroup (the tests
# marked xdist_group("heavy") in tests/conftest.py run one at a time on one
# worker), and the 25 slowest tests are listed at the end. The npm caches of
# the editor and room tests are installed in the background meanwhile
# (tests/warm_caches.py). Each step and the whole run print their time.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
step=$started
elapsed() {  # print the time of the step that just ended, then start the next
  local now; now=$(date +%s)
  echo "   ($(( now - step )) s; $(( (now - started) / 60 )) min $(( (now - started) % 60 )) s in all)"
  step=$now
}
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# Before it had its own PyPI name this distribution was installed as
# "agent-doc" (that name is the original Rust tool's): drop such a stale install.
if .venv/bin/python -m pip show agent-doc >/dev/null 2>&1; then
  .venv/bin/python -m pip uninstall -q -y agent-doc
fi
echo "== install"
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
elapsed
export PATH="$PWD/.venv/bin:$PATH"
JOBS=${AGENT_DOC_TEST_JOBS:-4}
if [ $# -eq 0 ]; then  # the full run: npm caches installed meanwhile, once
  warm_log=$(mktemp "${TMPDIR:-/tmp}/agent-doc-warm.XXXXXX")
  .venv/bin/python -m tests.warm_caches >"$warm_log" 2>&1 &
  warm_pid=$!
fi
echo "== ruff"; .venv/bin/ruff check agent_doc agent_doc_lsp tests bench scripts; elapsed
echo "== mypy"; .venv/bin/mypy; elapsed
echo "== lint-imports"; .venv/bin/lint-imports; elapsed
if [ $# -eq 0 ]; then  # the full run (CI): also prove the Quick start on a clean install
  echo "== fresh install"; PYTHON="$PY" bash scripts/check_fresh_install.sh; elapsed
  # the unit tests, and a real serve, presence and run --room (the share floors)
  echo "== lowest versions"; PYTHON="$PY" bash scripts/check_lowest_versions.sh \
    tests/unit tests/share/test_serve.py tests/share/test_presence.py tests/share/test_room_run.py
  elapsed
  echo "== npm caches"; wait "$warm_pid" || true; cat "$warm_log"; rm -f "$warm_log"; elapsed
fi
parallel=()
if [ "$JOBS" != 0 ]; then
  parallel=(-n "$JOBS" --dist loadgroup)
fi
echo "== pytest (${JOBS} workers)"
rc=0
.venv/bin/python -m pytest -q -p no:cacheprovider "${parallel[@]}" --durations=25 "$@" || rc=$?
elapsed
exit "$rc"
