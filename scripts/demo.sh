#!/usr/bin/env bash
# Quick start: install agent-doc into .venv and run one agent cycle in ./demo/.
# Needs python3 (3.10+; PYTHON=/path/to/python3.12 picks another) and git.
# Touches nothing outside this checkout: the example agent is configured in
# demo/.config (XDG_CONFIG_HOME), not in ~/.config.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# Before it had its own PyPI name this distribution was installed as
# "agent-doc" (that name is the original Rust tool's): drop such a stale install.
if .venv/bin/python -m pip show agent-doc >/dev/null 2>&1; then
  .venv/bin/python -m pip uninstall -q -y agent-doc
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e .
AD="$ROOT/.venv/bin/agent-doc"

DEMO="$ROOT/demo"
rm -rf "$DEMO"
mkdir -p "$DEMO"
cd "$DEMO"
git init -q .
git config user.email demo@example.invalid
git config user.name "agent-doc demo"

# The example agent as a custom backend named "example" (spec §5.4).
export XDG_CONFIG_HOME="$DEMO/.config"
mkdir -p "$XDG_CONFIG_HOME/agent-doc"
cat > "$XDG_CONFIG_HOME/agent-doc/config.toml" <<TOML
[agents.example]
command = "$ROOT/.venv/bin/python"
args = ["$ROOT/examples/example_agent.py"]
TOML

echo "== agent-doc init (project) and a new session document"
"$AD" init
"$AD" init plan.md "Demo plan" --agent example

echo "== the user types a question under '## User'"
"$ROOT/.venv/bin/python" - <<'PYEDIT'
from pathlib import Path
doc = Path("plan.md")
doc.write_text(doc.read_text().replace("## User\n", "## User\n\nWhat is 2 + 3?\n", 1))
PYEDIT
"$AD" diff plan.md

echo "== agent-doc run plan.md (the example agent answers)"
"$AD" run plan.md

echo "== the document now"
cat plan.md
echo "== nothing new since the agent's answer:"
"$AD" diff plan.md
