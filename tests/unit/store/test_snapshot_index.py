"""The snapshot's index file: written with every snapshot, carried from the
previous one, used only when it describes exactly the snapshot's bytes — a
stale, missing or corrupt one gives the plain result, never an error."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent_doc.cycle.doc_diff import document_diff
from agent_doc.cycle.preflight import run_preflight
from agent_doc.cycle.turn import prepare_turn
from agent_doc.document.diff import compute_diff
from agent_doc.document.excerpt import resumed_context
from agent_doc.document.linediff import common_prefix
from agent_doc.document.snap_index import INDEX_FROM
from agent_doc.document.snap_index import SnapIndex
from agent_doc.document.snap_scan import first_name
from agent_doc.document.snap_scan import index_of
from agent_doc.store.atomic import atomic_write_bytes
from agent_doc.store.landing import drop_staged_snapshot
from agent_doc.store.landing import promote_staged_snapshot
from agent_doc.store.landing import stage_snapshot
from agent_doc.store.landing import staged_snapshot_path
from agent_doc.store.snapshot_index import index_for
from agent_doc.store.snapshot_index import index_path
from agent_doc.store.snapshot_index import read_indexed
from agent_doc.store.state import StateStore
from agent_doc.write.pipeline import WriteRequest
from agent_doc.write.pipeline import write_response
from bench._long_docs import conversation
from bench._long_docs import type_line
from tests.unit.document.test_snap_index import assert_describes

ANSWER = "<!-- patch:exchange -->\n### Re: typed\n\nA short answer.\n<!-- /patch:exchange -->\n"
STATUS = "<!-- patch:status -->\nanswered\n<!-- /patch:status -->\n"


@pytest.fixture
def session(tmp_path: Path) -> tuple[StateStore, Path, str]:
    """A project with a long session document (above :data:`INDEX_FROM`)."""
    (tmp_path / ".agent-doc").mkdir()
    doc = tmp_path / "doc.md"
    text = "".join(conversation(80, "s1"))
    assert len(text.encode()) > INDEX_FROM
    doc.write_text(text, "utf-8")
    return StateStore(tmp_path), doc, text


def _index_file(store: StateStore, doc: Path) -> Path:
    return index_path(store.snapshot_path(doc))


def test_a_saved_snapshot_has_its_index_and_a_deleted_one_none(
    session: tuple[StateStore, Path, str],
) -> None:
    store, doc, text = session
    store.save_snapshot(doc, text)
    data, index = read_indexed(store.snapshot_path(doc)) or (b"", None)
    assert data == text.encode()
    assert index is not None
    assert index == index_of(data)
    assert len(index.offsets) > 3
    grown = type_line(text)
    store.save_snapshot_data(
        doc,
        tuple(
            grown.encode()[i : i + 5000] for i in range(0, len(grown.encode()), 5000)
        ),
    )
    again = store.load_snapshot_indexed(doc)
    assert again is not None
    assert again[1] is not None  # carried, then scanned on
    assert_describes(again[1], grown.encode())
    store.delete_snapshot(doc)
    assert not _index_file(store, doc).exists()
    assert store.load_snapshot_indexed(doc) is None


def test_a_small_snapshot_has_no_index_and_drops_a_stale_one(
    session: tuple[StateStore, Path, str],
) -> None:
    store, doc, text = session
    store.save_snapshot(doc, text)
    store.save_snapshot(doc, "short\n")
    assert not _index_file(store, doc).exists()
    assert store.load_snapshot_indexed(doc) == (b"short\n", None)


def _stale(store: StateStore, doc: Path, text: str, how: str) -> None:
    """Make the snapshot's index stale (or gone, or corrupt) in one way."""
    snapshot, idx = store.snapshot_path(doc), _index_file(store, doc)
    if how == "rewritten":  # another writer, the index left behind
        atomic_write_bytes(snapshot, type_line(text).encode())
    elif how == "same size and time":  # only the bytes differ (at the end)
        st = snapshot.stat()
        data = text.encode()
        atomic_write_bytes(snapshot, data[:-9] + b"changed.\n")
        os.utime(snapshot, ns=(st.st_atime_ns, st.st_mtime_ns))
    elif how == "missing":
        idx.unlink()
    elif how == "truncated":
        idx.write_bytes(idx.read_bytes()[:-10])
    elif how == "garbage":
        idx.write_bytes(os.urandom(300))
    elif how == "bad numbers":
        lines = idx.read_bytes().split(b"\n")
        lines[4] = b"12 x"
        idx.write_bytes(b"\n".join(lines))
    elif how == "unordered":
        lines = idx.read_bytes().split(b"\n")
        lines[4], lines[5] = lines[5], lines[4]
        idx.write_bytes(b"\n".join(lines))


HOW = ["rewritten", "same size and time", "missing", "truncated", "garbage",
       "bad numbers", "unordered"]  # fmt: skip


@pytest.mark.parametrize("how", HOW)
def test_a_stale_missing_or_corrupt_index_is_not_used(
    session: tuple[StateStore, Path, str], how: str
) -> None:
    store, doc, text = session
    store.save_snapshot(doc, text)
    _stale(store, doc, text, how)
    found = store.load_snapshot_indexed(doc)
    assert found is not None
    assert found[1] is None
    assert found[0] == store.snapshot_path(doc).read_bytes()
    assert index_for(text.encode(), store.snapshot_path(doc)) is None


@pytest.mark.parametrize("how", [None, *HOW])
def test_diff_with_any_index_is_the_plain_diff(
    session: tuple[StateStore, Path, str], how: str | None
) -> None:
    store, doc, text = session
    store.save_snapshot(doc, text)
    if how is not None:
        _stale(store, doc, text, how)
    doc.write_text(type_line(text).replace("## User", "## Person", 1), "utf-8")
    previous = store.snapshot_path(doc).read_text("utf-8")
    got = document_diff(doc)
    assert got.diff == compute_diff(previous, doc.read_text("utf-8"))
    assert got.diff is not None
    assert "+## Person" in got.diff


def test_a_staged_snapshot_brings_its_index_along(
    session: tuple[StateStore, Path, str],
) -> None:
    store, doc, text = session
    store.save_snapshot(doc, text)
    grown = type_line(text)
    stage_snapshot(store, doc, grown)
    staged = staged_snapshot_path(store, doc)
    assert index_path(staged).exists()
    assert read_indexed(store.snapshot_path(doc)) is not None  # old one still good
    assert promote_staged_snapshot(store, doc)
    assert not index_path(staged).exists()
    found = store.load_snapshot_indexed(doc)
    assert found is not None
    assert found[1] is not None
    assert_describes(found[1], grown.encode())
    stage_snapshot(store, doc, text)
    drop_staged_snapshot(store, doc)
    assert not index_path(staged).exists()
    assert not staged.exists()


def _two_turns(
    root: Path, text: str, answer: str, window: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[bytes, bytes]:
    """Two answers written into a long document, a line typed between them."""
    from agent_doc.document import apply_window

    if not window:
        monkeypatch.setattr(apply_window, "WINDOW_FROM", 1 << 62)
    root.mkdir()
    (root / ".agent-doc").mkdir()
    doc = root / "doc.md"
    doc.write_text(text, "utf-8")
    for answer_id in ("feedbeef", "cafebabe"):
        write_response(
            WriteRequest(doc, answer, force_disk=True, answer_id=answer_id), None
        )
        doc.write_text(type_line(doc.read_text("utf-8")), "utf-8")
    monkeypatch.undo()
    store = StateStore(root)
    found = store.load_snapshot_indexed(doc)
    assert found is not None
    assert found[1] is not None  # written by each write, carried
    assert_describes(found[1], found[0])
    return doc.read_bytes(), found[0]


@pytest.mark.parametrize("answer", [ANSWER, STATUS + ANSWER])
def test_writes_through_the_index_leave_the_plain_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: str
) -> None:
    """The status near the top changes too: the new snapshot's index keeps
    the document's checkpoints in the stretches it copies."""
    text = "".join(conversation(80, "s1"))
    plain = _two_turns(tmp_path / "plain", text, answer, False, monkeypatch)
    window = _two_turns(tmp_path / "window", text, answer, True, monkeypatch)
    assert window == plain


@pytest.mark.parametrize("how", [None, "same size and time", "garbage"])
def test_a_turns_diff_with_any_index_is_the_plain_diff(
    session: tuple[StateStore, Path, str], how: str | None
) -> None:
    """``run``'s turn diffs the stored snapshot's text with its index."""
    store, doc, text = session
    store.save_snapshot(doc, text)
    if how is not None:
        _stale(store, doc, text, how)
    doc.write_text(type_line(text), "utf-8")
    turn = prepare_turn(doc, None)
    assert turn is not None
    previous = store.snapshot_path(doc).read_text("utf-8")
    assert turn.diff == compute_diff(previous, doc.read_text("utf-8"))
    assert "+One more question, typed just now?" in (turn.diff or "")


@pytest.mark.parametrize("how", [None, "same size and time", "truncated"])
@pytest.mark.parametrize("excerpts", [False, True])
def test_preflight_with_any_index_gives_the_plain_diff(
    project: Path, how: str | None, excerpts: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``preflight``'s commit check, window diff and excerpts take the
    snapshot's index (when it has one that describes it)."""
    from agent_doc.cycle import preflight_utf8
    from agent_doc.document import apply_window

    given: list[object] = []
    real = preflight_utf8.window_diff

    def spy(*args: object, **known: object) -> object:
        given.append(args[3] if len(args) > 3 else None)
        return real(*args, **known)  # type: ignore[arg-type]

    cut: list[object] = []
    real_cut = apply_window._stretches_indexed

    def cut_spy(*args: object) -> object:
        cut.append(args[1])
        return real_cut(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(preflight_utf8, "window_diff", spy)
    monkeypatch.setattr(apply_window, "_stretches_indexed", cut_spy)
    store, doc = StateStore(project), project / "doc.md"
    text = "".join(conversation(80, "s1"))
    doc.write_text(text, "utf-8")
    store.save_snapshot(doc, text)
    subprocess.run(["git", "-C", str(project), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(project), "commit", "-qm", "turns"], check=True)
    if how is not None:
        _stale(store, doc, text, how)
    doc.write_text(type_line(text), "utf-8")
    result = run_preflight(doc, settle=False, allow_network=False, excerpts=excerpts)
    previous = store.snapshot_path(doc).read_text("utf-8")
    assert result.diff == compute_diff(previous, doc.read_text("utf-8"))
    assert "+One more question, typed just now?" in (result.diff or "")
    assert len(given) == 1
    if how is None:  # (a stale one: the commit rewrote the snapshot, indexed)
        assert given[0] is not None
    if given[0] is not None:
        assert isinstance(given[0], SnapIndex)
        assert_describes(given[0], store.snapshot_path(doc).read_bytes())
    if not excerpts:
        assert result.excerpts is None
        return
    assert result.excerpts == resumed_context(previous, doc.read_text("utf-8"))
    assert "One more question, typed just now?" in result.excerpts
    assert cut == [index for index in given if index is not None]  # the same one


BACKLOG = "<!-- agent:backlog -->\n- [ ] [#a1] a task\n<!-- /agent:backlog -->\n\n"


def _with_backlog(text: str) -> str:
    return text.replace("<!-- agent:status", BACKLOG + "<!-- agent:status", 1)


def test_the_index_remembers_where_the_snapshot_names_an_item_list(
    session: tuple[StateStore, Path, str],
) -> None:
    """Written whole, carried, or from an index of the format before (read
    with its checkpoints, its names not known, searched once when the next
    snapshot is written)."""
    store, doc, text = session
    path = store.snapshot_path(doc)
    for body in (text, _with_backlog(text), type_line(_with_backlog(text)), text):
        store.save_snapshot(doc, body)
        index = read_indexed(path)[1]  # type: ignore[index]
        assert index is not None
        assert index.names_at == first_name(body.encode())
    store.save_snapshot(doc, _with_backlog(text))
    lines = _index_file(store, doc).read_bytes().split(b"\n")
    lines[0], lines[2] = b"agent-doc snapshot index 1", lines[2].split(b" ")[0]
    _index_file(store, doc).write_bytes(b"\n".join(lines))
    index = read_indexed(path)[1]  # type: ignore[index]
    assert index is not None
    assert index.names_at is None
    assert index.offsets == index_of(path.read_bytes()).offsets
    store.save_snapshot(doc, type_line(_with_backlog(text)))
    index = read_indexed(path)[1]  # type: ignore[index]
    assert index is not None
    assert index.names_at == first_name(type_line(_with_backlog(text)).encode())


@pytest.mark.parametrize("index", ["kept", "missing", "format 1"])
@pytest.mark.parametrize(
    ("snapshot_has", "document_has"),
    [(True, True), (False, True), (True, False), (False, False)],
)
def test_preflight_asks_the_backlog_step_as_the_whole_search_does(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    index: str,
    snapshot_has: bool,
    document_has: bool,
) -> None:
    """The backlog step runs exactly when the document names an item list:
    kept from the snapshot (the name in the shared prefix), typed in the
    window, or deleted from it — with the snapshot's index, without it, or
    with one that does not know the names."""
    from agent_doc.cycle import preflight
    from agent_doc.cycle import preflight_utf8

    asked: list[Path] = []
    monkeypatch.setattr(
        preflight, "tidy_backlog", lambda path, link: asked.append(path)
    )
    starts: list[int] = []

    def search(data: bytes, start: int = 0, end: int | None = None) -> int:
        starts.append(start)
        return first_name(data, start, end)

    monkeypatch.setattr(preflight_utf8, "first_name", search)
    store, doc = StateStore(project), project / "doc.md"
    text = "".join(conversation(80, "s1"))
    snapshot = _with_backlog(text) if snapshot_has else text
    doc.write_text(snapshot, "utf-8")
    store.save_snapshot(doc, snapshot)
    subprocess.run(["git", "-C", str(project), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(project), "commit", "-qm", "turns"], check=True)
    if index == "missing":
        _index_file(store, doc).unlink()
    elif index == "format 1":
        lines = _index_file(store, doc).read_bytes().split(b"\n")
        lines[0], lines[2] = b"agent-doc snapshot index 1", lines[2].split(b" ")[0]
        _index_file(store, doc).write_bytes(b"\n".join(lines))
    typed = type_line(text)
    if document_has and not snapshot_has:  # typed at the end of the exchange
        typed = type_line(text, "<!-- agent:icebox -->")
    elif document_has:
        typed = _with_backlog(typed)
    doc.write_text(typed, "utf-8")
    result = run_preflight(doc, settle=False, allow_network=False, excerpts=True)
    assert asked == ([doc] if document_has else [])
    assert result.diff is not None
    if index == "kept" and snapshot_has and document_has:  # the kept name
        assert starts == [snapshot.index("agent:backlog")]
    elif index == "kept":  # from where the two differ only (the name cut there)
        assert starts[-1] == common_prefix(snapshot.encode(), typed.encode()) - 12
        assert starts[:-1] == (
            [snapshot.index("agent:backlog")] if snapshot_has else []
        )
    else:
        assert starts == [0]
