#!/usr/bin/env bash
# The README's Quick start on a clean machine, as a CI step:
#   1. copy this checkout (tracked + untracked, not ignored: no .venv, no demo/)
#      to a temporary folder, as a fresh clone would be;
#   2. run `bash scripts/demo.sh` there, exactly as the README says, with a clean
#      HOME, no XDG dirs and the update check ON: demo.sh creates a fresh .venv
#      with the package and only its declared dependencies (no test extras);
#   3. with the update cache then saying a newer version exists, run a command
#      (the update notice path, which once imported an undeclared module);
#   4. run `--help` of every command and subcommand, and `agent-doc-lsp --help`.
# Every exit code is checked. Needs python3 (PYTHON= picks another), git, tar.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-python3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/agent-doc-fresh.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
started=$(date +%s)

echo "== fresh copy of the checkout in $WORK/agent-doc"
mkdir -p "$WORK/agent-doc" "$WORK/home"
(cd "$SRC" && git ls-files -z --cached --others --exclude-standard \
  | tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$WORK/agent-doc"

# A clean user: empty HOME, no XDG overrides, nothing of ours in the
# environment, no virtualenv on PATH, the update check on.
clean_path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -e '/\.venv/bin$' -e "^$SRC" \
  | paste -sd: -)
run_clean() {
  env -u VIRTUAL_ENV -u XDG_CONFIG_HOME -u XDG_CACHE_HOME -u XDG_DATA_HOME \
    -u XDG_RUNTIME_DIR -u PYTHONPATH -u AGENT_DOC_NO_UPDATE_CHECK \
    -u AGENT_DOC_INDEX_URL -u AGENT_DOC_TMUX_SOCKET -u AGENT_DOC_AGENT_COMMAND \
    -u AGENT_DOC_CEILING_DIRS -u GIT_CEILING_DIRECTORIES -u TMUX -u TMUX_PANE \
    HOME="$WORK/home" PATH="$clean_path" PYTHON="$PY" "$@"
}

echo "== bash scripts/demo.sh (clean HOME, update check on)"
(cd "$WORK/agent-doc" && run_clean bash scripts/demo.sh) > "$WORK/demo.log" 2>&1 || {
  cat "$WORK/demo.log"
  echo "check_fresh_install: scripts/demo.sh failed on a fresh install" >&2
  exit 1
}
grep -q "2 + 3 = 5" "$WORK/agent-doc/demo/plan.md" || {
  cat "$WORK/demo.log"
  echo "check_fresh_install: the demo document has no answer" >&2
  exit 1
}
VENV="$WORK/agent-doc/.venv"
AD="$VENV/bin/agent-doc"

echo "== only declared dependencies are installed (no test extras)"
for extra in pytest packaging hypothesis; do
  if run_clean "$VENV/bin/python" -c "import $extra" 2>/dev/null; then
    echo "check_fresh_install: $extra is importable; this is not a clean install" >&2
    exit 1
  fi
done

echo "== the update notice path (cache says a newer version exists; a typer command, not a per-turn fast path)"
cache="$WORK/home/.cache/agent-doc/version-cache.json"
mkdir -p "$(dirname "$cache")"
run_clean "$VENV/bin/python" - "$cache" <<'PYCACHE'
import json, sys, time
from agent_doc.automation.upgrade import index_url
json.dump({"checked_at": time.time(), "latest": "999.0.0", "url": index_url()},
          open(sys.argv[1], "w"))
PYCACHE
(cd "$WORK/agent-doc/demo" && run_clean "$AD" mode plan.md) > "$WORK/notice.log" 2>&1 || {
  cat "$WORK/notice.log"
  echo "check_fresh_install: a command failed once the update cache was filled" >&2
  exit 1
}
grep -q "agent-doc-lsp 999.0.0 is available" "$WORK/notice.log" || {
  cat "$WORK/notice.log"
  echo "check_fresh_install: no update notice" >&2
  exit 1
}

echo "== --help of every command"
commands=$(run_clean "$VENV/bin/python" - <<'PYLIST'
import typer.main
from agent_doc.cli.app import app

def walk(command, path):
    yield path
    if hasattr(command, "commands"):  # a group (typer bundles its own click)
        for name, sub in sorted(command.commands.items()):
            yield from walk(sub, [*path, name])

for path in walk(typer.main.get_command(app), []):
    print(" ".join(path))
PYLIST
)
count=0
while IFS= read -r cmd; do
  # shellcheck disable=SC2086 # the words of a command path
  if ! out=$(cd "$WORK" && run_clean "$AD" $cmd --help 2>&1); then
    echo "$out"
    echo "check_fresh_install: agent-doc $cmd --help failed" >&2
    exit 1
  fi
  case "$out" in *Usage:*) ;; *) echo "agent-doc $cmd --help printed no usage" >&2; exit 1 ;; esac
  count=$((count + 1))
done <<< "$commands"
run_clean "$VENV/bin/agent-doc-lsp" --help > /dev/null
run_clean "$AD" --version > /dev/null
echo "check_fresh_install: ok ($count help pages, $(($(date +%s) - started)) s)"
