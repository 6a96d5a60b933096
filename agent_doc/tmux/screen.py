"""Text of an agent's terminal screen as tmux captures it.

Pure helpers shared by prompt parsing, route's prompt check and the lifecycle
state: nothing here talks to tmux.
"""

from __future__ import annotations

from agent_doc._runtime.lazy import lazy_compile

_CSI = lazy_compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_OSC = lazy_compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_OTHER_ESC = lazy_compile(r"\x1b.")


def strip_ansi(text: str) -> str:
    """Remove CSI/OSC escape sequences (other escapes drop one character)."""
    return _OTHER_ESC.sub("", _OSC.sub("", _CSI.sub("", text)))
