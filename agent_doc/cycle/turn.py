"""What every agent turn shares: the prompt sent and the response written back.

``prepare_turn`` reads the document (the live buffer when an editor has it
open), diffs it against the snapshot and builds the prompt; both backends (one
CLI process per turn in :mod:`agent_doc.cycle.run`, ACP in
:mod:`agent_doc.cycle.acp_run`) send exactly this text.

Two prompt forms (issue 30): the *full* prompt (spec §7.1: the diff and the
whole document) on the first turn, without a ``resume`` id, after ``reset``,
with ``prompt = "full"`` in the config and for ACP agents; the *resumed*
prompt, when the caller allows it and the agent resumes its session, carries
the diff and only the excerpts :func:`agent_doc.document.excerpt.resumed_context`
picks (the components the change touches and the exchange's tail).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_doc.document.frontmatter import Frontmatter
    from agent_doc.store.config import GlobalConfig
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
RESUMED_PROMPT = (
    "The user edited the session document since your last response. You "
    "already have the document from earlier turns in this session, so it is "
    "not repeated: the diff shows what changed, and the excerpts show the "
    "parts it touches and the end of the exchange, where your answer lands. "
    "Respond to the changes in markdown. Do not repeat the document and do not "
    "add a '## Assistant' heading."
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
    context: str | None = None,
) -> str:
    """Assemble the prompt of one cycle.

    With ``context`` (the resumed form) the excerpts replace ``<document>``.
    """
    parts = [instructions.rstrip("\n")] if instructions else []
    resumed = context is not None and not first
    parts.append(FIRST_PROMPT if first else RESUMED_PROMPT if resumed else NEXT_PROMPT)
    if template:
        parts.append(TEMPLATE_HINT)
    if not first and diff:
        parts.append(f"<diff>\n{diff.rstrip(chr(10))}\n</diff>")
    if resumed and context is not None:
        parts.append(f"<excerpts>\n{context.rstrip(chr(10))}\n</excerpts>")
    else:
        parts.append(f"<document>\n{document.rstrip(chr(10))}\n</document>")
    return "\n\n".join(parts) + "\n"


def prompt_size(prompt: str) -> tuple[int, int]:
    """``(bytes, estimated tokens)`` of a prompt: UTF-8 bytes, and bytes / 4."""
    size = len(prompt.encode("utf-8", "surrogatepass"))
    return size, (size + 3) // 4


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
    mode: str = "full"
    """``full`` (the whole document) or ``resumed`` (diff and excerpts)."""
    diff: str | None = None
    """The diff since the snapshot."""
    instructions: str | None = None
    """The rendered AGENTS.md section, if any."""

    def full_prompt(self) -> str:
        """The full form of this turn's prompt, to start a new session with."""
        if self.mode == "full" and self.front.resume is None:
            return self.prompt
        return build_prompt(
            self.text,
            self.diff,
            first=True,
            template=self.front.format == "template",
            instructions=self.instructions,
        )


def prepare_turn(
    path: Path,
    link: ServerLink | None,
    *,
    resumable: Callable[[Frontmatter], bool] | None = None,
) -> PreparedTurn | None:
    """Read, diff and build the prompt; ``None`` when nothing changed.

    ``resumable(front)``: true when the document's backend resumes sessions by
    id and ``prompt`` is not ``"full"``; a document with a ``resume`` id and a
    snapshot then gets the resumed prompt. Without it, the full prompt.
    """
    from agent_doc.cycle.preflight import current_text
    from agent_doc.document.diff import compute_diff
    from agent_doc.document.frontmatter import parse_frontmatter
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
    resumed = resumable is not None and resumable(front)
    prompt, mode, instructions = turn_prompt(
        path, root, text, snapshot, diff, front=front, resumed_ok=resumed
    )
    return PreparedTurn(path, root, text, front, prompt, mode, diff, instructions)


def turn_prompt(
    path: Path,
    root: Path,
    text: str,
    snapshot: str | None,
    diff: str | None,
    *,
    front: Frontmatter,
    resumed_ok: bool,
) -> tuple[str, str, str | None]:
    """The prompt of a turn on ``text``: ``(prompt, mode, AGENTS.md section)``.

    ``mode`` is ``resumed`` when ``resumed_ok``, the document has a ``resume``
    id and a snapshot (the agent saw it); else ``full``.
    """
    from agent_doc.cycle.instructions import render_instructions
    from agent_doc.cycle.instructions import resolve_instructions

    found = resolve_instructions(path, root)
    instructions = render_instructions(found) if found else None
    context = None
    if resumed_ok and front.resume is not None and snapshot is not None:
        from agent_doc.document.excerpt import resumed_context

        context = resumed_context(snapshot, text)
    prompt = build_prompt(
        text,
        diff,
        first=front.resume is None,
        template=front.format == "template",
        instructions=instructions,
        context=context,
    )
    return prompt, "resumed" if context is not None else "full", instructions


def backend_resumes(
    front: Frontmatter, cli_agent: str | None, config: GlobalConfig, prompt: str
) -> bool:
    """Whether a turn may use the resumed prompt: ``prompt`` (the config's
    mode) is not ``"full"`` and the backend is a CLI agent (``--resume ID``).

    ACP agents get the full prompt: whether their session loaded is known
    only once the answer streams into the document.
    """
    from agent_doc.cycle.agents import resolve_agent_name

    chosen = config.agents.get(resolve_agent_name(cli_agent, front.agent, config))
    return prompt != "full" and (chosen is None or chosen.transport != "acp")


def nothing_typed(text: str) -> bool:
    """True when a document holds nothing a person wrote: only the scaffold.

    What ``init`` writes is not a question: the frontmatter, the title
    heading, HTML comments (component markers among them) and empty
    ``## User`` / ``## Assistant`` headings. Any other text counts as typed.
    """
    import re

    from agent_doc.document.frontmatter_text import split_frontmatter

    block = split_frontmatter(text)
    body = text[block.body_start :] if block is not None else text
    body = re.sub(r"<!--.*?-->", "", body, flags=re.DOTALL)
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    if lines and re.fullmatch(r"#\s.*", lines[0]):
        lines = lines[1:]  # the title
    scaffold = re.compile(r"#{1,6}\s*(User|Assistant)\s*:?", re.IGNORECASE)
    return all(scaffold.fullmatch(line) for line in lines)


def with_resume(response: str, session_id: str | None, front: Frontmatter) -> str:
    """The response plus a frontmatter patch storing a new ``resume`` id."""
    from agent_doc.document.patch_blocks import frontmatter_patch

    if session_id and session_id != front.resume:
        return response + frontmatter_patch({"resume": session_id})
    return response
