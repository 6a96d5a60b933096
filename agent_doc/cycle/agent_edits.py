"""An agent that edits the session document itself during a ``run`` turn.

A CLI agent's own file tools (claude's Edit and Write, a shell command) change
the document's file on disk. Without an editor that is where the answer is
written too: the disk write merges the answer with the changed file, so the
edit stays. An editor holding the document never sees the file change (its
buffer is the document while it is open, with the person's unsaved typing),
and its next save would overwrite the edit: :func:`bring_agent_edits_to_buffer`
merges the file's change during the turn into the live buffer, keeping what
was typed meanwhile, before the answer is written there. Either way the edit
is not part of the answer's snapshot: it shows in the next turn's diff and is
committed with that turn.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc._runtime.lazy import lazy_logger
from agent_doc.errors import AgentDocError
from agent_doc.store.state import read_document

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from agent_doc.write.server_link import ServerLink

logger = lazy_logger(__name__)


def file_text(path: Path) -> str | None:
    """The document's file as agent-doc reads it, or ``None`` when unreadable."""
    try:
        return read_document(path).text
    except (OSError, UnicodeDecodeError, AgentDocError):
        return None


def bring_agent_edits_to_buffer(
    path: Path, before: str | None, link: ServerLink | None
) -> bool:
    """Merge the file's change since ``before`` into the editor buffer holding
    ``path``, if one does; True when there was such a change to bring."""
    if link is None or before is None:
        return False
    after = file_text(path)
    if after is None or after == before:
        return False
    handle = link.find_owner(path)
    if handle is None:
        return False
    try:
        link.merge(handle, before, after)
    except (AgentDocError, OSError) as exc:  # the answer is still written
        logger.warning(
            "agent-doc: %s changed on disk during the turn and the editor could "
            "not take the change (%s); save it only after a reload",
            path.name,
            exc,
        )
        return False
    return True
