"""Document commands (``workspace/executeCommand``): the CLI's verbs, in the editor.

``agentDoc.write``, ``agentDoc.patch``, ``agentDoc.diff``, ``agentDoc.reset``,
``agentDoc.outline``, ``agentDoc.preflight`` and ``agentDoc.commit`` call the
same core functions as the CLI, in a worker thread, with a
:class:`~agent_doc_lsp.features.local_link.LocalLink` so that every edit goes to this
editor's live buffer (one verified ``workspace/applyEdit``). Each returns a
JSON object; an ``AgentDocError`` becomes a JSON-RPC error with its message.

Trust (``agentDoc.trustWorkspace``, default false): ``agentDoc.patch`` runs the
``components.toml`` ``pre_patch``/``post_patch`` hooks and ``agentDoc.preflight``
fetches URL ``links`` only in a trusted workspace. ``write`` and ``commit`` run
no project code (they fire ``post_write``/``post_commit`` events, which are
data files, not commands).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcException
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from agent_doc.document.surrogates import scrub_surrogates
from agent_doc.errors import AgentDocError
from agent_doc_lsp import commands
from agent_doc_lsp.commands import DocumentArgs
from agent_doc_lsp.commands import PatchArgs
from agent_doc_lsp.commands import PreflightArgs
from agent_doc_lsp.commands import WriteArgs
from agent_doc_lsp.features.local_link import LocalLink
from agent_doc_lsp.features.writes import patch_warnings
from agent_doc_lsp.features.writes import show_warnings
from agent_doc_lsp.server import AgentDocLanguageServer

logger = logging.getLogger(__name__)

AGENT_DOC_ERROR = -32001
"""JSON-RPC error code of a failed agent-doc operation."""


def path_of(uri: str) -> Path:
    """The file path of a ``file:`` URI (``JsonRpcInvalidParams`` otherwise)."""
    path = to_fs_path(uri)
    if not path:
        raise JsonRpcInvalidParams(f"not a file: URI: {uri}")
    return Path(path)


def jsonable(value: Any) -> Any:
    """Dataclasses and records → dicts, paths → strings, recursively."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    elif hasattr(value, "_asdict"):  # records, WriteOutcome
        value = value._asdict()
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return str(value) if isinstance(value, Path) else value


async def run_core(
    ls: AgentDocLanguageServer, function: Callable[[LocalLink], Any]
) -> Any:
    """Run ``function(link)`` in a thread; ``AgentDocError`` → JSON-RPC error."""
    link = LocalLink(ls, asyncio.get_running_loop())
    try:
        return jsonable(await asyncio.to_thread(function, link))
    except AgentDocError as exc:
        logger.warning("command failed: %s", exc)
        raise JsonRpcException(message=str(exc), code=AGENT_DOC_ERROR) from exc


def write(link: LocalLink, args: WriteArgs) -> Any:
    """``agentDoc.write``: the write path, then the snapshot (as the CLI)."""
    from agent_doc.automation.lifecycle import post_write
    from agent_doc.write.pipeline import WriteRequest
    from agent_doc.write.pipeline import write_response

    baseline = None if args.baseline is None else scrub_surrogates(args.baseline)
    response = scrub_surrogates(args.response)
    request = WriteRequest(path_of(args.uri), response, baseline, origin=args.origin)
    outcome = write_response(request, link, on_written=post_write)
    return _without(jsonable(outcome), "content_ours", "final_text")


def _without(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in keys}


def commit(link: LocalLink, path: Path) -> Any:
    """``agentDoc.commit``: commit the snapshot, then refresh the editor."""
    from agent_doc.cycle.commit import commit_and_refresh

    committed, message = commit_and_refresh(path, link)
    return {"committed": committed, "message": message}


def outline(link: LocalLink, path: Path) -> Any:
    """``agentDoc.outline``: sections of the live buffer (or the file)."""
    from agent_doc.cycle.preflight import current_text
    from agent_doc.document.outline import outline as sections

    return [s.as_dict() for s in sections(current_text(path, link))]


def register(server: AgentDocLanguageServer) -> None:
    """Register the document commands."""
    from agent_doc.cycle.doc_diff import document_diff
    from agent_doc.cycle.preflight import run_preflight
    from agent_doc.cycle.project import reset_document
    from agent_doc.write.patch import patch_component

    @server.command(commands.WRITE)
    async def write_(ls: AgentDocLanguageServer, args: WriteArgs) -> Any:
        warnings = patch_warnings(ls, args.uri, args.response)
        result = await run_core(ls, lambda link: write(link, args))
        show_warnings(ls, warnings)
        return result

    @server.command(commands.PATCH)
    async def patch(ls: AgentDocLanguageServer, args: PatchArgs) -> Any:
        path, trusted = path_of(args.uri), ls.options.trust_workspace
        result = await run_core(
            ls,
            lambda link: patch_component(
                path,
                args.component,
                scrub_surrogates(args.content),
                link=link,
                allow_hooks=trusted,
            ),
        )
        return _without(result, "text")

    @server.command(commands.DIFF)
    async def diff(ls: AgentDocLanguageServer, args: DocumentArgs) -> Any:
        return await run_core(ls, lambda link: document_diff(path_of(args.uri), link))

    @server.command(commands.RESET)
    async def reset(ls: AgentDocLanguageServer, args: DocumentArgs) -> Any:
        return await run_core(ls, lambda link: reset_document(path_of(args.uri), link))

    @server.command(commands.OUTLINE)
    async def outline_(ls: AgentDocLanguageServer, args: DocumentArgs) -> Any:
        return await run_core(ls, lambda link: outline(link, path_of(args.uri)))

    @server.command(commands.PREFLIGHT)
    async def preflight(ls: AgentDocLanguageServer, args: PreflightArgs) -> Any:
        path, trusted = path_of(args.uri), ls.options.trust_workspace
        return await run_core(
            ls,
            lambda link: run_preflight(
                path, link, settle=args.settle, allow_network=trusted
            ).to_json(),
        )

    @server.command(commands.COMMIT)
    async def commit_(ls: AgentDocLanguageServer, args: DocumentArgs) -> Any:
        return await run_core(ls, lambda link: commit(link, path_of(args.uri)))
