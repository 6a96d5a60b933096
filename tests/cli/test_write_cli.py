"""``agent-doc write``, ``patch`` and ``recover`` through the real console script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_doc.store.state import StateStore
from tests.cli_runner import agent_doc
from tests.socket_server import FakeServer
from tests.socket_server import register

DOC = """---
agent_doc_format: template
---

# Demo

<!-- agent:status -->
idle
<!-- /agent:status -->

<!-- agent:exchange -->
## User

Hello?
<!-- /agent:exchange -->
"""

RESPONSE = (
    "<!-- patch:status -->\nanswered\n<!-- /patch:status -->\n"
    "<!-- patch:exchange -->\nHi there.\n<!-- /patch:exchange -->\n"
)


@pytest.fixture
def servers() -> Iterator[list[FakeServer]]:
    started: list[FakeServer] = []
    yield started
    for srv in started:
        srv.close()


def test_write_to_disk_then_diff_is_empty(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text(DOC)
    res = agent_doc("write", "doc.md", "--origin", "test", cwd=project, stdin=RESPONSE)
    assert res.returncode == 0, res.stderr
    assert "wrote" in res.stderr
    assert "Hi there." in doc.read_text()
    assert "answered" in doc.read_text()
    res = agent_doc("diff", "doc.md", cwd=project)
    assert (res.returncode, res.stdout, res.stderr) == (0, "", "no changes\n")


def test_write_json_outcome(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text(DOC)
    res = agent_doc("write", "doc.md", "--json", cwd=project, stdin=RESPONSE)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["target"] == "disk"
    assert out["changed"] is True
    assert out["final_text"] == doc.read_text()


def test_write_with_baseline_file_merges_user_edits(project: Path) -> None:
    doc = project / "doc.md"
    base = project / "base.md"
    base.write_text(DOC)
    doc.write_text(DOC.replace("Hello?\n", "Hello?\nAlso: how are you?\n"))
    res = agent_doc(
        "write", "doc.md", "--baseline-file", "base.md", "--stream",
        cwd=project, stdin=RESPONSE,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    text = doc.read_text()
    assert "Also: how are you?" in text
    assert "Hi there." in text
    res = agent_doc("diff", "doc.md", cwd=project)
    assert "+Also: how are you?" in res.stdout  # user edit not absorbed


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        pytest.param("", "empty response", id="empty"),
        pytest.param(b"\xff\xfe", "not valid UTF-8", id="binary-stdin"),
    ],
)
def test_write_bad_response(project: Path, stdin: str | bytes, message: str) -> None:
    doc = project / "doc.md"
    doc.write_text(DOC)
    res = agent_doc("write", "doc.md", cwd=project, stdin=stdin)
    assert res.returncode != 0
    assert message in res.stderr
    assert res.stderr.count("\n") == 1
    assert "Traceback" not in res.stderr
    assert doc.read_text() == DOC


def test_write_exit_75_when_the_owning_server_times_out(
    project: Path, servers: list[FakeServer]
) -> None:
    doc = project / "doc.md"
    doc.write_text(DOC)

    def handle(req: dict[str, Any]) -> dict[str, Any]:
        if req["type"] == "read":
            return {"ok": True, "open": True, "text": DOC}
        return {"ok": False, "error": "editor did not apply the edit", "code": 75}

    srv = FakeServer(handle)
    servers.append(srv)
    register(project, os.getpid(), srv.path)
    res = agent_doc("write", "doc.md", cwd=project, stdin=RESPONSE)
    assert res.returncode == 75
    assert "editor did not apply the edit" in res.stderr
    assert doc.read_text() == DOC
    assert StateStore(project).load_pending(doc) == RESPONSE
    # --force-disk bypasses the editor
    res = agent_doc("write", "doc.md", "--force-disk", cwd=project, stdin=RESPONSE)
    assert res.returncode == 0, res.stderr
    assert "Hi there." in doc.read_text()


def test_recover_replays_a_pending_response(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text(DOC)
    StateStore(project).save_pending(doc, RESPONSE)  # an interrupted write
    res = agent_doc("recover", "--json", cwd=project)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["recovered"] is True
    assert out["items"][0]["status"] == "written"
    assert out["items"][0]["file"] == str(doc.resolve())
    assert "Hi there." in doc.read_text()
    assert StateStore(project).load_pending(doc) is None
    res = agent_doc("recover", "doc.md", cwd=project)
    assert (res.returncode, res.stderr) == (0, "nothing to recover\n")


def test_recover_keeps_a_response_that_fails_again(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text("<!-- agent:exchange -->\nunclosed\n")
    StateStore(project).save_pending(doc, RESPONSE)
    res = agent_doc("recover", "doc.md", cwd=project)
    assert res.returncode == 1
    assert "failed" in res.stderr
    assert StateStore(project).load_pending(doc) == RESPONSE


def test_patch_command(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text(DOC)
    res = agent_doc("patch", "doc.md", "status", "busy\n", cwd=project)
    assert res.returncode == 0, res.stderr
    assert "busy\n<!-- /agent:status -->" in doc.read_text()
    res = agent_doc("patch", "doc.md", "status", cwd=project, stdin="from stdin\n")
    assert res.returncode == 0, res.stderr
    assert "from stdin\n<!-- /agent:status -->" in doc.read_text()
    assert StateStore(project).load_snapshot(doc) == doc.read_text()


def test_fast_paths_do_not_load_typer(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text(DOC)
    code = (
        "import sys\n"
        "from agent_doc.cli.entry import main\n"
        "codes = [main(['--version']), main(['diff', 'doc.md'])]\n"
        "print(codes, 'typer' in sys.modules)\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert res.stdout.splitlines()[-1] == "[0, 0] False", res.stderr


def test_fast_path_hands_unknown_options_and_help_to_typer(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text(DOC)
    res = agent_doc("write", "doc.md", "--bogus", cwd=project, stdin=RESPONSE)
    assert res.returncode == 2
    assert "No such option" in res.stderr
    assert doc.read_text() == DOC
    res = agent_doc("write", "--help", cwd=project)
    assert res.returncode == 0
    assert "--baseline-file" in res.stdout
