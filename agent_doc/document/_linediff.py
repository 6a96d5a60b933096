"""The old name of :mod:`agent_doc.document.linediff`, for branches in flight.

``document/diff.py`` (being changed by other work right now) still imports
this name. Delete this module once it imports
:mod:`agent_doc.document.linediff`.
"""

from __future__ import annotations

from agent_doc.document.linediff import common_prefix
from agent_doc.document.linediff import common_suffix

__all__ = ["common_prefix", "common_suffix"]
