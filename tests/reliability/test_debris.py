"""Debris of a killed writer: ``recover`` and ``gc`` remove a dead writer's temp file.

An atomic write puts its bytes in ``.doc.md.<pid>.<random>.tmp`` and renames it
over the document; ``kill -9`` between the two left that file next to the
person's document, and neither ``recover`` nor ``gc`` removed it. Now both
remove the temporary files of writers that are gone (pid not running, or
reused by a process started after the file was written) and never a live
writer's.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_doc.store.debris import remove_debris
from agent_doc.store.state import StateStore
from tests.reliability._util import AGENT_DOC
from tests.reliability._util import cli_env
from tests.reliability._util import make_project
from tests.reliability._util import run_cli
from tests.reliability._util import template_doc
from tests.socket_server import dead_pid

RESPONSE = "<!-- patch:exchange -->\n### Re: big\nDEBRIS-ANSWER-51c\n<!-- /patch:exchange -->\n"
KILLS = int(os.environ.get("AGENT_DOC_DEBRIS_KILLS", "30"))


def _big_doc(lines: int = 40_000) -> str:
    filler = "".join(
        f"filler line {i:06d} lorem ipsum dolor sit\n" for i in range(lines)
    )
    return template_doc("Please answer.").replace("# Doc\n", "# Doc\n\n" + filler, 1)


def _strays(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.tmp") if p.name.startswith("."))


def _kill_when_temp_appears(proc: subprocess.Popen[bytes], folder: Path) -> bool:
    """SIGKILL ``proc`` as soon as its temporary file exists (bounded: 30 s)."""
    deadline = time.monotonic() + 30
    seen = False
    while proc.poll() is None and time.monotonic() < deadline:
        if any(p.name.endswith(".tmp") for p in folder.iterdir()):
            seen = True
            break
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return seen


@pytest.mark.timeout(300)
def test_kill_9_of_write_leaves_no_stray_file_after_recover_or_gc(
    tmp_path: Path,
) -> None:
    """30 SIGKILLs of a real ``agent-doc write`` at random moments of its temp
    file's life: the document is old or new, and ``recover`` / ``gc`` leave no
    temporary file anywhere in the project."""
    rng = random.Random(5150)
    root = make_project(tmp_path / "proj")
    doc = root / "doc.md"
    old = _big_doc()
    store = StateStore(root)
    left_behind = 0
    for i in range(KILLS):
        doc.write_text(old, encoding="utf-8")
        store.save_snapshot(doc, old)
        store.delete_pending(doc)
        proc = subprocess.Popen(
            [AGENT_DOC, "write", str(doc), "--force-disk"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=cli_env(),
        )
        assert proc.stdin is not None
        proc.stdin.write(RESPONSE.encode())
        proc.stdin.close()
        if _kill_when_temp_appears(proc, root) and rng.random() < 0.5:
            time.sleep(rng.uniform(0, 0.01))  # later in the temp file's life
        text = doc.read_text(encoding="utf-8")
        assert text == old or "DEBRIS-ANSWER-51c" in text, f"kill {i}: torn"
        left_behind += bool(_strays(root))
        command = ["recover", str(doc)] if i % 2 else ["gc"]
        done = run_cli(command, cwd=root)
        assert done.returncode == 0, done.stderr.decode()
        assert _strays(root) == [], f"kill {i}: {command[0]} left a temp file"
    assert left_behind > 0, "no kill hit the temp file: the test proves nothing"


def _plant(folder: Path, pid: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f".doc.md.{pid}.{os.urandom(6).hex()}.tmp"
    path.write_text("half an answer")
    return path


def test_recover_removes_a_dead_writers_temp_file_and_keeps_a_live_ones(
    tmp_path: Path,
) -> None:
    root = make_project(tmp_path / "proj")
    doc = root / "doc.md"
    doc.write_text(template_doc())
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        time.sleep(0.05)  # the writer's temp file is younger than the process
        live = _plant(root, sleeper.pid)
        dead = _plant(root, dead_pid())
        dead_state = _plant(root / ".agent-doc" / "snapshots", dead_pid())
        other = root / ".notes.txt.123.tmp"  # not one of ours: never touched
        other.write_text("x")
        done = run_cli(["recover", "doc.md"], cwd=root)
        assert done.returncode == 0, done.stderr.decode()
        assert not dead.exists()
        assert not dead_state.exists()
        assert live.exists()
        assert other.exists()
        assert f"temporary file: {dead}" in done.stderr.decode()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_reused_pid_does_not_keep_a_dead_writers_temp_file(tmp_path: Path) -> None:
    """The pid names a process started after the file was written: not its writer."""
    root = make_project(tmp_path / "proj")
    doc = root / "doc.md"
    doc.write_text(template_doc())
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        stale = _plant(root, sleeper.pid)
        an_hour_ago = time.time() - 3600
        os.utime(stale, (an_hour_ago, an_hour_ago))
        assert remove_debris(doc) == [stale]
        assert not stale.exists()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_gc_lists_and_removes_dead_writers_temp_files(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    (root / "notes").mkdir()
    (root / "notes" / "doc.md").write_text(template_doc())
    dead = _plant(root / "notes", dead_pid())
    in_state = _plant(root / ".agent-doc" / "crdt", dead_pid())
    mine = _plant(root / "notes", os.getpid())  # a live writer: this process
    dry = run_cli(["gc", "--dry-run"], cwd=root)
    assert dry.returncode == 0, dry.stderr.decode()
    assert dead.exists()
    assert in_state.exists()
    assert "temporary file: its writer" in dry.stdout.decode()
    done = run_cli(["gc"], cwd=root)
    assert done.returncode == 0, done.stderr.decode()
    assert not dead.exists()
    assert not in_state.exists()
    assert mine.exists()
