"""Session routing commands (``workspace/executeCommand``): the editor drives tmux.

Implements ``agentDoc.route``, ``agentDoc.sync``, ``agentDoc.claim``,
``agentDoc.focus``, ``agentDoc.layout`` and ``agentDoc.resync``, each taking one
object argument (documents as URIs) and returning the core result as a JSON
object. The tmux core blocks (Enter verification, waiting for an agent's
prompt), so every call runs in a worker thread. An ``AgentDocError`` becomes a
JSON-RPC error carrying its one-line message; except for ``sync`` (sent
automatically on every layout change) it is also shown with
``window/showMessage``.

A command another feature module registered first is left alone, so the
command module of the write path can take any of them over.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from agent_doc.errors import AgentDocError
from agent_doc_lsp.server import AgentDocLanguageServer

logger = logging.getLogger(__name__)

ROUTE = "agentDoc.route"
SYNC = "agentDoc.sync"
CLAIM = "agentDoc.claim"
FOCUS = "agentDoc.focus"
LAYOUT = "agentDoc.layout"
RESYNC = "agentDoc.resync"

AGENT_DOC_ERROR = -32001
"""JSON-RPC error code of a failed agent-doc operation (server error range)."""


@attrs.define
class RouteArgs:
    """``agentDoc.route``: send ``/agent-doc FILE`` to the document's agent."""

    uri: str
    """The session document."""
    pane: str | None = None
    """Use this pane when the document has no live one."""


@attrs.define
class SyncArgs:
    """``agentDoc.sync``: mirror the editor's columns of documents in tmux."""

    columns: list[list[str]]
    """Document URIs per editor column, left to right (top to bottom inside)."""
    focus: str | None = None
    """URI of the document whose pane gets the focus."""
    window: str | None = None
    """The tmux window to arrange (id ``@N`` or name)."""
    client_pane: str | None = None
    """``clientPane``: the editor's own tmux pane (never stashed or pushed)."""


@attrs.define
class ClaimArgs:
    """``agentDoc.claim``: bind the document to a tmux pane."""

    uri: str
    """The document."""
    position: str | None = None
    """``left``, ``right``, ``top`` or ``bottom`` pane of the window."""
    pane: str | None = None
    """An explicit pane id (``%N``)."""
    window: str | None = None
    """The tmux window to pick ``position`` in."""
    force: bool = False
    """Take a pane bound to another document."""
    client_pane: str | None = None
    """``clientPane``: the editor's own tmux pane, never bound (a position
    whose edge it is, or no target, splits a new agent pane off it)."""


@attrs.define
class FocusArgs:
    """``agentDoc.focus``: select the document's pane."""

    uri: str | None = None
    """The document (optional when ``pane`` is given)."""
    pane: str | None = None
    """Focus this pane instead."""


@attrs.define
class LayoutArgs:
    """``agentDoc.layout``: put the documents' panes side by side or stacked."""

    uris: list[str]
    """Documents, the one to focus first."""
    split: str = "h"
    """``h`` (side by side) or ``v`` (stacked)."""
    window: str | None = None
    """Only panes registered for this window."""


@attrs.define
class ResyncArgs:
    """``agentDoc.resync``: check (and with ``fix`` repair) ``sessions.json``."""

    uri: str
    """A document or folder of the project."""
    fix: bool = False
    """Repair what is found."""


def path_of(uri: str) -> Path:
    """The file path of a ``file:`` URI (``JsonRpcInvalidParams`` otherwise)."""
    path = to_fs_path(uri)
    if not path:
        raise JsonRpcInvalidParams(f"not a file: URI: {uri}")
    return Path(path)


def to_json(result: Any) -> Any:
    """A core result (dataclass, record, tuple, str, …) as a JSON-able value."""
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return dataclasses.asdict(result)
    if hasattr(result, "_asdict"):  # records, WriteOutcome
        return {k: to_json(v) for k, v in result._asdict().items()}
    if isinstance(result, (list, tuple)):
        return [to_json(v) for v in result]
    return result


async def run_core(
    ls: AgentDocLanguageServer,
    function: Callable[..., Any],
    *args: Any,
    show: bool = True,
    **kwargs: Any,
) -> Any:
    """Run a blocking core function in a thread; map ``AgentDocError`` to JSON-RPC.

    With ``show`` the error is also shown to the user (``window/showMessage``).
    """
    try:
        result = await asyncio.to_thread(function, *args, **kwargs)
    except AgentDocError as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        logger.warning("%s: %s", getattr(function, "__name__", function), message)
        if show:
            ls.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Error, message=f"agent-doc: {message}"
                )
            )
        raise JsonRpcException(message=message, code=AGENT_DOC_ERROR) from exc
    return to_json(result)


def _command(server: AgentDocLanguageServer, name: str) -> Callable[[Any], Any]:
    """``server.command(name)``, or a no-op when ``name`` is already registered."""
    if name in server.protocol.fm.commands:
        logger.info("%s is provided by another feature module", name)
        return lambda handler: handler
    return server.command(name)


def register(server: AgentDocLanguageServer) -> None:
    """Register the session routing commands nobody registered before."""
    from agent_doc.store.state import project_root_for
    from agent_doc.tmux import claim as claiming
    from agent_doc.tmux import layout as layout_only
    from agent_doc.tmux import resync
    from agent_doc.tmux import route as routing
    from agent_doc.tmux import sync as layout_sync

    @_command(server, ROUTE)
    async def route(ls: AgentDocLanguageServer, args: RouteArgs) -> Any:
        return await run_core(ls, routing.route, path_of(args.uri), pane=args.pane)

    @_command(server, SYNC)
    async def sync(ls: AgentDocLanguageServer, args: SyncArgs) -> Any:
        columns = [[str(path_of(uri)) for uri in col] for col in args.columns]
        focus = str(path_of(args.focus)) if args.focus else None
        return await run_core(
            ls, layout_sync.sync, columns, focus=focus, window=args.window,
            client_pane=args.client_pane, show=False,
        )  # fmt: skip

    @_command(server, CLAIM)
    async def claim(ls: AgentDocLanguageServer, args: ClaimArgs) -> Any:
        return await run_core(
            ls, claiming.claim, path_of(args.uri), position=args.position,
            window=args.window, pane=args.pane, force=args.force,
            client_pane=args.client_pane,
        )  # fmt: skip

    @_command(server, FOCUS)
    async def focus(ls: AgentDocLanguageServer, args: FocusArgs) -> Any:
        file = path_of(args.uri) if args.uri else None
        pane = await run_core(ls, routing.focus, file, pane=args.pane)
        return {"pane": pane}

    @_command(server, LAYOUT)
    async def layout(ls: AgentDocLanguageServer, args: LayoutArgs) -> Any:
        files = [str(path_of(uri)) for uri in args.uris]
        return await run_core(
            ls, layout_only.layout, files, split=args.split, window=args.window
        )

    @_command(server, RESYNC)
    async def resync_(ls: AgentDocLanguageServer, args: ResyncArgs) -> Any:
        root = project_root_for(path_of(args.uri))
        return await run_core(ls, resync.resync, root, fix=args.fix)
