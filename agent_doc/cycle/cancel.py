"""Cancel means cancel: a stopped turn stops the agent's whole process group.

Every agent (a CLI backend, an ACP agent) is started in its own session, so a
terminal's Ctrl-C reaches agent-doc only; agent-doc then ends the agent and
everything it started: SIGTERM to the group, SIGKILL after :data:`GRACE_S`
(at once on a second signal). Nothing is left running re-parented to PID 1.

:func:`signals_routed` sends SIGINT, SIGTERM and SIGHUP to a callback while an
agent works (chaining a handler the caller installed, such as ``watch``'s);
:class:`TurnCancelled` is the error a cancelled turn ends with (exit code
128 + the signal, so 130 for Ctrl-C).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from agent_doc.errors import AgentError

DEFAULT_GRACE_S = 3.0


def _grace_from_env() -> float:
    raw = os.environ.get("AGENT_DOC_CANCEL_GRACE_S", "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_GRACE_S
    return value if 0 <= value <= 600 else DEFAULT_GRACE_S


GRACE_S = _grace_from_env()
"""Seconds an agent's group has between SIGTERM and SIGKILL
(``AGENT_DOC_CANCEL_GRACE_S``, default 3; an unusable value means 3)."""
CANCEL_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that cancel a turn."""
_POLL_S = 0.02

_routed: set[object] = set()
"""The handlers :func:`signals_routed` installed (an inner one replaces, not chains)."""
live_groups: set[int] = set()
"""Process groups of the agents this process runs (stopped on a fatal signal)."""


class TurnCancelled(AgentError):
    """A signal cancelled the turn; the agent's process group was stopped."""

    def __init__(self, message: str, signum: int) -> None:
        super().__init__(message)
        self.signum = signum
        """The signal that cancelled the turn."""
        self.exit_code = 128 + signum


class SignalReceived(BaseException):
    """Raised by :func:`raise_on_signal` inside the code an agent waits in."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal_name(signum))
        self.signum = signum


class Interrupted(BaseException):
    """A signal stopped agent-doc outside an agent's turn (exit 128 + signal).

    Not an ``Exception``: every ``finally`` runs (the busy status is cleared,
    a write in flight stays recoverable) and nothing catches it as an
    ordinary error on the way to the CLI's boundary.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal_name(signum))
        self.signum = signum
        """The signal received."""


def interrupt_on_signal(signum: int) -> None:
    """A :func:`signals_routed` callback: unwind as Ctrl-C does, for any signal."""
    raise Interrupted(signum)


def signal_name(signum: int) -> str:
    """``SIGINT`` for 2, and so on."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


class SignalLatch:
    """Remembers the first cancelling signal; later ones ask to hurry."""

    def __init__(self) -> None:
        self.first: int | None = None
        self.count = 0
        self.defer = False
        """While True (the agent being started), a signal is only noted."""

    def note(self, signum: int) -> bool:
        """Record ``signum``; True when it is the first."""
        self.count += 1
        if self.first is None:
            self.first = signum
            return True
        return False

    @property
    def hurry(self) -> bool:
        """A second signal came: stop the agent without a grace period."""
        return self.count > 1


def raise_on_signal(latch: SignalLatch) -> Callable[[int], None]:
    """A :func:`signals_routed` callback raising :class:`SignalReceived` once
    (not while ``latch.defer``: the caller checks ``latch.first`` after)."""

    def on_signal(signum: int) -> None:
        if latch.note(signum) and not latch.defer:
            raise SignalReceived(signum)

    return on_signal


@contextlib.contextmanager
def signals_routed(on_signal: Callable[[int], None]) -> Iterator[bool]:
    """Call ``on_signal(signum)`` on SIGINT/SIGTERM/SIGHUP inside the block.

    A Python handler installed before (``watch`` stopping its loop) still runs
    first, unless it is an enclosing :func:`signals_routed` one (the agent's
    turn inside ``run``). Outside the main thread nothing is installed
    (yields False).
    """
    previous: dict[int, object] = {}

    def handler(signum: int, frame: FrameType | None) -> None:
        prior = previous.get(signum)
        # an enclosing routing yields to this one; Ctrl-C's default is replaced
        chained = prior not in _routed and prior is not signal.default_int_handler
        if chained and callable(prior):
            prior(signum, frame)
        on_signal(signum)

    _routed.add(handler)
    try:
        for signum in CANCEL_SIGNALS:
            previous[signum] = signal.signal(signum, handler)
    except ValueError:  # not the main thread: signals are not ours to route
        _restore(previous)
        _routed.discard(handler)
        yield False
        return
    try:
        yield True
    finally:
        _restore(previous)
        _routed.discard(handler)


def _restore(previous: dict[int, object]) -> None:
    for signum, prior in previous.items():
        signal.signal(signum, prior if prior is not None else signal.SIG_DFL)  # type: ignore[arg-type]


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes of group ``pgid``."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        except PermissionError:
            pass
        return [pgid]
    members = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def stop_group(
    pgid: int,
    *,
    grace: float = GRACE_S,
    reap: Callable[[], object] = lambda: None,
    hurry: Callable[[], bool] = lambda: False,
) -> None:
    """SIGTERM the group ``pgid``, SIGKILL what is left after ``grace``.

    ``reap`` collects the leader's exit status (so it is no zombie); a true
    ``hurry()`` (a second Ctrl-C) ends the grace period at once.
    """
    _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and not hurry():
        reap()
        if not group_members(pgid):
            break
        time.sleep(_POLL_S)
    else:
        _signal_group(pgid, signal.SIGKILL)
    killed = time.monotonic() + 2.0
    while group_members(pgid) and time.monotonic() < killed:
        reap()
        time.sleep(_POLL_S)
    reap()
    live_groups.discard(pgid)


async def stop_group_async(
    pgid: int, *, grace: float = GRACE_S, hurry: Callable[[], bool] = lambda: False
) -> None:
    """:func:`stop_group` for an event loop (the loop reaps its children)."""
    import asyncio  # loaded already where a loop runs; not on the per-turn paths

    _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and not hurry():
        if not group_members(pgid):
            break
        await asyncio.sleep(_POLL_S)
    else:
        _signal_group(pgid, signal.SIGKILL)
    killed = time.monotonic() + 2.0
    while group_members(pgid) and time.monotonic() < killed:  # noqa: ASYNC110 - no event says a group emptied
        await asyncio.sleep(_POLL_S)
    live_groups.discard(pgid)


def stop_live_groups(grace: float = 1.0) -> None:
    """Stop every agent group this process still runs (a fatal signal came)."""
    for pgid in list(live_groups):
        _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(map(group_members, live_groups)):
        time.sleep(_POLL_S)
    for pgid in list(live_groups):
        _signal_group(pgid, signal.SIGKILL)
    live_groups.clear()
