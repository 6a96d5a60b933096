"""The exception tree of agent-doc.

Every error the core raises on purpose derives from :class:`AgentDocError`, so the
CLI and the language server catch exactly one type and turn it into one clear line
(CLI: stderr + non-zero exit; server: an LSP error, diagnostic or message)::

    AgentDocError
    ├── DocumentError          the document cannot be read or has an invalid shape
    │   ├── FrontmatterError   invalid YAML frontmatter or field value
    │   ├── ComponentError     unclosed / unmatched / mismatched / invalid component
    │   └── ComponentNotFound  a named component does not exist in the document
    ├── PatchError             an agent response or patch cannot be applied
    ├── StateError             ``.agent-doc/`` state is missing or corrupt
    ├── ConfigError            a config file (TOML) is invalid
    ├── MergeError             the CRDT merge failed
    ├── ServerLinkError        talking to a running language server failed
    │   └── ServerTimeout      a server has the document but could not apply in time
    ├── VcsError               a git operation failed
    ├── TmuxError              a tmux operation failed (or tmux is missing)
    ├── AgentError             the agent backend failed (missing, error, hang)
    │   └── TurnCancelled      a signal cancelled the turn (``cycle.cancel``)
    ├── TurnRunning            another process already runs a turn on the document
    ├── LinkError              fetching a linked document failed
    └── ShareError             a shared room (``agent-doc serve``) refused or failed
"""

from __future__ import annotations

EX_TEMPFAIL = 75
"""Exit code when a server has the document open but could not apply a write."""


class AgentDocError(Exception):
    """Base class of every error agent-doc raises deliberately.

    ``exit_code`` is what the CLI exits with when the error reaches it.
    """

    exit_code: int = 1


class DocumentError(AgentDocError):
    """The document cannot be read, is not UTF-8, or has an invalid structure."""


class FrontmatterError(DocumentError):
    """The YAML frontmatter is invalid or holds an invalid field value."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message if line is None else f"line {line}: {message}")
        self.line = line
        """1-based line of the problem in the document, when known."""


class ComponentError(DocumentError):
    """A component marker is unclosed, unmatched, mismatched or badly named."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message if line is None else f"line {line}: {message}")
        self.line = line
        """1-based line of the offending marker, when known."""


class ComponentNotFound(DocumentError):
    """A component named by the user or a patch does not exist in the document."""


class PatchError(AgentDocError):
    """An agent response or a patch cannot be applied (empty, invalid name...)."""


class StateError(AgentDocError):
    """State under ``.agent-doc/`` is missing, unreadable or corrupt."""


class ConfigError(AgentDocError):
    """A configuration file is invalid (the message names the file and line)."""


class MergeError(AgentDocError):
    """The CRDT merge of the agent's and the user's versions failed."""


class ServerLinkError(AgentDocError):
    """Handing work to a running language server failed."""


class ServerTimeout(ServerLinkError):
    """A server has the document open but could not apply the edit in time."""

    exit_code = EX_TEMPFAIL


class VcsError(AgentDocError):
    """A git operation failed (not a repository, detached HEAD, merge...)."""


class TmuxError(AgentDocError):
    """A tmux operation failed, tmux is missing, or we are not inside tmux."""


class AgentError(AgentDocError):
    """The agent backend is missing, failed, returned bad JSON or hung."""


class LinkError(AgentDocError):
    """A linked document (file or URL) could not be fetched."""


class TurnRunning(AgentDocError):
    """Another process (``run``, ``watch``, the server) runs a turn on the document.

    Raised before any agent is called, so the refused turn costs nothing.
    """


class ShareError(AgentDocError):
    """A sync server (``agent-doc serve``) or one of its rooms failed or refused.

    Raised for a missing or refused token, an unreachable or unknown room, a
    room that did not sync or acknowledge a write in time, and a server that
    cannot start (a non-loopback address without a token, a port in use).
    """
