"""Shared pieces of session routing: documents, target sessions, the agent command.

A :class:`DocSession` is a document resolved to its project root and session
UUID (the registry key). All state comes from the project root (our decision 7).
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

from agent_doc._runtime.lazy import lazy_compile
from agent_doc._runtime.record import Record
from agent_doc.document.frontmatter import ensure_session
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.errors import AgentError
from agent_doc.errors import DocumentError
from agent_doc.store.config import load_project_config
from agent_doc.store.config import missing_agent_hint
from agent_doc.store.state import doc_lock
from agent_doc.store.state import project_root_for
from agent_doc.store.state import read_document
from agent_doc.store.state import write_document
from agent_doc.tmux.registry import Registry
from agent_doc.tmux.registry import SessionEntry
from agent_doc.tmux.registry import relative_file
from agent_doc.tmux.registry import utc_now

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.tmux.adapter import PaneInfo
    from agent_doc.tmux.adapter import Tmux

AGENT_COMMAND_ENV = "AGENT_DOC_AGENT_COMMAND"
DEFAULT_SESSION = "claude"
AGENT_WINDOW = "agent-doc"
_ENV_ASSIGNMENT = lazy_compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


class DocSession(Record):
    """A document with its project root, session UUID and frontmatter bits."""

    __slots__ = ("path", "root", "key", "tmux_session", "text", "format", "claude_args")

    def __init__(
        self,
        path: Path,
        root: Path,
        key: str | None,
        tmux_session: str | None,
        text: str,
        format: str = "template",
        claude_args: str | None = None,
    ) -> None:
        self.path = path
        self.root = root
        self.key = key
        self.tmux_session = tmux_session
        self.text = text
        self.format = format
        self.claude_args = claude_args

    @property
    def rel(self) -> str:
        """The path stored in ``sessions.json`` (root-relative when possible)."""
        return relative_file(self.root, self.path)


def load_doc(file: Path | str, *, create: bool = True) -> DocSession:
    """Read ``file``; with ``create``, give it a session UUID if it has none."""
    path = Path(file).expanduser().absolute()
    if not path.is_file():
        raise DocumentError(f"{file}: no such document")
    text = read_document(path).text
    front = parse_frontmatter(text)
    key = front.session
    if not key and create:
        with doc_lock(path):  # re-read: another writer may have come first
            original = read_document(path)
            text, key = ensure_session(original.text)
            if text != original.text:
                write_document(path, original, text)
        front = parse_frontmatter(text)
    return DocSession(
        path=path,
        root=project_root_for(path),
        key=key or None,
        tmux_session=front.tmux_session,
        text=text,
        format=front.format or "template",
        claude_args=front.claude_args,
    )


def agent_command(root: Path) -> str:
    """Command started in new agent panes: env > project config > ``claude``."""
    env = os.environ.get(AGENT_COMMAND_ENV, "").strip()
    if env:
        return env

    configured = load_project_config(root).agent_command
    return configured.strip() if configured and configured.strip() else "claude"


def require_agent_command(root: Path) -> str:
    """``agent_command(root)``, or an :class:`AgentError` if it is not installed.

    Checked before a pane is spawned: a missing program would otherwise show
    up only as a dead pane.
    """
    command = agent_command(root)
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise AgentError(f"agent command {command!r} cannot be parsed: {exc}") from exc
    program = next((w for w in words if not _ENV_ASSIGNMENT.match(w)), "")
    if not program or shutil.which(program) is None:
        where = (
            f"${AGENT_COMMAND_ENV}"
            if os.environ.get(AGENT_COMMAND_ENV, "").strip()
            else "agent_command in .agent-doc/config.toml"
        )
        raise AgentError(
            f"agent command '{program or command}' is not installed (not on PATH); "
            f"{missing_agent_hint(program)}, or set {where}"
        )
    return command


def configured_session(root: Path) -> str | None:
    """``tmux_session`` of ``.agent-doc/config.toml``, if any."""
    return load_project_config(root).tmux_session


def current_session(tmux: Tmux, caller_pane: str | None = None) -> str | None:
    """The session of ``caller_pane`` (else ``$TMUX_PANE``) on this server."""
    pane = caller_pane or os.environ.get("TMUX_PANE")
    if not pane:
        return None
    info = tmux.panes().get(pane)
    return info.session if info else None


def resolve_target_session(
    tmux: Tmux,
    root: Path,
    context: str | None = None,
    doc_session: str | None = None,
    caller_pane: str | None = None,
) -> str:
    """Context (sync ``--window``) > live config > current > frontmatter > claude.

    "Current" is the session of ``caller_pane`` (the editor's), else of
    ``$TMUX_PANE``.
    """
    if context:
        return context
    configured = configured_session(root)
    if configured and tmux.has_session(configured):
        return configured
    current = current_session(tmux, caller_pane)
    if current:
        return current
    if doc_session and tmux.has_session(doc_session):
        return doc_session
    return configured or DEFAULT_SESSION


def bind_pane(
    reg: Registry,
    doc: DocSession,
    pane: str,
    panes: dict[str, PaneInfo],
    socket: str = "",
) -> SessionEntry:
    """Bind ``doc`` to ``pane`` of the server at ``socket``, metadata from ``panes``."""
    if doc.key is None:
        raise DocumentError(f"{doc.path}: no agent_doc_session in frontmatter")
    info = panes.get(pane)
    entry = SessionEntry(
        pane=pane,
        pid=info.pid if info else os.getpid(),
        cwd=str(doc.root),
        started=utc_now(),
        file=doc.rel,
        window=info.window_id if info else "",
        socket=socket,
    )
    reg.bind(doc.key, entry)
    return entry


def live_pane(
    reg: Registry, key: str | None, panes: dict[str, PaneInfo], socket: str = ""
) -> str | None:
    """The live pane bound to ``key`` among ``panes`` (the server at ``socket``)."""
    entry = reg.entries.get(key) if key else None
    if entry is None or not entry.same_server(socket):
        return None
    info = panes.get(entry.pane)
    return entry.pane if info is not None and not info.dead else None
