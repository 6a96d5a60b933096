"""``compact``: move a session document's older turns into an archive document.

The older turns (all but the last N, :mod:`agent_doc.document.compaction`)
are appended to ``<stem>.archive.md`` beside the document (or in the folder
``compact_archive_dir`` names), oldest first, and replaced by one link line.
The snapshot — and the baseline when it holds the same turns — get the same
replacement and the CRDT state is re-encoded from the new snapshot, so the
next diff shows only what was typed and not sent. When a language server has
the document open, the buffer changes by one workspace edit merged with the
typing since it was read (one undo); otherwise the file is rewritten under the
document lock. The archive is written first: a crash between the two leaves
the turns in both places, never in neither. The archive is committed with the
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

from agent_doc._runtime.record import Record
from agent_doc.cycle.commit import commit_and_refresh
from agent_doc.cycle.named_history import tag_before_compact
from agent_doc.cycle.turn_lock import acquire_turn
from agent_doc.document.compaction import answer_starts
from agent_doc.document.compaction import archive_entry
from agent_doc.document.compaction import plan_compaction
from agent_doc.document.yrs_codec import encode_text_state
from agent_doc.errors import StateError
from agent_doc.store.conversation import load_conversation_settings
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


def _save_state(
    store: StateStore, path: Path, snapshot: str | None, baseline: str | None
) -> None:
    if snapshot is not None:
        store.save_snapshot(path, snapshot)
        store.save_crdt(path, encode_text_state(snapshot))
    if baseline is not None:
        store.save_baseline(path, baseline)


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
    """

    path = Path(path)
    root = project_root_for(path)
    settings = load_conversation_settings(root)
    keep = settings.keep_turns if keep is None else keep
    archive = archive_path(path, root, settings)
    store = StateStore(root)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    tagged = None if no_git or no_tag else tag_before(path, keep, tag)
    with acquire_turn(path, "compact"):
        handle = link.find_owner(path) if link is not None else None
        with doc_lock(path, root=root):
            current = read_document(path)
            text = normalize_text(handle.text) if handle else current.text
            plan = plan_compaction(text, keep, _link_to(archive, path))
            if plan is None:
                return CompactOutcome(path, archive, 0, 0, keep)
            state = _compacted_state(store, path, plan)  # may refuse: first
            archive.parent.mkdir(parents=True, exist_ok=True)
            entry = archive_entry(plan, stamp, path.name)
            atomic_write_text(archive, _archive_text(archive, path, entry))
            if handle is None:
                write_document(path, current, plan.apply(text))
                _save_state(store, path, *state)
        if handle is not None and link is not None:
            link.merge(handle, text, plan.apply(text))
            _save_state(store, path, *state)
    outcome = CompactOutcome(
        path, archive, plan.turns, plan.total, keep, "server" if handle else "disk"
    )
    if no_git:
        return outcome
    committed, message = commit_and_refresh(path, link, extra=[archive])
    return CompactOutcome(
        path, archive, plan.turns, plan.total, keep, outcome.target, committed, message
    ).with_tag(tagged)
