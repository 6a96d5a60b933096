"""An agent's own write of a document (ACP ``fs/write_text_file``): the answers' seam.

An ACP agent may rewrite a file it read — the session document too — while the
person keeps typing in it. Such a write takes the way an answer takes:

- **an editor has the file open** (the language server itself, or the one the
  CLI finds through :class:`~agent_doc.write.server_link.ServerLink`): the
  live buffer gets one minimal, version-checked edit, 3-way merged with what
  the person typed since the agent read the text (the host applies it with
  :func:`agent_doc.write.live.plan_merge` as an answer's edit is);
- **otherwise the session document** is written by :func:`merge_into_file`:
  under the document lock, re-read, merged the same way, written atomically
  with its line endings, BOM and mode kept.

The base of the merge is what the agent last saw of the file
(:class:`AgentView`): the text ``fs/read_text_file`` handed it or its own last
write, else the document the turn's prompt was built from. The agent is handed
a document in the core's form (``\\n`` line endings, no BOM); the file and the
buffer keep their own. The host tells the agent its write succeeded only once
it landed: every failure here raises, and the host turns it into an error
result.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agent_doc.document.merge import merge_texts
from agent_doc.store.state import doc_lock
from agent_doc.store.state import read_document
from agent_doc.store.state import write_document
from agent_doc.write.live import LivePlan
from agent_doc.write.live import plan_merge
from agent_doc.write.outcome import normalize_text

__all__ = [
    "AGENT_WRITE_LABEL",
    "AgentView",
    "buffer_planner",
    "merge_into_file",
    "merged_text",
    "read_for_agent",
]

AGENT_WRITE_LABEL = "agent file write"
"""Label of the editor edit an agent's ``fs/write_text_file`` becomes."""


class AgentView:
    """What the agent of one turn has seen of each file: the base of its writes."""

    def __init__(self, document: Path | None = None, prompt_text: str | None = None):
        self._seen: dict[Path, str] = {}
        if document is not None and prompt_text is not None:
            self._seen[Path(document).resolve()] = normalize_text(prompt_text)

    def saw(self, path: Path, text: str) -> str:
        """Record that the agent was handed ``text`` of ``path``; return it."""
        self._seen[Path(path).resolve()] = text
        return text

    def base(self, path: Path) -> str | None:
        """The text of ``path`` the agent last saw (``None``: never)."""
        return self._seen.get(Path(path).resolve())


def read_for_agent(path: Path) -> str:
    """The document at ``path`` as the agent gets it (``\\n``, no BOM)."""
    return read_document(Path(path)).text


def merged_text(base: str | None, ours: str, theirs: str) -> str:
    """``theirs`` (the text now) with the change ``base`` → ``ours`` merged in.

    Without a base (the agent never saw the text) the agent's text stands.
    """
    if base is None or theirs == base:
        return ours
    if ours == base:
        return theirs
    return merge_texts(base, ours, theirs).text


def merge_into_file(path: Path, base: str | None, content: str) -> str:
    """Write the agent's ``content`` of ``path`` merged with the file; return
    the text the file holds now (``\\n`` form).

    Under the document lock the file is read again, the agent's change (from
    ``base``, what it saw) is merged with whatever the file gained since, and
    the result is written atomically with the file's line endings, BOM and
    mode. Raises :class:`~agent_doc.errors.AgentDocError` (nothing written)
    when the file cannot be read or written, or the lock is held too long.
    """
    path = Path(path)
    ours = normalize_text(content)
    with doc_lock(path):
        current = read_document(path)
        base_text = None if base is None else normalize_text(base)
        final = merged_text(base_text, ours, current.text)
        if final != current.text:
            write_document(path, current, final)
    return final


def buffer_planner(base: str | None, content: str) -> Callable[[str], LivePlan]:
    """How to plan the agent's write into a live buffer, attempt after attempt.

    Each attempt merges the change ``base`` → ``content`` into the newest
    buffer text (:func:`~agent_doc.write.live.plan_merge`: minimal edits, the
    buffer's line endings kept). Without a base the buffer text of the first
    attempt stands in for it (the agent's text replaces it, and what is typed
    during a retry is still merged).
    """
    seen: list[str] = [] if base is None else [normalize_text(base)]

    def plan_for(live_text: str) -> LivePlan:
        if not seen:
            seen.append(normalize_text(live_text))
        return plan_merge(seen[0], content, live_text)

    return plan_for
