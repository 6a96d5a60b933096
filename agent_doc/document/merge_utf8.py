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


def merge_utf8(base: bytes, ours: bytes, theirs: bytes) -> bytes | None:
    """``merge_texts(base, ours, theirs).text`` as UTF-8, for UTF-8 texts.

    ``None`` when the texts are too small for windows or one of them does not
    end with a newline: decode them and use ``merge_texts`` then. The texts
    must be valid UTF-8 (a window is decoded strictly).
    """
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    ended = base.endswith(b"\n") and ours.endswith(b"\n") and theirs.endswith(b"\n")
    if len(base) < WINDOWS_FROM or not ended:
        return None
    whole = memoryview(base)  # the shared stretches are joined from views of it
    pieces = merged_pieces(base, ours, theirs, _merge_window)
    return b"".join(
        whole[p.start : p.stop] if isinstance(p, range) else p for p in pieces
    )


def _merge_window(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """One window: decoded, merged line by line, encoded (lines start and end
    on character boundaries, so every window is whole UTF-8)."""
    merged = merge_window(
        base.decode("utf-8"), ours.decode("utf-8"), theirs.decode("utf-8")
    )
    return merged.encode("utf-8")
