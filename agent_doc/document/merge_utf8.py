"""The merge of :func:`~agent_doc.document.merge.merge_texts` on UTF-8 texts.

A disk write has the baseline, the agent's content_ours and the user's file as
UTF-8 already (read from disk, or encoded once for the snapshot). Merging those
bytes window by window (:func:`~agent_doc.document._textwalk.merged_pieces`)
decodes only the few lines around the edits, and the result is the bytes the
file and the CRDT state take: the merged ``str`` is never built. On a large
document with non-Latin-1 characters (an emoji makes Python store 4 bytes per
character) that is a quarter of the memory to walk and to fault in.
"""

from __future__ import annotations

from agent_doc.document._textwalk import merged_pieces
from agent_doc.document.merge import WINDOWS_FROM
from agent_doc.document.merge import merge_window


def merge_utf8_parts(base: bytes, ours: bytes, theirs: bytes) -> MergedUTF8 | None:
    """``merge_texts(base, ours, theirs).text`` as UTF-8, for UTF-8 texts, kept
    as its parts (:class:`MergedUTF8`; ``.join()`` gives the bytes).

    ``None`` when the texts are too small for windows or one of them does not
    end with a newline: decode them and use ``merge_texts`` then. The texts
    must be valid UTF-8 (a window is decoded strictly).
    """
    if ours == theirs or theirs == base:
        return MergedUTF8(ours, [ours])
    if ours == base:
        return MergedUTF8(theirs, [theirs])
    ended = base.endswith(b"\n") and ours.endswith(b"\n") and theirs.endswith(b"\n")
    if len(base) < WINDOWS_FROM or not ended:
        return None
    return MergedUTF8(base, merged_pieces(base, ours, theirs, _merge_window))


class MergedUTF8:
    """A merged UTF-8 text kept as its parts: the merged windows, and between
    them the stretches all three texts share, as ranges of ``base``. A large
    file and its CRDT state are written from :meth:`pieces` (views, no joined
    copy); the checks a write makes on the result run on the parts."""

    __slots__ = ("base", "parts", "size")

    def __init__(self, base: bytes, parts: list[bytes | range]) -> None:
        self.base = base
        """The text the ranges are of."""
        self.parts = [p for p in parts if len(p)]
        """The merged windows (bytes) and shared stretches (ranges of ``base``)."""
        self.size = sum(map(len, self.parts))
        """The length of the merged text."""

    def pieces(self) -> tuple[bytes | memoryview, ...]:
        """The merged text's pieces in order: bytes, and views of ``base``."""
        whole = memoryview(self.base)
        return tuple(
            whole[p.start : p.stop] if isinstance(p, range) else p for p in self.parts
        )

    def join(self) -> bytes:
        """The merged text."""
        if len(self.parts) == 1 and isinstance(self.parts[0], bytes):
            return self.parts[0]
        return b"".join(self.pieces())

    def head(self, size: int) -> bytes:
        """The first ``size`` bytes of the merged text (fewer when it is shorter)."""
        out: list[bytes] = []
        for piece in self.pieces():
            if size <= 0:
                break
            out.append(bytes(piece[:size]))
            size -= len(piece)
        return b"".join(out)

    def count(self, sub: bytes) -> int:
        """Occurrences of ``sub`` (a line's content: parts end at line ends)."""
        base = self.base
        return sum(
            base.count(sub, p.start, p.stop) if isinstance(p, range) else p.count(sub)
            for p in self.parts
        )

    def equals(self, data: bytes) -> bool:
        """True when the merged text is ``data``."""
        if self.size != len(data):
            return False
        offset = 0
        for piece in self.pieces():
            if not data.startswith(piece, offset):
                return False
            offset += len(piece)
        return True


def _merge_window(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """One window: decoded, merged line by line, encoded (lines start and end
    on character boundaries, so every window is whole UTF-8)."""
    merged = merge_window(
        base.decode("utf-8"), ours.decode("utf-8"), theirs.decode("utf-8")
    )
    return merged.encode("utf-8")
