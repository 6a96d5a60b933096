"""The CLI side of the project socket: hand work to a running language server.

Every ``agent-doc-lsp`` registers itself in ``<project>/.agent-doc/servers/<pid>.json``
(``{"pid", "socket", "roots"}``) and listens on a Unix socket. This module finds
the live registrations, removes stale ones (dead pid, or a socket that refuses
connections), and speaks the NDJSON protocol of ``docs/architecture.md``: one
request line, one reply line, bounded by a timeout.

It uses only the standard library (``socket`` + ``json``) so that the ``write``
hand-off stays cheap to start; ``socket`` is imported only when there is a
server to talk to, and the records are :class:`~agent_doc._runtime.record.Record`
classes (no dataclass set-up).

Long socket paths: ``sun_path`` holds about 107 bytes. When a socket path is
longer, we open its directory with ``O_PATH`` and connect to
``/proc/self/fd/<fd>/<name>`` (Linux: no chdir, no files created, no race); on
systems without ``/proc`` we connect through a symlink to the socket placed in
a fresh short temporary directory, removed right after connecting.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.errors import EX_TEMPFAIL
from agent_doc.errors import ServerLinkError
from agent_doc.errors import ServerTimeout
from agent_doc.store.procs import pid_alive
from agent_doc.write.waiting import elapsed_on_terminal
from agent_doc.write.waiting import write_timeout as configured

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    import socket
    from typing import Any

SUN_PATH_MAX = 100
"""Socket paths at least this long (bytes) are connected to indirectly."""

MAX_REPLY_BYTES = 64 * 1024 * 1024
"""A reply line longer than this is refused (a document larger than 64 MB)."""


class Registration(Record):
    """One ``servers/<pid>.json`` entry: a server that said it is running."""

    __slots__ = ("pid", "socket", "roots", "path")

    def __init__(
        self,
        pid: int,
        socket: str,
        roots: tuple[str, ...],
        path: Path,
    ) -> None:
        self.pid = pid
        self.socket = socket
        self.roots = roots
        self.path = path
        """The registration file itself (deleted when the server is stale)."""


class ServerHandle(Record):
    """A live server that has a given document open, with its buffer text."""

    __slots__ = ("registration", "file", "text", "version", "others")

    def __init__(
        self,
        registration: Registration,
        file: str,
        text: str,
        version: int | None = None,
        others: tuple[Registration, ...] = (),
    ) -> None:
        self.registration = registration
        self.file = file
        """Canonical absolute path of the document (symlinks resolved), as sent."""
        self.text = text
        """The live buffer text at the time of the ``read`` request."""
        self.version = version
        self.others = others
        """Other live servers with the document open (their copies go stale)."""


class ServerWriteReply(Record):
    """What a server returns after applying an agent response to its buffer."""

    __slots__ = ("content_ours", "text", "warnings", "room_on_save")

    def __init__(
        self,
        content_ours: str,
        text: str,
        warnings: tuple[str, ...] = (),
        room_on_save: bool = False,
    ) -> None:
        self.content_ours = content_ours
        self.text = text
        self.warnings = warnings
        """Malformed patch blocks the server found (one line each, for stderr)."""
        self.room_on_save = room_on_save
        """The buffer of a document this host's serve shares has not joined
        its room: the server moves the room's snapshot when it is saved."""


def _connect(sock: socket.socket, path: str) -> None:
    """Connect ``sock`` to ``path``, indirectly when the path is too long."""
    if len(os.fsencode(path)) < SUN_PATH_MAX:
        sock.connect(path)
        return
    directory, name = os.path.split(path)
    if Path("/proc/self/fd").is_dir() and len(name) < SUN_PATH_MAX - 24:
        fd = os.open(directory or ".", getattr(os, "O_PATH", os.O_RDONLY))
        try:
            sock.connect(f"/proc/self/fd/{fd}/{name}")
        finally:
            os.close(fd)
        return
    _connect_via_symlink(sock, path)


def _connect_via_symlink(sock: socket.socket, path: str) -> None:
    """Connect through a symlink in a short private temporary directory."""
    import shutil
    import tempfile

    short = tempfile.mkdtemp(prefix="ad-", dir="/tmp")
    try:
        link = str(Path(short) / "s")
        Path(link).symlink_to(path)
        sock.connect(link)
    finally:
        shutil.rmtree(short, ignore_errors=True)


def exchange(
    socket_path: str, request: dict[str, Any], timeout: float
) -> dict[str, Any]:
    """Send one NDJSON request to ``socket_path`` and return the one reply.

    Raises ``ConnectionRefusedError``/``FileNotFoundError`` when nobody listens,
    :class:`TimeoutError` when no full reply line arrives within ``timeout``,
    and :class:`ServerLinkError` for a malformed reply.
    """
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        _connect(sock, socket_path)
        sock.sendall(json.dumps(request, ensure_ascii=False).encode() + b"\n")
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if b"\n" in chunk or size > MAX_REPLY_BYTES:
                break
    line = b"".join(chunks).split(b"\n", 1)[0]
    if not line:
        raise ServerLinkError("server closed the connection without replying")
    try:
        reply = json.loads(line)
    except ValueError as exc:
        raise ServerLinkError(f"server sent an invalid reply: {exc}") from exc
    if not isinstance(reply, dict):
        raise ServerLinkError("server sent an invalid reply: not a JSON object")
    return reply


def reply_error(reply: dict[str, Any]) -> str:
    """The error of a refused reply, without the server's ``agent-doc write: ``
    label (the CLI prints its own ``agent-doc: `` prefix)."""
    error = str(reply.get("error") or "server refused the request")
    head, sep, rest = error.partition(": ")
    if sep and head.startswith("agent-doc ") and " " not in head[len("agent-doc ") :]:
        return rest
    return error


def _checked(reply: dict[str, Any]) -> dict[str, Any]:
    if reply.get("ok") is True:
        return reply
    error = reply_error(reply)
    if reply.get("code") == EX_TEMPFAIL:
        raise ServerTimeout(error)
    raise ServerLinkError(error)


def load_registration(path: Path) -> Registration | None:
    """The server registration in ``path``; ``None`` when the file cannot be
    read or does not hold one (whether its server still runs is not checked)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        roots = data.get("roots") or []
        return Registration(
            pid=int(data["pid"]),
            socket=str(data["socket"]),
            roots=tuple(str(r) for r in roots),
            path=path,
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def remove_stale_socket(path: str | Path) -> bool:
    """Remove the socket file of a dead server; return whether it was removed.

    Only a Unix socket owned by the current user is removed: the path comes
    from a registration file inside the project, which a hostile repository
    could point at any file.
    """
    try:
        info = os.lstat(path)
        if not stat.S_ISSOCK(info.st_mode) or info.st_uid != os.getuid():
            return False
        Path(path).unlink()
    except (OSError, ValueError):
        return False
    return True


class ServerLink:
    """Find the running server that has a document open and talk to it.

    Parameters
    ----------
    root:
        Project root whose ``.agent-doc/servers/`` is searched. ``None``: the
        nearest ancestor of each document holding ``.agent-doc/``.
    timeout:
        Seconds to wait for a reply to ``read``/``typing``/``reposition``.
    write_timeout:
        Seconds to wait for a reply to ``write``/``patch`` (the server applies a
        workspace edit in the editor before it answers); default
        ``AGENT_DOC_WRITE_TIMEOUT``, else 30.
    """

    def __init__(
        self,
        root: Path | None = None,
        *,
        timeout: float = 5.0,
        write_timeout: float | None = None,
    ) -> None:
        self.root = root
        """Fixed project root, or ``None`` to search from each document."""
        self.timeout = timeout
        """Reply timeout for cheap requests, in seconds."""
        if write_timeout is None:
            write_timeout = configured()
        self.write_timeout = write_timeout
        """Reply timeout for ``write`` and ``patch``, in seconds
        (default: ``AGENT_DOC_WRITE_TIMEOUT``, else 30)."""
        self.silent: list[Registration] = []
        """Live registrations that did not answer in time."""
        self.gone: list[Registration] = []
        """Registrations found dead (and removed) by this link: a server that
        crashed may have left an editor holding unsaved text."""

    def _server_dirs(self, path: Path | None) -> list[Path]:
        """``servers/`` folders to search: the fixed root, else every ancestor's."""
        if self.root is not None:
            return [self.root / ".agent-doc" / "servers"]
        if path is None:
            return []
        dirs = [p / ".agent-doc" / "servers" for p in Path(path).resolve().parents]
        return [d for d in dirs if d.is_dir()]

    def registrations(self, path: Path | None = None) -> list[Registration]:
        """Return the registrations whose pid is alive; delete the dead ones.

        Without a fixed root, the ``.agent-doc/servers/`` of every ancestor of
        ``path`` is searched (nearest first), so a server registered for an
        enclosing workspace is found too.
        """
        found: list[Registration] = []
        sockets: set[str] = set()
        for folder in self._server_dirs(path):
            for entry in sorted(folder.glob("*.json")):
                reg = load_registration(entry)
                if reg is None or not pid_alive(reg.pid):
                    self._forget(entry)
                    if reg is not None:  # a killed server left its socket too
                        remove_stale_socket(reg.socket)
                        self.gone.append(reg)
                elif reg.socket not in sockets:
                    sockets.add(reg.socket)
                    found.append(reg)
        return found

    @staticmethod
    def _forget(entry: Path) -> None:
        with contextlib.suppress(OSError):
            entry.unlink()

    def _ask(
        self, reg: Registration, request: dict[str, Any], timeout: float
    ) -> dict[str, Any] | None:
        """Send to one server; ``None`` (and the registration removed) if stale."""
        try:
            return exchange(reg.socket, request, timeout)
        except (ConnectionRefusedError, FileNotFoundError, NotADirectoryError):
            self._forget(reg.path)
            self.gone.append(reg)
            return None
        except TimeoutError:
            self.silent.append(reg)
            return None
        except OSError as exc:
            raise ServerLinkError(f"cannot reach server {reg.pid}: {exc}") from exc

    def find_owner(self, path: Path) -> ServerHandle | None:
        """Return the live server that has ``path`` open, with its buffer text.

        Raises :class:`ServerTimeout` when no server has it open but a live one
        did not answer: it may hold the document, and writing the file behind
        an open buffer would lose the answer (the response stays pending).

        With several, the one whose buffer changed most recently wins (the
        editor the person works in); the others are listed in
        :attr:`ServerHandle.others` so they can be told their copy is stale.
        """
        file = str(Path(path).resolve())
        self.silent = []
        found: list[tuple[int, ServerHandle]] = []
        for reg in self.registrations(Path(file)):
            reply = self._ask(reg, {"type": "read", "file": file}, self.timeout)
            if reply is None or reply.get("ok") is not True or not reply.get("open"):
                continue
            text, version = reply.get("text"), reply.get("version")
            typed = reply.get("last_typed_ms")
            handle = ServerHandle(
                registration=reg,
                file=file,
                text=text if isinstance(text, str) else "",
                version=version if isinstance(version, int) else None,
            )
            found.append((typed if isinstance(typed, int) else 0, handle))
        if not found:
            if self.silent:  # it may have the document open: never go behind it
                raise ServerTimeout(
                    f"language server {self.silent[-1].pid} did not answer in time; "
                    f"it may have {Path(file).name} open, so nothing was written"
                )
            return None
        found.sort(key=lambda item: item[0])  # stable: ties keep registry order
        owner = found[-1][1] if found[-1][0] else found[0][1]
        others = tuple(h.registration for _, h in found if h is not owner)
        return owner._replace(others=others)

    def notify_stale(self, handle: ServerHandle) -> int:
        """Tell every other server holding the document that its copy is stale.

        Best effort (a server that does not answer is skipped); returns how
        many answered.
        """
        answered = 0
        for reg in handle.others:
            reply = self._ask(reg, {"type": "stale", "file": handle.file}, self.timeout)
            answered += reply is not None and reply.get("ok") is True
        return answered

    def _send(self, handle: ServerHandle, request: dict[str, Any]) -> dict[str, Any]:
        """Send a mutating request to the owner; a lost reply is a timeout.

        The request carries ``timeout_ms``: the server gives up (and answers
        with exit 75) before this side stops listening, so a write can never
        land after the CLI reported it failed.
        """
        margin = min(2.0, self.write_timeout / 4)
        request = {
            **request,
            "timeout_ms": max(int((self.write_timeout - margin) * 1000), 1),
        }

        try:
            with elapsed_on_terminal("waiting for the editor to apply the answer"):
                reply = exchange(
                    handle.registration.socket, request, self.write_timeout
                )
        except TimeoutError as exc:
            raise ServerTimeout(
                f"the editor did not apply the edit in time "
                f"(server {handle.registration.pid} did not answer)"
            ) from exc
        except OSError as exc:
            raise ServerLinkError(
                f"cannot reach server {handle.registration.pid}: {exc}"
            ) from exc
        return _checked(reply)

    def write(
        self,
        handle: ServerHandle,
        response: str,
        baseline: str | None,
        origin: str | None = None,
        answer_id: str | None = None,
    ) -> ServerWriteReply:
        """Ask the owner to merge ``response`` into its live buffer (landing
        with the boundary id ``answer_id`` when given)."""
        request: dict[str, Any] = {
            "type": "write",
            "file": handle.file,
            "response": response,
            "baseline": baseline,
        }
        if origin is not None:
            request["origin"] = origin
        if answer_id is not None:
            request["answer_id"] = answer_id
        reply = self._send(handle, request)
        ours, text = reply.get("content_ours"), reply.get("text")
        if not isinstance(ours, str) or not isinstance(text, str):
            raise ServerLinkError("server reply to write lacks content_ours/text")
        warnings = reply.get("warnings")
        found = tuple(str(w) for w in warnings) if isinstance(warnings, list) else ()
        on_save = reply.get("room_snapshot_on_save") is True
        return ServerWriteReply(ours, text, found, room_on_save=on_save)

    def patch(
        self,
        handle: ServerHandle,
        component: str,
        content: str,
        *,
        mode: str | None = None,
    ) -> str:
        """Ask the owner to patch one component; return the new buffer text."""
        request: dict[str, Any] = {
            "type": "patch",
            "file": handle.file,
            "component": component,
            "content": content,
        }
        if mode is not None:
            request["mode"] = mode
        reply = self._send(handle, request)
        text = reply.get("text")
        if not isinstance(text, str):
            raise ServerLinkError("server reply to patch lacks text")
        return text

    def merge(
        self,
        handle: ServerHandle,
        baseline: str,
        target: str,
        *,
        label: str | None = None,
    ) -> str:
        """Ask the owner to turn ``baseline`` into ``target`` in its buffer,
        keeping what was typed since; return the new buffer text. ``label``
        names the edit in the editor (default: ``agent-doc compact``)."""
        request = {
            "type": "merge",
            "file": handle.file,
            "baseline": baseline,
            "target": target,
        }
        if label is not None:
            request["label"] = label
        text = self._send(handle, request).get("text")
        if not isinstance(text, str):
            raise ServerLinkError("server reply to merge lacks text")
        return text

    def reposition(self, path: Path) -> bool:
        """Ask the owner of ``path`` to reposition its boundary; ``False`` if none."""
        handle = self.find_owner(path)
        if handle is None:
            return False
        self._send(handle, {"type": "reposition", "file": handle.file})
        return True

    def vcs_refresh(self, path: Path | None = None) -> int:
        """Tell every live server to refresh VCS state; return how many answered."""
        answered = 0
        for reg in self.registrations(path):
            reply = self._ask(reg, {"type": "vcs_refresh"}, self.timeout)
            if reply is not None and reply.get("ok") is True:
                answered += 1
        return answered

    def typing(self, path: Path) -> int | None:
        """Return the owner's ``last_typed_ms`` for ``path`` (Unix ms of the last edit).

        ``None`` when no live server has the document open or it reported no time.
        """
        file = str(Path(path).resolve())
        for reg in self.registrations(Path(file)):
            reply = self._ask(reg, {"type": "typing", "file": file}, self.timeout)
            if reply is None or reply.get("ok") is not True or not reply.get("open"):
                continue
            value = reply.get("last_typed_ms")
            return value if isinstance(value, int) else None
        return None
