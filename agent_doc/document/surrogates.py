"""Lone surrogates: text an editor can send that has no UTF-8 form.

JSON may carry ``\\ud800`` escapes that decode to lone surrogate code points.
They cannot be encoded as UTF-8 (files, pycrdt, stdout), so agent-doc replaces
each with U+FFFD where editor text enters (the server's buffer copy, command
and socket arguments) and, as a last line of defence, when encoding. One
surrogate is one UTF-16 unit and one code point, like U+FFFD, so every
position in the buffer stays valid.
"""

from __future__ import annotations

from agent_doc._runtime.lazy import lazy_compile

REPLACEMENT = "\ufffd"
"""What a lone surrogate becomes."""

_SURROGATE = lazy_compile("[\ud800-\udfff]")


def scrub_surrogates(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (same length)."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(REPLACEMENT, text)


def encode_utf8(text: str) -> bytes:
    """``text`` as UTF-8, lone surrogates written as U+FFFD (never raises)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return scrub_surrogates(text).encode("utf-8")
