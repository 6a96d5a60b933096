"""``preflight``'s and ``run``'s turn's steps on the document's and snapshot's UTF-8.

A resumed turn of a long conversation must cost what changed, not the
document: the document and the snapshot are read once as bytes (the document's
checked once, from the CLI's gate on, through a
:class:`~agent_doc.store.docfile.ReadCache`), and every step takes the bytes:
the backlog check, the baseline (stored only when it changed), the window
diff, the excerpts (:func:`~agent_doc.document.excerpt_window.
resumed_context_utf8`), the prompt's size and the compact hint. Only the diff's
window and the excerpts are decoded; the whole text is decoded when the JSON
carries it (spec §7.26's full form) or a step has only a plain path. A live
buffer (a language server has the document open), a BOM or CRLF file keeps
the text path. ``run``'s turn (:func:`agent_doc.cycle.turn.prepare_turn`)
takes the same steps: :func:`read_sides`, :func:`diff_of` and
:func:`sides_prompt`.
"""

from __future__ import annotations

import os

from agent_doc.cycle.prompt import has_item_lists
from agent_doc.cycle.prompt import turn_prompt
from agent_doc.cycle.prompt import turn_prompt_size
from agent_doc.cycle.prompt import utf8_length
from agent_doc.document.diff import DEFAULT_CONTEXT
from agent_doc.document.diff import compute_diff
from agent_doc.document.diff_window import PLAIN
from agent_doc.document.diff_window import diff_texts
from agent_doc.document.diff_window import window_diff
from agent_doc.document.excerpt import resumed_context
from agent_doc.document.excerpt_window import resumed_context_utf8
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.document.frontmatter_text import frontmatter_end_utf8
from agent_doc.document.linediff import common_prefix
from agent_doc.document.linediff import known_prefix
from agent_doc.document.snap_scan import NAME_MAX
from agent_doc.document.snap_scan import first_name
from agent_doc.store.atomic import atomic_write_bytes
from agent_doc.store.snapshot_index import file_key
from agent_doc.store.state import decode_state_text
from agent_doc.store.state import read_document
from agent_doc.write.outcome import normalize_text

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from pathlib import Path

    from agent_doc.document.frontmatter import Frontmatter
    from agent_doc.document.snapshot_scan import SnapshotScan
    from agent_doc.store.docfile import ReadCache
    from agent_doc.store.state import StateStore
    from agent_doc.write.server_link import ServerLink

_COMPARE = 1 << 20
"""Bytes of the stored baseline read at a time to compare it."""
_CHUNK = 1 << 16


class Sides:
    """The document as the user sees it and the snapshot, as read once.

    ``data`` is the document's UTF-8 as the file holds it (``None`` for a live
    buffer, a BOM or CRLF file: then ``text`` is read at once); ``text`` is
    decoded on first use. ``snapshot`` is the snapshot's UTF-8 (``None``
    without one), decoded only on the plain paths.
    """

    __slots__ = (
        "data", "_text", "snapshot", "scan", "_snapshot_path", "_names_lists",
        "_checked", "_reads", "_shared",
    )  # fmt: skip

    def __init__(
        self,
        data: bytes | None,
        text: str | None,
        checked: SnapshotScan | None = None,
        reads: ReadCache | None = None,
    ) -> None:
        self.data = data
        self._text = text
        self.snapshot: bytes | None = None
        self.scan: SnapshotScan | None = None
        """The snapshot's block scan, shared with the commit's check."""
        self._snapshot_path: Path | None = None
        self._names_lists: bool | None = None
        self._checked = (
            None if checked is None or checked.data is None
            else (checked.data, checked.index)
        )  # fmt: skip
        """The snapshot's bytes as the commit read and checked them (valid
        UTF-8), with their index (the scan's may change later)."""
        self._reads = reads
        self._shared: tuple[bytes, int] | None = None

    def text(self) -> str:
        """The document's text (decoded on first use)."""
        if self._text is None:
            assert self.data is not None
            self._text = self.data.decode("utf-8")
        return self._text

    def decoded(self) -> str | None:
        """The document's text when it was decoded already, else ``None``."""
        return self._text

    def snapshot_text(self) -> str | None:
        """The snapshot's text (``StateError`` when it is not UTF-8)."""
        if self.snapshot is None or self._snapshot_path is None:
            return None
        return decode_state_text(self._snapshot_path, self.snapshot)

    def load_snapshot(self, store: StateStore, path: Path, scan: SnapshotScan) -> None:
        """Read the snapshot's bytes (not decoded): those ``scan`` holds (the
        commit read them) when the file still holds them, and their blocks."""
        self._snapshot_path = store.snapshot_path(path)
        if scan.data is None or not _unchanged(self._snapshot_path, scan):
            found = store.load_snapshot_indexed(path)
            scan.keep(*(found if found is not None else (None, None)))
        self.snapshot, self.scan = scan.data, scan

    def shared_with(self, other: bytes) -> int:
        """The length of the common prefix of the document's bytes and
        ``other`` (the snapshot's), compared once (by the read, when it
        compared them)."""
        assert self.data is not None
        if self._shared is None or self._shared[0] is not other:
            known = None
            if self._reads is not None:
                known = self._reads.shared_prefix(self.data, other)
            if known is None:
                known = common_prefix(other, self.data, chunk=_CHUNK)
            self._shared = (other, known)
        return self._shared[1]

    def snapshot_checked(self) -> bool:
        """Whether the snapshot's bytes are those the commit checked as UTF-8."""
        checked = self._checked
        return checked is not None and self.snapshot is checked[0]

    def names_item_lists(self) -> bool:
        """Whether the document's text holds ``agent:backlog`` or
        ``agent:icebox`` anywhere: searched past the prefix it shares with
        the checked snapshot when that one's index says where the snapshot
        first names one (:func:`names_past`), else in the whole bytes."""
        if self.data is None:
            text = self.text()
            return "agent:backlog" in text or "agent:icebox" in text
        if self._names_lists is None:
            snapshot, index = self._checked or (None, None)
            if snapshot is None or index is None:
                self._names_lists = first_name(self.data) >= 0
            else:
                self._names_lists = names_past(
                    self.data, index.names_at, self.shared_with(snapshot)
                )
        return self._names_lists

    def size(self) -> int:
        """The document's size in UTF-8 bytes."""
        return len(self.data) if self.data is not None else utf8_length(self.text())

    def front(self) -> Frontmatter:
        """The document's frontmatter (only its block decoded)."""
        if self.data is None:
            return parse_frontmatter(self.text())
        return parse_frontmatter(
            self.data[: frontmatter_end_utf8(self.data)].decode("utf-8")
        )


def names_past(data: bytes, names_at: int | None, shared: int) -> bool:
    """Whether ``data`` holds ``agent:backlog`` or ``agent:icebox``, given
    that its first ``shared`` bytes are those of a text whose first such
    name starts at ``names_at`` (-1: it has none; ``None``: not known, so
    ``data`` is searched whole). A name of ``data`` lying wholly in the
    shared bytes is one of that text's, so that text's first then lies
    wholly there too; if that text's first does not, ``data``'s names start
    at ``shared - NAME_MAX + 1`` or later."""
    if names_at is None:
        return first_name(data) >= 0
    if (
        0 <= names_at < shared
        and first_name(data, names_at, min(names_at + NAME_MAX, shared)) == names_at
    ):
        return True
    return first_name(data, max(shared - NAME_MAX + 1, 0)) >= 0


def read_sides(
    path: Path,
    link: ServerLink | None,
    reads: ReadCache,
    checked: SnapshotScan | None = None,
) -> Sides:
    """The document as the user sees it: the live buffer if open (in the
    core's form: ``\\n`` line endings, no BOM), else the file's bytes when
    they are plain UTF-8, else its text. ``checked``: the snapshot as the
    commit read it, its bytes checked valid UTF-8 (the document's bytes are
    checked past the prefix they share only), with its index."""
    owner = link.find_owner(path) if link is not None else None
    if owner is not None:
        return Sides(None, normalize_text(owner.text))
    like = None if checked is None else checked.data
    data = reads.read_plain_utf8(path, like=like)
    if data is None:
        return Sides(None, read_document(path, reads).text)
    return Sides(data, None, checked, reads)


def save_baseline(store: StateStore, path: Path, sides: Sides) -> None:
    """Store the document as the baseline, unless the stored one is the same."""
    if sides.data is None:
        store.save_baseline(path, sides.text())
        return
    target = store.baseline_path(path)
    if not _same_file(target, sides.data):
        atomic_write_bytes(target, sides.data)


def _unchanged(path: Path, scan: SnapshotScan) -> bool:
    """Whether the file ``path`` still holds ``scan.data``, the bytes read
    from it: its key is the one they were read with (one ``stat``), or,
    without a key, it holds the same bytes."""
    assert scan.data is not None
    if scan.key is None:
        return _same_file(path, scan.data)
    try:
        return file_key(path.stat()) == scan.key
    except OSError:
        return False


def _same_file(path: Path, data: bytes) -> bool:
    """Whether the file ``path`` holds exactly ``data`` (read a piece at a
    time: no second copy)."""
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size != len(data):
                return False
            pos = 0
            while piece := handle.read(_COMPARE):
                if not data.startswith(piece, pos):
                    return False
                pos += len(piece)
            return pos == len(data)
    except OSError:
        return False


def diff_of(sides: Sides) -> str | None:
    """``compute_diff(snapshot, document, DEFAULT_CONTEXT)`` (an absent
    snapshot is empty), on the bytes' changed window when that decides."""
    if sides.data is None:
        return diff_texts(sides.snapshot_text() or "", sides.text(), DEFAULT_CONTEXT)
    try:
        scan = sides.scan
        index = scan.index if scan is not None and scan.data is sides.snapshot else None
        snapshot = sides.snapshot or b""
        diff = window_diff(
            snapshot, sides.data, DEFAULT_CONTEXT, index,
            head=sides.shared_with(snapshot), checked=sides.snapshot_checked(),
        )  # fmt: skip
    except UnicodeDecodeError:  # a bad byte of the snapshot's, in the window
        diff = PLAIN
    if diff is PLAIN:
        return compute_diff(sides.snapshot_text() or "", sides.text(), DEFAULT_CONTEXT)
    return diff  # type: ignore[return-value]


def excerpts_of(sides: Sides) -> str:
    """The resumed prompt's excerpts (a snapshot must exist)."""
    if sides.data is None:
        snapshot = sides.snapshot_text()
        assert snapshot is not None
        return resumed_context(snapshot, sides.text())
    assert sides.snapshot is not None
    shared = sides.shared_with(sides.snapshot)  # the excerpts compare them too
    with known_prefix(sides.snapshot, sides.data, shared):
        return resumed_context_utf8(sides.snapshot, sides.data, sides.scan)


def prompt_size(
    path: Path,
    root: Path,
    sides: Sides,
    diff: str,
    *,
    resumed_ok: bool,
    excerpts: str | None,
) -> tuple[int, str]:
    """``turn_prompt_size`` of the document and snapshot (``has_item_lists``
    and the frontmatter on the bytes too): the
    excerpts made once (``excerpts``, or made here), the document's size
    counted, never joined into a prompt."""
    front = sides.front()
    if sides.data is None:
        return turn_prompt_size(
            path, root, sides.text(), sides.snapshot_text(), diff, front=front,
            resumed_ok=resumed_ok, excerpts=excerpts,
        )  # fmt: skip
    data = sides.data
    if resumed_ok and front.resume is not None and sides.snapshot is not None:
        prompt, mode, _ = sides_prompt(  # the resumed prompt holds no document
            path, root, sides, diff, front=front, resumed_ok=True, excerpts=excerpts
        )
        return utf8_length(prompt), mode
    shell, mode, _ = turn_prompt(
        path, root, "\x00", None, diff, front=front, resumed_ok=False,
        items=names_lists(sides),
    )  # fmt: skip
    trailing = 0  # the prompt holds the document without its last line breaks
    while trailing < len(data) and data[len(data) - 1 - trailing] == 0x0A:
        trailing += 1
    return utf8_length(shell) - 1 + len(data) - trailing, mode


def names_lists(sides: Sides) -> bool:
    """:func:`~agent_doc.cycle.prompt.has_item_lists` of the document (on
    its bytes when it has them)."""
    if sides.data is None:
        return has_item_lists(sides.text())
    data = sides.data
    return sides.names_item_lists() and (
        b"<!-- agent:backlog" in data or b"<!-- agent:icebox" in data
    )


def sides_prompt(
    path: Path,
    root: Path,
    sides: Sides,
    diff: str | None,
    *,
    front: Frontmatter,
    resumed_ok: bool,
    excerpts: str | None = None,
) -> tuple[str, str, str | None]:
    """:func:`~agent_doc.cycle.prompt.turn_prompt` of the document and the
    snapshot (``load_snapshot`` first): the resumed form's excerpts made on
    the bytes (``excerpts``: made already), the document decoded only for the
    full form, which carries it."""
    if resumed_ok and front.resume is not None and sides.snapshot is not None:
        context = excerpts if excerpts is not None else excerpts_of(sides)
        return turn_prompt(  # the resumed prompt holds no document
            path, root, "", "", diff, front=front, resumed_ok=True,
            items=names_lists(sides), excerpts=context,
        )  # fmt: skip
    return turn_prompt(
        path, root, sides.text(), None, diff, front=front, resumed_ok=False,
        items=names_lists(sides),
    )  # fmt: skip
