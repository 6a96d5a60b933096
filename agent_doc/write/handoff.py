"""``agent-doc write`` when a language server owns the document: send, and nothing else.

The CLI process reads the response, finds the one live server registered for
the document's project, sends a ``write`` request with ``finish: true`` and
prints the reply. The server builds ``content_ours`` from its live buffer,
applies the edit and does the whole bookkeeping (pending response, status,
snapshot, CRDT state, ``post_write``; :mod:`agent_doc.automation.served_write`),
so this process imports no pycrdt, no patch parser and no state store.

Anything unusual returns ``None`` and the caller takes the full write path
(:func:`agent_doc.write.pipeline.write_response`), which then decides exactly
as before: no server or several, a dead registration (its notice and clean-up),
a server that does not have the document open, a refused request.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.document.yrs_codec import encode_text_state
from agent_doc.errors import EX_TEMPFAIL
from agent_doc.errors import AgentDocError
from agent_doc.errors import ServerLinkError
from agent_doc.errors import ServerTimeout
from agent_doc.store.procs import pid_alive
from agent_doc.write.server_link import Registration
from agent_doc.write.server_link import ServerLink
from agent_doc.write.server_link import exchange
from agent_doc.write.server_link import load_registration
from agent_doc.write.server_link import reply_error
from agent_doc.write.waiting import elapsed_on_terminal
from agent_doc.write.waiting import write_timeout

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import Any


WAITING = "waiting for the editor to apply the answer"
"""What the elapsed time shown on a terminal is counting."""


class HandoffReply(Record):
    """What the server did with a handed-off response."""

    __slots__ = ("changed", "merged", "warnings")

    def __init__(self, changed: bool, merged: bool, warnings: tuple[str, ...]) -> None:
        self.changed = changed
        """The buffer changed."""
        self.merged = merged
        """The person's concurrent edits were merged in."""
        self.warnings = warnings
        """Malformed patch blocks (one line each, for stderr)."""


def sole_server(path: Path) -> Registration | None:
    """The one live registration for ``path``; ``None`` if none, several or a dead one.

    Read-only: dead registrations are left for the full path to clean up and
    report.
    """
    found: list[Registration] = []
    for folder in ServerLink()._server_dirs(path):
        for entry in folder.glob("*.json"):
            reg = load_registration(entry)
            if reg is None or not pid_alive(reg.pid):
                return None
            if reg.socket not in {r.socket for r in found}:
                found.append(reg)
    return found[0] if len(found) == 1 else None


class HandedOffError(AgentDocError):
    """The server ran the whole command and it failed; its exit code is kept."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def _send(path: Path, request: dict[str, Any], timeout: float) -> dict[str, Any] | None:
    """Send ``request`` (``finish: true``) to the sole server; ``None``: not handled.

    A refused request comes back as ``None``, except one the server finished
    (:class:`HandedOffError`) or gave up on in time (:class:`ServerTimeout`).
    """
    reg = sole_server(path)
    if reg is None:
        return None
    margin = min(2.0, timeout / 4)
    request = {
        **request, "file": str(Path(path).resolve()), "finish": True,
        "timeout_ms": max(int((timeout - margin) * 1000), 1),
    }  # fmt: skip
    try:
        with elapsed_on_terminal(WAITING):
            reply = exchange(reg.socket, request, timeout)
    except (ConnectionRefusedError, FileNotFoundError, NotADirectoryError):
        return None  # nobody listens: the full path removes it and writes to disk
    except TimeoutError as exc:
        raise ServerTimeout(
            f"the editor did not apply the edit in time "
            f"(server {reg.pid} did not answer)"
        ) from exc
    except OSError as exc:
        raise ServerLinkError(f"cannot reach server {reg.pid}: {exc}") from exc
    if reply.get("ok") is True:
        return reply
    error = reply_error(reply)
    if reply.get("code") == EX_TEMPFAIL:
        raise ServerTimeout(error)
    code = reply.get("exit_code")
    if reply.get("finished") is True and isinstance(code, int):
        raise HandedOffError(error, code)
    return None  # not open there, outside its workspace...: the full path


def hand_off_write(
    path: Path, response: str, origin: str | None, *, timeout: float | None = None
) -> HandoffReply | None:
    """Have the server that owns ``path`` write ``response``; ``None``: not handled.

    Raises :class:`ServerTimeout` when the server took the response but did not
    finish in time (exit 75; the response stays pending for ``recover``).
    """
    if not response.strip() or not Path(path).is_file():
        return None  # the full path reports these
    answer_id = os.urandom(4).hex()  # its identity (a boundary id, spec §7.22)
    request: dict[str, Any] = {
        "type": "write", "response": response, "baseline": None,
        "answer_id": answer_id,
    }  # fmt: skip
    if origin is not None:
        request["origin"] = origin
    try:
        reply = _send(path, request, timeout or write_timeout())
    except ServerTimeout:
        _keep_pending(path, response, answer_id)
        raise
    if reply is None:
        return None
    if reply.get("finished") is not True:  # a server older than the hand-off
        _finish_here(path, reply)
    warnings = reply.get("warnings")
    return HandoffReply(
        changed=reply.get("changed") is True,
        merged=reply.get("merged") is True,
        warnings=tuple(str(w) for w in warnings) if isinstance(warnings, list) else (),
    )


def hand_off_patch(
    path: Path, component: str, content: str, *, timeout: float | None = None
) -> bool | None:
    """Have the server that owns ``path`` run ``agent-doc patch``.

    Returns whether the buffer changed; ``None`` when not handled here.
    """
    if not Path(path).is_file():
        return None
    request = {"type": "patch", "component": component, "content": content}
    reply = _send(path, request, timeout or write_timeout())
    if reply is None:
        return None
    if reply.get("finished") is not True:  # a server older than the hand-off
        text = reply.get("text")
        if not isinstance(text, str):
            raise ServerLinkError("server reply to patch lacks text")
        from agent_doc.store.state import StateStore

        StateStore.for_document(path).save_snapshot(
            path, text.removeprefix("\ufeff").replace("\r\n", "\n")
        )
        return True
    return reply.get("changed") is True


def _finish_here(path: Path, reply: dict[str, Any]) -> None:
    """The bookkeeping a server that predates ``finish`` left to its caller."""
    from agent_doc.store.events import fire_quietly
    from agent_doc.store.state import StateStore

    ours = reply.get("content_ours")
    if not isinstance(ours, str) or not isinstance(reply.get("text"), str):
        raise ServerLinkError("server reply to write lacks content_ours/text")
    ours = ours.removeprefix("\ufeff").replace("\r\n", "\n")
    store = StateStore.for_document(path)
    store.save_snapshot(path, ours)
    store.save_crdt(path, encode_text_state(ours))
    reply.update(changed=True, merged=reply["text"] != ours)
    fire_quietly("post_write", path)


def _keep_pending(path: Path, response: str, answer_id: str) -> None:
    """Save the response as pending with its answer id (the server may not
    have got that far)."""
    from agent_doc.store.state import StateStore

    store = StateStore.for_document(path)
    if not store.pending_path(path).is_file():
        store.save_pending(path, response, answer_id)
