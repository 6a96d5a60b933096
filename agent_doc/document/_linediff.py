"""The old name of :mod:`agent_doc.document.linediff`, for branches in flight.

``document/diff.py`` (changed by other work in flight, which adds
``document/diff_window.py`` importing this name too) still imports it.
Delete this module once they import :mod:`agent_doc.document.linediff`.
"""

from __future__ import annotations

from agent_doc.document.linediff import common_prefix
from agent_doc.document.linediff import common_suffix

__all__ = ["common_prefix", "common_suffix"]
