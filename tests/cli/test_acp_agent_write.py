"""An ACP agent's own ``fs/write_text_file`` of the session document, from ``run``.

No editor has the document open: the write goes to the file through the seam
answers take (:mod:`agent_doc.write.agent_write`): under the document lock,
merged with what changed in the file since the agent read it, the file's line
endings and BOM kept. The agent is ``tests/data/acp_agent.py``, a stand-in
written with the ACP SDK's agent side (real JSON-RPC over stdio); the real
adapters are tested elsewhere.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.test_acp_run import DOC
from tests.cli.test_acp_run import configure
from tests.cli_runner import cli
from tests.editors.harness import wait_for

BOM = b"\xef\xbb\xbf"
EDIT = {"ACP_AGENT_EDIT_FROM": "# Plan", "ACP_AGENT_EDIT_TO": "# Plan (agent)"}


def agent_env(doc: Path, log: Path, **more: str) -> dict[str, str]:
    """The stand-in reads ``doc``, then writes it back with ``# Plan`` edited."""
    return {
        "ACP_AGENT_READ": str(doc),
        "ACP_AGENT_WRITE": str(doc),
        "ACP_AGENT_LOG": str(log),
        "ACP_AGENT_REPLY": "Done.",
        **EDIT,
        **more,
    }


def logged(log: Path, method: str) -> list[dict[str, object]]:
    if not log.exists():
        return []
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    return [c for c in calls if c["method"] == method]


def test_a_crlf_document_keeps_its_line_endings_and_bom(
    project: Path, tmp_path: Path
) -> None:
    configure("allow")
    doc = project / "plan.md"
    doc.write_bytes(BOM + DOC.replace("\n", "\r\n").encode())
    log = tmp_path / "acp.jsonl"

    result = cli(project, "run", "plan.md", env=agent_env(doc, log))

    assert result.returncode == 0, result.stderr
    [read] = logged(log, "read")
    assert read["content"] == DOC  # the agent gets the core's form (LF, no BOM)
    assert logged(log, "write") == [{"method": "write", "pid": read["pid"], "ok": True}]
    data = doc.read_bytes()
    assert data.startswith(BOM)
    text = data[len(BOM) :].decode()
    assert "\n" not in text.replace("\r\n", "")  # every line still ends in CRLF
    assert text.count("# Plan (agent)\r\n") == 1
    assert "wrote: ok" in text
    assert text.index("What is 2 + 2?") < text.index("Done.")


def test_an_edit_made_after_the_agent_read_is_merged_not_replaced(
    project: Path, tmp_path: Path
) -> None:
    """The person edits the file (an editor without the language server) while
    the agent works: the agent's write is merged with it under the lock."""
    configure("allow")
    doc = project / "plan.md"
    doc.write_text(DOC)
    log, gate = tmp_path / "acp.jsonl", tmp_path / "gate"
    env = agent_env(doc, log, ACP_AGENT_WRITE_GATE=str(gate))
    run = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "run", "plan.md"],
        cwd=project, env={**os.environ, **env}, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for(lambda: logged(log, "waiting"), 60, "the agent to read")
        doc.write_text(DOC + "typed while the agent worked\n")
        gate.touch()
        _, err = run.communicate(timeout=60)
    finally:
        run.kill()
    assert run.returncode == 0, err
    text = doc.read_text()
    assert text.count("# Plan (agent)\n") == 1
    assert text.count("typed while the agent worked\n") == 1
    assert "wrote: ok" in text
    assert text.index("What is 2 + 2?") < text.index("Done.")
