"""Lifecycle and settings: ``initialize``, ``initialized``, ``shutdown``,
``workspace/didChangeConfiguration``.

Options come from ``initializationOptions`` first, then from the client's
``agentDoc`` configuration section (pulled after ``initialized`` and again on
every ``didChangeConfiguration``). Bad values are shown once as a warning and
replaced by defaults. A pull that changes the options emits ``options_changed``
— also the first one: a client (Neovim) opens documents right after
``initialized``, before the pulled settings (say, ``sync``) are known.
"""

from __future__ import annotations

import asyncio
import logging

from lsprotocol import types
from pygls.capabilities import get_capability

from agent_doc_lsp import log
from agent_doc_lsp.options import SECTION
from agent_doc_lsp.options import Options
from agent_doc_lsp.options import parse_options
from agent_doc_lsp.server import AgentDocLanguageServer

logger = logging.getLogger(__name__)


def apply_settings(ls: AgentDocLanguageServer, raw: object, base: Options) -> bool:
    """Parse ``raw`` over ``base`` into ``ls.options``; warn about bad values.

    Returns whether the options changed.
    """
    options, problems = parse_options(raw, base)
    if problems:
        message = "agent-doc: invalid settings, using defaults for: " + "; ".join(
            problems
        )
        logger.warning("%s", message)
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=message)
        )
    changed = options != ls.options
    ls.options = options
    if ls.log_handler is not None:
        log.set_level(ls.log_handler, options.log_level)
    return changed


async def pull_configuration(ls: AgentDocLanguageServer) -> object:
    """Ask the client for the ``agentDoc`` section (``None`` if unsupported)."""
    if not get_capability(ls.client_capabilities, "workspace.configuration", False):
        return None
    try:
        result = await asyncio.wait_for(
            ls.workspace_configuration_async(
                types.ConfigurationParams(
                    items=[types.ConfigurationItem(section=SECTION)]
                )
            ),
            timeout=5,
        )
    except Exception as exc:  # a client may not answer
        logger.warning("workspace/configuration failed: %s", exc)
        return None
    return result[0] if result else None


def register(server: AgentDocLanguageServer) -> None:
    """Register the lifecycle handlers."""

    @server.feature(types.INITIALIZE)
    def initialize(ls: AgentDocLanguageServer, params: types.InitializeParams) -> None:
        ls.loop = asyncio.get_running_loop()
        ls.log_handler = log.install(ls, "info", ls.loop)
        ls.init_options = params.initialization_options
        apply_settings(ls, params.initialization_options, Options())

    @server.feature(types.INITIALIZED)
    async def initialized(
        ls: AgentDocLanguageServer, _: types.InitializedParams
    ) -> None:
        raw = await pull_configuration(ls)
        changed = False
        if raw is not None:
            base, _problems = parse_options(ls.init_options)
            changed = apply_settings(ls, raw, base)
        await ls.emit(ls.hooks.initialized)
        if changed:  # documents opened during the pull saw the old options
            await ls.emit(ls.hooks.options_changed)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: AgentDocLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        raw = await pull_configuration(ls)
        if raw is None:
            raw = params.settings
        base, _problems = parse_options(ls.init_options)
        if apply_settings(ls, raw, base):
            await ls.emit(ls.hooks.options_changed)

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: AgentDocLanguageServer, _: None) -> None:
        await ls.emit(ls.hooks.shutdown)
        if ls.log_handler is not None:
            log.uninstall(ls.log_handler)
            ls.log_handler = None
