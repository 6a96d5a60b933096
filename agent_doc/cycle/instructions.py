"""AGENTS.md instructions: the nearest active file, injected into the prompt.

Resolution follows the instruction-layer note: start in the document's folder
and walk up to the project root; the first ``AGENTS.md`` with non-blank content
wins (an empty or whitespace-only file is a draft and does not block
inheritance). The content is wrapped with a precedence notice and cut to a
16,000-character budget, marking the truncation.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc._runtime.record import Record

FILE_NAME = "AGENTS.md"
BUDGET_CHARS = 16_000
PREAMBLE = (
    "These instructions come from the effective AGENTS.md for this document's "
    "folder. System, developer, and explicit user messages take precedence."
)
TRUNCATION_MARK = "\n[... AGENTS.md truncated to fit the instruction budget ...]\n"


class Instructions(Record):
    """The effective AGENTS.md for a document (a record: preflight, a per-turn
    command, builds one without importing ``dataclasses``)."""

    __slots__ = ("path", "content", "inherited", "drafts_skipped")

    def __init__(
        self,
        path: Path,
        content: str,
        inherited: bool,
        drafts_skipped: tuple[Path, ...],
    ) -> None:
        self.path = path
        """The file that applies."""
        self.content = content
        """Its content (normalised line endings, untruncated)."""
        self.inherited = inherited
        """True when it lives in an ancestor of the document's folder."""
        self.drafts_skipped = drafts_skipped
        """Empty AGENTS.md files passed over on the way up."""


def resolve_instructions(document: Path, root: Path) -> Instructions | None:
    """Find the nearest active AGENTS.md from the document's folder up to ``root``."""
    folder = document.resolve().parent
    root = root.resolve()
    drafts: list[Path] = []
    while True:
        candidate = folder / FILE_NAME
        if candidate.is_file():
            try:
                text = candidate.read_text("utf-8", errors="replace")
            except OSError:
                text = ""
            text = text.replace("\r\n", "\n").lstrip("\ufeff")
            if text.strip():
                return Instructions(
                    path=candidate,
                    content=text,
                    inherited=folder != document.resolve().parent,
                    drafts_skipped=tuple(drafts),
                )
            drafts.append(candidate)
        if folder == root or folder.parent == folder or root not in folder.parents:
            return None
        folder = folder.parent


def render_instructions(instructions: Instructions, budget: int = BUDGET_CHARS) -> str:
    """Return the prompt section for ``instructions`` within ``budget`` characters."""
    head = f"{PREAMBLE}\n<AGENTS_MD>\n"
    tail = "\n</AGENTS_MD>\n"
    room = budget - len(head) - len(tail)
    body = instructions.content.strip("\n")
    if len(body) > room:
        body = body[: max(0, room - len(TRUNCATION_MARK))].rstrip() + TRUNCATION_MARK
    return head + body + tail
