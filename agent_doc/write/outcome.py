"""What a write was asked to do and what it did (:mod:`agent_doc.write.pipeline`)."""

from __future__ import annotations

from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.document.frontmatter_text import frontmatter_end_utf8

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Literal

    from agent_doc.document.apply_window import OursUTF8
    from agent_doc.document.merge_utf8 import MergedUTF8

    Lazy = str | bytes | MergedUTF8 | OursUTF8
    """A text, or its UTF-8 (whole or in parts), decoded on first use."""
    Target = Literal["disk", "server", "room"]


class WriteRequest(Record):
    """An agent response to write into one document."""

    __slots__ = (
        "path", "response", "baseline", "stream", "force_disk", "origin", "answer_id",
    )  # fmt: skip

    def __init__(
        self,
        path: Path,
        response: str,
        baseline: str | None = None,
        stream: bool = False,
        force_disk: bool = False,
        origin: str | None = None,
        answer_id: str | None = None,
    ) -> None:
        self.path = path
        self.response = response
        self.baseline = baseline
        """Document text the response was generated against (``--baseline-file``)."""
        self.stream = stream
        """``--stream``: CRDT write strategy (the only merge we implement)."""
        self.force_disk = force_disk
        """Write the file even when a language server has the document open."""
        self.origin = origin
        """Who wrote (``skill``, ``run``, ``watch``…), logged to ``logs/ops.log``."""
        self.answer_id = answer_id
        """The answer's id (its boundary marker's); a fresh one when ``None``.
        An answer whose id has landed already is not written again."""


class WriteOutcome:
    """What :func:`~agent_doc.write.pipeline.write_response` did.

    A disk write that merged the files' UTF-8 (:mod:`agent_doc.document.merge_utf8`)
    or applied the answer on them (:mod:`agent_doc.document.apply_window`)
    keeps only those bytes (or their parts): :attr:`final_text` and
    :attr:`content_ours` decode them on first use, so a command that never
    reads them never builds the large ``str``.
    """

    __slots__ = (
        "_final", "_ours", "changed", "merged", "path", "room_on_save", "target",
    )  # fmt: skip

    _fields = ("path", "content_ours", "final_text", "target", "changed", "merged")
    """The field names, in order (as a named tuple has them)."""

    def __init__(
        self,
        path: Path,
        content_ours: Lazy,
        final_text: Lazy,
        target: Target,
        changed: bool,
        merged: bool = False,
        room_on_save: bool = False,
    ) -> None:
        self.path = path
        self._ours = content_ours
        self._final = final_text
        self.target: Target = target
        self.changed = changed
        """False when the result equalled the current text and nothing was written."""
        self.merged = merged
        """True when user edits made after the baseline were merged in."""
        self.room_on_save = room_on_save
        """Landed in an editor's buffer of a served document that has not
        joined its room: that editor's server moves the room's snapshot
        when the buffer is saved (not a field of the outcome's tuple)."""

    @property
    def content_ours(self) -> str:
        """Baseline + response: what the snapshot now holds."""
        if not isinstance(self._ours, str):
            self._ours = _decoded(self._ours)
        return self._ours

    @property
    def final_text(self) -> str:
        """The document (file or live buffer) after the write."""
        if not isinstance(self._final, str):
            self._final = _decoded(self._final)
        return self._final

    def final_start(self) -> str:
        """The final text through its frontmatter (all of it when it is
        already a ``str``): what the ``post_write`` event reads, without
        decoding the whole document."""
        if isinstance(self._final, str):
            return self._final

        data = self._final
        if isinstance(data, bytes):
            return data[: frontmatter_end_utf8(data)].decode("utf-8")
        size = 1 << 12
        while True:  # a merge's parts: the frontmatter is in their first bytes
            head = data.head(size)
            end = frontmatter_end_utf8(head)
            if end < len(head) or len(head) == data.size:
                return head[:end].decode("utf-8")
            size *= 4

    def _asdict(self) -> dict[str, object]:
        """The fields by name, as a named tuple's ``_asdict`` gives them."""
        return {name: getattr(self, name) for name in self._fields}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WriteOutcome):
            return NotImplemented
        return self._asdict() == other._asdict()

    __hash__ = None  # type: ignore[assignment]  # mutable cache, compared by value

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self._asdict().items())
        return f"WriteOutcome({fields})"


def _decoded(data: bytes | MergedUTF8 | OursUTF8) -> str:
    return (data if isinstance(data, bytes) else data.join()).decode("utf-8")


def normalize_text(text: str) -> str:
    """Drop a BOM and turn CRLF into ``\\n`` (the core's internal form)."""
    text = text.removeprefix("\ufeff")
    return text.replace("\r\n", "\n") if "\r" in text else text  # a find is cheaper
