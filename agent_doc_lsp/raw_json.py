"""Request results that are already JSON text, written to the client as they are.

pygls sends every response through ``json.dumps`` with cattrs as the fallback
for attrs objects. A handler that already holds the JSON text of its result
(see :mod:`agent_doc_lsp.symbol_json`) returns a :class:`RawJson`;
:class:`agent_doc_lsp.protocol.AgentDocProtocol` splices that text into the
response unparsed. Anything else goes through pygls unchanged.
"""

from __future__ import annotations

import json
from typing import Any


class RawJson:
    """One JSON value as ASCII text (``json.dumps`` output), sent as it is."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text
        """The encoded value."""

    def value(self) -> Any:
        """The decoded value (what the client receives)."""
        return json.loads(self.text)
