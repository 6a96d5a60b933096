"""``compact``: move a session document's older turns into an archive document.

The older turns (all but the last N, :mod:`agent_doc.document.compaction`)
are appended to ``<stem>.archive.md`` beside the document (or in the folder
``compact_archive_dir`` names), oldest first, and replaced by one link line.
The snapshot — and the baseline when it holds the same turns — get the same
replacement and the CRDT state is re-encoded from the new snapshot, so the
next diff shows only what was typed and not sent. When a language server has
the document open, the buffer changes by one workspace edit merged with the
typing since it was read (one undo); otherwise the file is rewritten under the
document lock. Nothing is written when the document cannot be. The archive is
written first, after the document's landing record names the compaction: a
crash between the two is completed or undone by ``recover``, ``preflight`` or
the next ``compact`` (:mod:`agent_doc.cycle.compact_landing`), so a turn is
never in both files nor in neither. The archive is committed with the
document (``--no-git`` skips it). Refused while an agent turn runs on the
document, and when the turns to move hold edits the agent has not seen.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from dataclasses import replace
from pathlib import Path

from agent_doc._runtime.faults import crash_point
from agent_doc._runtime.record import Record
from agent_doc.cycle.commit import commit_and_refresh
from agent_doc.cycle.compact_landing import forget_intent
from agent_doc.cycle.compact_landing import record_intent
from agent_doc.cycle.compact_landing import save_compacted_state
from agent_doc.cycle.compact_landing import settle_compaction
from agent_doc.cycle.named_history import tag_before_compact
from agent_doc.cycle.turn_lock import acquire_turn
from agent_doc.document.compaction import answer_starts
from agent_doc.document.compaction import archive_entry
from agent_doc.document.compaction import count_turns
from agent_doc.document.compaction import plan_compaction
from agent_doc.errors import AgentDocError
from agent_doc.errors import StateError
from agent_doc.store.conversation import load_conversation_settings
from agent_doc.store.docfile import check_writable
from agent_doc.store.state import StateStore
from agent_doc.store.state import atomic_write_text
from agent_doc.store.state import doc_lock
from agent_doc.store.state import project_root_for
from agent_doc.store.state import read_document
from agent_doc.store.state import write_document
from agent_doc.write.outcome import normalize_text

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.document.compaction import Compaction
    from agent_doc.store.conversation import ConversationSettings
    from agent_doc.store.state import StateStore
    from agent_doc.write.server_link import ServerHandle
    from agent_doc.write.server_link import ServerLink

ARCHIVE_SUFFIX = ".archive.md"


@dataclass(frozen=True, slots=True)
class CompactOutcome:
    """What one ``compact`` did."""

    path: Path
    archive: Path
    """The archive document (it may not exist when nothing moved)."""
    moved: int
    """Turns moved now (0: nothing to compact)."""
    total: int
    """Turns the archive holds from this document after this compaction."""
    kept: int
    """Turns left in the document."""
    target: str = "disk"
    """``disk`` or ``server`` (an editor's live buffer)."""
    committed: bool = False
    commit_message: str | None = None
    tag: str | None = None
    """The tag left on the document's last commit before it changed."""

    def with_tag(self, tag: str | None) -> CompactOutcome:
        """This outcome with ``tag`` recorded."""
        return replace(self, tag=tag)


def archive_path(path: Path, root: Path, settings: ConversationSettings) -> Path:
    """Where ``path``'s archive lives: ``<stem>.archive.md`` beside it, or in
    ``compact_archive_dir`` (relative to the project root)."""
    name = path.stem + ARCHIVE_SUFFIX
    if settings.archive_dir:
        return root / settings.archive_dir / name
    return path.parent / name


class ArchivedAnswer(Record):
    """One answer kept in an archive document."""

    __slots__ = ("heading", "line")

    def __init__(self, heading: str, line: int) -> None:
        self.heading = heading
        """The answer's heading line."""
        self.line = line
        """Its 1-based line in the archive."""


def archived_answers(archive: Path) -> list[ArchivedAnswer]:
    """The answers of an archive document, oldest first (none when absent)."""
    try:
        text = archive.read_text("utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise StateError(f"cannot read the archive {archive}: {exc}") from exc
    found = []
    for at in answer_starts(text):
        end = text.find("\n", at)
        heading = text[at : end if end >= 0 else len(text)].strip()
        found.append(ArchivedAnswer(heading, text.count("\n", 0, at) + 1))
    return found


def source_document(archive: Path) -> Path | None:
    """The document an archive was compacted from (its heading's back link),
    or ``None`` when ``archive`` is not an archive document."""
    if not archive.name.endswith(ARCHIVE_SUFFIX):
        return None
    try:
        with archive.open(encoding="utf-8") as fh:
            head = fh.read(2048)
    except (OSError, UnicodeDecodeError):
        return None
    found = re.search(r"^Turns moved out of \[[^\]\n]*\]\(([^)\n]+)\)", head, re.M)
    return (archive.parent / found.group(1)).resolve() if found else None


def _link_to(archive: Path, document: Path) -> str:
    """The archive as the document links it (relative, slash form)."""
    return Path(os.path.relpath(archive, document.parent)).as_posix()


def _archive_text(archive: Path, document: Path, entry: str) -> str:
    """The archive with ``entry`` appended (its heading first when new)."""
    try:
        existing = archive.read_text("utf-8")
    except FileNotFoundError:
        back = Path(os.path.relpath(document, archive.parent)).as_posix()
        existing = (
            f"# Archive of {document.name}\n\n"
            f"Turns moved out of [{document.name}]({back}) by `agent-doc compact`, "
            f"oldest first.\n\n"
        )
    except (OSError, UnicodeDecodeError) as exc:
        raise StateError(f"cannot read the archive {archive}: {exc}") from exc
    if existing and not existing.endswith("\n\n"):
        existing += "\n" if existing.endswith("\n") else "\n\n"
    return existing + entry


def _compacted_state(
    store: StateStore, path: Path, plan: Compaction
) -> tuple[str | None, str | None]:
    """The compacted snapshot and baseline (``None``: none to change).

    Raises :class:`StateError` when the snapshot does not hold the turns to
    move as the document does (edits in them the agent has not seen).
    """
    snapshot = store.load_snapshot(path)
    if snapshot is None:
        return None, None
    new_snapshot = plan.apply_to(snapshot)
    if new_snapshot is None:
        raise StateError(
            f"{path.name}: the turns to archive hold edits the agent has not "
            f"seen yet; run the agent first, or keep more turns (--keep)"
        )
    baseline = store.load_baseline(path)
    return new_snapshot, plan.apply_to(baseline) if baseline is not None else None


def tag_before(path: Path, keep: int, name: str | None) -> str | None:
    """Tag ``path``'s last commit when compacting would move turns out of it.

    The tag (local, pushed nowhere) keeps the turns reachable by name
    (``agent-doc show FILE --tag pre-compact-N``); ``None`` when nothing
    would move or the document has no commit.
    """
    if plan_compaction(read_document(path).text, keep, "archive") is None:
        return None
    return tag_before_compact(path, name)


def compact_document(
    path: Path,
    *,
    keep: int | None = None,
    link: ServerLink | None = None,
    no_git: bool = False,
    tag: str | None = None,
    no_tag: bool = False,
) -> CompactOutcome:
    """Compact ``path`` keeping its last ``keep`` turns (default: the config).

    First the document's last commit is tagged (:func:`tag_before`): ``tag``
    names the tag, ``no_tag`` (or ``no_git``) skips it.

    One recoverable step (:mod:`agent_doc.cycle.compact_landing`): nothing is
    written when the document cannot be, and a compaction a crash left half
    done is completed or undone first. With nothing to compact, an archive a
    crash left uncommitted is committed.
    """

    path = Path(path)
    root = project_root_for(path)
    settings = load_conversation_settings(root)
    keep = settings.keep_turns if keep is None else keep
    archive = archive_path(path, root, settings)
    tagged = None if no_git or no_tag else tag_before(path, keep, tag)
    with acquire_turn(path, "compact"):
        handle = link.find_owner(path) if link is not None else None
        plan = _compact(path, root, keep, archive, link, handle)
        if plan is None:  # report the turns there are, not the --keep asked
            text = normalize_text(handle.text) if handle else read_document(path).text
            keep = min(keep, count_turns(text))
    target = "server" if handle is not None else "disk"
    moved, total = (plan.turns, plan.total) if plan is not None else (0, 0)
    outcome = CompactOutcome(path, archive, moved, total, keep, target)
    if no_git or (plan is None and not archive.is_file()):
        return outcome
    committed, message = commit_and_refresh(path, link, extra=[archive])
    if plan is None:  # only what a crash left: reported as nothing compacted
        return outcome
    return CompactOutcome(
        path, archive, moved, total, keep, target, committed, message
    ).with_tag(tagged)


def _compact(
    path: Path,
    root: Path,
    keep: int,
    archive: Path,
    link: ServerLink | None,
    handle: ServerHandle | None,
) -> Compaction | None:
    """Move the turns (the caller holds the turn); the plan, ``None``: nothing
    to compact."""
    store = StateStore(root)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    live = normalize_text(handle.text) if handle else None
    with doc_lock(path, root=root):
        settle_compaction(path, live)
        current = read_document(path)
        text = live if live is not None else current.text
        plan = plan_compaction(text, keep, _link_to(archive, path))
        if plan is None:
            return None
        state = _compacted_state(store, path, plan)  # may refuse: first
        if handle is None:
            check_writable(path)  # refused before anything is written
        entry = archive_entry(plan, stamp, path.name)
        _move_turns(store, path, archive, _archive_text(archive, path, entry), plan)
        if handle is None:
            write_document(path, current, plan.apply(text))
            crash_point("compact.document_written")
            save_compacted_state(store, path, *state)
            forget_intent(store, path)
            return plan
    assert link is not None
    assert handle is not None
    try:
        link.merge(handle, text, plan.apply(text))
    except BaseException:
        _settle_from_buffer(path, root, link)
        raise
    save_compacted_state(store, path, *state)
    forget_intent(store, path)
    return plan


def _settle_from_buffer(path: Path, root: Path, link: ServerLink) -> None:
    """After a failed edit of the buffer: complete or undo the compaction by
    what the buffer holds now; when it cannot be read, ``recover`` will."""
    try:
        owner = link.find_owner(path)
        live = normalize_text(owner.text) if owner is not None else None
        with doc_lock(path, root=root):
            settle_compaction(path, live)
    except AgentDocError:
        pass


def _move_turns(
    store: StateStore, path: Path, archive: Path, new_archive: str, plan: Compaction
) -> None:
    """Record the compaction, then write the archive (the turns are then in
    both files until the document is written; a failure here undoes it)."""
    record_intent(store, path, archive, new_archive, plan)
    try:
        archive.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(archive, new_archive)
    except BaseException:
        settle_compaction(path)
        raise
    crash_point("compact.archive_written")
