"""The hook listener socket (spec §9.5): ``.agent-doc/hooks.sock``.

``agent-doc hook listen`` binds a Unix socket (mode 0600) and accepts NDJSON
hook events, one per line; each valid event is stored like ``hook fire`` does
and acknowledged with ``ok\\n`` (an invalid line gets ``error: <reason>\\n``).

Long paths: ``sun_path`` holds about 107 bytes. When ``.agent-doc/hooks.sock``
would be longer than :data:`SUN_PATH_MAX`, the socket is bound in the private
runtime folder (``$XDG_RUNTIME_DIR/agent-doc`` or ``/tmp/agent-doc-<uid>``,
mode 0700) as ``h-<hash>.sock`` and its real path is written to
``.agent-doc/hooks.sock.path``; clients read that file first. A socket left
behind by a dead listener (connection refused) is removed before binding.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path

from agent_doc._runtime.digest import sha256_hex
from agent_doc._runtime.lazy import lazy_logger
from agent_doc.errors import StateError
from agent_doc.store.state import atomic_write_text

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    import socket

logger = lazy_logger(__name__)

SUN_PATH_MAX = 100
MAX_LINE = 1024 * 1024


def runtime_dir() -> Path:
    """The private folder for short socket paths (created 0700)."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = Path(base) / "agent-doc" if base else Path(f"/tmp/agent-doc-{os.getuid()}")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if folder.stat().st_uid != os.getuid():
        raise StateError(f"{folder} is not owned by the current user")
    return folder


def default_socket_path(root: Path) -> Path:
    """``<root>/.agent-doc/hooks.sock``."""
    return root / ".agent-doc" / "hooks.sock"


def pointer_path(root: Path) -> Path:
    """``<root>/.agent-doc/hooks.sock.path`` (set when the socket lives elsewhere)."""
    return root / ".agent-doc" / "hooks.sock.path"


def socket_path(root: Path) -> Path:
    """Where clients connect: the pointer file's target, else ``hooks.sock``."""
    with contextlib.suppress(OSError, UnicodeDecodeError):
        target = pointer_path(root).read_text(encoding="utf-8").strip()
        if target:
            return Path(target)
    return default_socket_path(root)


def bind_path(root: Path) -> Path:
    """Where the listener binds (short enough for ``sun_path``)."""
    preferred = default_socket_path(root.resolve())
    if len(os.fsencode(str(preferred))) < SUN_PATH_MAX:
        return preferred
    digest = sha256_hex(os.fsencode(str(preferred)))[:16]
    return runtime_dir() / f"h-{digest}.sock"


def send_line(root: Path, line: str, *, timeout: float = 1.0) -> str | None:
    """Send one line to the listener; its reply line, or ``None`` if unreachable."""
    path = socket_path(root)
    if not path.exists():
        return None  # no listener: socket is not even imported
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(str(path))
            sock.sendall(line.encode("utf-8") + b"\n")
            reply = sock.makefile("rb").readline(4096)
        except OSError:
            return None
    return reply.decode("utf-8", errors="replace").strip()


def _alive(path: Path) -> bool:
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


class HookListener:
    """A bound hook socket; :meth:`serve` until :meth:`stop` (or a signal)."""

    def __init__(self, root: Path, on_line: Callable[[str], str]) -> None:
        self.root = root.resolve()
        """The project root whose events are stored."""
        self.on_line = on_line
        """Answers one received line (the reply written back, e.g. ``ok``)."""
        self.path = bind_path(self.root)
        """The bound socket path."""

        self._stop = threading.Event()
        self._sock = self._bind()

    def _bind(self) -> socket.socket:
        if self.path.exists() or self.path.is_symlink():
            if _alive(self.path):
                raise StateError(f"a hook listener already runs on {self.path}")
            self.path.unlink()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        import socket

        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            sock.bind(str(self.path))
        except OSError as exc:
            sock.close()
            raise StateError(f"cannot bind {self.path}: {exc.strerror}") from exc
        finally:
            os.umask(old)
        self.path.chmod(0o600)
        sock.listen(16)
        sock.settimeout(0.2)
        if self.path != default_socket_path(self.root):
            atomic_write_text(pointer_path(self.root), f"{self.path}\n")
        return sock

    def stop(self) -> None:
        """Ask :meth:`serve` to return (safe from signal handlers and threads)."""
        self._stop.set()

    def serve(self) -> None:
        """Accept connections until stopped, then remove the socket."""
        try:
            while not self._stop.is_set():
                try:
                    conn, _ = self._sock.accept()
                except TimeoutError:
                    continue
                except OSError:
                    if self._stop.is_set():
                        break
                    raise

                threading.Thread(target=self._handle, args=(conn,), daemon=True).start()
        finally:
            self.close()

    def close(self) -> None:
        """Close and remove the socket (and the pointer file)."""
        self._sock.close()
        with contextlib.suppress(OSError):
            self.path.unlink()
        with contextlib.suppress(OSError):
            if self.path != default_socket_path(self.root):
                pointer_path(self.root).unlink()

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(5.0)
        with conn, conn.makefile("rwb") as stream, contextlib.suppress(OSError):
            for raw in iter(lambda: stream.readline(MAX_LINE), b""):
                if not raw.strip():
                    continue
                reply = self.on_line(raw.decode("utf-8", "replace"))
                stream.write(reply.encode("utf-8") + b"\n")
                stream.flush()
