"""The room of a document this host's ``agent-doc serve`` is sharing.

``serve`` says where it listens (:func:`announce_serving`:
``.agent-doc/share/serving.json``, its pid and a URL this host reaches it
on) while it runs, and takes it back when it stops. A local turn (``run``
or ``watch`` without ``--room``) of a document it serves then takes the
room's turn too (:func:`served_room`), so a ``run --room`` from another host
and a local run never answer the same question at once; its answer, once
serve merged it into the room, becomes the room's snapshot
(:meth:`ServedRoom.landed`), so no host sends it again. A ``serving.json``
whose pid is gone (a server killed with ``kill -9``) is ignored.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import ExitStack
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from agent_doc.cycle.turn_lock import WAIT_HINT
from agent_doc.errors import AgentDocError
from agent_doc.errors import ShareError
from agent_doc.share.access import project_token
from agent_doc.share.access import share_dir
from agent_doc.share.documents import session_id
from agent_doc.share.remote import record_room_snapshot
from agent_doc.share.room_lease import hold_room_turn
from agent_doc.share.room_link import RoomTarget
from agent_doc.store.atomic import atomic_write_text
from agent_doc.store.state import find_project_root
from agent_doc.store.state import read_document

if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterator
    from contextlib import AbstractContextManager

    from agent_doc.cycle.turn_lock import TurnRecord

SERVING_FILE = "serving.json"
"""The file of ``.agent-doc/share/`` saying where this host's serve listens."""


def announce_serving(root: Path, url: str) -> None:
    """Say (atomically) that this process serves ``root``'s rooms at ``url``."""
    data = json.dumps({"pid": os.getpid(), "url": url.rstrip("/")})
    atomic_write_text(share_dir(root) / SERVING_FILE, data + "\n")


def forget_serving(root: Path) -> None:
    """Take back :func:`announce_serving` (only this process's own)."""
    found = _serving(root)
    if found is not None and found[0] == os.getpid():
        (share_dir(root) / SERVING_FILE).unlink(missing_ok=True)


class ServedRoom:
    """The room a local turn of a served document holds as well."""

    def __init__(self, file: Path, target: RoomTarget, pid: int) -> None:
        self.file = file
        self.target = target
        self.pid = pid

    def hold_turn(
        self,
        command: str,
        wait_s: float = 0.0,
        on_wait: Callable[[TurnRecord], None] | None = None,
        *,
        hint: str | None = WAIT_HINT,
    ) -> AbstractContextManager[None]:
        """The room's turn, as ``run --room`` holds it (refused ending with
        ``hint``); a room that cannot be asked refuses the turn
        (:class:`ShareError`), never ignored."""
        return self._holding(command, wait_s, on_wait, hint)

    @contextmanager
    def _holding(
        self,
        command: str,
        wait_s: float,
        on_wait: Callable[[TurnRecord], None] | None,
        hint: str | None,
    ) -> Iterator[None]:
        with ExitStack() as stack:
            try:
                stack.enter_context(
                    hold_room_turn(
                        self.target,
                        str(self.file),
                        command,
                        wait_s=wait_s,
                        on_wait=on_wait,
                        hint=hint,
                    )
                )
            except ShareError as exc:
                raise ShareError(
                    f"{self.file} is shared by agent-doc serve (pid {self.pid}) "
                    f"and its room's turn cannot be asked ({exc}); the turn is "
                    "not run"
                ) from None
            yield

    def landed(self, content_ours: str) -> bool:
        """A local turn's answer (``content_ours``, written to the file)
        becomes the room's snapshot once serve merged it into the room, so
        a ``run --room`` from any host does not send it again; ``False``
        (with one warning line) when that could not be done."""
        try:
            if record_room_snapshot(self.target, content_ours, projected=self.file):
                return True
            why = "serve did not merge the answer into the room in time"
        except AgentDocError as exc:
            why = str(exc)
        sys.stderr.write(
            f"warning: {self.file}: the room's snapshot was not moved ({why}); "
            "a run --room may send this answer's question again\n"
        )
        return False


def served_room(file: Path) -> ServedRoom | None:
    """The room of ``file`` when this host's ``serve`` is sharing it, else
    ``None`` (no serve running for its project, or no session id)."""
    root = find_project_root(Path(file).resolve().parent)
    if root is None:
        return None
    serving = _serving(root)
    if serving is None:
        return None
    pid, url = serving
    session = session_id(read_document(Path(file)).text)
    if session is None:
        return None
    target = RoomTarget(f"{url}/{session}", project_token(root))
    return ServedRoom(Path(file), target, pid)


def _serving(root: Path) -> tuple[int, str] | None:
    """The live serve's pid and URL from ``serving.json`` (``None``: none, or
    its process is gone)."""
    try:
        data = json.loads((share_dir(root) / SERVING_FILE).read_text(encoding="utf-8"))
        pid, url = int(data["pid"]), str(data["url"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, another user's
    return pid, url
