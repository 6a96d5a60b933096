"""Command ids and argument types of ``workspace/executeCommand``.

Every command takes **one** object argument holding ``uri`` plus named fields,
structured by pygls into the ``<Verb>Args`` attrs class below (they are imported
at runtime because pygls resolves handler annotations when a command is called).
The session-routing commands (``agentDoc.route``, ``sync``, ``claim``, ``focus``,
``layout``, ``resync``) are defined in :mod:`agent_doc_lsp.features.tmux_commands`.
"""

from __future__ import annotations

import attrs

WRITE = "agentDoc.write"
PATCH = "agentDoc.patch"
DIFF = "agentDoc.diff"
RESET = "agentDoc.reset"
OUTLINE = "agentDoc.outline"
PREFLIGHT = "agentDoc.preflight"
COMMIT = "agentDoc.commit"

ALL = (WRITE, PATCH, DIFF, RESET, OUTLINE, PREFLIGHT, COMMIT)
"""The commands registered by :mod:`agent_doc_lsp.features.commands`."""

BACKLOG = "agentDoc.backlog"
"""One backlog operation by id (:mod:`agent_doc_lsp.features.backlog`)."""

UNDO = "agentDoc.undo"
REDO = "agentDoc.redo"
SHARE = (UNDO, REDO)
"""The person's own undo in a shared document (:mod:`.features.share_undo`)."""


@attrs.define
class WriteArgs:
    """``agentDoc.write``: merge an agent response into the open document."""

    uri: str
    """The session document."""
    response: str
    """The agent's response (patch blocks or text)."""
    baseline: str | None = None
    """Text the response was generated from (default: the live buffer)."""
    origin: str | None = None
    """Who writes (logged to ``.agent-doc/logs/ops.log``)."""


@attrs.define
class PatchArgs:
    """``agentDoc.patch``: replace/append/prepend one component."""

    uri: str
    """The document."""
    component: str
    """Component name (``<!-- agent:NAME -->``)."""
    content: str
    """The new content (mode decided by the component's config)."""


@attrs.define
class BacklogArgs:
    """``agentDoc.backlog``: one operation on the backlog (or icebox)."""

    uri: str
    """The document."""
    op: str
    """``add``, ``done``, ``gate``, ``ungate``, ``edit``, ``reorder`` or ``clear``."""
    id: str | None = None
    """The item (``add``: a custom id, optional)."""
    text: str | None = None
    """``add``, ``edit``: the item's text."""
    ids: list[str] = attrs.field(factory=list)
    """``reorder``: the ids to put first, in order."""
    all: bool = False
    """``clear``: every item, not only the done ones."""
    component: str = "backlog"
    """``backlog`` or ``icebox``."""
    by_agent: bool = False
    """The agent's change (the snapshot follows); the person's by default."""


@attrs.define
class DocumentArgs:
    """``agentDoc.diff`` / ``reset`` / ``outline`` / ``commit`` / ``undo`` /
    ``redo``: just a document."""

    uri: str
    """The document."""


@attrs.define
class PreflightArgs:
    """``agentDoc.preflight``: the pre-agent steps (spec §7.26)."""

    uri: str
    """The session document."""
    settle: bool = False
    """Wait until the user stopped typing (the CLI's default; off here because
    the user invoked the command)."""


DiffArgs = ResetArgs = OutlineArgs = CommitArgs = DocumentArgs
