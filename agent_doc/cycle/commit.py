"""The ``commit``, ``clean`` and ``history`` operations on a session document.

``commit_document`` follows spec §7.15 with our decision on ``(HEAD)``: the
committed blob carries the markers on new headings, the working tree never
does. Commit never writes the document (the §8.4 commit write contract): it
only refreshes the snapshot, whose boundary is repositioned to the end of the
exchange; the caller tells an open editor to reposition its buffer too.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc._runtime.faults import crash_point
from agent_doc._runtime.faults import declare_points
from agent_doc._runtime.lazy import lazy_logger
from agent_doc._runtime.record import Record
from agent_doc.cycle.gitcli import relative_path
from agent_doc.cycle.gitcommit import Git
from agent_doc.cycle.gitcommit import head_text_of
from agent_doc.cycle.gitfull import REGULAR
from agent_doc.cycle.gitfull import SYMLINK
from agent_doc.cycle.gitfull import FileEntry
from agent_doc.cycle.gitobjects import object_id
from agent_doc.cycle.vcs import commit_message
from agent_doc.cycle.vcs import has_head
from agent_doc.cycle.vcs import open_repo
from agent_doc.cycle.vcs import relative_path as repo_relative_path
from agent_doc.cycle.vcs import squash_agent_commits
from agent_doc.document.boundary import remove_all_boundaries
from agent_doc.document.boundary import reposition_boundary_to_end
from agent_doc.document.components import find_component
from agent_doc.document.components import scan_components
from agent_doc.document.diff_window import same_after
from agent_doc.document.diff_window import same_after_utf8
from agent_doc.document.headings import mark_new_headings
from agent_doc.document.headings import strip_head_markers
from agent_doc.document.snapshot_scan import SnapshotScan
from agent_doc.document.snapshot_scan import same_after_scanned
from agent_doc.errors import AgentDocError
from agent_doc.errors import StateError
from agent_doc.errors import VcsError
from agent_doc.store.docfile import encode_document
from agent_doc.store.docfile import is_utf8
from agent_doc.store.docfile import read_document_form
from agent_doc.store.events import fire_quietly
from agent_doc.store.gitignore import ensure_state_ignored
from agent_doc.store.snapshot_index import file_key
from agent_doc.store.state import StateStore

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from agent_doc.cycle.gitcli import WorkTree
    from agent_doc.cycle.gitcommit import Git
    from agent_doc.cycle.gitfull import FileEntry
    from agent_doc.document.snap_index import SnapIndex
    from agent_doc.store.snapshot_index import FileKey
    from agent_doc.write.server_link import ServerLink

logger = lazy_logger(__name__)

declare_points(
    {"commit.committed": "the commit is made; the snapshot's boundary not moved"}
)


class HistoryEntry(Record):
    """One commit of a document, with its exchange content."""

    __slots__ = ("sha", "when", "message", "exchange")

    def __init__(self, sha: str, when: str, message: str, exchange: str | None) -> None:
        self.sha = sha
        """Full commit id."""
        self.when = when
        """ISO-8601 commit time."""
        self.message = message
        """First line of the commit message."""
        self.exchange = exchange
        """The exchange component's content at that commit (None when absent)."""

    def preview(self, width: int = 72) -> str:
        """A one-line preview of where the exchange ended at this commit.

        The last heading (an answer's ``### Re: …``), or the question under
        it when that heading only names a speaker (``## User``; an empty one,
        the prompt left for the next question, is passed over); boundary and
        ``(HEAD)`` markers are never shown.
        """
        text = exchange_end(self.exchange or "") or "(no exchange)"
        return text if len(text) <= width else text[: width - 1] + "…"


_FENCE = ("```", "~~~")


def exchange_end(exchange: str) -> str:
    """The line that says where ``exchange`` ends: its last heading or question."""
    lines: list[str] = []
    fenced = False
    for raw in remove_all_boundaries(strip_head_markers(exchange)).splitlines():
        line = raw.strip()
        if line.startswith(_FENCE):
            fenced = not fenced
        elif line and not fenced and not line.startswith("<!--"):
            lines.append(line)
    headings = [n for n, line in enumerate(lines) if line.startswith("#")]
    while headings:
        last = headings.pop()
        if len(lines[last].lstrip("#").split()) != 1:  # an answer: ### Re: …
            return lines[last]
        if last + 1 < len(lines):  # a speaker (## User) and the question
            return f"{lines[last]}: {lines[last + 1]}"
        # an empty prompt the answer left for the next question: look above
    return lines[-1] if lines else ""


def start_commit(path: Path, now: datetime | None = None) -> Git:
    """Start the git processes of :func:`commit_document` (they start up while
    the caller does other work); ``VcsError`` when git cannot run."""
    return Git(path, commit_message(path, now))


def commit_document(
    path: Path,
    *,
    now: datetime | None = None,
    git: Git | None = None,
    extra: Sequence[Path] = (),
    scan: SnapshotScan | None = None,
) -> tuple[bool, str]:
    """Commit the document's snapshot (or the file when no snapshot exists).

    ``git``: from :func:`start_commit` for this document, when started earlier
    (this closes it). ``extra``: more files committed as they are on disk in
    the same commit (``compact``'s archive). ``scan``: keeps the snapshot's
    bytes as read, once checked valid UTF-8, and their block scan for the
    caller (``data`` is ``None`` when the commit rewrote the snapshot).
    Returns ``(committed, message)``.
    """
    scan = scan if scan is not None else SnapshotScan()
    if git is None:
        git = start_commit(path, now)
    with git:  # git works while the snapshot is read and prepared
        store = StateStore.for_document(path)
        snapshot_data, index, key = _checked_snapshot(store, path, scan)
        if snapshot_data is None:  # the file is committed: its errors first
            read_document_form(path)
        ensure_state_ignored(store.state_dir)  # before any `git add -A` sees it
        scan.keep(snapshot_data, index, key, checked=True)
        cleaned = None
        tree = git.work_tree()
        git.settle_index(tree)  # a commit killed before its index followed
        rel = relative_path(tree, path)  # a symlink's target
        also = _link_entries(git, tree, path) + _extra_entries(git, tree, extra)
        if snapshot_data is None:
            data = path.read_bytes()
        else:
            head_data = git.head_data(tree, rel)
            if (
                not also
                and head_data is not None
                and _same_answer_data(snapshot_data, head_data, scan, index)
            ):  # the document is not read: nothing of it is committed
                return False, "nothing to commit"
            # how it is stored (checked, not decoded; past the bytes it
            # shares with the snapshot only), for the blob's line endings
            original = read_document_form(path, snapshot_data)
            snapshot = snapshot_data.decode("utf-8")
            head = None if head_data is None else head_text_of(head_data)
            prepared = mark_new_headings(snapshot, head)
            data = encode_document(original, prepared)
            # only a commit stores it: "nothing to commit" skips the whole-text work
            cleaned = reposition_boundary_to_end(strip_head_markers(snapshot))
        result = git.commit(
            tree, rel, data, git.message, path=path.resolve(), also=also
        )
        crash_point("commit.committed")
    if result.committed and cleaned is not None and cleaned != snapshot:
        scan.keep(None)
        store.save_snapshot(path, cleaned)
    return result.committed, result.message


def read_checked_snapshot(path: Path, scan: SnapshotScan) -> None:
    """Read the document's snapshot into ``scan`` (its bytes, index and file
    key) when it is valid UTF-8, marked checked: the commit then takes it
    while its file keeps that key. Never raises: a snapshot missing,
    unreadable or not UTF-8 leaves ``scan`` as it was (the commit reads it
    and says why)."""
    try:
        found = StateStore.for_document(path).load_snapshot_keyed(path)
    except AgentDocError:
        return
    if found is not None and is_utf8(found[0]):
        scan.keep(*found, checked=True)


def _checked_snapshot(
    store: StateStore, path: Path, scan: SnapshotScan | None = None
) -> tuple[bytes | None, SnapIndex | None, FileKey | None]:
    """The snapshot's bytes (``None``: no snapshot), checked valid UTF-8, its
    index and its file's key (those ``scan`` holds, checked, while its file
    keeps their key). A snapshot that cannot be read or is not UTF-8
    raises :class:`StateError`, after the document's own error if it has one
    (the document is checked first, as it always was)."""
    if scan is not None and scan.checked and scan.data is not None:
        try:
            same = file_key(store.snapshot_path(path).stat()) == scan.key
        except OSError:
            same = False
        if same:
            return scan.data, scan.index, scan.key  # type: ignore[return-value]
    try:
        found = store.load_snapshot_keyed(path)
        data, index, key = found if found is not None else (None, None, None)
        if data is not None and not is_utf8(data):
            where = store.snapshot_path(path)
            raise StateError(f"corrupt state file {where}: not valid UTF-8")
    except StateError:
        read_document_form(path)
        raise
    return data, index, key


def _link_entries(git: Git, tree: WorkTree, path: Path) -> list[FileEntry]:
    """The symlink ``path`` as git would commit it (mode 120000), when HEAD
    does not have it already; nothing for a file that is not a symlink."""
    if not path.is_symlink():
        return []
    try:
        link = (path.parent.resolve() / path.name).relative_to(tree.top.resolve())
    except ValueError:
        return []
    target = bytes(path.readlink())
    rel = link.as_posix()
    if git.head_entry(tree, rel) == (SYMLINK, object_id(b"blob", target)):
        return []
    return [FileEntry(SYMLINK, rel, target)]


def _extra_entries(git: Git, tree: WorkTree, files: Sequence[Path]) -> list[FileEntry]:
    """``files`` as regular files of the commit, those HEAD lacks or differs in."""
    entries = []
    for file in files:
        rel = relative_path(tree, file)
        data = file.read_bytes()
        blob = object_id(b"blob", data, tree.object_format)
        if git.head_entry(tree, rel) != (REGULAR, blob):
            entries.append(FileEntry(REGULAR, rel, data))
    return entries


def _same_answer_data(
    snapshot: bytes,
    head: bytes,
    scan: SnapshotScan | None = None,
    index: SnapIndex | None = None,
) -> bool:
    """:func:`_same_answer` of the snapshot's UTF-8 and HEAD's blob, on the
    bytes when HEAD's text is its bytes decoded (no CRLF, no BOM): only the
    changed window is decoded; otherwise on the texts. ``scan``: the
    snapshot's, when its block scan is kept for later steps; ``index``: the
    snapshot's index (its scans then start near the window: the whole block
    scan is left to a later step that needs it)."""
    crlf = b"\r" in head and b"\r\n" in head  # (a byte is found faster)
    if not crlf and not head.startswith(b"\xef\xbb\xbf"):
        if snapshot == head:
            return True
        try:  # a bad byte of HEAD's can only be in the window: decoded there
            if index is not None:
                return same_after_utf8(snapshot, head, _bare, index)
            if scan is None or scan.data is not snapshot:
                scan = SnapshotScan(snapshot)
            return same_after_scanned(scan, head, _bare)
        except UnicodeDecodeError:
            pass
    return _same_answer(snapshot.decode("utf-8"), head_text_of(head))


def _bare(text: str) -> str:
    """A text without its ``(HEAD)`` markers and boundary markers."""
    return remove_all_boundaries(strip_head_markers(text))


def _same_answer(snapshot: str, head: str) -> bool:
    """Whether the snapshot holds nothing HEAD does not: equal once the
    ``(HEAD)`` markers and boundary markers are left out of both (a commit of
    only those would flip the markers back and forth every turn)."""

    return snapshot == head or same_after(snapshot, head, _bare)  # the window only


def commit_and_refresh(
    path: Path,
    link: ServerLink | None = None,
    *,
    git: Git | None = None,
    extra: Sequence[Path] = (),
    scan: SnapshotScan | None = None,
) -> tuple[bool, str]:
    """Commit the document, fire ``post_commit``, and update an open editor.

    The one commit every front-end uses (CLI ``commit``, ``preflight``, ``run``,
    the language server): after a commit, a server that has the document open
    repositions its live boundary and refreshes its git gutter. A failure to
    reach the editor is logged, never fatal: the commit has happened. ``git``,
    ``extra`` and ``scan``: see :func:`commit_document`.
    """
    committed, message = commit_document(path, git=git, extra=extra, scan=scan)
    if committed:
        fire_quietly("post_commit", path)
        if link is not None:
            try:
                link.reposition(path)
                link.vcs_refresh(path)
            except AgentDocError as exc:
                logger.warning("commit: editor not refreshed: %s", exc)
    return committed, message


def squash_document_commits(path: Path) -> tuple[bool, str]:
    """Squash the document's consecutive agent-doc commits at HEAD into one."""
    result = squash_agent_commits(open_repo(path), path)
    return result.committed, result.message


def _exchange_of(text: str) -> str | None:
    component = find_component(scan_components(text).components, "exchange")
    return component.content(text) if component else None


def document_history(path: Path, limit: int = 50) -> list[HistoryEntry]:
    """List the commits touching ``path`` (newest first) with their exchange."""
    import git

    repo = open_repo(path)
    rel = repo_relative_path(repo, path)
    if not has_head(repo):
        return []
    entries = []
    for commit in repo.iter_commits("HEAD", paths=rel, max_count=limit):
        try:
            blob = commit.tree / rel
            text = blob.data_stream.read().decode("utf-8", errors="replace")
        except (KeyError, git.GitCommandError):
            text = ""
        entries.append(
            HistoryEntry(
                sha=commit.hexsha,
                when=commit.committed_datetime.isoformat(),
                message=str(commit.message).splitlines()[0] if commit.message else "",
                exchange=_exchange_of(text.replace("\r\n", "\n")),
            )
        )
    return entries


def restored_exchange(path: Path, sha: str, current_text: str) -> str:
    """Return the new exchange content: the one at ``sha`` prepended to today's.

    The old exchange comes without its ``(HEAD)`` markers and boundary marker
    (those belong to the committed blob), so the document keeps one boundary.
    """
    matches = [e for e in document_history(path, limit=10_000) if e.sha.startswith(sha)]
    if not matches or not sha:
        raise VcsError(f"no commit {sha!r} touches {path.name}")
    old = matches[0].exchange
    if old is not None:  # the committed blob's markers stay in the blob
        old = remove_all_boundaries(strip_head_markers(old))
    if old is None:
        raise VcsError(f"commit {sha[:12]} has no exchange component in {path.name}")
    current = _exchange_of(current_text)
    if current is None:
        raise VcsError(f"{path.name} has no exchange component to restore into")
    return old.rstrip("\n") + "\n\n" + current if old.strip() else current
