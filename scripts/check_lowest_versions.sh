#!/usr/bin/env bash
# The declared minimums, as a CI step (issue 28: packaging true to the code):
#   1. uv, from PyPI through pip, in a throwaway venv;
#   2. a fresh venv with this checkout installed (editable) by
#      `uv pip install --resolution lowest-direct`: every runtime dependency of
#      [project].dependencies at the lowest version its floor allows (their own
#      dependencies at the newest, as a user's fresh install would get them);
#   3. the unit-test tools at their normal versions, constrained so that they
#      cannot move a runtime dependency;
#   4. prints each runtime dependency's floor and resolved version, and fails
#      when one resolved above its floor (a floor nothing can install is not a
#      floor: raise it to what is tested);
#   5. `agent-doc --help`, `agent-doc-lsp --help`, then tests/unit there.
# Only PyPI is needed. Arguments go to pytest (default: tests/unit).
# PYTHON= picks the interpreter (default python3). Non-zero on any failure.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-python3}
PYEXE=$("$PY" -c 'import sys; print(sys.executable)')
WORK=$(mktemp -d "${TMPDIR:-/tmp}/agent-doc-lowest.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
started=$(date +%s)
fail() { echo "check_lowest_versions: $*" >&2; exit 1; }
# uv may only use the interpreter given, never download one.
export UV_PYTHON_DOWNLOADS=never
unset VIRTUAL_ENV PYTHONPATH

echo "== uv from PyPI (in $WORK/uv)"
"$PYEXE" -m venv "$WORK/uv"
"$WORK/uv/bin/python" -m pip install -q --disable-pip-version-check uv \
  || fail "could not install uv from PyPI"
UV="$WORK/uv/bin/uv"
"$UV" --version

VENV="$WORK/venv"
VPY="$VENV/bin/python"
echo "== runtime dependencies at their declared minimums (uv pip install --resolution lowest-direct)"
# --seed: pip in the venv, as in any user's venv (`agent-doc upgrade` runs it)
"$UV" venv -q --seed --python "$PYEXE" "$VENV"
"$UV" pip install -q --python "$VPY" --resolution lowest-direct -e "$SRC" \
  || fail "the declared minimums do not install"
"$UV" pip freeze -q --python "$VPY" --exclude-editable > "$WORK/runtime.txt"

echo "== unit-test tools at their normal versions (runtime versions held by constraints)"
# The [test] extra's requirements for the unit tests only (no editors, no
# browsers, no linters): their version specifiers come from pyproject.toml.
mapfile -t tools < <("$VPY" - "$SRC/pyproject.toml" <<'PYTOOLS'
import re, sys
try:
    import tomllib
except ImportError:  # Python 3.10: tomli is a declared dependency there
    import tomli as tomllib
UNIT = {"pytest", "pytest-asyncio", "pytest-timeout", "pytest-xdist", "hypothesis", "markdown-it-py"}
with open(sys.argv[1], "rb") as f:
    extra = tomllib.load(f)["project"]["optional-dependencies"]["test"]
for req in extra:
    name = re.match(r"[A-Za-z0-9._-]+", req).group(0)
    if re.sub(r"[-_.]+", "-", name).lower() in UNIT:
        print(req)
PYTOOLS
)
[ "${#tools[@]}" -eq 6 ] || fail "expected 6 unit-test tools in the [test] extra, got: ${tools[*]}"
"$UV" pip install -q --python "$VPY" -c "$WORK/runtime.txt" "${tools[@]}" \
  || fail "the unit-test tools do not install beside the minimums"

echo "== resolved runtime dependencies"
"$VPY" - "$SRC/pyproject.toml" <<'PYFLOORS' || fail "a floor is not what installs"
import re, sys
from importlib.metadata import version
from packaging.requirements import Requirement
from packaging.version import Version
try:
    import tomllib
except ImportError:
    import tomli as tomllib
with open(sys.argv[1], "rb") as f:
    deps = tomllib.load(f)["project"]["dependencies"]
bad = []
for text in deps:
    req = Requirement(text)
    if req.marker is not None and not req.marker.evaluate():
        print(f"  {req.name:24} {str(req.specifier):18} (not for this Python)")
        continue
    got = version(req.name)
    floors = [s.version for s in req.specifier if s.operator in (">=", "~=", "==")]
    floor = max(floors, key=Version) if floors else None
    mark = ""
    if floor is None:
        mark = "  <- no floor"
        bad.append(req.name)
    elif Version(got) != Version(floor):
        mark = f"  <- resolved above the floor {floor}"
        bad.append(req.name)
    print(f"  {req.name:24} {str(req.specifier):18} {got}{mark}")
if bad:
    print("raise these floors to the version that installs (and passes):", *bad,
          file=sys.stderr)
    sys.exit(1)
PYFLOORS

echo "== smoke: agent-doc --help, agent-doc-lsp --help"
"$VENV/bin/agent-doc" --help > "$WORK/help.txt" 2>&1 || { cat "$WORK/help.txt"; fail "agent-doc --help"; }
"$VENV/bin/agent-doc-lsp" --help > "$WORK/help.txt" 2>&1 || { cat "$WORK/help.txt"; fail "agent-doc-lsp --help"; }
"$VPY" -m agent_doc_lsp --help > "$WORK/help.txt" 2>&1 || { cat "$WORK/help.txt"; fail "python -m agent_doc_lsp --help"; }

echo "== pytest ${*:-tests/unit} (declared minimums)"
cd "$SRC"
# in parallel as scripts/test.sh runs them (AGENT_DOC_TEST_JOBS workers, 0: one process)
JOBS=${AGENT_DOC_TEST_JOBS:-4}
parallel=()
[ "$JOBS" = 0 ] || parallel=(-n "$JOBS" --dist loadgroup)
PATH="$VENV/bin:$PATH" "$VPY" -m pytest -q -p no:cacheprovider "${parallel[@]}" "${@:-tests/unit}" \
  || fail "tests failed at the declared minimums"
echo "check_lowest_versions: ok ($(($(date +%s) - started)) s)"
