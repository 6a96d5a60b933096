"""git processes for the per-turn commit, started with ``os.posix_spawn``.

``preflight`` runs a handful of short git commands on every turn; importing
``subprocess`` (with ``signal``, ``selectors``, ``threading`` and ``locale``)
costs about 4 ms per process start, more than the commands need: a command
line, pipes for its standard streams, its exit status. Every pipe here is read
to its end before the process is waited for, and git's answers and messages
are small; a process that must read while it writes (``cat-file --batch``) is
driven request by request through :attr:`GitProcess.stdin` and
:attr:`GitProcess.stdout`.
"""

from __future__ import annotations

import fcntl
import functools
import os
import select  # the C module; ``selectors`` would cost more
import signal
from pathlib import Path

from agent_doc.errors import VcsError

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from typing import BinaryIO

GIT_ENV = {"LANGUAGE": "C", "LC_ALL": "C"}
"""English messages, as gitpython asks."""


def _default_signals() -> tuple[int, ...]:
    """Signals Python ignores that a child must get back (``subprocess`` does)."""
    names = ("SIGPIPE", "SIGXFSZ")
    return tuple(int(getattr(signal, n)) for n in names if hasattr(signal, n))


@functools.lru_cache(maxsize=4)
def _git_program(search_path: str | None) -> str:
    """The ``git`` that ``search_path`` (``$PATH``) finds, as an absolute path.

    (Found once: ``posix_spawnp`` would try every folder before it on each start.)
    """
    env = {} if search_path is None else {"PATH": search_path}
    for folder in os.get_exec_path(env):
        program = Path(folder or ".") / "git"
        if program.is_file() and os.access(program, os.X_OK):
            return str(program.absolute())
    raise FileNotFoundError("git")


def _pipe() -> tuple[int, int]:
    """A pipe whose ends are above the standard streams (for ``dup2`` onto them)."""
    ends = []
    for fd in os.pipe():
        if fd <= 2:  # this process runs with a standard stream closed
            high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
            os.close(fd)
            fd = high
        ends.append(fd)
    return ends[0], ends[1]


class GitProcess:
    """``git -C <cwd> <args>`` running, with pipes to its standard streams."""

    def __init__(
        self,
        args: tuple[str, ...],
        cwd: Path,
        *,
        stdin: bool = False,
        env: dict[str, str] | None = None,
    ) -> None:
        """Start it; ``stdin`` gives it a pipe to write to (else ``/dev/null``);
        ``env`` adds to the environment.

        Raises ``FileNotFoundError`` when there is no ``git`` to run.
        """
        out_r, out_w = _pipe()
        err_r, err_w = _pipe()
        in_r, in_w = _pipe() if stdin else (-1, -1)
        actions: list[tuple[int, ...] | tuple[int, int, str, int, int]] = [
            (os.POSIX_SPAWN_DUP2, out_w, 1),
            (os.POSIX_SPAWN_DUP2, err_w, 2),
        ]
        if stdin:
            actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
        else:
            actions.append((os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0))
        try:
            self.pid = os.posix_spawn(
                _git_program(os.environ.get("PATH")), ["git", "-C", str(cwd), *args],
                {**os.environ, **GIT_ENV, **(env or {})},
                file_actions=actions, setsigdef=_default_signals(),
            )  # fmt: skip
        except BaseException:
            for fd in (out_r, err_r, in_w):
                if fd >= 0:
                    os.close(fd)
            raise
        finally:
            for fd in (out_w, err_w, in_r):
                if fd >= 0:
                    os.close(fd)
        self.stdin: BinaryIO | None = os.fdopen(in_w, "wb") if stdin else None
        """The process's standard input (``None`` without ``stdin=True``)."""
        self.stdout: BinaryIO = os.fdopen(out_r, "rb")
        """The process's standard output."""
        self._stderr: BinaryIO = os.fdopen(err_r, "rb")
        self.returncode: int | None = None
        """The exit status, once :meth:`communicate` has waited for it."""
        self._answer: tuple[bytes, bytes] = (b"", b"")

    def communicate(self, data: bytes = b"") -> tuple[bytes, bytes]:
        """Send ``data`` and end the input; return ``(stdout, stderr)`` once it exits.

        A second call returns the same answer.
        """
        if self.returncode is not None:
            return self._answer
        if self.stdin is not None:
            try:
                if data:
                    self.stdin.write(data)
            except BrokenPipeError:  # it exited already: its status tells why
                pass
            try:
                self.stdin.close()
            except BrokenPipeError:
                pass
        out, err = self._drain()
        self.stdout.close()
        self._stderr.close()
        _, status = os.waitpid(self.pid, 0)
        self.returncode = os.waitstatus_to_exitcode(status)
        self._answer = (out, err)
        return self._answer

    def _drain(self) -> tuple[bytes, bytes]:
        """Read standard output and error to their ends, whichever has data
        (so a chatty hook on stderr cannot block git while stdout is read)."""
        chunks: dict[int, list[bytes]] = {}
        streams = {}
        poller = select.poll()
        for stream in (self.stdout, self._stderr):
            streams[stream.fileno()] = stream
            chunks[stream.fileno()] = []
            poller.register(stream, select.POLLIN)
        order = list(chunks)
        while streams:
            for fd, _ in poller.poll():
                chunk = streams[fd].read1(65536)  # type: ignore[attr-defined]
                if chunk:
                    chunks[fd].append(chunk)
                else:
                    poller.unregister(fd)
                    del streams[fd]
        return b"".join(chunks[order[0]]), b"".join(chunks[order[1]])


class GitFailed(VcsError):
    """A git command exited non-zero; ``stderr`` is what it said."""

    def __init__(self, command: str, stderr: str) -> None:
        super().__init__(f"git {command} failed: {stderr}")
        self.stderr = stderr


def text(output: bytes) -> str:
    """A git command's output as text, stripped."""
    return output.decode("utf-8", "surrogateescape").strip()


def run_git(
    cwd: Path, *args: str, data: bytes = b"", env: dict[str, str] | None = None
) -> tuple[int, bytes, bytes]:
    """Run ``git <args>`` in ``cwd`` with ``data`` as input; ``(status, out, err)``."""
    proc = GitProcess(args, cwd, stdin=bool(data), env=env)
    out, err = proc.communicate(data)
    assert proc.returncode is not None
    return proc.returncode, out, err


def checked(
    cwd: Path, *args: str, data: bytes = b"", env: dict[str, str] | None = None
) -> str:
    """The stripped output of ``git <args>``; :class:`GitFailed` when it fails."""
    code, out, err = run_git(cwd, *args, data=data, env=env)
    if code != 0:
        raise GitFailed(args[0], text(err) or f"exit {code}")
    return text(out)
