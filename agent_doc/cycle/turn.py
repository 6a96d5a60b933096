"""What every agent turn shares: the prompt sent and the response written back.

``prepare_turn`` reads the document (the live buffer when an editor has it
open), diffs it against the snapshot and builds the prompt; both backends (one
CLI process per turn in :mod:`agent_doc.cycle.run`, ACP in
:mod:`agent_doc.cycle.acp_run`) send exactly this text. A file that is plain
UTF-8 is read as bytes, as ``preflight`` reads it
(:mod:`agent_doc.cycle.preflight_utf8`): only the diff's window and the
resumed prompt's excerpts are decoded, the whole text only when the full
prompt carries it or a step has only its plain path.

The prompt's two forms (full and resumed) are built by
:mod:`agent_doc.cycle.prompt`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_doc.cycle.preflight_utf8 import Sides
from agent_doc.cycle.preflight_utf8 import diff_of
from agent_doc.cycle.preflight_utf8 import read_sides
from agent_doc.cycle.preflight_utf8 import sides_prompt
from agent_doc.cycle.prompt import build_prompt
from agent_doc.cycle.prompt import has_item_lists
from agent_doc.cycle.prompt import resumed_allowed
from agent_doc.cycle.prompt import turn_prompt
from agent_doc.document.diff import DEFAULT_CONTEXT
from agent_doc.document.diff_window import diff_texts
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.document.patch_blocks import frontmatter_patch
from agent_doc.document.scaffold import nothing_typed
from agent_doc.document.snapshot_scan import SnapshotScan
from agent_doc.store.conversation import load_conversation_settings
from agent_doc.store.docfile import ReadCache
from agent_doc.store.docfile import is_utf8
from agent_doc.store.state import StateStore
from agent_doc.store.state import decode_state_text
from agent_doc.store.state import project_root_for
from agent_doc.write.backlog import tidy_backlog

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.document.frontmatter import Frontmatter
    from agent_doc.document.snap_index import SnapIndex
    from agent_doc.write.server_link import ServerLink

__all__ = ["PreparedTurn", "build_prompt", "prepare_turn"]


@dataclass(frozen=True, slots=True)
class PreparedTurn:
    """The input of one agent turn."""

    path: Path
    """The session document."""
    root: Path
    """Its project folder (the agent's working directory)."""
    document: Sides
    """The document as read: its text (:attr:`text`) decoded on first use."""
    front: Frontmatter
    """Its frontmatter (``agent``, ``model``, ``resume``…)."""
    prompt: str
    """The prompt text."""
    mode: str = "full"
    """``full`` (the whole document) or ``resumed`` (diff and excerpts)."""
    diff: str | None = None
    """The diff since the snapshot."""
    instructions: str | None = None
    """The rendered AGENTS.md section, if any."""

    @property
    def text(self) -> str:
        """The document as sent (the baseline of the answer's write)."""
        return self.document.text()

    def full_prompt(self) -> str:
        """The full form of this turn's prompt, to start a new session with."""
        if self.mode == "full" and self.front.resume is None:
            return self.prompt
        return build_prompt(
            self.text,
            self.diff,
            first=True,
            template=self.front.format == "template",
            instructions=self.instructions,
            items_file=str(self.path) if has_item_lists(self.text) else None,
        )


FROM_TEXT = "\0from the document"
"""``prepare_turn``'s ``resume`` default: the document's own ``resume`` id."""


def prepare_turn(
    path: Path,
    link: ServerLink | None,
    text: str | None = None,
    *,
    resume: str | None = FROM_TEXT,
    snapshot: str | None = None,
) -> PreparedTurn | None:
    """Read, diff and build the prompt; ``None`` when nothing changed.

    ``text`` is the document's current text when it was read elsewhere (a
    shared room, :mod:`agent_doc.cycle.room_turn`); by default the live
    buffer of an open editor, else the file. ``resume`` replaces the
    frontmatter's session id (a shared document: this host's own session);
    ``snapshot`` the stored snapshot (a shared room's, for a dry run).

    The backlog is tidied first, as preflight does (ids, boxes, done items
    removed). A document with a ``resume`` id and a snapshot gets the resumed prompt
    unless the project's config says ``prompt = "full"``; every other turn
    the full prompt. The caller sends :meth:`PreparedTurn.full_prompt` instead
    when the agent's session turns out to be lost.
    """
    path = Path(path)
    root = project_root_for(path)
    if text is None:  # a shared room's text is tidied by nobody here
        sides = _tidied_sides(path, link)
        if sides.data is not None and snapshot is None:
            return _prepare_on_bytes(path, root, sides, resume)
        text = sides.text()  # a live buffer, a BOM or CRLF file: its text
    front = parse_frontmatter(text)
    if resume != FROM_TEXT:
        front = front._replace(resume=resume)
    index = None  # the stored snapshot's (a room's has none)
    if snapshot is None:
        snapshot, index = _stored_snapshot(StateStore(root), path)
    if snapshot is None and nothing_typed(text):
        return None  # a fresh document: only what ``init`` wrote
    diff = diff_texts(snapshot or "", text, DEFAULT_CONTEXT, index)  # the window only
    if diff is None and snapshot is not None:
        return None
    resumed = resumed_allowed(load_conversation_settings(root).prompt)
    prompt, mode, instructions = turn_prompt(
        path, root, text, snapshot, diff, front=front, resumed_ok=resumed
    )
    return PreparedTurn(
        path, root, Sides(None, text), front, prompt, mode, diff, instructions
    )


def _tidied_sides(path: Path, link: ServerLink | None) -> Sides:
    """The document as the user sees it (:func:`read_sides`: the file's
    bytes when they are plain UTF-8), after the backlog step (ids, boxes,
    done items removed), as ``preflight`` takes it."""
    reads = ReadCache()
    sides = read_sides(path, link, reads)
    if sides.names_item_lists() and tidy_backlog(path, link) is not None:
        sides = read_sides(path, link, reads)  # the step changed the file
    return sides


def _prepare_on_bytes(
    path: Path, root: Path, sides: Sides, resume: str | None
) -> PreparedTurn | None:
    """:func:`prepare_turn` of the file's UTF-8 (``sides.data``): the same
    turn, the same errors, no decoded copy of the document or the snapshot
    unless the prompt carries the document."""
    front = sides.front()
    if resume != FROM_TEXT:
        front = front._replace(resume=resume)
    sides.load_snapshot(StateStore(root), path, SnapshotScan())
    snapshot = sides.snapshot
    if snapshot is not None and not is_utf8(snapshot, like=sides.data):
        sides.snapshot_text()  # raises the plain path's StateError
    if snapshot is None and nothing_typed(sides.text()):
        return None  # a fresh document: only what ``init`` wrote
    diff = diff_of(sides)  # the window only, with the snapshot's index
    if diff is None and snapshot is not None:
        return None
    resumed = resumed_allowed(load_conversation_settings(root).prompt)
    prompt, mode, instructions = sides_prompt(
        path, root, sides, diff, front=front, resumed_ok=resumed
    )
    return PreparedTurn(path, root, sides, front, prompt, mode, diff, instructions)


def _stored_snapshot(
    store: StateStore, path: Path
) -> tuple[str | None, SnapIndex | None]:
    """The stored snapshot's text and its index (which describes that text's
    UTF-8: the file's bytes, decoded strictly)."""
    found = store.load_snapshot_indexed(path)
    if found is None:
        return None, None
    return decode_state_text(store.snapshot_path(path), found[0]), found[1]


def with_resume(response: str, session_id: str | None, front: Frontmatter) -> str:
    """The response plus a frontmatter patch storing a new ``resume`` id."""
    if session_id and session_id != front.resume:
        return response + frontmatter_patch({"resume": session_id})
    return response
