"""What every agent turn shares: the prompt sent and the response written back.

``prepare_turn`` reads the document (the live buffer when an editor has it
open), diffs it against the snapshot and builds the prompt; both backends (one
CLI process per turn in :mod:`agent_doc.cycle.run`, ACP in
:mod:`agent_doc.cycle.acp_run`) send exactly this text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_doc.document.frontmatter import Frontmatter
    from agent_doc.write.server_link import ServerLink

FIRST_PROMPT = (
    "The user is starting a session document. Respond to it in markdown. "
    "Do not repeat the document and do not add a '## Assistant' heading."
)
NEXT_PROMPT = (
    "The user edited the session document since your last response. The diff "
    "shows what changed; the full document follows. Respond to the changes in "
    "markdown. Do not repeat the document and do not add a '## Assistant' heading."
)
TEMPLATE_HINT = (
    "This document uses components. To update one, answer with a patch block "
    "<!-- patch:NAME -->new content<!-- /patch:NAME -->; text outside patch "
    "blocks is added to the exchange after the user's latest text."
)


def build_prompt(
    document: str,
    diff: str | None,
    *,
    first: bool,
    template: bool,
    instructions: str | None = None,
) -> str:
    """Assemble the prompt of one cycle."""
    parts = [instructions.rstrip("\n")] if instructions else []
    parts.append(FIRST_PROMPT if first else NEXT_PROMPT)
    if template:
        parts.append(TEMPLATE_HINT)
    if not first and diff:
        parts.append(f"<diff>\n{diff.rstrip(chr(10))}\n</diff>")
    parts.append(f"<document>\n{document.rstrip(chr(10))}\n</document>")
    return "\n\n".join(parts) + "\n"


@dataclass(frozen=True, slots=True)
class PreparedTurn:
    """The input of one agent turn."""

    path: Path
    """The session document."""
    root: Path
    """Its project folder (the agent's working directory)."""
    text: str
    """The document as sent (the baseline of the answer's write)."""
    front: Frontmatter
    """Its frontmatter (``agent``, ``model``, ``resume``…)."""
    prompt: str
    """The prompt text."""


def prepare_turn(path: Path, link: ServerLink | None) -> PreparedTurn | None:
    """Read, diff and build the prompt; ``None`` when nothing changed."""
    from agent_doc.cycle.instructions import render_instructions
    from agent_doc.cycle.instructions import resolve_instructions
    from agent_doc.cycle.preflight import current_text
    from agent_doc.document.diff import compute_diff
    from agent_doc.document.frontmatter import parse_frontmatter
    from agent_doc.document.scaffold import nothing_typed
    from agent_doc.store.state import StateStore
    from agent_doc.store.state import project_root_for

    path = Path(path)
    root = project_root_for(path)
    text = current_text(path, link)
    front = parse_frontmatter(text)
    snapshot = StateStore(root).load_snapshot(path)
    if snapshot is None and nothing_typed(text):
        return None  # a fresh document: only what ``init`` wrote
    diff = compute_diff(snapshot or "", text)
    if diff is None and snapshot is not None:
        return None
    found = resolve_instructions(path, root)
    prompt = build_prompt(
        text,
        diff,
        first=front.resume is None,
        template=front.format == "template",
        instructions=render_instructions(found) if found else None,
    )
    return PreparedTurn(path, root, text, front, prompt)


def with_resume(response: str, session_id: str | None, front: Frontmatter) -> str:
    """The response plus a frontmatter patch storing a new ``resume`` id."""
    from agent_doc.document.patch_blocks import frontmatter_patch

    if session_id and session_id != front.resume:
        return response + frontmatter_patch({"resume": session_id})
    return response
