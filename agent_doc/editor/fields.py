"""What each frontmatter field means and which values it takes (spec §2.1).

Used for completion and hover; validation itself lives in
:mod:`agent_doc.document.frontmatter`.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_doc.document.component_config import MODES


@dataclass(frozen=True, slots=True)
class FieldDoc:
    """Documentation of one frontmatter key."""

    key: str
    summary: str
    values: tuple[str, ...] = ()
    """The allowed values when the field is a choice."""
    replacement: str | None = None
    """For deprecated keys: the key to use instead (``""``: just remove it)."""


FIELDS: tuple[FieldDoc, ...] = (
    FieldDoc(
        "agent_doc_session",
        "Document/routing UUID: binds the document to its agent session and tmux pane.",
    ),
    FieldDoc(
        "agent_doc_format",
        "Document format: `template` (named components, "
        "default) or `inline` (alternating `## User` / `## Assistant`).",
        ("template", "inline"),
    ),
    FieldDoc(
        "agent_doc_write",
        "Write strategy: `crdt` (default, merges the "
        "answer with concurrent edits) or `merge`.",
        ("crdt", "merge"),
    ),
    FieldDoc(
        "agent", "Agent backend name (overrides the configured default).", ("claude",)
    ),
    FieldDoc("model", "Model override passed to the agent backend."),
    FieldDoc("branch", "Reserved for branch tracking."),
    FieldDoc(
        "claude_args",
        "Extra command-line arguments for the claude process (space-separated).",
    ),
    FieldDoc("resume", "Agent conversation id to resume."),
    FieldDoc(
        "links",
        "Linked documents or URLs whose content is sent with the diff (a list).",
    ),
    FieldDoc(
        "agent_doc_debounce_ms",
        "Quiet time (ms) after the last edit before a submit is sent.",
    ),
    FieldDoc(
        "agent_doc_typing_indicator_ms",
        "How long (ms) after a keystroke the user counts as typing.",
    ),
    FieldDoc(
        "agent_doc_status_timeout_ms",
        "After this many ms without news an agent status counts as stale.",
    ),
)

DEPRECATED: tuple[FieldDoc, ...] = (
    FieldDoc(
        "agent_doc_mode",
        "Deprecated single field: `append` → inline, "
        "`template` → template, `stream` → template + crdt.",
        ("append", "template", "stream"),
        "agent_doc_format",
    ),
    FieldDoc(
        "mode",
        "Deprecated alias of `agent_doc_mode`.",
        ("append", "template", "stream"),
        "agent_doc_format",
    ),
    FieldDoc(
        "response_mode",
        "Deprecated alias of `agent_doc_mode`.",
        ("append", "template", "stream"),
        "agent_doc_format",
    ),
    FieldDoc(
        "session", "Deprecated alias of `agent_doc_session`.", (), "agent_doc_session"
    ),
    FieldDoc(
        "tmux_session",
        "Deprecated: the tmux session now comes from the "
        "project config (`.agent-doc/config.toml`).",
        (),
        "",
    ),
    FieldDoc("related_docs", "Deprecated alias of `links`.", (), "links"),
)

BY_KEY: dict[str, FieldDoc] = {f.key: f for f in (*FIELDS, *DEPRECATED)}

COMPONENT_DOCS: dict[str, str] = {
    "exchange": "Conversation history — each cycle appends.",
    "findings": "Accumulated research data — grows over time.",
    "status": "Current state — updated at milestones.",
    "pending": "Task queue — auto-cleaned each cycle.",
    "output": "Latest agent response only.",
    "input": "User prompt area.",
}
"""The standard component names (§2.3) and what each is for."""

ATTRIBUTES: dict[str, tuple[str, tuple[str, ...]]] = {
    "patch": ("How agent patches combine with the content.", MODES),
    "max_lines": ("Keep only the last N lines after patching (0 = unlimited).", ()),
    "mode": ("Backward-compatible alias of `patch=`.", MODES),
}
"""Inline attributes of an open marker: summary and allowed values."""
