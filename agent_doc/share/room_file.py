"""One room and its document on disk: seeding, projection, outside edits.

The room's Yjs document (kept in the SQLiteYStore) is the truth. The file is
its projection, written :data:`DEBOUNCE` seconds after a change (and at most
once per :data:`SPACING` while the room keeps changing), atomically and
under the document lock that local ``agent-doc write`` takes too. The text last
projected is kept (``.agent-doc/share/projected/<uuid>.md``) so that a file
that differs from it was edited from outside: that edit is merged into the
room as a diff (3-way: last projection, room, file), never by rebuilding the
room from the file, which would duplicate text peers already hold.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from agent_doc._runtime.faults import crash_point
from agent_doc._runtime.faults import declare_points
from agent_doc.document.merge import merge_texts
from agent_doc.document.yrs_codec import TEXT_KEY
from agent_doc.share.access import share_dir
from agent_doc.share.textedit import apply_text_change
from agent_doc.store.atomic import atomic_write_text
from agent_doc.store.state import doc_lock

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from collections.abc import Awaitable
    from collections.abc import Callable

    import pycrdt

logger = logging.getLogger(__name__)

DEBOUNCE = 0.2
"""Seconds between a change in the room and the file's projection."""
SPACING = 1.0
"""Seconds at least between two projections of a room that keeps changing:
a file written (and synced to disk, twice with its record) five times a second
per busy room was most of the server's disk traffic under load, for a file
only local tools read."""
_RETRIES = 5

declare_points(
    {
        "serve.projection.after_file": "the room's text is in the file; the record "
        "of the last projection still the older text",
    }
)


class RoomFile:
    """The projection of one room onto its session document."""

    def __init__(
        self,
        root: Path,
        session: str,
        path: Path,
        doc: pycrdt.Doc[Any],
        stored: Callable[[], Awaitable[None]] | None = None,
    ):
        import anyio
        import pycrdt

        self.root = Path(root)
        """The project root (for the document lock)."""
        self.session = session
        """The room's name without its slash: the session UUID."""
        self.path = Path(path)
        """The session document."""
        self.doc = doc
        """The room's Yjs document."""
        self.text = doc.get(TEXT_KEY, type=pycrdt.Text)
        """The shared text (``content``): the whole document, frontmatter too."""
        self.record = share_dir(root) / "projected" / f"{session}.md"
        """Where the text last projected to the file is kept."""
        self.projected = _read(self.record)
        """The text last written to (or read from) the file; ``None``: unknown."""
        self.stored = stored
        """Awaited before the file is written: returns once the room's
        changes so far are stored, so the file never holds text the store
        lacks (after a ``kill -9`` such text would come back from the file
        as new items while peers resend the old ones: a duplicate)."""
        self._dirty = anyio.Event()
        self._subscription = doc.observe(lambda _event: self.poke())

    def poke(self) -> None:
        """Ask for a projection (the room or the file changed)."""
        self._dirty.set()

    def seed(self) -> None:
        """Fill an empty room (nothing in the store) with the file's text."""
        text = _read(self.path)
        if text is None:
            return
        apply_text_change(self.doc, self.text, text)
        self._remember(text)
        logger.info("room %s seeded from %s", self.session, self.path)

    async def reconcile(self) -> None:
        """Merge an edit of the file made while nobody projected the room
        (the server was down) into the room, before any peer joins."""
        import anyio

        current = await anyio.to_thread.run_sync(_read, self.path)
        if current is not None and current != self.projected:
            self._absorb(current)

    async def run(self) -> None:
        """Project the room to the file whenever one of them changes (forever)."""
        import anyio

        self.poke()  # reconcile once: the file may have changed while we were down
        last = -SPACING
        while True:
            await self._dirty.wait()
            # a debounce (one write per burst), and no more than one projection
            # per SPACING while the room keeps changing
            await anyio.sleep(max(DEBOUNCE, last + SPACING - anyio.current_time()))
            self._dirty = anyio.Event()
            last = anyio.current_time()
            try:
                await self.sync()
            except Exception:
                logger.exception(
                    "room %s: projecting %s failed", self.session, self.path
                )

    async def sync(self) -> None:
        """Merge an outside edit of the file into the room, then write the room."""
        import anyio

        current = await anyio.to_thread.run_sync(_read, self.path)
        for _ in range(_RETRIES):
            if current is None:
                return  # the document is gone: do not recreate it
            if current != self.projected:
                self._absorb(current)
            wanted = str(self.text)
            if wanted == current:
                self._remember(wanted)
                return
            if self.stored is not None:
                await self.stored()
            current = await anyio.to_thread.run_sync(self._write, wanted, current)
            if current == wanted:
                return
        logger.warning(
            "room %s: %s keeps changing; projection deferred", self.session, self.path
        )

    def _absorb(self, file_text: str) -> None:
        """Apply the file's outside edit (since the last projection) to the room."""
        room_text = str(self.text)
        if self.projected is None:
            logger.warning(
                "room %s: no record of the last projection; the room's text wins "
                "over %s (its text was kept in %s)",
                self.session,
                self.path,
                self.record.with_suffix(".overwritten.md"),
            )
            _keep(self.record.with_suffix(".overwritten.md"), file_text)
        else:
            merged = merge_texts(self.projected, room_text, file_text).text
            edits = apply_text_change(self.doc, self.text, merged)
            logger.info(
                "room %s: outside edit of %s (%d edits)", self.session, self.path, edits
            )
        self._remember(file_text)

    def _write(self, wanted: str, expected: str) -> str | None:
        """Write ``wanted`` unless the file changed from ``expected`` meanwhile.

        Runs in a worker thread under the document lock; returns what the file
        holds afterwards (``wanted``, or the newer outside text).
        """
        with doc_lock(self.path, root=self.root):
            current = _read(self.path)
            if current != expected:
                return current
            atomic_write_text(self.path, wanted)
            crash_point("serve.projection.after_file")
            _keep(self.record, wanted)
        self.projected = wanted
        return wanted

    def _remember(self, text: str) -> None:
        if text != self.projected:
            self.projected = text
            _keep(self.record, text)

    def close(self) -> None:
        """Stop observing the room's document."""
        self.doc.unobserve(self._subscription)


def _read(path: Path) -> str | None:
    """The UTF-8 text of ``path`` (BOM and CRLF kept as they are), or ``None``."""
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _keep(path: Path, text: str) -> None:
    atomic_write_text(path, text, durable=False)
