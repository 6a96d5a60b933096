"""Issue 27: a registry that survives a tmux socket naming another server.

Every binding records its server's socket path and is judged only against
that server; an unreachable server leaves bindings alone with one warning;
only ``resync --fix`` prunes, and it prints what it removes.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path

import pytest

from agent_doc.editor.agent_status import UNKNOWN
from agent_doc.editor.agent_status import open_doc
from agent_doc.editor.agent_status import poll
from agent_doc.tmux import registry
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.bindings import load_doc
from agent_doc.tmux.claim import claim
from agent_doc.tmux.registry import SessionEntry
from tests.cli_runner import agent_doc
from tests.private_tmux import AGENT_COMMAND

from .conftest import make_doc
from .conftest import spawn_agent
from .conftest import wait_for
from .conftest import wait_text

pytestmark = pytest.mark.tmux


def _bind_three(tmux: Tmux, project: Path) -> list[str]:
    panes = []
    for name in ("a.md", "b.md", "c.md"):
        pane = spawn_agent(tmux)
        claim(make_doc(project, name), pane=pane, tmux=tmux)
        panes.append(pane)
    return panes


def _other_server() -> str:
    """The ``-L`` name of a server that is not running."""
    return f"agentdoc-absent-{uuid.uuid4().hex[:12]}"


def test_socket_path_is_the_one_tmux_reports(tmux: Tmux) -> None:
    assert tmux.socket_path == tmux.run("display-message", "-p", "#{socket_path}")[0]
    assert Tmux.at(tmux.socket_path).probe_panes() == tmux.probe_panes()
    assert Tmux(_other_server()).probe_panes() is None


def test_bindings_record_their_server(tmux: Tmux, project: Path) -> None:
    _bind_three(tmux, project)
    sockets = {e.socket for e in registry.load(project).entries.values()}
    assert sockets == {tmux.socket_path}


def test_socket_typo_wipes_nothing_and_the_bindings_are_judged_on_their_server(
    tmux: Tmux, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """AGENT_DOC_TMUX_SOCKET → a server that is not running: status said every
    agent "exited" and resync pruned every binding."""
    panes = _bind_three(tmux, project)
    before = registry.registry_path(project).read_bytes()
    env = {"AGENT_DOC_TMUX_SOCKET": _other_server()}
    status = agent_doc("status", cwd=project, env=env)
    assert status.returncode == 0, status.stderr
    assert "exited" not in status.stdout
    assert status.stdout.count("running") + status.stdout.count("starting") == 3
    for args in (("resync",), ("resync", "--fix")):
        done = agent_doc(*args, cwd=project, env=env)
        assert done.returncode == 0, done.stderr
        assert "pruned 0" in done.stderr or "would prune 0" in done.stderr
        assert registry.registry_path(project).read_bytes() == before
    routed = agent_doc("route", "a.md", cwd=project, env=env)
    assert routed.returncode == 0, routed.stderr
    assert f"(pane {panes[0]})" in routed.stderr
    wait_text(tmux, panes[0], "received: /agent-doc a.md")
    assert registry.registry_path(project).read_bytes() == before


def test_unreachable_server_leaves_bindings_alone_with_one_warning(
    tmux: Tmux, project: Path
) -> None:
    _bind_three(tmux, project)
    tmux.run("kill-server")
    wait_for(lambda: tmux.probe_panes() is None, 10, "the server to stop")
    path = registry.registry_path(project)
    before = path.read_bytes()
    status = agent_doc("status", cwd=project)
    assert status.returncode == 0, status.stderr
    lines = status.stdout.splitlines()
    assert len(lines) == 3
    assert all("unknown (server unreachable)" in line for line in lines), lines
    assert "exited" not in status.stdout
    assert status.stderr.splitlines() == [
        f"agent-doc: tmux server {tmux.socket_path} is not reachable; "
        "leaving 3 bindings alone"
    ]
    for args in (("resync",), ("resync", "--fix")):
        done = agent_doc(*args, cwd=project)
        assert done.returncode == 0, done.stderr
        assert "is not reachable; leaving 3 bindings alone" in done.stderr
        assert path.read_bytes() == before
    doc = project / "a.md"
    opened = open_doc(doc, doc.read_text("utf-8"))
    assert opened is not None
    shown = poll([opened], {}, tmux=tmux)[doc]
    assert shown.state == UNKNOWN
    assert "not reachable" in shown.lens_title()
    assert path.read_bytes() == before


def test_only_resync_fix_prunes_and_it_says_what(tmux: Tmux, project: Path) -> None:
    live, dead = spawn_agent(tmux), spawn_agent(tmux)
    claim(make_doc(project, "live.md"), pane=live, tmux=tmux)
    claim(make_doc(project, "dead.md"), pane=dead, tmux=tmux)
    tmux.kill_pane(dead)
    path = registry.registry_path(project)
    before = path.read_bytes()
    looked = agent_doc("resync", cwd=project)
    assert looked.returncode == 0, looked.stderr
    assert f"would prune: dead.md (pane {dead}: pane gone)" in looked.stderr
    assert path.read_bytes() == before
    for other in (("status",), ("sync", "--col", "live.md")):
        assert agent_doc(*other, cwd=project).returncode == 0
    assert "dead.md" in {e.file for e in registry.load(project).entries.values()}
    fixed = agent_doc("resync", "--fix", cwd=project)
    assert fixed.returncode == 0, fixed.stderr
    assert f"pruned: dead.md (pane {dead}: pane gone)" in fixed.stderr
    assert [e.file for e in registry.load(project).entries.values()] == ["live.md"]


def test_old_entries_count_as_the_current_servers_and_get_recorded(
    tmux: Tmux, project: Path
) -> None:
    pane = spawn_agent(tmux)
    doc = make_doc(project, "old.md")
    key = load_doc(doc).key or ""
    path = registry.registry_path(project)
    path.write_text(json.dumps({key: {"pane": pane, "file": "old.md"}}), "utf-8")
    routed = agent_doc("route", "old.md", cwd=project)
    assert routed.returncode == 0, routed.stderr
    assert f"sent (pane {pane})" in routed.stderr
    assert registry.load(project).entries[key].socket == tmux.socket_path


def test_a_pane_id_on_another_server_is_not_the_same_pane(
    tmux: Tmux, project: Path
) -> None:
    """Pane ids repeat across servers: claiming %N here kept no other binding."""
    pane = spawn_agent(tmux)
    elsewhere = make_doc(project, "elsewhere.md")
    key = load_doc(elsewhere).key or ""
    with registry.locked(project) as reg:
        reg.bind(key, SessionEntry(pane=pane, file="elsewhere.md",
                                   socket="/tmp/agentdoc-nowhere/sock"))  # fmt: skip
    claim(make_doc(project, "here.md"), pane=pane, tmux=tmux)
    files = {e.file for e in registry.load(project).entries.values()}
    assert files == {"elsewhere.md", "here.md"}


def test_route_to_a_pane_that_does_not_exist_fails(tmux: Tmux, project: Path) -> None:
    """``route --pane %999`` ignored the flag and "sent" to the bound pane."""
    bound = spawn_agent(tmux)
    claim(make_doc(project, "r.md"), pane=bound, tmux=tmux)
    before = registry.registry_path(project).read_bytes()
    done = agent_doc("route", "r.md", "--pane", "%999", cwd=project)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"agent-doc: pane %999 does not exist on tmux server {tmux.socket_path}"
    ]
    assert registry.registry_path(project).read_bytes() == before
    assert "received" not in tmux.capture(bound)
    other = spawn_agent(tmux)
    done = agent_doc("route", "r.md", "--pane", other, cwd=project)
    assert done.returncode == 0, done.stderr
    wait_text(tmux, other, "received: /agent-doc r.md")
    assert "received" not in tmux.capture(bound)
    assert next(iter(registry.load(project).entries.values())).pane == other


def test_start_with_a_pane_outside_tmux_refuses(tmux: Tmux, project: Path) -> None:
    """``start --pane`` outside tmux ran the agent in the calling terminal."""
    pane = spawn_agent(tmux)
    make_doc(project, "s.md")
    done = agent_doc("start", "s.md", "--pane", pane, cwd=project, timeout=20)
    assert done.returncode == 1
    assert "❯" not in done.stdout, "the agent ran in the calling terminal"
    lines = done.stderr.splitlines()
    assert len(lines) == 1
    assert f"not pane {pane} (not inside tmux)" in lines[0]
    assert f"agent-doc claim FILE --pane {pane}" in lines[0]
    assert registry.load(project).entries == {}


def test_claim_with_a_window_outside_tmux_does_what_the_hint_says(
    tmux: Tmux, project: Path
) -> None:
    """The hint said "give --pane %N or --window W"; --window W then failed."""
    no_target = agent_doc("claim", "w.md", cwd=project)
    make_doc(project, "w.md")
    no_target = agent_doc("claim", "w.md", cwd=project)
    assert "give --pane %N or --window W" in no_target.stderr
    agent = spawn_agent(tmux)
    window = tmux.panes()[agent].window_id
    done = agent_doc("claim", "w.md", "--window", window, cwd=project)
    assert done.returncode == 0, done.stderr
    assert f"Claimed w.md for pane {agent}" in done.stderr
    shell_window = tmux.run("new-window", "-d", "-P", "-F", "#{window_id}")[0]
    make_doc(project, "v.md")
    done = agent_doc("claim", "v.md", "--window", shell_window, cwd=project)
    assert done.returncode == 0, done.stderr
    assert "(new pane)" in done.stderr
    new = registry.load(project).entries[load_doc(project / "v.md").key or ""]
    assert tmux.panes()[new.pane].window_id == shell_window
    wait_text(tmux, new.pane, "❯")


def test_sync_gives_a_fresh_pane_to_a_document_whose_agent_ended(
    tmux: Tmux, project: Path
) -> None:
    """§7.20: the agent ended (``/exit``) soon after its start, and sync called
    it "exited at once" and never started a new one."""
    make_doc(project, "a.md")
    make_doc(project, "b.md")
    first = agent_doc("sync", "--col", "a.md", "--col", "b.md", cwd=project)
    assert first.returncode == 0, first.stderr
    entries = {e.file: e.pane for e in registry.load(project).entries.values()}
    wait_text(tmux, entries["b.md"], "❯")
    tmux.send_text(entries["b.md"], "/exit")

    def ended() -> bool:
        info = tmux.panes().get(entries["b.md"])
        return info is None or info.dead

    wait_for(ended, 10, "the agent to end")
    again = agent_doc("sync", "--col", "a.md", "--col", "b.md", cwd=project)
    assert again.returncode == 0, again.stderr
    assert "exited at once" not in again.stderr
    fresh = {e.file: e.pane for e in registry.load(project).entries.values()}
    assert fresh["a.md"] == entries["a.md"]
    assert fresh["b.md"] != entries["b.md"]
    assert not tmux.panes()[fresh["b.md"]].dead
    assert f"a.md ({fresh['a.md']}) | b.md ({fresh['b.md']})" in again.stdout


def test_sync_restarts_an_agent_whose_exit_status_tmux_never_learned(
    tmux: Tmux, project: Path
) -> None:
    """tmux 3.3 marks a pane dead on its terminal's EOF and, when that comes
    before the exit, never records the status: sync judged such an agent (one
    that had long reached its prompt) "exited at once" on a busy machine."""
    make_doc(project, "c.md")
    first = agent_doc("sync", "--col", "c.md", cwd=project)
    assert first.returncode == 0, first.stderr
    pane = next(iter(registry.load(project).entries.values())).pane
    wait_text(tmux, pane, "❯")
    pid = tmux.panes()[pane].pid
    tmux.send_text(pane, "/hangup")  # closes its terminal, exits 0 later

    def reaped() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    wait_for(reaped, 10, "the agent to exit and tmux to reap it")
    assert tmux.panes()[pane].dead
    assert tmux.panes()[pane].dead_status is None  # tmux never learned it
    again = agent_doc("sync", "--col", "c.md", cwd=project)
    assert again.returncode == 0, again.stderr
    assert "exited at once" not in again.stderr
    fresh = next(iter(registry.load(project).entries.values())).pane
    assert fresh != pane
    assert not tmux.panes()[fresh].dead


def test_route_shows_elapsed_time_only_on_a_terminal(tmux: Tmux, project: Path) -> None:
    """``route`` waited up to 30 s for a started agent's prompt in silence."""
    import os
    import pty
    import select
    import sys

    make_doc(project, "t.md")
    make_doc(project, "p.md")
    delayed = f"FAKE_AGENT_STARTUP_DELAY=2.5 {AGENT_COMMAND}"
    env = {**os.environ, "AGENT_DOC_AGENT_COMMAND": delayed}
    piped = agent_doc("route", "p.md", cwd=project, env=env)
    assert piped.returncode == 0, piped.stderr
    assert "waiting" not in piped.stderr
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "route", "t.md"],
        cwd=project, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=slave,
    )  # fmt: skip
    os.close(slave)
    seen = b""
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 30)
            assert ready, f"no output in 30 s: {seen!r}"
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
        assert proc.wait(timeout=30) == 0, seen
    text = seen.decode("utf-8", "replace")
    assert "waiting for the agent's prompt in pane" in text
    assert "… 1 s" in text
    assert "… 2 s" in text
    assert "t.md: started" in text
