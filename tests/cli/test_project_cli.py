"""``init``, ``diff``, ``reset``, ``mode`` and bad input, via the console script."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_doc.store.state import StateStore
from tests.cli_runner import agent_doc
from tests.socket_server import FakeServer
from tests.socket_server import register


@pytest.fixture
def servers() -> Iterator[list[FakeServer]]:
    started: list[FakeServer] = []
    yield started
    for srv in started:
        srv.close()


def test_init_project_is_idempotent(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    res = agent_doc("init", "--json", cwd=root)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["root"] == str(root.resolve())
    assert ".agent-doc/" in out["created"]
    assert (root / ".agent-doc" / "snapshots").is_dir()
    res = agent_doc("init", "--json", cwd=root)
    assert json.loads(res.stdout)["created"] == []


def test_init_file_scaffolds_a_document(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    res = agent_doc("init", "notes.md", "My Notes", "--agent", "claude", cwd=root)
    assert res.returncode == 0, res.stderr
    created, next_step = res.stderr.splitlines()
    assert created.startswith("created notes.md (session ")
    # A new user is told what to do next, in one line.
    assert next_step == (
        "next: open notes.md in your editor, write under '## User', "
        "then run 'agent-doc run notes.md' (or 'agent-doc route notes.md' for a "
        "tmux pane)"
    )
    assert res.stdout == ""
    text = (root / "notes.md").read_text()
    assert text.startswith("---\nagent_doc_session: ")
    assert "agent_doc_format: template\n" in text
    assert "agent: claude\n" in text
    assert "\n# My Notes\n" in text
    assert "<!-- agent:status patch=replace -->" in text
    assert "<!-- agent:exchange patch=append -->\n## User\n" in text
    assert (root / ".agent-doc" / "snapshots").is_dir()  # lazy project init
    res = agent_doc("init", "notes.md", cwd=root)
    assert res.returncode != 0
    assert "already exists" in res.stderr
    assert (root / "notes.md").read_text() == text
    res = agent_doc("diff", "notes.md", cwd=root)  # no snapshot: all of it is new
    assert "+# My Notes" in res.stdout


def test_diff_reset_and_json(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text("---\nresume: abc\n---\n# T\n\nfirst\n")
    StateStore(project).save_snapshot(doc, doc.read_text())
    StateStore(project).save_crdt(doc, b"state")
    assert agent_doc("diff", "doc.md", cwd=project).stderr == "no changes\n"
    doc.write_text(doc.read_text() + "second\n")
    res = agent_doc("diff", "doc.md", cwd=project)
    assert res.returncode == 0
    assert "+second" in res.stdout
    assert res.stdout.startswith("--- snapshot\n+++ document\n")
    out = json.loads(agent_doc("diff", "doc.md", "--json", cwd=project).stdout)
    assert out["source"] == "file"
    assert out["has_snapshot"] is True
    assert "+second" in out["diff"]
    res = agent_doc("reset", "doc.md", "--json", cwd=project)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["cleared_resume"] is True
    assert sorted(out["deleted"]) == ["crdt", "snapshot"]
    assert "resume" not in doc.read_text()
    assert doc.read_text().endswith("# T\n\nfirst\nsecond\n")
    assert StateStore(project).load_snapshot(doc) is None
    assert StateStore(project).load_crdt(doc) is None


def test_diff_uses_the_live_buffer_of_an_open_editor(
    project: Path, servers: list[FakeServer]
) -> None:
    doc = project / "doc.md"
    doc.write_text("saved\n")
    StateStore(project).save_snapshot(doc, "saved\n")

    def handle(req: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "open": True, "text": "saved\nunsaved typing\n"}

    srv = FakeServer(handle)
    servers.append(srv)
    register(project, os.getpid(), srv.path)
    res = agent_doc("diff", "doc.md", "--json", cwd=project)
    out = json.loads(res.stdout)
    assert out["source"] == "buffer"
    assert "+unsaved typing" in out["diff"]


def test_mode_show_and_set(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text("---\ntitle: x\n---\nbody\n")
    StateStore(project).save_snapshot(doc, doc.read_text())
    out = json.loads(agent_doc("mode", "doc.md", "--json", cwd=project).stdout)
    assert (out["format"], out["write"], out["changed"]) == ("template", "crdt", False)
    res = agent_doc(
        "mode", "doc.md", "--format", "inline", "--write", "merge", cwd=project
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout == "format: inline\nwrite: merge\n"
    text = doc.read_text()
    assert "agent_doc_format: inline\n" in text
    assert "agent_doc_write: merge\n" in text
    assert text.startswith("---\ntitle: x\n")
    # the snapshot got the same edit, so the change is not reported as user input
    assert agent_doc("diff", "doc.md", cwd=project).stderr == "no changes\n"
    res = agent_doc("mode", "doc.md", "--format", "bogus", cwd=project)
    assert res.returncode == 2  # a usage error, as every bad option value
    assert "'bogus' is not one of 'template', 'inline'" in res.stderr
    assert doc.read_text() == text


GOOD = "<!-- agent:status -->\nok\n<!-- /agent:status -->\n"


BAD_DOCUMENTS = [
    pytest.param("missing.md", None, "no such file", id="missing"),
    pytest.param("folder.md", "DIR", "directory", id="directory"),
    pytest.param("bin.md", b"\xff\xfebad\n", "UTF-8", id="non-utf8"),
    pytest.param("fm.md", "---\nkey: [unclosed\n---\n" + GOOD, "", id="bad-yaml"),
    pytest.param("open.md", "<!-- agent:status -->\nx\n", "unclosed", id="unclosed"),
]


@pytest.mark.parametrize(("name", "content", "message"), BAD_DOCUMENTS)
@pytest.mark.parametrize(
    "command",
    [
        pytest.param(["write"], id="write"),
        pytest.param(["patch", "status", "new"], id="patch"),
        pytest.param(["diff"], id="diff"),
        pytest.param(["reset"], id="reset"),
        pytest.param(["mode", "--format", "inline"], id="mode"),
    ],
)
def test_bad_input_is_one_line_and_changes_nothing(
    project: Path, name: str, content: Any, message: str, command: list[str]
) -> None:
    doc = project / name
    if content == "DIR":
        doc.mkdir()
    elif isinstance(content, bytes):
        doc.write_bytes(content)
    elif content is not None:
        doc.write_text(content)
    before = doc.read_bytes() if doc.is_file() else None
    args = [command[0], name, *command[1:]]
    stdin = "<!-- patch:status -->\nnew\n<!-- /patch:status -->\n"
    res = agent_doc(*args, cwd=project, stdin=stdin)
    # A broken frontmatter is refused by every command (one rule, issue 39);
    # an unclosed component only by those that patch components.
    tolerant = command[0] in ("diff", "reset", "mode") and name == "open.md"
    if tolerant:  # these commands never parse what is broken here
        assert res.returncode == 0, res.stderr
        return
    assert res.returncode != 0, (args, res.stdout)
    assert message in res.stderr
    assert res.stderr.startswith("agent-doc: ")
    assert res.stderr.count("\n") == 1, res.stderr
    assert (doc.read_bytes() if doc.is_file() else None) == before
    assert StateStore(project).load_snapshot(doc) is None


def test_patch_unknown_component_and_invalid_name(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text(GOOD)
    res = agent_doc("patch", "doc.md", "nope", "x", cwd=project)
    assert res.returncode != 0
    assert "component 'nope' not found" in res.stderr
    res = agent_doc("patch", "doc.md", "-bad", "x", cwd=project)
    assert res.returncode != 0
    res = agent_doc("patch", "doc.md", "--", "-bad", "x", cwd=project)
    assert res.returncode != 0
    assert "invalid component name" in res.stderr
    assert doc.read_text() == GOOD


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["patch", "doc.md", "status", "new"], id="patch"),
        pytest.param(["write", "doc.md"], id="write"),
    ],
)
def test_read_only_document_is_refused(project: Path, args: list[str]) -> None:
    doc = project / "doc.md"
    doc.write_text(GOOD)
    doc.chmod(stat.S_IRUSR | stat.S_IRGRP)  # refused even when running as root
    stdin = "<!-- patch:status -->\nn\n<!-- /patch:status -->\n"
    res = agent_doc(*args, cwd=project, stdin=stdin)
    assert res.returncode != 0
    assert "read-only" in res.stderr
    assert res.stderr.count("\n") == 1
    assert doc.read_text() == GOOD
    assert StateStore(project).load_snapshot(doc) is None


@pytest.mark.parametrize(
    "command",
    ["init", "diff", "reset", "patch", "write", "recover", "mode"],
)
def test_every_command_has_help(tmp_path: Path, command: str) -> None:
    res = agent_doc(command, "--help", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "Usage:" in res.stdout
