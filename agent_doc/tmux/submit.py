"""Typing into an agent's pane: waiting for its prompt and verifying Enter.

:func:`wait_for_prompt` polls a freshly started pane until the agent's prompt
(:class:`~agent_doc.tmux.agent_profile.AgentProfile`) shows, and raises
:class:`AgentNotReady` (exit 75) when it never does or the agent exits first.

:func:`send_command` types the text, waits until the pane has drawn it, presses
Enter and then watches the pane: *any* change (input cleared, cursor moved,
output scrolled, the agent's answer) means the line was submitted. Enter is
pressed again only when the pane stayed exactly as it was for
:data:`RETRY_AFTER_S` — an agent that echoes its input changes the pane at once,
so it never gets a second Enter.
"""

from __future__ import annotations

import time

from agent_doc._runtime.record import Record
from agent_doc.errors import EX_TEMPFAIL
from agent_doc.errors import TmuxError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.tmux.adapter import Tmux
    from agent_doc.tmux.agent_profile import AgentProfile

RETRY_AFTER_S = 1.0
POLL_S = 0.05
_SEP = "\x1f"


class AgentNotReady(TmuxError):
    """A started agent showed no prompt in time, or exited before showing one."""

    exit_code = EX_TEMPFAIL


class PaneView(Record):
    """What a pane shows: text, cursor and scrollback size (to detect any change)."""

    __slots__ = ("history", "cursor", "lines")

    def __init__(
        self,
        history: int,
        cursor: tuple[int, int],
        lines: tuple[str, ...],
    ) -> None:
        self.history = history
        self.cursor = cursor
        self.lines = lines


def pane_view(tmux: Tmux, pane: str) -> PaneView:
    """One ``display-message`` + ``capture-pane`` of ``pane`` (one tmux call)."""
    fmt = _SEP.join(("#{history_size}", "#{cursor_x}", "#{cursor_y}"))
    out = tmux.run(
        "display-message", "-p", "-t", pane, fmt, ";", "capture-pane", "-p", "-t", pane
    )
    head = out[0].split(_SEP) if out else []
    nums = [int(v) if v.isdigit() else 0 for v in head] + [0, 0, 0]
    lines = [ln.rstrip() for ln in out[1:]]
    while lines and not lines[-1]:
        lines.pop()
    return PaneView(nums[0], (nums[1], nums[2]), tuple(lines))


def _dead_reason(tmux: Tmux, pane: str) -> str | None:
    info = tmux.panes().get(pane)
    if info is None:
        return f"the agent in pane {pane} exited and the pane is gone"
    if info.dead:
        code = f" (status {info.dead_status})" if info.dead_status is not None else ""
        return f"the agent in pane {pane} exited{code} before showing a prompt"
    return None


def wait_for_prompt(
    tmux: Tmux,
    pane: str,
    profile: AgentProfile,
    timeout_s: float,
) -> None:
    """Poll (50 ms) until ``profile``'s prompt shows in ``pane``; bounded."""
    deadline = time.monotonic() + timeout_s
    while True:
        reason = _dead_reason(tmux, pane)
        if reason is not None:
            raise AgentNotReady(reason)
        if profile.has_prompt(tmux.capture(pane)):
            return
        if time.monotonic() >= deadline:
            break
        time.sleep(POLL_S)
    raise AgentNotReady(
        f"no prompt seen after {timeout_s:g} s in pane {pane} (agent "
        f"'{profile.name}' expects /{profile.prompt_pattern}/ from "
        f"{profile.prompt_source}; set [agents.{profile.name}] prompt_pattern)"
    )


def _wait_drawn(tmux: Tmux, pane: str, text: str, timeout_s: float) -> PaneView:
    """The pane once ``text`` shows and two captures agree (bounded)."""
    deadline = time.monotonic() + timeout_s
    view = pane_view(tmux, pane)
    while time.monotonic() < deadline:
        time.sleep(POLL_S)
        again = pane_view(tmux, pane)
        if again == view and any(text in ln for ln in view.lines[-8:]):
            return view
        view = again
    return view


def send_command(
    tmux: Tmux,
    pane: str,
    text: str,
    verify_s: float = 5.0,
    retry_after_s: float = RETRY_AFTER_S,
) -> bool:
    """Type ``text`` and press Enter; ``True`` once the pane reacted to Enter.

    Enter is pressed again only after the pane stayed unchanged for
    ``retry_after_s``; ``False`` when nothing changed within ``verify_s`` (or
    ``verify_s`` is 0: typed with Enter, not verified).
    """
    if verify_s <= 0:  # fire and forget: nothing is verified
        tmux.send_text(pane, text, enter=True)
        return False
    tmux.send_text(pane, text, enter=False)
    before = _wait_drawn(tmux, pane, text, min(1.0, verify_s))
    tmux.send_keys(pane, "Enter")
    deadline = time.monotonic() + verify_s
    pressed = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(POLL_S)
        if pane_view(tmux, pane) != before:
            return True
        if time.monotonic() - pressed >= retry_after_s:
            tmux.send_keys(pane, "Enter")
            pressed = time.monotonic()
    return False
