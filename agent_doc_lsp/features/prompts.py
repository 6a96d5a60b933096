"""Permission prompts of an agent, answered from the editor (spec §7.14, U11).

The status poller (:mod:`agent_doc_lsp.features.agent_status`) parses the
permission prompt shown in an open document's pane. Once per distinct prompt
this feature sends ``window/showMessageRequest`` (the question, one action per
option); the chosen action is typed into the pane by
:func:`agent_doc.tmux.prompts.answer_prompt`. When the client cannot show actions
(no ``window.showMessage.messageActionItem``) or the user dismisses the
message, the document gets one code lens per option, ``Answer: <label>``, bound
to ``agentDoc.answerPrompt`` ``{uri, option}`` (1-based option number).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from dataclasses import dataclass
from dataclasses import field
from typing import Any

import attrs
from lsprotocol import types
from pygls.capabilities import get_capability

from agent_doc.editor.agent_status import EditorStatus
from agent_doc.tmux import prompts
from agent_doc_lsp.features.agent_status import add_lens_provider
from agent_doc_lsp.features.agent_status import add_status_listener
from agent_doc_lsp.features.agent_status import refresh_lenses
from agent_doc_lsp.features.tmux_commands import path_of
from agent_doc_lsp.features.tmux_commands import run_core
from agent_doc_lsp.server import AgentDocLanguageServer

logger = logging.getLogger(__name__)

ANSWER_PROMPT = "agentDoc.answerPrompt"
"""Command answering the permission prompt of a document's pane."""


@attrs.define
class AnswerPromptArgs:
    """``agentDoc.answerPrompt``: pick an option of the shown permission prompt."""

    uri: str
    """The session document whose agent asks."""
    option: int
    """The option number as displayed (1-based)."""


@dataclass
class PromptState:
    """Per-server state of this feature."""

    seen: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """URI → identity of the prompt currently shown (asked once)."""
    fallback: dict[str, EditorStatus] = field(default_factory=dict)
    """URI → status whose prompt is offered as ``Answer:`` lenses."""
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    """Open ``window/showMessageRequest`` round trips."""


_STATE: weakref.WeakKeyDictionary[AgentDocLanguageServer, PromptState] = (
    weakref.WeakKeyDictionary()
)


def state_of(ls: AgentDocLanguageServer) -> PromptState:
    """Return this feature's state for ``ls``."""
    return _STATE.setdefault(ls, PromptState())


def supports_actions(ls: AgentDocLanguageServer) -> bool:
    """Whether the client shows ``window/showMessageRequest`` actions."""
    caps = ls.client_capabilities
    item = get_capability(caps, "window.show_message.message_action_item", None)
    return item is not None


def show_fallback(ls: AgentDocLanguageServer, uri: str, status: EditorStatus) -> None:
    """Offer the prompt of ``status`` as ``Answer:`` lenses."""
    state_of(ls).fallback[uri] = status
    refresh_lenses(ls)


async def answer(ls: AgentDocLanguageServer, uri: str, option: int) -> Any:
    """Answer the prompt of ``uri``'s pane with ``option`` (in a thread)."""
    info = await run_core(ls, prompts.answer_prompt, path_of(uri), option)
    if state_of(ls).fallback.pop(uri, None) is not None:
        refresh_lenses(ls)
    label = next((o["label"] for o in info["options"] if o["index"] == option), "")
    return {"uri": uri, "option": option, "label": label}


async def ask(ls: AgentDocLanguageServer, uri: str, status: EditorStatus) -> None:
    """Show the prompt as a message request; answer with the chosen action."""
    assert status.prompt is not None
    options = status.prompt.options
    params = types.ShowMessageRequestParams(
        type=types.MessageType.Warning,
        message=f"{status.agent} ({status.pane}): {status.prompt.question}",
        actions=[types.MessageActionItem(title=o.label) for o in options],
    )
    try:
        choice = await ls.window_show_message_request_async(params)
    except Exception as exc:  # a client may fail the request
        logger.warning("window/showMessageRequest failed: %s", exc)
        choice = None
    picked = next((o for o in options if choice and o.label == choice.title), None)
    if picked is None:
        if state_of(ls).seen.get(uri) == status.prompt_key():
            show_fallback(ls, uri, status)
        return
    try:
        await answer(ls, uri, picked.index)
    except Exception as exc:  # already reported by run_core
        logger.info("answering %s failed: %s", uri, exc)


def on_status(ls: AgentDocLanguageServer, uri: str, status: EditorStatus) -> None:
    """Ask once per distinct prompt; drop the fallback when it is gone."""
    state = state_of(ls)
    key = status.prompt_key()
    if key is None:
        state.seen.pop(uri, None)
        if state.fallback.pop(uri, None) is not None:
            refresh_lenses(ls)
        return
    if state.seen.get(uri) == key:
        return
    state.seen[uri] = key
    if not supports_actions(ls):
        show_fallback(ls, uri, status)
        return
    task = asyncio.get_running_loop().create_task(ask(ls, uri, status))
    state.tasks.add(task)
    task.add_done_callback(state.tasks.discard)


def answer_lenses(
    ls: AgentDocLanguageServer, params: types.CodeLensParams
) -> list[types.CodeLens]:
    """One ``Answer: <label>`` lens per option of a prompt offered as fallback."""
    uri = params.text_document.uri
    status = state_of(ls).fallback.get(uri)
    if status is None or status.prompt is None or not ls.options.code_lens:
        return []
    start = types.Position(line=0, character=0)
    return [
        types.CodeLens(
            range=types.Range(start=start, end=start),
            command=types.Command(
                title=f"Answer: {o.label}",
                command=ANSWER_PROMPT,
                arguments=[{"uri": uri, "option": o.index}],
            ),
        )
        for o in status.prompt.options
    ]


def forget(ls: AgentDocLanguageServer, uri: str) -> None:
    """Drop the prompt state of a closed document."""
    state = state_of(ls)
    state.seen.pop(uri, None)
    state.fallback.pop(uri, None)


def register(server: AgentDocLanguageServer) -> None:
    """Register the prompt listener, the fallback lenses and the answer command."""
    add_status_listener(server, on_status)
    add_lens_provider(server, answer_lenses)
    server.hooks.did_close.append(forget)

    @server.command(ANSWER_PROMPT)
    async def answer_prompt(ls: AgentDocLanguageServer, args: AnswerPromptArgs) -> Any:
        return await answer(ls, args.uri, args.option)
