"""claim, route, focus and start against a real tmux server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_doc.errors import DocumentError
from agent_doc.errors import TmuxError
from agent_doc.store.state import StateStore
from agent_doc.tmux import registry
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.claim import claim
from agent_doc.tmux.route import focus
from agent_doc.tmux.route import route

from .conftest import make_doc
from .conftest import spawn_agent
from .conftest import wait_for
from .conftest import wait_text

pytestmark = pytest.mark.tmux


def _bound(project: Path) -> dict[str, str]:
    return {k: e.pane for k, e in registry.load(project).entries.items()}


def test_claim_twice_last_call_wins(tmux: Tmux, project: Path) -> None:
    doc = make_doc(project, "plan.md", session="")
    first, second = spawn_agent(tmux), spawn_agent(tmux)
    one = claim(doc, pane=first, tmux=tmux)
    two = claim(doc, pane=second, tmux=tmux)
    assert (one.pane, two.pane) == (first, second)
    assert _bound(project) == {two.session_id: second}
    text = doc.read_text("utf-8")
    assert f"agent_doc_session: {two.session_id}" in text
    assert "<!-- agent:exchange patch=append -->" in text
    assert two.scaffolded is False
    log = (project / ".agent-doc" / "claims.log").read_text("utf-8")
    assert log.splitlines() == [
        f"Claimed plan.md for pane {first}",
        f"Claimed plan.md for pane {second}",
    ]


def test_claim_snapshot_has_empty_exchange(tmux: Tmux, project: Path) -> None:
    body = "<!-- agent:exchange -->\nUser question here\n<!-- /agent:exchange -->\n"
    doc = make_doc(project, "q.md", body=body)
    claim(doc, pane=spawn_agent(tmux), tmux=tmux)
    snap = StateStore(project).load_snapshot(doc)
    assert snap is not None
    assert "User question here" not in snap
    assert "User question here" in doc.read_text("utf-8")


def test_claim_onto_other_documents_pane_provisions(tmux: Tmux, project: Path) -> None:
    a, b = make_doc(project, "a.md"), make_doc(project, "b.md")
    pane = spawn_agent(tmux)
    ra = claim(a, pane=pane, tmux=tmux)
    rb = claim(b, pane=pane, tmux=tmux)
    assert rb.provisioned
    assert rb.pane != pane
    assert _bound(project) == {ra.session_id: pane, rb.session_id: rb.pane}
    wait_text(tmux, rb.pane, "fake-agent ready")
    forced = claim(b, pane=pane, force=True, tmux=tmux)
    assert _bound(project) == {forced.session_id: pane}


def test_claim_by_position_and_dead_window_fallback(tmux: Tmux, project: Path) -> None:
    left = spawn_agent(tmux)
    right = tmux.split(left, "/bin/sh")
    window = tmux.panes()[left].window_id
    doc = make_doc(project, "p.md")
    assert claim(doc, position="right", window=window, tmux=tmux).pane == right
    assert claim(doc, position="left", window="@999", pane=left, tmux=tmux).pane == left


def test_route_to_live_pane_keys_arrive(tmux: Tmux, project: Path) -> None:
    doc = make_doc(project, "notes/plan.md")
    pane = spawn_agent(tmux)
    claim(doc, pane=pane, tmux=tmux)
    result = route(doc, tmux=tmux)
    assert (result.status, result.pane, result.verified) == ("sent", pane, True)
    wait_text(tmux, pane, "done: notes/plan.md")
    assert "received: /agent-doc notes/plan.md" in tmux.capture(pane)
    assert route(doc, debounce_ms=60_000, tmux=tmux).status == "debounced"


def test_route_dead_pane_auto_starts(tmux: Tmux, project: Path) -> None:
    doc = make_doc(project, "d.md")
    pane = spawn_agent(tmux)
    key = claim(doc, pane=pane, tmux=tmux).session_id
    tmux.send_text(pane, "/exit 3")

    def gone() -> bool:
        info = tmux.panes().get(pane)
        return info is None or info.dead

    wait_for(gone, 5, "exit")
    result = route(doc, prompt_timeout_s=15, tmux=tmux)
    assert result.status == "started"
    assert result.pane != pane
    wait_text(tmux, result.pane or "", "done: d.md")
    assert _bound(project) == {key: result.pane}
    lock = project / ".agent-doc" / "starting"
    assert len(list(lock.glob("*.lock"))) == 1


def test_route_unregistered_document_starts_new_session(
    tmux: Tmux, project: Path
) -> None:
    doc = make_doc(project, "new.md", session="")
    result = route(doc, prompt_timeout_s=15, tmux=tmux)
    assert result.status == "started"
    assert tmux.has_session("claude")
    wait_text(tmux, result.pane or "", "done: new.md")


def test_focus_selects_window_and_pane(tmux: Tmux, project: Path) -> None:
    doc = make_doc(project, "f.md")
    pane = spawn_agent(tmux)
    claim(doc, pane=pane, tmux=tmux)
    assert focus(doc, tmux=tmux) == pane
    info = tmux.panes()[pane]
    assert info.active
    assert info.window_active
    tmux.kill_pane(pane)
    with pytest.raises(TmuxError, match=f"pane {pane} is dead"):
        focus(doc, tmux=tmux)


def test_bad_input_messages(tmux: Tmux, project: Path) -> None:
    doc = make_doc(project, "x.md")
    with pytest.raises(
        TmuxError, match=r"not inside tmux: give --pane %N or --window W"
    ):
        claim(doc, tmux=tmux)
    with pytest.raises(TmuxError, match="pane %999 is dead"):
        claim(doc, pane="%999", tmux=tmux)
    with pytest.raises(DocumentError, match="no such document"):
        route(project / "missing.md", tmux=tmux)
    bare = make_doc(project, "bare.md", session="", body="plain text\n")
    with pytest.raises(TmuxError, match="no session UUID"):
        focus(bare, tmux=tmux)
    assert bare.read_text("utf-8") == "plain text\n"


def _cli(
    *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_doc.cli.entry", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
    )


def test_cli_errors_are_one_line(tmux: Tmux, project: Path, tmp_path: Path) -> None:
    doc = make_doc(project, "c.md")
    out = _cli("claim", str(doc))
    assert out.returncode == 1
    assert out.stderr == "agent-doc: not inside tmux: give --pane %N or --window W\n"
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    out = _cli("route", str(doc), env={"PATH": str(empty)})
    assert out.stderr == "agent-doc: tmux is not installed\n"
    registry.registry_path(project).write_text("[1, 2", "utf-8")
    out = _cli("route", str(doc))
    assert out.stderr.startswith("agent-doc: sessions.json is corrupt: ")
    assert "backed up to sessions.json.corrupt-" in out.stderr


def test_start_inside_tmux_execs_agent(tmux: Tmux, project: Path) -> None:
    doc = make_doc(project, "s.md")
    pane = tmux.run("new-window", "-d", "-P", "-F", "#{pane_id}", "/bin/sh")[0]
    socket = os.environ["AGENT_DOC_TMUX_SOCKET"]
    agent = os.environ["AGENT_DOC_AGENT_COMMAND"]
    tmux.send_text(
        pane,
        f"AGENT_DOC_TMUX_SOCKET={socket} AGENT_DOC_AGENT_COMMAND='{agent}' "
        f"{sys.executable} -m agent_doc.cli.entry start {doc}",
    )
    wait_text(tmux, pane, "fake-agent ready")
    assert list(_bound(project).values()) == [pane]


def test_route_with_missing_agent_says_so_before_spawning_a_pane(
    tmux: Tmux, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A missing ``claude`` is named, not reported later as a dead pane."""
    doc = make_doc(project, "m.md")
    monkeypatch.setenv("AGENT_DOC_AGENT_COMMAND", "no-such-agent-xyz --flag")
    before = set(tmux.panes())
    out = _cli("route", str(doc))
    assert out.returncode == 1
    assert out.stderr == (
        "agent-doc: agent command 'no-such-agent-xyz' is not installed (not on "
        "PATH); install 'no-such-agent-xyz' or fix its path, or set "
        "$AGENT_DOC_AGENT_COMMAND\n"
    )
    assert set(tmux.panes()) == before, "no pane may be spawned"
    assert not (project / ".agent-doc" / "starting").exists()
    monkeypatch.delenv("AGENT_DOC_AGENT_COMMAND")
    (project / ".agent-doc" / "config.toml").write_text('agent_command = "claude"\n')
    out = _cli("route", str(doc), env={"PATH": "/usr/bin:/bin"})
    assert out.stderr == (
        "agent-doc: agent command 'claude' is not installed (not on PATH); "
        "install Claude Code (https://docs.anthropic.com/claude-code), or set "
        "agent_command in .agent-doc/config.toml\n"
    )
    assert set(tmux.panes()) == before
