"""The prompt of a turn, in its two forms (issue 30).

The *full* prompt (spec §7.1: the diff and the whole document) goes on the
first turn, without a ``resume`` id, after ``reset``, with ``prompt = "full"``
in the config, and to an ACP agent whose session could not be loaded. The
*resumed* prompt, when the caller allows
it and the agent resumes its session, carries the diff and only the excerpts
:func:`agent_doc.document.excerpt.resumed_context` picks (the components the
change touches and the exchange's tail).
"""

from __future__ import annotations

from agent_doc.cycle.instructions import render_instructions
from agent_doc.cycle.instructions import resolve_instructions
from agent_doc.document.excerpt import resumed_context

TYPE_CHECKING = False  # typing's constant, without importing typing
if TYPE_CHECKING:
    from pathlib import Path

    from agent_doc.document.frontmatter import Frontmatter

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

BACKLOG_HINT = (
    "This document tracks work in an agent:backlog list whose items carry ids "
    "([#a3f2]). Never answer with a patch:backlog or patch:icebox block: it is "
    "refused. Change items by id with the shell, after your answer: "
    "agent-doc backlog done|gate|ungate|add|edit {file} ID [TEXT]. Never take "
    "up an item of agent:icebox unless the user asks."
)


def has_item_lists(text: str) -> bool:
    """Whether ``text`` holds a backlog or icebox (the prompt says how to
    change them)."""
    return "<!-- agent:backlog" in text or "<!-- agent:icebox" in text


def build_prompt(
    document: str,
    diff: str | None,
    *,
    first: bool,
    template: bool,
    instructions: str | None = None,
    context: str | None = None,
    items_file: str | None = None,
) -> str:
    """Assemble the prompt of one cycle.

    With ``context`` (the resumed form) the excerpts replace ``<document>``;
    ``items_file`` (the document's path, when it has a backlog) adds how to
    change the backlog.
    """
    parts = [instructions.rstrip("\n")] if instructions else []
    resumed = context is not None and not first
    parts.append(FIRST_PROMPT if first else RESUMED_PROMPT if resumed else NEXT_PROMPT)
    if template:
        parts.append(TEMPLATE_HINT)
    if items_file is not None:
        parts.append(BACKLOG_HINT.format(file=items_file))
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


def utf8_length(text: str) -> int:
    """``len(text.encode())`` without the copy for ASCII text."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def turn_prompt_size(
    path: Path,
    root: Path,
    text: str,
    snapshot: str | None,
    diff: str | None,
    *,
    front: Frontmatter,
    resumed_ok: bool,
) -> tuple[int, str]:
    """``(bytes, mode)`` of :func:`turn_prompt`, without building a full
    prompt around a large document (``preflight`` runs every turn)."""
    resumed = resumed_ok and front.resume is not None and snapshot is not None
    if resumed:
        prompt, mode, _ = turn_prompt(
            path, root, text, snapshot, diff, front=front, resumed_ok=True
        )
        return utf8_length(prompt), mode
    placeholder = "\x00"
    shell, mode, _ = turn_prompt(
        path, root, placeholder, snapshot, diff, front=front, resumed_ok=False,
        items=has_item_lists(text),
    )  # fmt: skip
    newlines = len(text) - len(text.rstrip("\n")) if text.endswith("\n") else 0
    return utf8_length(shell) - 1 + utf8_length(text) - newlines, mode


def turn_prompt(
    path: Path,
    root: Path,
    text: str,
    snapshot: str | None,
    diff: str | None,
    *,
    front: Frontmatter,
    resumed_ok: bool,
    items: bool | None = None,
) -> tuple[str, str, str | None]:
    """The prompt of a turn on ``text``: ``(prompt, mode, AGENTS.md section)``.

    ``mode`` is ``resumed`` when ``resumed_ok``, the document has a ``resume``
    id and a snapshot (the agent saw it); else ``full``. ``items`` says whether
    the document has a backlog (``None``: look in ``text``).
    """
    found = resolve_instructions(path, root)
    instructions = render_instructions(found) if found else None
    context = None
    if resumed_ok and front.resume is not None and snapshot is not None:
        context = resumed_context(snapshot, text)
    prompt = build_prompt(
        text,
        diff,
        first=front.resume is None,
        template=front.format == "template",
        instructions=instructions,
        context=context,
        items_file=str(path)
        if (has_item_lists(text) if items is None else items)
        else None,
    )
    return prompt, "resumed" if context is not None else "full", instructions


def resumed_allowed(prompt: str) -> bool:
    """Whether a turn may use the resumed prompt: the config's ``prompt`` mode
    is not ``"full"``. Every backend resumes: a CLI agent with ``--resume ID``
    (a lost session is sent the full prompt again), an ACP agent whose session
    is still live or loads with ``session/load`` (else the full prompt goes to
    the new session it opens)."""
    return prompt != "full"
