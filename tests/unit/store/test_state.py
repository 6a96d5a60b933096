"""State adapter: project roots, hashes, documents on disk, atomic writes, locks."""

from __future__ import annotations

import selectors
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agent_doc.errors import DocumentError
from agent_doc.errors import StateError
from agent_doc.store.state import DocumentFile
from agent_doc.store.state import StateStore
from agent_doc.store.state import atomic_write_text
from agent_doc.store.state import doc_hash
from agent_doc.store.state import doc_lock
from agent_doc.store.state import file_lock
from agent_doc.store.state import find_project_root
from agent_doc.store.state import project_root_for
from agent_doc.store.state import read_document
from agent_doc.store.state import write_document

WAIT = 20.0


def _readline(proc: subprocess.Popen[str], timeout: float = WAIT) -> str:
    """One stdout line of ``proc``, failing the test after ``timeout`` seconds."""
    assert proc.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout):
            proc.kill()
            pytest.fail(f"no output from child within {timeout} s")
    return proc.stdout.readline().strip()


# -- project roots and hashes ----------------------------------------------


def test_find_project_root_is_nearest_agent_doc_ancestor(tmp_path: Path) -> None:
    (tmp_path / "outer" / ".agent-doc").mkdir(parents=True)
    (tmp_path / "outer" / "inner" / ".agent-doc").mkdir(parents=True)
    doc = tmp_path / "outer" / "inner" / "sub" / "doc.md"
    doc.parent.mkdir()
    doc.write_text("x")
    assert find_project_root(doc) == (tmp_path / "outer" / "inner").resolve()
    other = tmp_path / "outer" / "o.md"
    assert find_project_root(other) == (tmp_path / "outer").resolve()
    assert find_project_root(tmp_path / "lone.md") is None


def test_project_root_falls_back_to_git_then_folder(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "docs").mkdir()
    assert project_root_for(repo / "docs" / "a.md") == repo.resolve()
    worktree = tmp_path / "wt"
    (worktree / "d").mkdir(parents=True)
    (worktree / ".git").write_text("gitdir: /elsewhere\n")
    assert project_root_for(worktree / "d" / "a.md") == worktree.resolve()
    plain = tmp_path / "plain"
    plain.mkdir()
    assert project_root_for(plain / "a.md") == plain.resolve()


def test_project_root_prefers_agent_doc_over_git(project: Path) -> None:
    sub = project / "sub"
    (sub / ".agent-doc").mkdir(parents=True)
    assert project_root_for(sub / "a.md") == sub.resolve()
    assert project_root_for(project / "b.md") == project.resolve()


def test_symlinked_path_hashes_like_its_target(tmp_path: Path) -> None:
    target = tmp_path / "real" / "doc.md"
    target.parent.mkdir()
    target.write_text("hi\n")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    linked_dir = tmp_path / "alias"
    linked_dir.symlink_to(target.parent)
    assert doc_hash(link) == doc_hash(target)
    assert doc_hash(linked_dir / "doc.md") == doc_hash(target)
    assert doc_hash(target) != doc_hash(tmp_path / "real" / "other.md")
    assert len(doc_hash(target)) == 64
    assert doc_hash(target) == doc_hash(target).lower()


def test_relative_path_hashes_like_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert doc_hash(Path("doc.md")) == doc_hash(tmp_path / "doc.md")


# -- reading and writing documents ----------------------------------------


def test_bom_and_crlf_round_trip(tmp_path: Path) -> None:
    doc = tmp_path / "win.md"
    doc.write_bytes(b"\xef\xbb\xbf# T\r\n\r\nhello\r\n")
    original = read_document(doc)
    assert original == DocumentFile("# T\n\nhello\n", "\r\n", True)
    write_document(doc, original, original.text + "added\n")
    assert doc.read_bytes() == b"\xef\xbb\xbf# T\r\n\r\nhello\r\nadded\r\n"


def test_crlf_in_new_text_is_not_doubled(tmp_path: Path) -> None:
    doc = tmp_path / "win.md"
    doc.write_bytes(b"a\r\n")
    original = read_document(doc)
    write_document(doc, original, "a\r\nb\n")
    assert doc.read_bytes() == b"a\r\nb\r\n"


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"a\r\nb\nc\r\n", id="mixed"),
        pytest.param(b"a\rb\r", id="cr-only"),
        pytest.param(b"a\nb\n", id="lf"),
        pytest.param(b"no newline", id="single-line"),
    ],
)
def test_non_crlf_documents_are_left_as_is(tmp_path: Path, raw: bytes) -> None:
    doc = tmp_path / "d.md"
    doc.write_bytes(raw)
    original = read_document(doc)
    assert original.text == raw.decode()
    assert original.newline == "\n"
    assert original.bom is False
    write_document(doc, original, original.text)
    assert doc.read_bytes() == raw


def test_read_errors_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.md"
    with pytest.raises(DocumentError, match=r"missing\.md: no such file"):
        read_document(missing)
    with pytest.raises(DocumentError, match="is a directory"):
        read_document(tmp_path)
    latin = tmp_path / "latin.md"
    latin.write_bytes(b"ok\ncaf\xe9\n")
    with pytest.raises(DocumentError, match=r"latin\.md: not valid UTF-8 \(line 2\)"):
        read_document(latin)
    binary = tmp_path / "bin.md"
    binary.write_bytes(b"a\nb\x00c")
    with pytest.raises(DocumentError, match=r"bin\.md: NUL byte on line 2"):
        read_document(binary)


def test_read_only_file_is_refused_and_untouched(tmp_path: Path) -> None:
    doc = tmp_path / "ro.md"
    doc.write_text("keep me\n")
    original = read_document(doc)
    doc.chmod(0o444)
    with pytest.raises(DocumentError, match="read-only"):
        write_document(doc, original, "changed\n")
    assert doc.read_text() == "keep me\n"
    assert oct(doc.stat().st_mode & 0o777) == oct(0o444)


def test_read_only_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    doc = folder / "d.md"
    doc.write_text("keep me\n")
    original = read_document(doc)
    folder.chmod(0o555)
    try:
        with pytest.raises(DocumentError, match=r"folder .* is read-only"):
            write_document(doc, original, "changed\n")
        assert doc.read_text() == "keep me\n"
        assert sorted(p.name for p in folder.iterdir()) == ["d.md"]
    finally:
        folder.chmod(0o755)


def test_write_keeps_mode_and_symlink(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    target = folder / "real.md"
    target.write_text("one\n")
    target.chmod(0o640)
    link = folder / "link.md"
    link.symlink_to(target)
    write_document(link, read_document(link), "two\n")
    assert link.is_symlink()
    assert target.read_text() == "two\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in folder.iterdir()) == ["link.md", "real.md"]


# -- atomic writes -------------------------------------------------------------

_WRITER = """
import sys
from pathlib import Path
from agent_doc.store.state import atomic_write_text
n = int(sys.argv[2])
content = f"writer-{n}-content\\n" * 20000
sys.stdin.readline()
for _ in range(15):
    atomic_write_text(Path(sys.argv[1]), content)
"""


def test_concurrent_atomic_writes_never_tear(tmp_path: Path) -> None:
    target = tmp_path / "state" / "shared.md"
    expected = {f"writer-{n}-content\n" * 20000 for n in range(10)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(target), str(n)],
            stdin=subprocess.PIPE,
            text=True,
        )
        for n in range(10)
    ]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.close()
    seen = 0
    while any(p.poll() is None for p in procs):
        if target.exists():
            assert target.read_text() in expected
            seen += 1
    for proc in procs:
        assert proc.wait(timeout=WAIT) == 0
    assert target.read_text() in expected
    assert [p.name for p in target.parent.iterdir()] == ["shared.md"]
    assert seen > 0


def test_atomic_write_keeps_existing_mode(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    atomic_write_text(target, "a")
    assert target.stat().st_mode & 0o777 == 0o644
    target.chmod(0o600)
    atomic_write_text(target, "b")
    assert target.read_text() == "b"
    assert target.stat().st_mode & 0o777 == 0o600


# -- locks -------------------------------------------------------------------

_HOLDER = """
import sys
from pathlib import Path
from agent_doc.store.state import doc_lock
with doc_lock(Path(sys.argv[1])):
    print("locked", flush=True)
    sys.stdin.readline()
print("released", flush=True)
"""


def test_doc_lock_serialises_processes(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text("x\n")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(doc)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert _readline(holder) == "locked"
        assert StateStore(project).lock_path(doc).exists()
        started = time.monotonic()
        with (
            pytest.raises(StateError, match=r"timed out after 0\.3 s"),
            doc_lock(doc, timeout=0.3),
        ):
            pass
        elapsed = time.monotonic() - started
        assert 0.3 <= elapsed < 5.0

        acquired_at: list[float] = []

        def wait_for_lock() -> None:
            with doc_lock(doc, timeout=WAIT):
                acquired_at.append(time.monotonic())

        waiter = threading.Thread(target=wait_for_lock)
        waiter.start()
        released_at = time.monotonic()
        assert holder.stdin is not None
        holder.stdin.write("release\n")
        holder.stdin.flush()
        waiter.join(WAIT)
        assert not waiter.is_alive()
        assert acquired_at
        assert acquired_at[0] >= released_at
        assert _readline(holder) == "released"
    finally:
        holder.kill()
        holder.wait(WAIT)


def test_file_lock_is_exclusive_between_threads_and_not_reentrant(
    tmp_path: Path,
) -> None:
    lock = tmp_path / "locks" / "x.lock"
    errors: list[str] = []
    with file_lock(lock, timeout=1):
        with (
            pytest.raises(StateError, match="already held by this thread"),
            file_lock(lock, timeout=5),
        ):
            pass

        def other() -> None:
            try:
                with file_lock(lock, timeout=0):
                    pass
            except StateError as exc:
                errors.append(str(exc))

        thread = threading.Thread(target=other)
        thread.start()
        thread.join(WAIT)
    assert len(errors) == 1
    assert "x.lock" in errors[0]
    with file_lock(lock, timeout=0):
        pass


# -- state store -------------------------------------------------------------


def test_state_store_round_trips_every_kind(project: Path) -> None:
    doc = project / "doc.md"
    store = StateStore.for_document(doc)
    assert store.root == project.resolve()
    h = doc_hash(doc)
    assert store.snapshot_path(doc) == store.state_dir / "snapshots" / f"{h}.md"
    assert store.crdt_path(doc).name == f"{h}.yrs"
    for kind in ("snapshot", "baseline", "pending"):
        assert getattr(store, f"load_{kind}")(doc) is None
        getattr(store, f"save_{kind}")(doc, f"{kind} ✓\r\n")
        assert getattr(store, f"load_{kind}")(doc) == f"{kind} ✓\r\n"
        getattr(store, f"delete_{kind}")(doc)
        getattr(store, f"delete_{kind}")(doc)
        assert getattr(store, f"load_{kind}")(doc) is None
    store.save_crdt(doc, b"\x00\x01\xff")
    assert store.load_crdt(doc) == b"\x00\x01\xff"
    store.delete_crdt(doc)
    assert store.load_crdt(doc) is None


def test_pending_list_and_clear(project: Path) -> None:
    store = StateStore(project)
    assert store.list_pending() == []
    a, b = project / "a.md", project / "b.md"
    store.save_pending(a, "resp a")
    store.save_pending(b, "resp b")
    assert store.list_pending() == sorted(
        [store.pending_path(a), store.pending_path(b)]
    )
    store.clear_pending(a)
    assert store.list_pending() == [store.pending_path(b)]
    assert store.load_pending(b) == "resp b"


def test_corrupt_snapshot_is_a_state_error(project: Path) -> None:
    doc = project / "doc.md"
    store = StateStore(project)
    path = store.snapshot_path(doc)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(StateError, match="corrupt state file"):
        store.load_snapshot(doc)


def test_state_written_through_symlink_is_shared(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text("x")
    link = project / "alias.md"
    link.symlink_to(doc)
    store = StateStore(project)
    store.save_snapshot(link, "snap")
    assert store.load_snapshot(doc) == "snap"
    assert store.snapshot_path(link).name == f"{doc_hash(doc)}.md"


def test_ceiling_dirs_stop_root_discovery(tmp_path, monkeypatch) -> None:
    from agent_doc.store.state import find_project_root
    from agent_doc.store.state import project_root_for

    (tmp_path / ".agent-doc").mkdir()
    (tmp_path / ".git").mkdir()
    doc = tmp_path / "a" / "b" / "doc.md"
    doc.parent.mkdir(parents=True)
    doc.write_text("x")
    monkeypatch.setenv("AGENT_DOC_CEILING_DIRS", str(tmp_path.parent))
    assert find_project_root(doc) == tmp_path.resolve()
    monkeypatch.setenv("AGENT_DOC_CEILING_DIRS", f"/nonexistent:{tmp_path / 'a'}")
    assert find_project_root(doc) is None
    assert project_root_for(doc) == doc.parent.resolve()


def test_reading_again_sees_a_change_of_the_same_size(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("é one\n", encoding="utf-8")
    first = read_document(doc)
    assert read_document(doc) == first  # unchanged bytes: the same result
    doc.write_text("é two\n", encoding="utf-8")
    assert read_document(doc).text == "é two\n"
    doc.write_bytes(b"\xef\xbb\xbfa\r\n")
    assert read_document(doc) == DocumentFile("a\n", "\r\n", bom=True)
