"""The controls of an ACP turn answering in the editor: stop it, answer its questions.

The turns running on this server (:func:`state_of`), the ``Stop agent`` lens
shown while one answers (``agentDoc.stopAgent``: ``session/cancel``, what
streamed stays, marked interrupted), and the ``Answer:`` lenses of a
permission question for clients without ``window/showMessageRequest``
actions (``agentDoc.answerAgent``). The commands are registered by
:mod:`agent_doc_lsp.features.acp_run`.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from lsprotocol import types

from agent_doc.cycle.acp_client import AcpTurn
from agent_doc.errors import AgentError
from agent_doc_lsp.features.acp_host import EditorHost
from agent_doc_lsp.server import AgentDocLanguageServer

STOP_AGENT = "agentDoc.stopAgent"
ANSWER_AGENT = "agentDoc.answerAgent"


@dataclass
class Running:
    """One turn in progress."""

    turn: AcpTurn
    host: EditorHost


@dataclass
class AcpState:
    """Per-server state of this feature."""

    running: dict[str, Running] = field(default_factory=dict)
    """URI → the turn answering it."""


_STATE: weakref.WeakKeyDictionary[AgentDocLanguageServer, AcpState] = (
    weakref.WeakKeyDictionary()
)


def state_of(ls: AgentDocLanguageServer) -> AcpState:
    """Return this feature's state for ``ls``."""
    return _STATE.setdefault(ls, AcpState())


async def stop_agent(ls: AgentDocLanguageServer, uri: str) -> dict[str, Any]:
    """Cancel the turn answering ``uri`` (``session/cancel``)."""
    running = state_of(ls).running.get(uri)
    if running is None:
        raise AgentError("no agent is answering this document")
    running.host.cancelled.set()
    await running.turn.cancel()
    return {"stopping": True}


def buffer_changed(ls: AgentDocLanguageServer, uri: str) -> None:
    """Tell the turns answering in ``uri`` that the person typed there."""
    for running in state_of(ls).running.values():
        if running.host.uri == uri:
            running.host.buffer_changed()


def answer_agent(ls: AgentDocLanguageServer, uri: str, option: str) -> dict[str, Any]:
    """Answer the permission question offered as lenses on ``uri``."""
    running = state_of(ls).running.get(uri)
    question = running.host.question if running else None
    if question is None or question.answer.done():
        raise AgentError("no agent question is waiting on this document")
    names = {c.option_id: c.name for c in question.choices}
    if option not in names:
        raise AgentError(f"the agent offered no option {option!r}")
    question.answer.set_result(option)
    return {"uri": uri, "option": option, "label": names[option]}


def stop_lens(
    ls: AgentDocLanguageServer, params: types.CodeLensParams
) -> list[types.CodeLens]:
    """``Stop agent`` while an ACP agent answers; ``Answer:`` lenses for questions."""
    uri = params.text_document.uri
    running = state_of(ls).running.get(uri)
    if running is None or not ls.options.code_lens:
        return []
    start = types.Position(line=0, character=0)
    where = types.Range(start=start, end=start)
    lenses = [_lens(where, "Stop agent", STOP_AGENT, {"uri": uri})]
    question = running.host.question
    for choice in question.choices if question else []:
        args = {"uri": uri, "option": choice.option_id}
        lenses.append(_lens(where, f"Answer: {choice.name}", ANSWER_AGENT, args))
    return lenses


def _lens(
    where: types.Range, title: str, command: str, args: dict[str, str]
) -> types.CodeLens:
    return types.CodeLens(
        range=where,
        command=types.Command(title=title, command=command, arguments=[args]),
    )
