"""The bookkeeping of a write that ``agent-doc write`` handed to a language server.

When a server has the document open, the CLI only sends the response over the
project socket (:mod:`agent_doc.write.handoff`) and the server does the rest,
in the order of the CLI's own write path (spec §7.22): status ``writing`` and
the response saved as *pending* before the buffer is edited; afterwards the
snapshot (= ``content_ours``) and the CRDT state are saved, the pending response
is cleared, the origin is logged, ``post_write`` fires and the status goes
back to ``idle``. The server has pycrdt and the patch parser loaded already, so
the CLI process never imports them.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from agent_doc.automation.busy import set_status
from agent_doc.document.backlog_ops import refuse_item_list_blocks
from agent_doc.errors import AgentDocError
from agent_doc.store.events import fire_quietly
from agent_doc.store.state import StateStore
from agent_doc.write.landing import has_landed
from agent_doc.write.landing import land_bookkeeping
from agent_doc.write.landing import new_answer_id
from agent_doc.write.outcome import normalize_text


def begin(path: Path, response: str, answer_id: str | None = None) -> str | None:
    """Status ``writing`` and the response saved as pending (``recover``
    input) with its answer id (a fresh one when ``None``); returns the id, or
    ``None`` when that answer has landed already (nothing is to be written)."""
    refuse_item_list_blocks(response)  # refused before anything is kept
    store = StateStore.for_document(path)
    if answer_id is not None and has_landed(path, answer_id, store):
        return None
    answer_id = answer_id or new_answer_id()
    with contextlib.suppress(AgentDocError):  # the busy guard is best effort
        set_status(path, "writing")
    store.save_pending(path, response, answer_id)
    return answer_id


def finish(
    path: Path,
    content_ours: str,
    final: str,
    before: str,
    origin: str | None,
    answer_id: str,
) -> tuple[bool, bool]:
    """Snapshot + CRDT state of ``content_ours``, the answer landed in the
    record, pending cleared, hooks fired.

    ``final`` is the buffer after the edit, ``before`` the buffer before it.
    Returns ``(changed, merged)`` as the CLI reports them: the buffer changed;
    the person's concurrent edits were merged in (the buffer is not
    ``content_ours``).
    """
    content_ours, final = normalize_text(content_ours), normalize_text(final)
    store = StateStore.for_document(path)
    land_bookkeeping(path, answer_id, content_ours)
    store.delete_pending_of(path, answer_id)
    if origin:
        logs = store.state_dir / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with (logs / "ops.log").open("a", encoding="utf-8") as log:
            log.write(f"{stamp} write_origin file={path} origin={origin}\n")
    fire_quietly("post_write", path)
    return final != normalize_text(before), final != content_ours


def end(path: Path) -> None:
    """Status back to ``idle`` (after success or failure, like the CLI's guard)."""
    with contextlib.suppress(AgentDocError):
        set_status(path, "idle")
