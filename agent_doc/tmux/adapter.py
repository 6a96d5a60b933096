"""The tmux adapter: the only agent_doc module that runs ``tmux``.

Every tmux command goes to one server chosen by configuration:
``AGENT_DOC_TMUX_SOCKET`` (a ``tmux -L`` name) when set, else the user's default
server (tmux itself honours ``$TMUX``); a handle made from a binding's recorded
socket path (:meth:`Tmux.at`) talks to that server (``tmux -S PATH``). Bulk
metadata is one ``list-panes -a`` and one ``list-windows -a`` call. Failures
raise :class:`TmuxError` with one line.
Commands run as plain ``tmux [-L NAME] ARGS...`` subprocesses, the way libtmux's
``Server.cmd`` runs them, without importing libtmux (≈50 ms per CLI start).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from agent_doc._runtime.record import Record
from agent_doc.errors import TmuxError

SOCKET_ENV = "AGENT_DOC_TMUX_SOCKET"
SHELLS = frozenset({"zsh", "bash", "sh", "fish", "dash"})
_SEP = "\x1f"
_PANE_FIELDS = (
    "pane_id", "pane_pid", "pane_dead", "pane_dead_status", "pane_current_command",
    "window_id", "window_name", "window_index", "session_name", "pane_left",
    "pane_top", "pane_width", "pane_height", "pane_active", "window_active",
    "pane_dead_time",
)  # fmt: skip
_WINDOW_FIELDS = (
    "window_id", "window_name", "window_index", "session_name", "window_activity",
    "window_panes", "window_active",
)  # fmt: skip


def tmux_binary() -> str | None:
    """The ``tmux`` on ``PATH`` (``None``: not installed); nothing is run."""
    return shutil.which("tmux")


def installed_version() -> tuple[str, str] | None:
    """``(path, version)`` of the ``tmux`` on ``PATH`` (``tmux -V``, 5 s at
    most; no server is started or asked); ``None`` when there is none."""
    import subprocess

    binary = tmux_binary()
    if binary is None:
        return None
    try:
        done = subprocess.run(
            [binary, "-V"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return binary, str(exc)
    lines = (done.stdout or done.stderr).strip().splitlines()
    return binary, lines[0] if lines else ""


class PaneInfo(Record):
    """One pane as reported by ``list-panes -a``."""

    __slots__ = (
        "pane_id",
        "pid",
        "dead",
        "dead_status",
        "command",
        "window_id",
        "window_name",
        "window_index",
        "session",
        "left",
        "top",
        "width",
        "height",
        "active",
        "window_active",
        "dead_time",
    )

    def __init__(
        self,
        pane_id: str,
        pid: int,
        dead: bool,
        dead_status: int | None,
        command: str,
        window_id: str,
        window_name: str,
        window_index: int,
        session: str,
        left: int,
        top: int,
        width: int,
        height: int,
        active: bool,
        window_active: bool,
        dead_time: int = 0,
    ) -> None:
        self.pane_id = pane_id
        self.pid = pid
        self.dead = dead
        self.dead_status = dead_status
        self.command = command
        self.window_id = window_id
        self.window_name = window_name
        self.window_index = window_index
        self.session = session
        self.left = left
        self.top = top
        self.width = width
        self.height = height
        self.active = active
        self.window_active = window_active
        self.dead_time = dead_time
        """When the pane's process exited (epoch seconds; 0 while it runs)."""


class WindowInfo(Record):
    """One window as reported by ``list-windows -a``."""

    __slots__ = ("window_id", "name", "index", "session", "activity", "panes", "active")

    def __init__(
        self,
        window_id: str,
        name: str,
        index: int,
        session: str,
        activity: int,
        panes: int,
        active: bool,
    ) -> None:
        self.window_id = window_id
        self.name = name
        self.index = index
        self.session = session
        self.activity = activity
        self.panes = panes
        self.active = active


def is_stash_window_name(name: str) -> bool:
    """``stash`` or tmux's de-duplicated ``stash-N``."""
    return name == "stash" or name.startswith("stash-")


def _int(value: str, default: int = 0) -> int:
    try:
        return int(value)
    except ValueError:
        return default


class Tmux:
    """A handle on one tmux server; methods map to single tmux commands."""

    def __init__(
        self, socket_name: str | None = None, *, socket_path: str | None = None
    ) -> None:
        self.socket_name = socket_name
        self._socket_path = socket_path
        self._binary: str | None = None

    @classmethod
    def at(cls, socket_path: str) -> Tmux:
        """The server listening on ``socket_path`` (``tmux -S``)."""
        return cls(socket_path=socket_path)

    @property
    def socket_path(self) -> str:
        """The socket this handle talks to, computed the way tmux does.

        ``-S`` path as given; ``-L NAME`` → ``$TMUX_TMPDIR/tmux-UID/NAME``
        (``/tmp`` by default); no name → ``$TMUX``'s socket, else ``default``.
        """
        if self._socket_path:
            return self._socket_path
        if not self.socket_name:
            inside = os.environ.get("TMUX", "").split(",")[0]
            if inside:
                return inside
        base = Path(os.environ.get("TMUX_TMPDIR") or "/tmp").resolve()
        return str(base / f"tmux-{os.getuid()}" / (self.socket_name or "default"))

    @classmethod
    def from_env(cls) -> Tmux:
        """The server named by ``AGENT_DOC_TMUX_SOCKET``, else the default one."""
        return cls(os.environ.get(SOCKET_ENV) or None)

    def _command(self, args: tuple[str, ...]) -> list[str]:
        if self._binary is None:
            self._binary = shutil.which("tmux")
            if self._binary is None:
                raise TmuxError("tmux is not installed")
        if self._socket_path:
            return [self._binary, "-S", self._socket_path, *args]
        socket = [f"-L{self.socket_name}"] if self.socket_name else []
        return [self._binary, *socket, *args]

    def try_run(self, *args: str) -> tuple[int, list[str], str]:
        """Run one tmux command: ``(returncode, stdout lines, first stderr line)``."""
        import subprocess

        try:
            proc = subprocess.run(
                self._command(args), capture_output=True, text=True,
                encoding="utf-8", errors="backslashreplace", check=False,
            )  # fmt: skip
        except FileNotFoundError:
            raise TmuxError("tmux is not installed") from None
        out = proc.stdout.split("\n")
        while out and out[-1] == "":  # trailing newlines are not lines
            out.pop()
        err = next((line for line in proc.stderr.split("\n") if line), "")
        return proc.returncode, out, err

    def run(self, *args: str) -> list[str]:
        """Run one tmux command; raise :class:`TmuxError` when it fails."""
        code, out, err = self.try_run(*args)
        if code != 0:
            raise TmuxError(f"tmux {args[0]} failed: {err or f'exit {code}'}")
        return out

    # -- bulk metadata -------------------------------------------------------
    def panes(self) -> dict[str, PaneInfo]:
        """Every pane of the server, by pane id (one ``list-panes -a`` call).

        A server that is not running has no panes (see :meth:`probe_panes`).
        """
        return self.probe_panes() or {}

    def probe_panes(self) -> dict[str, PaneInfo] | None:
        """Every pane of the server; ``None`` when the server is not reachable.

        Not reachable (not running, no socket, no permission) says nothing about
        the panes that were on it: callers leave their bindings alone.
        """
        fmt = _SEP.join(f"#{{{f}}}" for f in _PANE_FIELDS)
        code, out, err = self.try_run("list-panes", "-a", "-F", fmt)
        if code != 0:
            if _no_server(err):
                return None
            raise TmuxError(f"tmux list-panes failed: {err}")
        result: dict[str, PaneInfo] = {}
        for line in out:
            v = line.split(_SEP)
            if len(v) != len(_PANE_FIELDS):
                continue
            result[v[0]] = PaneInfo(
                pane_id=v[0], pid=_int(v[1]), dead=v[2] == "1",
                dead_status=_int(v[3]) if v[3] else None, command=v[4],
                window_id=v[5], window_name=v[6], window_index=_int(v[7]),
                session=v[8], left=_int(v[9]), top=_int(v[10]), width=_int(v[11]),
                height=_int(v[12]), active=v[13] == "1", window_active=v[14] == "1",
                dead_time=_int(v[15]),
            )  # fmt: skip
        return result

    def windows(self) -> list[WindowInfo]:
        """Every window of the server (one ``list-windows -a`` call)."""
        fmt = _SEP.join(f"#{{{f}}}" for f in _WINDOW_FIELDS)
        code, out, err = self.try_run("list-windows", "-a", "-F", fmt)
        if code != 0:
            if _no_server(err):
                return []
            raise TmuxError(f"tmux list-windows failed: {err}")
        result = []
        for line in out:
            v = line.split(_SEP)
            if len(v) == len(_WINDOW_FIELDS):
                result.append(
                    WindowInfo(v[0], v[1], _int(v[2]), v[3], _int(v[4]), _int(v[5]),
                               v[6] == "1")
                )  # fmt: skip
        return result

    def has_session(self, name: str) -> bool:
        """Whether a session called ``name`` exists (exact match)."""
        return self.try_run("has-session", "-t", f"={name}")[0] == 0

    def pane_alive(self, pane: str) -> bool:
        """Whether ``pane`` exists and its process has not exited."""
        info = self.panes().get(pane)
        return info is not None and not info.dead

    # -- single-pane operations ---------------------------------------------
    def send_text(self, pane: str, text: str, enter: bool = True) -> None:
        """Type ``text`` literally into ``pane`` and optionally press Enter."""
        args = ["send-keys", "-t", pane, "-l", text]
        if enter:
            args += [";", "send-keys", "-t", pane, "Enter"]
        self.run(*args)

    def send_keys(self, pane: str, *keys: str) -> None:
        """Press tmux key names (``Enter``, ``Up``, ``Down``...) in ``pane``."""
        self.run("send-keys", "-t", pane, *keys)

    def capture(self, pane: str) -> str:
        """The visible text of ``pane`` (no escape sequences)."""
        return "\n".join(self.run("capture-pane", "-p", "-t", pane))

    def focus(self, pane: str) -> None:
        """``select-window`` then ``select-pane`` on ``pane`` (one invocation)."""
        self.run("select-window", "-t", pane, ";", "select-pane", "-t", pane)

    def display_message(self, pane: str, message: str, ms: int = 3000) -> None:
        """Show ``message`` as an overlay on the client viewing ``pane``."""
        self.try_run("display-message", "-d", str(ms), "-t", pane, message)

    def split(
        self,
        target: str,
        command: str,
        *,
        horizontal: bool = True,
        before: bool = False,
        full: bool = False,
        cwd: str | None = None,
    ) -> str:
        """Split ``target`` (detached) running ``command``; return the new pane id."""
        flags = "-d" + ("h" if horizontal else "v") + ("b" if before else "")
        flags += "f" if full else ""
        args = ["split-window", flags, "-P", "-F", "#{pane_id}", "-t", target]
        if cwd:
            args += ["-c", cwd]
        out = self.run(*args, command)
        self.keep_on_exit(out[0])
        return out[0]

    def new_window(
        self, session: str, name: str, command: str, cwd: str | None = None
    ) -> str:
        """Create window ``name`` in ``session`` (created if missing); return pane."""
        common = ["-P", "-F", "#{pane_id}"] + (["-c", cwd] if cwd else [])
        if self.has_session(session):
            out = self.run(
                "new-window", "-d", "-n", name, *common, "-t", f"={session}:", command
            )
        else:
            out = self.run(
                "new-session", "-d", "-s", session, "-n", name, "-x", "200",
                "-y", "50", *common, command,
            )  # fmt: skip
        self.keep_on_exit(out[0])
        return out[0]

    def keep_on_exit(self, pane: str) -> None:
        """Keep ``pane`` visible after its process exits (to report Exited)."""
        self.try_run("set-option", "-p", "-t", pane, "remain-on-exit", "on")

    def join(self, src: str, dst: str, *, horizontal: bool, full: bool = False) -> bool:
        """``join-pane -d`` ``src`` next to ``dst``; ``False`` when tmux refuses."""
        flags = "-d" + ("h" if horizontal else "v") + ("f" if full else "")
        return self.try_run("join-pane", flags, "-s", src, "-t", dst)[0] == 0

    def break_out(self, pane: str, session: str, name: str) -> str:
        """``break-pane -d`` ``pane`` into a new window ``name``; return its id.

        A pane alone in its window keeps that window (renamed, moved if needed).
        """
        panes = self.panes()
        info = panes.get(pane)
        if info and sum(p.window_id == info.window_id for p in panes.values()) == 1:
            self.run("rename-window", "-t", info.window_id, name)
            if info.session != session:
                self.run("move-window", "-s", info.window_id, "-t", f"={session}:")
            return info.window_id
        out = self.run(
            "break-pane", "-d", "-P", "-F", "#{window_id}", "-s", pane, "-n", name,
            "-t", f"={session}:",
        )  # fmt: skip
        return out[0]

    def kill_pane(self, pane: str) -> None:
        """Kill ``pane`` (ignored when it is already gone)."""
        self.try_run("kill-pane", "-t", pane)

    def kill_window(self, window: str) -> None:
        """Kill ``window`` (ignored when it is already gone)."""
        self.try_run("kill-window", "-t", window)

    def current_pane(self) -> str:
        """``$TMUX_PANE``; :class:`TmuxError` when not inside tmux."""
        pane = os.environ.get("TMUX_PANE")
        if not pane:
            raise TmuxError("not inside tmux (TMUX_PANE unset); use --pane")
        return pane


def _no_server(err: str) -> bool:
    return (
        "no server running" in err
        or "error connecting" in err
        or "server exited unexpectedly" in err
    )
