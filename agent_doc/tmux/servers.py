"""Which tmux server each binding lives on, and what that server says of it.

Pane ids (``%3``) mean something only on the server that made them, so every
binding records that server's socket path (``SessionEntry.socket``; an entry
written before that counts as the current server's). A binding is judged only
against its own server: a pane missing from *another* server's list proves
nothing. A server that does not answer (not running, a typo in
``AGENT_DOC_TMUX_SOCKET``, another user's socket) leaves its bindings alone:
their state is *unknown*, never *exited*, and nothing prunes them.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_doc.tmux.adapter import PaneInfo
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.registry import SessionEntry

UNREACHABLE = "unreachable"
"""Verdict on a binding whose server does not answer."""


class Servers:
    """The current server and every server a binding names, probed once each."""

    def __init__(self, current: Tmux) -> None:
        self.current = current
        self.current_socket = current.socket_path
        self._panes: dict[str, dict[str, PaneInfo] | None] = {}

    def socket_of(self, entry: SessionEntry) -> str:
        """The socket path of ``entry``'s server (the current one for old entries)."""
        return entry.socket or self.current_socket

    def tmux_for(self, entry: SessionEntry) -> Tmux:
        """A handle on ``entry``'s server."""
        socket = self.socket_of(entry)
        return self.current if socket == self.current_socket else Tmux.at(socket)

    def panes_on(self, socket: str) -> dict[str, PaneInfo] | None:
        """The panes of the server at ``socket``; ``None`` when it is unreachable."""
        if socket not in self._panes:
            tmux = self.current if socket == self.current_socket else Tmux.at(socket)
            self._panes[socket] = tmux.probe_panes()
        return self._panes[socket]

    def pane_of(self, entry: SessionEntry) -> PaneInfo | str | None:
        """``entry``'s pane, ``None`` when its server says it is gone, or
        :data:`UNREACHABLE` when its server does not answer."""
        panes = self.panes_on(self.socket_of(entry))
        return UNREACHABLE if panes is None else panes.get(entry.pane)

    def reachable(self, entry: SessionEntry) -> bool:
        """Whether ``entry``'s server answers."""
        return self.panes_on(self.socket_of(entry)) is not None

    def is_current(self, entry: SessionEntry) -> bool:
        """Whether ``entry`` lives on the server agent-doc is configured for."""
        return self.socket_of(entry) == self.current_socket

    def warnings(self, entries: Iterable[SessionEntry]) -> list[str]:
        """One line per unreachable server that ``entries`` are bound on."""
        counts: dict[str, int] = {}
        for entry in entries:
            socket = self.socket_of(entry)
            if self.panes_on(socket) is None:
                counts[socket] = counts.get(socket, 0) + 1
        return [unreachable_warning(s, n) for s, n in counts.items()]


def unreachable_warning(socket: str, count: int) -> str:
    """``tmux server S is not reachable; leaving N bindings alone``."""
    noun = "binding" if count == 1 else "bindings"
    return f"tmux server {socket} is not reachable; leaving {count} {noun} alone"
