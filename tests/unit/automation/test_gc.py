"""gc of .agent-doc state: orphans, expired transients, dead servers, hooks, links."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from agent_doc.automation.busy import set_status
from agent_doc.automation.gc import collect_garbage
from agent_doc.automation.user_typing import record_typing
from agent_doc.store.events import fire_event
from agent_doc.store.state import StateStore


def _age(path: Path, seconds: float) -> None:
    old = time.time() - seconds
    os.utime(path, (old, old))


def test_gc_removes_orphans_and_keeps_living_state(project: Path) -> None:
    store = StateStore(project)
    alive, gone = project / "alive.md", project / "gone.md"
    alive.write_text("a\n")
    gone.write_text("g\n")
    for doc in (alive, gone):
        store.save_snapshot(doc, "s")
        store.save_pending(doc, "response")
        store.save_crdt(doc, b"x")
        set_status(doc, "idle")
        record_typing(doc)
    gone.unlink()
    removed = {
        (i.path.parent.name, i.path.name.split(".")[0])
        for i in collect_garbage(project)
    }
    gone_hash = store.snapshot_path(gone).stem
    assert removed == {
        (k, gone_hash) for k in ("snapshots", "pending", "crdt", "status", "typing")
    }
    assert store.load_pending(alive) == "response"
    assert store.load_snapshot(alive) == "s"


def test_gc_expires_transients_servers_hooks_and_links(project: Path) -> None:
    doc = project / "d.md"
    doc.write_text("d\n")
    set_status(doc, "writing")
    record_typing(doc)
    state = project / ".agent-doc"
    for kind in ("status", "typing"):
        _age(next((state / kind).iterdir()), 2 * 3600)
    (state / "servers").mkdir()
    (state / "servers" / "1.json").write_text(json.dumps({"pid": 999_999_999}))
    (state / "servers" / "2.json").write_text(json.dumps({"pid": os.getpid()}))
    event = fire_event("post_write", doc)
    hook_file = next((state / "hooks" / "post_write").iterdir())
    hook_file.rename(
        hook_file.with_name(f"{event.timestamp - 7_200_000:013d}-old.json")
    )
    (state / "links_cache").mkdir()
    (state / "links_cache" / "old.txt").write_text("x")
    (state / "links_cache" / "new.txt").write_text("x")
    _age(state / "links_cache" / "old.txt", 31 * 86400)
    dry = collect_garbage(project, dry_run=True)
    reasons = sorted(i.reason.split(":")[0] for i in dry)
    assert reasons == ["hooks", "links_cache", "servers", "status", "typing"]
    assert all(i.path.exists() for i in dry)
    assert len(collect_garbage(project)) == 5
    assert not any(i.path.exists() for i in dry)
    assert (state / "servers" / "2.json").exists()
    assert (state / "links_cache" / "new.txt").exists()


def test_gc_cli_json(project: Path) -> None:
    store = StateStore(project)
    store.save_baseline(project / "nowhere.md", "b")
    run = [sys.executable, "-m", "agent_doc.cli.entry", "gc"]
    dry = subprocess.run(
        [*run, "--dry-run", "--json"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert dry.returncode == 0, dry.stderr
    data = json.loads(dry.stdout)
    assert data["dry_run"] is True
    assert [i["reason"] for i in data["removed"]] == [
        "baselines: document no longer exists"
    ]
    real = subprocess.run(run, cwd=project, capture_output=True, text=True, timeout=60)
    assert real.returncode == 0
    assert "removed 1 file" in real.stderr
    assert store.load_baseline(project / "nowhere.md") is None


def test_gc_docs_say_what_happens_to_lock_files() -> None:
    """The docs once said "Lock files are left alone" while gc removed the free
    locks of deleted documents; the docs and ``gc --help`` now say exactly that."""
    root = Path(__file__).resolve().parents[3]
    automation = (root / "docs" / "automation.md").read_text(encoding="utf-8")
    section = automation.split("## gc", 1)[1].split("\n## ", 1)[0]
    assert "left alone" not in section
    assert "`locks/<hash>.lock` of documents that no longer exist" in section
    assert "a held lock is never removed" in section
    assert "temporary files a killed writer left behind" in section
    helped = subprocess.run(
        [sys.executable, "-m", "agent_doc.cli.entry", "gc", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert helped.returncode == 0, helped.stderr
    flat = " ".join(helped.stdout.split())
    assert "lock files of deleted documents that no process holds" in flat
