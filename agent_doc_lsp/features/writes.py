"""Live-buffer writes: the project socket's messages, answered in the editor.

When ``agent-doc write`` finds this server has the document open, the agent's
response is merged with the *live buffer* (unsaved edits included) and lands as
one ``workspace/applyEdit``; the file on disk is the editor's business. Message
types (``docs/architecture.md``): ``read``, ``write``, ``patch``,
``reposition``, ``vcs_refresh`` (→ ``agentDoc/vcsRefresh`` notification) and
``typing``. The merge itself is :mod:`agent_doc.write.live`; applying and
verifying the edit is :mod:`agent_doc_lsp.live_edit`.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Awaitable
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from agent_doc.automation import served_write
from agent_doc.document.patch_blocks import patch_block_warnings
from agent_doc.document.surrogates import scrub_surrogates
from agent_doc.errors import EX_TEMPFAIL
from agent_doc.errors import AgentDocError
from agent_doc.errors import ServerTimeout
from agent_doc.store.regular_file import special_file_error
from agent_doc.write import live as live_write
from agent_doc.write.live import LivePlan
from agent_doc.write.pipeline import record_expected
from agent_doc_lsp.buffers import Buffer
from agent_doc_lsp.live_edit import ChangeTracker
from agent_doc_lsp.live_edit import apply_live
from agent_doc_lsp.server import AgentDocLanguageServer
from agent_doc_lsp.socket import ProjectSocket

logger = logging.getLogger(__name__)

VCS_REFRESH = "agentDoc/vcsRefresh"
"""Custom notification sent to the client on a ``vcs_refresh`` message."""

Message = dict[str, Any]
Handler = Callable[[AgentDocLanguageServer, str, Message], Awaitable[Message]]

FINISHERS: dict[str, Handler] = {}
"""Handlers of hand-off requests (``finish: true``) that other features add
(:mod:`agent_doc_lsp.features.patch_handoff` runs the whole ``patch``)."""

AnswerListener = Callable[[AgentDocLanguageServer, str, Path, str], Awaitable[bool]]
ANSWER_IN_BUFFER: list[AnswerListener] = []
"""Called with ``(ls, uri, path, content_ours)`` once a handed-off answer
landed in a buffer; one returning ``True`` means the room's snapshot waits
for the buffer's save (:mod:`.share_sync` adds the one for served documents,
:mod:`.served_save`)."""


@dataclass
class LiveWrites:
    """Per-server state of this feature."""

    tracker: ChangeTracker = field(default_factory=ChangeTracker)
    """Observes buffer changes to verify edits."""
    socket: ProjectSocket | None = None
    """The project socket, once ``initialized``."""


_STATE: weakref.WeakKeyDictionary[AgentDocLanguageServer, LiveWrites] = (
    weakref.WeakKeyDictionary()
)


def state_of(ls: AgentDocLanguageServer) -> LiveWrites:
    """Return this feature's state for ``ls``."""
    return _STATE.setdefault(ls, LiveWrites())


def roots_of(ls: AgentDocLanguageServer) -> list[Path]:
    """Return the workspace folders (or the root path) as absolute paths."""
    paths = [to_fs_path(f.uri) for f in ls.workspace.folders.values()]
    if not paths and ls.workspace.root_path:
        paths = [ls.workspace.root_path]
    return [Path(p).resolve() for p in paths if p]


def configs_for(path: Path) -> dict[str, Any]:
    """Load the component configs of ``path``'s project."""
    from agent_doc.document.component_config import load_component_configs
    from agent_doc.store.state import project_root_for

    return dict(load_component_configs(project_root_for(path)))


async def write_buffer(
    ls: AgentDocLanguageServer,
    uri: str,
    response: str,
    baseline: str | None,
    timeout_ms: int | None = None,
    answer_id: str | None = None,
) -> LivePlan:
    """Merge ``response`` into the open buffer ``uri``; verified, with retries."""
    path = Path(to_fs_path(uri) or uri)
    configs = configs_for(path)
    base: list[str] = []

    def plan_for(text: str) -> LivePlan:
        if not base:
            first_base, plan = live_write.plan_write(
                text, baseline, response, configs, answer_id
            )
            base.extend((first_base, plan.content_ours))
            record_expected(path, plan.content_ours)  # before the edit: recover
            return plan
        return live_write.plan_write_retry(base[0], base[1], text)

    return await apply_live(
        ls,
        state_of(ls).tracker,
        uri,
        plan_for,
        label="agent-doc write",
        timeout_ms=timeout_ms,
    )


async def patch_buffer(
    ls: AgentDocLanguageServer,
    uri: str,
    component: str,
    content: str,
    mode: str | None = None,
    timeout_ms: int | None = None,
) -> LivePlan:
    """Patch one component of the open buffer ``uri`` (``patch`` semantics)."""
    configs = configs_for(Path(to_fs_path(uri) or uri))
    return await apply_live(
        ls,
        state_of(ls).tracker,
        uri,
        lambda text: live_write.plan_patch(
            text, component, content, configs, mode=mode
        ),
        label="agent-doc patch",
        timeout_ms=timeout_ms,
    )


async def merge_buffer(
    ls: AgentDocLanguageServer,
    uri: str,
    baseline: str,
    target: str,
    timeout_ms: int | None = None,
    label: str = "agent-doc compact",
) -> LivePlan:
    """Bring the open buffer ``uri`` from ``baseline`` to ``target``, merged
    with what was typed since (``compact``, an agent's own write of the
    file): one verified workspace edit."""
    return await apply_live(
        ls,
        state_of(ls).tracker,
        uri,
        lambda text: live_write.plan_merge(baseline, target, text),
        label=label,
        timeout_ms=timeout_ms,
    )


async def reposition_buffer(ls: AgentDocLanguageServer, uri: str) -> LivePlan:
    """Move the boundary marker of the open buffer ``uri`` to the exchange's end."""
    return await apply_live(
        ls,
        state_of(ls).tracker,
        uri,
        live_write.plan_reposition,
        label="agent-doc reposition",
    )


def _within(path: Path, roots: list[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def text_field(message: Message, key: str, *, optional: bool = False) -> str | None:
    """The string field ``key`` of a socket request (``ValueError`` if not one)."""
    value = message.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ValueError(f"field {key!r} must be a string")
    return scrub_surrogates(value)  # JSON may carry lone "\\ud800" escapes


def _target(ls: AgentDocLanguageServer, message: Message) -> tuple[Buffer | None, str]:
    """Return the open buffer the request names (``None``: not open) or an error."""
    path = Path(text_field(message, "file") or "").resolve()
    roots = roots_of(ls)
    buffer = ls.buffers.by_path(path)
    if not (_within(path, roots) or (not roots and buffer)):
        return None, f"{path} is outside this server's workspace"
    if buffer is None and (special := special_file_error(path)):
        return None, special  # a FIFO, socket, device or folder
    return buffer, ""


async def handle(ls: AgentDocLanguageServer, message: Message) -> Message:
    """Answer one socket request (see the table in ``docs/architecture.md``)."""
    kind = message.get("type")
    if kind == "vcs_refresh":
        ls.protocol.notify(VCS_REFRESH, {})
        return {"ok": True}
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None or not isinstance(kind, str):
        return {"ok": False, "error": f"unknown request type {kind!r}"}
    try:
        buffer, error = _target(ls, message)
        if error:
            return {"ok": False, "error": error}
        if kind in ("read", "typing") or buffer is None:
            return _describe(kind, buffer)
        return {"ok": True, **await handler(ls, buffer.uri, message)}
    except ServerTimeout as exc:
        return {"ok": False, "error": str(exc), "code": EX_TEMPFAIL}
    except (AgentDocError, ValueError) as exc:
        return {"ok": False, "error": str(exc)}


def _timeout_ms(message: Message) -> int | None:
    """The caller's own time limit (``timeout_ms``), if it sent a valid one."""
    value = message.get("timeout_ms")
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


def _describe(kind: str, buffer: Buffer | None) -> Message:
    if buffer is None:
        if kind in ("read", "typing"):
            return {"ok": True, "open": False}
        return {"ok": False, "open": False, "error": "the document is not open here"}
    reply: Message = {"ok": True, "open": True}
    if kind == "read":
        reply.update(text=buffer.text, version=buffer.version)
    if buffer.last_edit is not None:
        reply["last_typed_ms"] = int(buffer.last_edit * 1000)
    return reply


def patch_warnings(ls: AgentDocLanguageServer, uri: str, response: str) -> list[str]:
    """The malformed patch blocks of ``response`` for the open buffer ``uri``."""
    buffer = ls.buffers.get(uri)
    return patch_block_warnings(response, buffer.text if buffer else "")


def show_warnings(ls: AgentDocLanguageServer, warnings: list[str]) -> None:
    """One ``window/showMessage`` warning per malformed patch block."""
    for warning in warnings:
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"agent-doc write: {warning}"
            )
        )


async def _write(ls: AgentDocLanguageServer, uri: str, message: Message) -> Message:
    if message.get("finish") is True:  # a hand-off: the bookkeeping is ours too
        return await _write_and_finish(ls, uri, message)
    response = text_field(message, "response") or ""
    warnings = patch_warnings(ls, uri, response)
    plan = await write_buffer(
        ls,
        uri,
        response,
        text_field(message, "baseline", optional=True),
        _timeout_ms(message),
        text_field(message, "answer_id", optional=True),
    )
    show_warnings(ls, warnings)
    logger.info("write into %s (origin %s)", uri, message.get("origin"))
    path = Path(to_fs_path(uri) or uri)
    waits = [await f(ls, uri, path, plan.content_ours) for f in ANSWER_IN_BUFFER]
    on_save = any(waits)
    # the CLI prints the warnings too: it no longer parses the response itself
    return {
        "content_ours": plan.content_ours,
        "text": plan.merged,
        "warnings": warnings,
        "room_snapshot_on_save": on_save,
    }


async def _write_and_finish(
    ls: AgentDocLanguageServer, uri: str, message: Message
) -> Message:
    """``write`` with ``finish``: pending, status, snapshot and hooks here too."""
    path = Path(to_fs_path(uri) or uri)
    response = text_field(message, "response") or ""
    origin = text_field(message, "origin", optional=True)
    buffer = ls.buffers.get(uri)
    before = buffer.text if buffer is not None else ""
    answer_id = served_write.begin(
        path, response, text_field(message, "answer_id", optional=True)
    )
    if answer_id is None:  # it has landed already: landing is idempotent
        return {"finished": True, "warnings": [], "changed": False, "merged": False}
    try:
        request = {**message, "finish": False, "answer_id": answer_id}
        reply = await _write(ls, uri, request)
        changed, merged = served_write.finish(
            path, reply["content_ours"], reply["text"], before, origin, answer_id
        )
    finally:
        served_write.end(path)
    return {"finished": True, "warnings": reply["warnings"], "changed": changed,
            "merged": merged}  # fmt: skip


async def _patch(ls: AgentDocLanguageServer, uri: str, message: Message) -> Message:
    finisher = FINISHERS.get("patch")
    if message.get("finish") is True and finisher is not None:
        return await finisher(ls, uri, message)  # a hand-off: the whole command
    component = text_field(message, "component") or ""
    content = text_field(message, "content") or ""
    mode = text_field(message, "mode", optional=True)
    plan = await patch_buffer(ls, uri, component, content, mode, _timeout_ms(message))
    return {"text": plan.merged}


async def _merge(ls: AgentDocLanguageServer, uri: str, message: Message) -> Message:
    baseline = text_field(message, "baseline") or ""
    target = text_field(message, "target") or ""
    label = text_field(message, "label", optional=True) or "agent-doc compact"
    plan = await merge_buffer(
        ls, uri, baseline, target, _timeout_ms(message), label=label
    )
    return {"text": plan.merged}


async def _reposition(
    ls: AgentDocLanguageServer, uri: str, _message: Message
) -> Message:
    await reposition_buffer(ls, uri)
    return {}


STALE_MESSAGE = (
    "agent-doc: {name} was just updated in another editor; "
    "this copy is stale (reload it before you edit)"
)


async def _stale(ls: AgentDocLanguageServer, uri: str, _message: Message) -> Message:
    name = Path(to_fs_path(uri) or uri).name
    ls.window_show_message(
        types.ShowMessageParams(
            type=types.MessageType.Warning, message=STALE_MESSAGE.format(name=name)
        )
    )
    return {}


async def _unused(_ls: AgentDocLanguageServer, _uri: str, _message: Message) -> Message:
    return {}  # read/typing are answered by _describe


_HANDLERS: dict[str, Handler] = {
    "read": _unused,
    "typing": _unused,
    "write": _write,
    "patch": _patch,
    "merge": _merge,
    "reposition": _reposition,
    "stale": _stale,
}


def projects_of(roots: list[Path]) -> list[Path]:
    """The agent-doc projects (folders with ``.agent-doc/``) holding ``roots``."""
    from agent_doc.store.state import find_project_root

    return [p for p in (find_project_root(r) for r in roots) if p is not None]


async def start_socket(ls: AgentDocLanguageServer) -> None:
    """Open the project socket and register in every agent-doc project."""
    state = state_of(ls)
    state.tracker.install(ls)
    roots = roots_of(ls)
    state.socket = ProjectSocket(lambda message: handle(ls, message))
    await state.socket.start(projects_of(roots), roots)


def reregister(ls: AgentDocLanguageServer) -> None:
    """Follow workspace folder changes in the registrations."""
    state = state_of(ls)
    if state.socket is not None:
        roots = roots_of(ls)
        state.socket.register(projects_of(roots), roots)


def stop_socket(ls: AgentDocLanguageServer) -> None:
    """Close the project socket and remove the registrations."""
    state = state_of(ls)
    if state.socket is not None:
        state.socket.close()
        state.socket = None


def register(server: AgentDocLanguageServer) -> None:
    """Subscribe to the lifecycle and change hooks."""
    server.hooks.initialized.append(start_socket)
    server.hooks.shutdown.append(stop_socket)
    server.hooks.did_change.append(
        lambda ls, uri: state_of(ls).tracker.notified(ls, uri)
    )

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_workspace_folders(
        ls: AgentDocLanguageServer, _params: types.DidChangeWorkspaceFoldersParams
    ) -> None:
        reregister(ls)
