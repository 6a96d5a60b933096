"""The old name of :mod:`agent_doc.document.yrs_codec`, for branches in flight.

Modules that other work is changing right now (``share/room_*.py``,
``share/peer.py``) still import this name;
``tests/unit/test_private_imports.py`` lists them and fails on any other.
Delete this module once they import :mod:`agent_doc.document.yrs_codec`.
"""

from __future__ import annotations

from agent_doc.document.yrs_codec import STATE_CLIENT_ID
from agent_doc.document.yrs_codec import TEXT_KEY
from agent_doc.document.yrs_codec import TextDoc
from agent_doc.document.yrs_codec import encode_text_state
from agent_doc.document.yrs_codec import encode_utf8_state
from agent_doc.document.yrs_codec import utf8_in_state
from agent_doc.document.yrs_codec import utf8_state_parts

__all__ = [
    "STATE_CLIENT_ID",
    "TEXT_KEY",
    "TextDoc",
    "encode_text_state",
    "encode_utf8_state",
    "utf8_in_state",
    "utf8_state_parts",
]
