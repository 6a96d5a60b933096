"""Presence in a shared document: the person's cursor out, the other peers in.

The editor reports the person's cursor with the custom notification
``agentDoc/cursor {uri, position}`` (Neovim on ``CursorMoved``, throttled; VS
Code on a selection change; the thin handler is in :mod:`.share_sync`); the
document's room peer publishes it in its awareness state
(:mod:`agent_doc.share.presence_state`) with ``character`` in UTF-16 code
units, whatever encoding this client negotiated.

The other peers reach the editor in ``agentDoc/shareStatus`` (see
:mod:`.share_sync`): ``presence`` lists them as ``{id, name, kind, cursor,
writing}``, each cursor converted back to this client's position encoding
against the buffer's line.
"""

from __future__ import annotations

import logging
from typing import Any

from agent_doc.share.presence_state import PeerPresence
from agent_doc_lsp.convert import UTF16
from agent_doc_lsp.convert import codepoints
from agent_doc_lsp.convert import units
from agent_doc_lsp.server import AgentDocLanguageServer

logger = logging.getLogger(__name__)

CURSOR = "agentDoc/cursor"
"""Custom client → server notification: the person's cursor moved."""


def _recode(line: str, character: int, source: str, target: str) -> int:
    """``character`` (code units of ``source`` in ``line``) in units of ``target``."""
    if source == target or line.isascii():
        return character if source == target else min(character, len(line))
    return units(line[: codepoints(line, character, source)], target)


def _line(ls: AgentDocLanguageServer, uri: str, line: int) -> str:
    _doc, index = ls.document(uri)
    return index.line_text(line) if 0 <= line < len(index.starts) else ""


def _field(value: Any, name: str) -> Any:
    """``value.name`` or ``value[name]`` (pygls hands custom params as objects)."""
    return value[name] if isinstance(value, dict) else getattr(value, name)


def cursor_of(params: Any) -> tuple[str, int, int] | None:
    """``(uri, line, character)`` of an ``agentDoc/cursor`` notification (in
    the client's encoding), or ``None`` when it is not ``{uri, position}``."""
    try:
        uri = _field(params, "uri")
        position = _field(params, "position")
        line, char = _field(position, "line"), _field(position, "character")
    except (AttributeError, KeyError, TypeError):
        return None
    if not isinstance(uri, str) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (line, char)
    ):
        return None
    return uri, line, char


def utf16_character(ls: AgentDocLanguageServer, uri: str, line: int, char: int) -> int:
    """``char`` (the client's encoding) on ``line`` of ``uri``, in UTF-16 units."""
    return _recode(_line(ls, uri, line), char, ls.encoding, UTF16)


def presence_json(
    ls: AgentDocLanguageServer, uri: str, peers: tuple[PeerPresence, ...]
) -> list[dict[str, Any]]:
    """The other peers as sent to this editor (cursors in its encoding)."""
    listed = []
    for peer in peers:
        entry = peer.to_json()
        if peer.cursor is not None and uri in ls.buffers:
            line, character = peer.cursor
            text = _line(ls, uri, line)
            entry["cursor"]["character"] = _recode(text, character, UTF16, ls.encoding)
        listed.append(entry)
    return listed
