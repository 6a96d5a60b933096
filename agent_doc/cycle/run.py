"""``run``: one full agent cycle on a session document (spec §7.1).

diff → prompt (``<document>``, plus ``<diff>`` after the first cycle, plus the
effective AGENTS.md) → optional ``agent-doc/<stem>`` branch → the agent → the
session id kept as ``resume`` → the response written through the one write path
(so an open editor receives it as a workspace edit) → snapshot → git commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_doc.write.pipeline import WriteOutcome
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


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What one ``run`` did."""

    prompt: str
    """The prompt sent (or, with ``--dry-run``, that would be sent)."""
    agent: str | None = None
    """The backend used."""
    session_id: str | None = None
    """The agent's conversation id stored as ``resume``."""
    write: WriteOutcome | None = None
    """The write of the response (None for a dry run or no changes)."""
    committed: bool = False
    """True when the cycle was committed to git."""
    branch: str | None = None
    """The ``agent-doc/<stem>`` branch switched to with ``-b``."""
    no_changes: bool = False
    """True when nothing changed since the last response (nothing sent)."""


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


def run_cycle(
    path: Path,
    *,
    agent: str | None = None,
    model: str | None = None,
    branch: bool = False,
    dry_run: bool = False,
    no_git: bool = False,
    link: ServerLink | None = None,
    timeout: float | None = None,
) -> RunOutcome:
    """Run one agent cycle on ``path`` and return what happened."""
    from agent_doc.cycle import agents
    from agent_doc.cycle.commit import commit_and_refresh
    from agent_doc.cycle.instructions import render_instructions
    from agent_doc.cycle.instructions import resolve_instructions
    from agent_doc.cycle.preflight import current_text
    from agent_doc.cycle.vcs import create_branch
    from agent_doc.cycle.vcs import open_repo
    from agent_doc.document.diff import compute_diff
    from agent_doc.document.frontmatter import parse_frontmatter
    from agent_doc.document.patch_blocks import frontmatter_patch
    from agent_doc.store.config import load_global_config
    from agent_doc.store.config import resolve_claude_args
    from agent_doc.store.state import StateStore
    from agent_doc.store.state import project_root_for
    from agent_doc.write.pipeline import WriteRequest
    from agent_doc.write.pipeline import write_response

    path = Path(path)
    root = project_root_for(path)
    text = current_text(path, link)
    front = parse_frontmatter(text)
    snapshot = StateStore(root).load_snapshot(path)
    diff = compute_diff(snapshot or "", text)
    if diff is None and snapshot is not None:
        return RunOutcome(prompt="", no_changes=True)
    found = resolve_instructions(path, root)
    prompt = build_prompt(
        text,
        diff,
        first=front.resume is None,
        template=front.format == "template",
        instructions=render_instructions(found) if found else None,
    )
    if dry_run:
        return RunOutcome(prompt=prompt)
    config = load_global_config()
    name = agents.resolve_agent_name(agent, front.agent, config)
    invocation = agents.build_invocation(
        name,
        config,
        resume=front.resume,
        model=model or front.model,
        claude_args=resolve_claude_args(front.claude_args, config),
    )
    agents.require_installed(invocation, config)  # before any branch or status
    branch_name = create_branch(open_repo(path), path) if branch else None
    reply = agents.send(
        invocation, prompt, cwd=root, timeout=timeout or agents.DEFAULT_TIMEOUT_S
    )
    response = reply.text
    if reply.session_id and reply.session_id != front.resume:
        response += frontmatter_patch({"resume": reply.session_id})
    request = WriteRequest(path, response, baseline=text, origin="run")
    outcome = write_response(request, link)
    committed = False
    if not no_git:
        committed, _ = commit_and_refresh(path, link)
    return RunOutcome(
        prompt=prompt,
        agent=name,
        session_id=reply.session_id,
        write=outcome,
        committed=committed,
        branch=branch_name,
    )
