"""Per-turn lenses: "Diff this turn" and "Revert this turn" above each agent answer.

Answers are found by :func:`agent_doc.editor.turns.answers` and named by their
heading and occurrence (``{uri, heading, occurrence}`` is the argument of both
commands), so a lens stays valid while the person types elsewhere.

* ``agentDoc.turnDiff`` finds the commit that wrote the answer
  (:func:`agent_doc.editor.turn_history.turn_commit`, from the commits
  ``agent-doc commit`` makes), returns ``{sha, when, message, diff, file}`` and,
  when the client supports ``window/showDocument``, opens ``file`` — the diff
  written to a private temporary folder — in the editor.
* ``agentDoc.revertTurn`` removes the answer from the live buffer as one
  verified workspace edit (text typed since stays) and from the snapshot, so the
  next diff does not report the removal as the person's change.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import attrs
from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcException
from pygls.exceptions import JsonRpcInvalidParams

from agent_doc.editor import is_session_document
from agent_doc.editor.turns import answer_at
from agent_doc.editor.turns import answers
from agent_doc.editor.turns import revert_answer
from agent_doc.errors import AgentDocError
from agent_doc.store.atomic import atomic_write_text
from agent_doc.write.live import LivePlan
from agent_doc.write.live import minimal_changes
from agent_doc_lsp.features import agent_status
from agent_doc_lsp.features import writes
from agent_doc_lsp.features.commands import AGENT_DOC_ERROR
from agent_doc_lsp.features.commands import path_of
from agent_doc_lsp.features.commands import run_core
from agent_doc_lsp.live_edit import apply_live
from agent_doc_lsp.server import AgentDocLanguageServer
from agent_doc_lsp.socket import socket_dir

logger = logging.getLogger(__name__)

TURN_DIFF = "agentDoc.turnDiff"
REVERT_TURN = "agentDoc.revertTurn"


@attrs.define
class TurnArgs:
    """``agentDoc.turnDiff`` / ``agentDoc.revertTurn``: one answer of a document."""

    uri: str
    """The session document."""
    heading: str | None = None
    """The answer's heading line (without ``(HEAD)``), as the lenses send it."""
    occurrence: int = 0
    """Which answer of that heading (0-based)."""
    line: int | None = None
    """Instead of ``heading``: a 0-based line inside the answer (the cursor)."""


def resolve(ls: AgentDocLanguageServer, args: TurnArgs) -> tuple[str, int]:
    """``(heading, occurrence)`` of the answer ``args`` names."""
    if args.heading is not None:
        return args.heading, args.occurrence
    if args.line is None:
        raise JsonRpcInvalidParams("give heading (and occurrence) or line")
    _doc, index = ls.document(args.uri)
    offset = index.offset(types.Position(line=max(args.line, 0), character=0))
    answer = answer_at(index.text, offset)
    if answer is None:
        raise JsonRpcException(
            message=f"line {args.line + 1} is not inside an agent answer",
            code=AGENT_DOC_ERROR,
        )
    return answer.heading, answer.occurrence


def turn_lenses(
    ls: AgentDocLanguageServer, params: types.CodeLensParams
) -> list[types.CodeLens]:
    """Two lenses on the heading line of every answer of a session document."""
    doc, index = ls.document(params.text_document.uri)
    if not ls.options.code_lens or not is_session_document(index.text):
        return []
    lenses: list[types.CodeLens] = []
    for answer in answers(index.text):
        where = index.range(answer.start, answer.start)
        arguments = [
            {"uri": doc.uri, "heading": answer.heading, "occurrence": answer.occurrence}
        ]
        for title, command in (
            ("Diff this turn", TURN_DIFF),
            ("Revert this turn", REVERT_TURN),
        ):
            lenses.append(
                types.CodeLens(
                    range=where,
                    command=types.Command(
                        title=title, command=command, arguments=list(arguments)
                    ),
                )
            )
    return lenses


def _diff_file(path: Path, sha: str, diff: str) -> Path:
    """Write a turn's diff into the private runtime folder; return its path."""
    folder = socket_dir() / "turns"
    folder.mkdir(mode=0o700, exist_ok=True)
    target = folder / f"{path.stem}-{sha[:12]}.diff"
    atomic_write_text(target, diff)
    return target


def turn_diff(path: Path, heading: str, occurrence: int) -> dict[str, Any]:
    """The diff of the commit that wrote the answer, also written to a file."""
    from agent_doc.editor.turn_history import turn_commit

    found = turn_commit(path, heading, occurrence)
    file = _diff_file(path, found.sha, found.diff)
    return {
        "sha": found.sha,
        "when": found.when,
        "message": found.message,
        "diff": found.diff,
        "file": str(file),
    }


def _save_snapshot(path: Path, text: str | None) -> bool:
    from agent_doc.store.state import StateStore

    if text is None:
        return False
    StateStore.for_document(path).save_snapshot(path, text)
    return True


async def revert_turn(ls: AgentDocLanguageServer, args: TurnArgs) -> dict[str, Any]:
    """Remove the answer from the live buffer, then from the snapshot."""
    from agent_doc.editor.turn_history import answer_as_written
    from agent_doc.store.state import StateStore

    heading, occurrence = resolve(ls, args)
    path = path_of(args.uri)
    store = StateStore.for_document(path)
    snapshot = await asyncio.to_thread(store.load_snapshot, path)
    written = await asyncio.to_thread(answer_as_written, path, heading, occurrence)
    kept: list[str | None] = [None]

    def plan(text: str) -> LivePlan:
        new_text, kept[0] = revert_answer(text, snapshot, heading, occurrence, written)
        return LivePlan(text, new_text, new_text, minimal_changes(text, new_text))

    try:
        await apply_live(
            ls, writes.state_of(ls).tracker, args.uri, plan, label="revert turn"
        )
    except (LookupError, AgentDocError) as exc:
        raise JsonRpcException(message=str(exc), code=AGENT_DOC_ERROR) from exc
    updated = await asyncio.to_thread(_save_snapshot, path, kept[0])
    return {"heading": heading, "snapshot": updated}


async def show(ls: AgentDocLanguageServer, file: str) -> None:
    """Open ``file`` in the editor if it supports ``window/showDocument``."""
    caps = ls.client_capabilities
    if get_capability(caps, "window.show_document.support", False):
        await ls.window_show_document_async(
            types.ShowDocumentParams(uri=Path(file).as_uri(), take_focus=True)
        )


def register(server: AgentDocLanguageServer) -> None:
    """Register the turn lenses and their two commands."""
    agent_status.add_lens_provider(server, turn_lenses)

    @server.command(TURN_DIFF)
    async def turn_diff_(ls: AgentDocLanguageServer, args: TurnArgs) -> Any:
        heading, occurrence = resolve(ls, args)
        path = path_of(args.uri)
        result = await run_core(ls, lambda _: turn_diff(path, heading, occurrence))
        await show(ls, result["file"])
        return result

    @server.command(REVERT_TURN)
    async def revert_turn_(ls: AgentDocLanguageServer, args: TurnArgs) -> Any:
        return await revert_turn(ls, args)
