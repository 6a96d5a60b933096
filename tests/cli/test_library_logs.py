"""No library log line or traceback reaches a person's terminal unless
``AGENT_DOC_DEBUG=1`` (the CLI on its typer path, and the language server's stderr).

The ACP SDK logs ``Send loop failed`` with a traceback on the root logger when
an agent's pipe closes under it — whether it does depends on timing, so these
tests log such a record from a real ``agent-doc`` / ``agent-doc-lsp`` process
(at exit, after the command ran) and read its stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

LOG_AT_EXIT = """
import atexit, logging, sys
def log():
    logging.exception("Send loop failed", exc_info=BrokenPipeError(32, "Broken pipe"))
    logging.getLogger("asyncio").error("Task exception was never retrieved")
    logging.getLogger("agent_doc.cycle").warning("agent-doc: ours")
atexit.register(log)
"""


def _run(code: str, tmp_path: Path, debug: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "AGENT_DOC_DEBUG"}
    if debug:
        env["AGENT_DOC_DEBUG"] = "1"
    return subprocess.run(
        [sys.executable, "-c", LOG_AT_EXIT + code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        env=env,
        check=False,
    )


CLI = "sys.argv = ['agent-doc', 'doctor', '--help']\nfrom agent_doc.cli.entry import console\nconsole()\n"


def test_the_cli_keeps_library_logs_and_tracebacks_off_the_terminal(
    tmp_path: Path,
) -> None:
    result = _run(CLI, tmp_path, debug=False)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "agent-doc: ours\n"


def test_the_cli_shows_them_with_agent_doc_debug(tmp_path: Path) -> None:
    result = _run(CLI, tmp_path, debug=True)
    assert "Send loop failed" in result.stderr
    assert "Traceback" in result.stderr or "BrokenPipeError" in result.stderr
    assert "Task exception was never retrieved" in result.stderr


SERVER = (
    "sys.argv = ['agent-doc-lsp']\nfrom agent_doc_lsp.__main__ import main\nmain()\n"
)


@pytest.mark.parametrize("debug", [False, True])
def test_the_servers_stderr_has_a_librarys_records_only_when_debugging(
    tmp_path: Path, debug: bool
) -> None:
    result = _run(SERVER, tmp_path, debug=debug)  # stdin at EOF: the server ends
    assert "agent-doc: ours" in result.stderr
    assert ("Send loop failed" in result.stderr) is debug
    assert ("Task exception was never retrieved" in result.stderr) is debug
