"""The write path on real files, and its hand-off to a real socket server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_doc.errors import ComponentNotFound
from agent_doc.errors import DocumentError
from agent_doc.errors import PatchError
from agent_doc.errors import ServerTimeout
from agent_doc.store.state import StateStore
from agent_doc.write.patch import patch_component
from agent_doc.write.pipeline import WriteOutcome
from agent_doc.write.pipeline import WriteRequest
from agent_doc.write.pipeline import write_response
from agent_doc.write.server_link import ServerLink
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

What is 2 + 2?
<!-- /agent:exchange -->
"""

STATUS_ONLY = "# S\n\n<!-- agent:status -->\nold\n<!-- /agent:status -->\n"

RESPONSE = """<!-- patch:status -->
done
<!-- /patch:status -->
<!-- patch:exchange -->
### Re: sum

4.
<!-- /patch:exchange -->
"""


@pytest.fixture
def servers() -> Iterator[list[FakeServer]]:
    started: list[FakeServer] = []
    yield started
    for srv in started:
        srv.close()


def make_doc(project: Path, text: str = DOC, name: str = "doc.md") -> Path:
    doc = project / name
    doc.write_text(text)
    return doc


def test_empty_response_writes_nothing(project: Path) -> None:
    doc = make_doc(project)
    store = StateStore(project)
    with pytest.raises(PatchError, match="empty response"):
        write_response(WriteRequest(doc, " \n\t\n"))
    assert doc.read_text() == DOC
    assert store.load_pending(doc) is None
    assert store.load_snapshot(doc) is None


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda p: p / "missing.md", id="missing"),
        pytest.param(lambda p: (p / "dir.md").mkdir() or p / "dir.md", id="directory"),
        pytest.param(
            lambda p: (p / "bin.md").write_bytes(b"\xff\xfe bad") and p / "bin.md",
            id="not-utf8",
        ),
    ],
)
def test_unreadable_document_is_a_document_error(project: Path, make: Any) -> None:
    doc = make(project)
    with pytest.raises(DocumentError):
        write_response(WriteRequest(doc, RESPONSE))
    assert StateStore(project).load_pending(doc) is None


def test_disk_write_applies_response_and_saves_state(project: Path) -> None:
    doc = make_doc(project)
    seen: list[WriteOutcome] = []
    outcome = write_response(
        WriteRequest(doc, RESPONSE, origin="skill"), on_written=seen.append
    )
    text = doc.read_text()
    assert outcome.target == "disk"
    assert outcome.changed
    assert not outcome.merged
    assert seen == [outcome]
    assert "done\n<!-- /agent:status -->" in text
    assert text.index("What is 2 + 2?") < text.index("### Re: sum")
    assert "<!-- agent:boundary:" in text
    store = StateStore(project)
    assert store.load_snapshot(doc) == outcome.content_ours == text
    assert store.load_crdt(doc)
    assert store.load_pending(doc) is None
    log = (project / ".agent-doc" / "logs" / "ops.log").read_text()
    assert f"write_origin file={doc} origin=skill" in log


def test_concurrent_user_edit_is_merged_and_kept_out_of_the_snapshot(
    project: Path,
) -> None:
    doc = make_doc(project)
    follow_up = DOC.replace("What is 2 + 2?\n", "What is 2 + 2?\nAnd 3 + 3?\n")
    doc.write_text(follow_up)  # typed while the agent was answering
    outcome = write_response(WriteRequest(doc, RESPONSE, baseline=DOC))
    text = doc.read_text()
    assert outcome.merged
    assert "And 3 + 3?" in text
    assert "### Re: sum" in text
    assert "done\n" in text
    snapshot = StateStore(project).load_snapshot(doc)
    assert snapshot == outcome.content_ours
    assert snapshot is not None
    assert "And 3 + 3?" not in snapshot
    assert "### Re: sum" in snapshot


def test_identical_result_is_not_rewritten(project: Path) -> None:
    doc = make_doc(project, STATUS_ONLY)
    response = "<!-- patch:status -->\nnew\n<!-- /patch:status -->\n"
    assert write_response(WriteRequest(doc, response)).changed
    mtime = doc.stat().st_mtime_ns
    inode = doc.stat().st_ino
    again = write_response(WriteRequest(doc, response))
    assert not again.changed
    assert (doc.stat().st_mtime_ns, doc.stat().st_ino) == (mtime, inode)
    assert StateStore(project).load_pending(doc) is None


def test_crlf_and_bom_are_kept(project: Path) -> None:
    doc = project / "win.md"
    doc.write_bytes(b"\xef\xbb\xbf" + STATUS_ONLY.replace("\n", "\r\n").encode())
    write_response(
        WriteRequest(doc, "<!-- patch:status -->\nnew\n<!-- /patch:status -->")
    )
    data = doc.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert b"\r\nnew\r\n" in data
    assert data.count(b"\n") == data.count(b"\r\n")


def test_crlf_and_bom_are_kept_when_merging_concurrent_edits(project: Path) -> None:
    doc = project / "win.md"
    baseline = STATUS_ONLY + "é line\n"
    doc.write_bytes(
        b"\xef\xbb\xbf" + (baseline + "typed 😀\n").replace("\n", "\r\n").encode()
    )
    out = write_response(
        WriteRequest(
            doc, "<!-- patch:status -->\nnew\n<!-- /patch:status -->", baseline
        )
    )
    assert out.merged
    data = doc.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert data.count(b"\n") == data.count(b"\r\n")
    assert data[3:].decode().replace("\r\n", "\n") == out.final_text
    assert "typed 😀\n" in out.final_text
    assert "\nnew\n" in out.final_text


@pytest.mark.parametrize("concurrent", [False, True], ids=["no-edit", "merged"])
def test_file_snapshot_and_crdt_state_hold_the_written_texts(
    project: Path, concurrent: bool
) -> None:
    from agent_doc.document.merge import encode_text_state

    baseline = DOC.replace("What", "Wé 😀 what")
    doc = make_doc(project, baseline + ("typed meanwhile\n" if concurrent else ""))
    out = write_response(WriteRequest(doc, RESPONSE, baseline))
    assert out.merged is concurrent
    assert doc.read_bytes() == out.final_text.encode()
    store = StateStore(project)
    assert store.snapshot_path(doc).read_bytes() == out.content_ours.encode()
    assert store.load_crdt(doc) == encode_text_state(out.final_text)
    assert ("typed meanwhile\n" in out.final_text) is concurrent


def test_bad_document_keeps_response_pending_and_file_untouched(project: Path) -> None:
    broken = "<!-- agent:status -->\nno close\n"
    doc = make_doc(project, broken)
    with pytest.raises(DocumentError, match="unclosed"):
        write_response(WriteRequest(doc, RESPONSE))
    assert doc.read_text() == broken
    store = StateStore(project)
    assert store.load_pending(doc) == RESPONSE  # not lost: recover can replay it
    assert store.load_snapshot(doc) is None


def owner(doc: Path, buffer: str, reply: dict[str, Any]) -> Any:
    def handle(req: dict[str, Any]) -> dict[str, Any]:
        if req["type"] == "read":
            open_ = req["file"] == str(doc.resolve())
            return {"ok": True, "open": open_, "text": buffer}
        return reply

    return handle


def test_server_that_has_the_document_receives_the_write(
    project: Path, servers: list[FakeServer]
) -> None:
    doc = make_doc(project)
    buffer = DOC + "unsaved typing\n"
    srv = FakeServer(
        owner(doc, buffer, {"ok": True, "content_ours": "OURS\n", "text": "FINAL\n"})
    )
    servers.append(srv)
    register(project, os.getpid(), srv.path)
    outcome = write_response(WriteRequest(doc, RESPONSE, origin="run"), ServerLink())
    assert outcome.target == "server"
    assert outcome.final_text == "FINAL\n"
    write = srv.requests[-1]
    assert write["type"] == "write"
    assert write["baseline"] == buffer  # the live buffer is the baseline
    assert write["origin"] == "run"
    assert doc.read_text() == DOC  # the file itself is not written
    store = StateStore(project)
    assert store.load_snapshot(doc) == "OURS\n"
    assert store.load_pending(doc) is None


def test_server_timeout_writes_nothing_and_keeps_pending(
    project: Path, servers: list[FakeServer]
) -> None:
    doc = make_doc(project)
    srv = FakeServer(owner(doc, DOC, {"ok": False, "error": "busy", "code": 75}))
    servers.append(srv)
    register(project, os.getpid(), srv.path)
    with pytest.raises(ServerTimeout):
        write_response(WriteRequest(doc, RESPONSE), ServerLink())
    assert doc.read_text() == DOC
    store = StateStore(project)
    assert store.load_snapshot(doc) is None
    assert store.load_pending(doc) == RESPONSE


def test_force_disk_bypasses_the_server(
    project: Path, servers: list[FakeServer]
) -> None:
    doc = make_doc(project)
    srv = FakeServer(owner(doc, DOC, {"ok": False, "error": "unused"}))
    servers.append(srv)
    register(project, os.getpid(), srv.path)
    outcome = write_response(WriteRequest(doc, RESPONSE, force_disk=True), ServerLink())
    assert outcome.target == "disk"
    assert srv.requests == []
    assert "### Re: sum" in doc.read_text()


def test_patch_component_on_disk_and_errors(project: Path) -> None:
    doc = make_doc(project, STATUS_ONLY)
    outcome = patch_component(doc, "status", "fresh\n")
    assert outcome.changed
    assert outcome.target == "disk"
    assert doc.read_text() == STATUS_ONLY.replace("old", "fresh")
    assert StateStore(project).load_snapshot(doc) == doc.read_text()
    with pytest.raises(ComponentNotFound, match="nope"):
        patch_component(doc, "nope", "x")
    with pytest.raises(PatchError, match="invalid component name"):
        patch_component(doc, "-bad", "x")
    assert doc.read_text() == STATUS_ONLY.replace("old", "fresh")


def test_patch_component_runs_hooks(project: Path) -> None:
    doc = make_doc(project, STATUS_ONLY)
    marker = project / "post-ran"
    (project / ".agent-doc" / "components.toml").write_text(
        f'[status]\npre_patch = "tr a-z A-Z"\npost_patch = "touch {marker}"\n'
    )
    patch_component(doc, "status", "hello\n")
    assert "HELLO\n" in doc.read_text()
    # post_patch is fire-and-forget: wait (bounded) for its side effect.
    import time

    deadline = time.monotonic() + 10
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert marker.exists()


def test_patch_component_without_hooks_skips_both(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``allow_hooks=False`` (untrusted editor workspace): content as given."""
    doc = make_doc(project, STATUS_ONLY)
    marker = project / "hook-ran"
    (project / ".agent-doc" / "components.toml").write_text(
        f'[status]\npre_patch = "touch {marker}; tr a-z A-Z"\n'
        f'post_patch = "touch {marker}"\n'
    )
    with caplog.at_level("WARNING", logger="agent_doc.write.patch"):
        patch_component(doc, "status", "hello\n", allow_hooks=False)
    assert "hello\n" in doc.read_text()
    assert not marker.exists()
    assert "workspace not trusted" in caplog.text


def test_patch_component_goes_to_the_owning_server(
    project: Path, servers: list[FakeServer]
) -> None:
    doc = make_doc(project, STATUS_ONLY)
    srv = FakeServer(owner(doc, STATUS_ONLY, {"ok": True, "text": "PATCHED\n"}))
    servers.append(srv)
    register(project, os.getpid(), srv.path)
    outcome = patch_component(doc, "status", "x\n", link=ServerLink())
    assert outcome.target == "server"
    assert srv.requests[-1] == {
        "type": "patch",
        "file": str(doc.resolve()),
        "component": "status",
        "content": "x\n",
        "timeout_ms": 28000,
    }
    assert doc.read_text() == STATUS_ONLY
    with pytest.raises(ComponentNotFound):  # validated before the server is asked
        patch_component(doc, "missing", "x\n", link=ServerLink())
    assert srv.requests[-1]["type"] == "read"
