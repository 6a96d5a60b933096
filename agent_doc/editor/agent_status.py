"""Agent state of the documents open in an editor (what the language server shows).

The language server polls this module for its open session documents: each
document is resolved to its registered pane, the pane's agent state is inferred
with :func:`agent_doc.tmux.agent_state.agent_states` (observations kept in memory by
the caller) and, when the agent waits on a permission prompt, the prompt is
parsed from the same pane. The result is an :class:`EditorStatus` per document
with the wire payload of the ``agentDoc/status`` notification and the title of
the status code lens, so the server itself only converts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.errors import AgentDocError
from agent_doc.store.state import project_root_for
from agent_doc.tmux import registry
from agent_doc.tmux.adapter import Tmux
from agent_doc.tmux.agent_state import EXITED
from agent_doc.tmux.agent_state import NEEDS_INPUT
from agent_doc.tmux.agent_state import RUNNING
from agent_doc.tmux.agent_state import STALE
from agent_doc.tmux.agent_state import STARTING
from agent_doc.tmux.agent_state import UNKNOWN
from agent_doc.tmux.agent_state import AgentStateConfig
from agent_doc.tmux.agent_state import Observation
from agent_doc.tmux.agent_state import agent_states
from agent_doc.tmux.prompts import PromptInfo
from agent_doc.tmux.prompts import parse_prompt

NONE = "none"
"""State of a session document without a registered pane."""

STATES = (STARTING, RUNNING, NEEDS_INPUT, STALE, EXITED, UNKNOWN, NONE)
"""Every state an :class:`EditorStatus` can have."""

_ICONS = {
    STARTING: "◌",
    RUNNING: "●",
    NEEDS_INPUT: "◐",
    STALE: "◔",
    EXITED: "■",
    UNKNOWN: "?",
    NONE: "○",
}
_LABELS = {
    STARTING: "starting",
    RUNNING: "running",
    NEEDS_INPUT: "needs input",
    STALE: "stale",
    EXITED: "exited",
    UNKNOWN: "unknown",
}

Stores = dict[Path, dict[str, Observation]]
"""Project root → session id → last observation (kept by the caller)."""


@dataclass(frozen=True, slots=True)
class OpenDoc:
    """A session document open in the editor (from its live text)."""

    path: Path
    """Absolute path of the document."""
    key: str
    """Its ``agent_doc_session`` (the registry key)."""
    agent: str | None = None
    """The frontmatter ``agent``, if set."""


@dataclass(frozen=True, slots=True)
class EditorStatus:
    """What the editor shows about one document's agent."""

    state: str
    """One of :data:`STATES`."""
    pane: str | None
    """The registered tmux pane (``None`` when there is none)."""
    agent: str
    """A short agent name (frontmatter ``agent``, else the pane's command)."""
    detail: str = ""
    """A stable one-line explanation (no timers: it must not change every poll)."""
    exit_code: int | None = None
    """Exit status of a dead pane, when tmux kept it."""
    prompt: PromptInfo | None = None
    """The permission prompt shown in the pane, if any."""

    def payload(self) -> dict[str, Any]:
        """The ``agentDoc/status`` fields (the caller adds ``uri``)."""
        return {
            "state": self.state,
            "pane": self.pane,
            "agent": self.agent,
            "detail": self.detail,
            "exitCode": self.exit_code,
        }

    def lens_title(self) -> str:
        """Title of the status lens, e.g. ``● claude — running in %4``."""
        if self.state == NONE:
            return f"{_ICONS[NONE]} no agent pane — {self.detail}"
        icon = _ICONS.get(self.state, "●")
        if self.state == EXITED and self.exit_code is not None:
            icon = "✓" if self.exit_code == 0 else "✗"
        title = f"{icon} {self.agent} — {_LABELS.get(self.state, self.state)}"
        title += f" in {self.pane}" if self.pane else ""
        return f"{title} ({self.detail})" if self.detail else title

    def prompt_key(self) -> tuple[str, ...] | None:
        """Identity of the shown permission prompt (``None`` when there is none)."""
        if self.prompt is None or not self.prompt.active:
            return None
        labels = tuple(o.label for o in self.prompt.options)
        return (self.pane or "", self.prompt.question, *labels)


def open_doc(path: Path | str, text: str) -> OpenDoc | None:
    """The :class:`OpenDoc` of a buffer, or ``None`` when it has no session id."""
    try:
        front = parse_frontmatter(text)
    except AgentDocError:
        return None
    if not front.session:
        return None
    return OpenDoc(Path(path).absolute(), front.session, front.agent or None)


def _detail(
    state: str, exit_code: int | None, prompt: PromptInfo | None, server: str = ""
) -> str:
    if state == UNKNOWN:
        return f"tmux server {server} is not reachable"
    if prompt is not None and prompt.active:
        return f"permission: {prompt.question}" if prompt.question else "permission"
    if state == EXITED:
        return f"exit code {exit_code}" if exit_code is not None else "pane gone"
    if state == STALE:
        return "waiting for you"
    return ""


def _prompt(tmux: Tmux, pane: str) -> PromptInfo | None:
    try:
        return parse_prompt(tmux.capture(pane))
    except AgentDocError:  # the pane went away since it was observed
        return None


def poll(
    docs: Iterable[OpenDoc],
    stores: Stores,
    *,
    tmux: Tmux | None = None,
    config: AgentStateConfig | None = None,
    now: float | None = None,
) -> dict[Path, EditorStatus]:
    """Observe the panes of ``docs`` once; return each document's status.

    Only the panes registered for ``docs`` are captured (one ``capture-pane``
    each, a second one when a permission prompt shows).
    """
    tmux = tmux or Tmux.from_env()
    by_root: dict[Path, list[OpenDoc]] = {}
    for doc in docs:
        by_root.setdefault(project_root_for(doc.path), []).append(doc)
    result: dict[Path, EditorStatus] = {}
    for root, group in by_root.items():
        registered = registry.load(root).entries
        wanted = {d.key for d in group if d.key in registered}
        states = (
            agent_states(root, tmux=tmux, config=config,
                         store=stores.setdefault(root, {}), now=now, keys=wanted)
            if wanted else []
        )  # fmt: skip
        by_key = {s.session_id: s for s in states}
        for doc in group:
            status = by_key.get(doc.key)
            if status is None:
                result[doc.path] = EditorStatus(
                    NONE, None, doc.agent or "agent", "run agentDoc.claim"
                )
                continue
            prompt = _prompt(tmux, status.pane) if status.waiting_permission else None
            result[doc.path] = EditorStatus(
                state=status.state,
                pane=status.pane,
                agent=doc.agent or status.agent or status.command or "agent",
                detail=_detail(status.state, status.exit_code, prompt, status.server),
                exit_code=status.exit_code,
                prompt=prompt if prompt is not None and prompt.active else None,
            )
    return result
