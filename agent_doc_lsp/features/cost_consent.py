"""The cost guard in the editor: a big prompt is sent once the person agrees.

``agentDoc.runAgent`` runs the turn with the guard of
:mod:`agent_doc.cycle.cost_guard` and nobody to ask inside the turn. When a
prompt is above ``prompt_limit_bytes`` the turn stops before anything is sent;
the server then asks with ``window/showMessageRequest`` ("Send" / "Don't
send") and runs the turn again, agreed, on "Send". A client that shows no
message actions gets the refusal as the command's error and can send
``{"uri": …, "yes": true}``.
"""

from __future__ import annotations

from collections.abc import Awaitable
from collections.abc import Callable
from typing import Any

from lsprotocol import types

from agent_doc.cycle.cost_guard import PromptCost
from agent_doc.cycle.cost_guard import PromptTooLarge
from agent_doc_lsp.features.prompts import supports_actions
from agent_doc_lsp.server import AgentDocLanguageServer

SEND = "Send"
DONT_SEND = "Don't send"

Turn = Callable[[AgentDocLanguageServer, str, bool], Awaitable[dict[str, Any]]]


async def run_with_consent(
    ls: AgentDocLanguageServer, uri: str, yes: bool, turn: Turn
) -> dict[str, Any]:
    """Run ``turn(ls, uri, approved)``; when its prompt is too big, ask the
    person and run it again, agreed, if they say "Send"."""
    try:
        return await turn(ls, uri, yes)
    except PromptTooLarge as exc:
        if exc.declined or not supports_actions(ls):
            raise
        if not await ask_to_send(ls, exc.cost):
            raise PromptTooLarge(exc.cost, declined=True) from None
    return await turn(ls, uri, True)


async def ask_to_send(ls: AgentDocLanguageServer, cost: PromptCost) -> bool:
    """Ask with ``window/showMessageRequest``; True only for "Send"."""
    params = types.ShowMessageRequestParams(
        type=types.MessageType.Warning,
        message=f"agent-doc: {cost.describe()}. Send it to the agent?",
        actions=[
            types.MessageActionItem(title=SEND),
            types.MessageActionItem(DONT_SEND),
        ],
    )
    picked = await ls.window_show_message_request_async(params)
    return picked is not None and picked.title == SEND
