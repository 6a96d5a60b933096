"""Write an agent's answer into a shared room from any host (``write/patch --room``).

The writer joins the room as a Yjs peer (``pycrdt.Provider`` over httpx-ws),
reads the document's text from the room, computes the new text with the same
core as a local write (``build_content_ours``, the 3-way merge when a baseline
is given, ``apply_component_patch``), and applies only the changed regions as
one transaction. Its client id is small (below :data:`AGENT_ID_LIMIT`), so on a
tie with an editor's concurrent insert the answer comes first, as in a local
merge. The command returns once the room has applied the transaction. While
it prepares and applies it, the writer's awareness (presence) state says so
(``{"user": {"name": "agent", "kind": "agent"}, "writing": true}``): editors
show "agent writing"; the state is set to null (left) before the writer
disconnects. The writer's copy of the document only names the room (its
session id) and holds the component configuration; it is not written, but
its snapshot follows the room's (the caller, :mod:`agent_doc.cli.commands._room`).
The room's snapshot and the answer's id change in the answer's transaction
(:mod:`agent_doc.share.turn_state`): writing the same answer (same
``--baseline-file`` and response) again lands nothing.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from agent_doc._runtime.faults import crash_point
from agent_doc._runtime.faults import declare_points
from agent_doc.document.apply import apply_component_patch
from agent_doc.document.apply import build_content_ours
from agent_doc.document.component_config import load_component_configs
from agent_doc.document.components import is_valid_name
from agent_doc.document.merge import merge_texts
from agent_doc.document.patch_blocks import patch_block_warnings
from agent_doc.errors import PatchError
from agent_doc.errors import ShareError
from agent_doc.share.access import read_token_file
from agent_doc.share.documents import session_id_of
from agent_doc.share.room_connect import room_failure
from agent_doc.share.room_link import RoomLink
from agent_doc.share.room_link import RoomTarget
from agent_doc.share.turn_state import answer_id
from agent_doc.share.turn_state import current_lease
from agent_doc.share.turn_state import has_landed
from agent_doc.share.turn_state import result_id
from agent_doc.share.turn_state import room_snapshot
from agent_doc.store.state import project_root_for
from agent_doc.store.state import read_document
from agent_doc.write.outcome import normalize_text
from agent_doc.write.patch_time import patch_time

URL_ENV = "AGENT_DOC_SHARE_URL"
"""Environment variable: the room (or server) URL when ``--room`` is not given."""
TOKEN_ENV = "AGENT_DOC_SHARE_TOKEN"
"""Environment variable: the token when ``--token-file`` is not given."""

declare_points(
    {
        "room.write.before_transaction": "answer computed, nothing sent to the room",
        "room.write.after_ack": "the room applied text, snapshot and id; "
        "the host's state not moved yet",
    }
)


PROJECTION_WAIT_S = 15.0
"""Seconds a local answer waits for serve to merge it into the room."""
PROJECTION_POLL_S = 0.2
"""Seconds between two looks at the file while waiting for the room."""


@dataclass(frozen=True)
class RoomOutcome:
    """What a remote write did."""

    url: str
    """The room written to."""
    before: str
    """The room's text when the writer joined."""
    after: str
    """The text the writer turned it into."""
    edits: int
    """How many regions changed (0: nothing to write)."""
    ours: str | None = None
    """For a write: the baseline with the response applied (``content_ours``,
    what a local write keeps as the snapshot), before the merge with the room."""
    already: bool = False
    """The answer had landed before (its id is in the room): nothing written."""


def room_target(
    file: Path, room: str | None, token_file: Path | None
) -> RoomTarget | None:
    """The room a write of ``file`` goes to, or ``None`` for a local write.

    ``room`` (else ``$AGENT_DOC_SHARE_URL``) is a room URL, or a server URL
    without a path, completed with ``file``'s session id. The token comes from
    ``token_file``, else ``$AGENT_DOC_SHARE_TOKEN``.
    """
    url = room or os.environ.get(URL_ENV, "")
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.netloc:
        raise ShareError(f"not a room URL (ws://host:port/<session id>): {url}")
    if parts.query:
        raise ShareError(
            "a room URL takes no query string (send the token with --token-file)"
        )
    if parts.path in ("", "/"):
        url = url.rstrip("/") + "/" + session_id_of(file)
    token = (
        read_token_file(token_file) if token_file else os.environ.get(TOKEN_ENV) or None
    )
    return RoomTarget(url, token)


def write_to_room(
    target: RoomTarget,
    file: Path,
    response: str,
    baseline: str | None = None,
    *,
    holder: str | None = None,
) -> RoomOutcome:
    """Apply an agent response to the room's document (as ``agent-doc write``).

    Without ``baseline`` the response applies to the room's current text; with
    it, the response applies to ``baseline`` and is merged with what the room
    holds now (the edits peers made meanwhile survive). The room's snapshot
    becomes the baseline with the response applied, in the same transaction
    as the text; with ``baseline`` the answer's id too, and an answer whose id
    the room has already landed is not written again (``edits`` 0,
    ``already`` set). Without ``baseline`` the answer's id is the response
    and the snapshot it left (:func:`result_id`): retried while the room's
    snapshot is still that one (no answer landed since), it is not written
    again either. With ``holder`` (``run --room``'s claim of the
    room's turn) the answer lands only while the room's lease is still that
    claim's; otherwise :class:`ShareError` and nothing is written.
    """
    if not response.strip():
        raise PatchError("empty response — nothing to write")
    configs = load_component_configs(project_root_for(Path(file)))
    answer = answer_id(normalize_text(baseline), response) if baseline else None

    def compute(current: str) -> tuple[str, str]:
        base = current if baseline is None else normalize_text(baseline)
        ours = build_content_ours(base, response, configs)
        for warning in patch_block_warnings(response, base):
            _warn(warning)
        merged = ours if base == current else merge_texts(base, ours, current).text
        return merged, ours

    import anyio

    try:
        return anyio.run(_land_answer, target, compute, answer, holder, response)
    except Exception as exc:
        raise room_failure(exc, target.url) from None


async def _land_answer(
    target: RoomTarget,
    compute: Callable[[str], tuple[str, str]],
    answer: str | None,
    holder: str | None,
    response: str,
) -> RoomOutcome:
    """Join, check the lease and the answer's id, write text, snapshot and id,
    wait for the ack."""
    async with RoomLink(target) as link:
        before = link.current()
        lease = current_lease(link.doc)
        if holder is not None and (lease is None or lease.id != holder):
            now = f"; {lease.host} pid {lease.pid} holds it now" if lease else ""
            raise ShareError(
                f"{target.url}: this run's turn was taken back (no renewal "
                f"within its lease{now}), its answer is not written"
            )
        snapshot = room_snapshot(link.doc)
        if answer is None and snapshot is not None:  # a retry left this snapshot
            retry: str | None = result_id(snapshot, response)
        else:
            retry = answer
        if retry is not None and has_landed(link.doc, retry):
            return RoomOutcome(
                target.url, before, before, 0, snapshot or before, already=True
            )
        after, ours = compute(before)
        answer = answer or result_id(ours, response)
        crash_point("room.write.before_transaction")
        sent = link.updates_sent
        edits = link.change_to(after, landing=(ours, answer))
        await link.settled(sent)
        crash_point("room.write.after_ack")
    return RoomOutcome(target.url, before, after, edits, ours)


def record_room_snapshot(
    target: RoomTarget,
    snapshot: str,
    *,
    projected: Path | None = None,
    wait_s: float = PROJECTION_WAIT_S,
) -> bool:
    """Make ``snapshot`` the room's snapshot (what the agent has seen), its
    text unchanged: an answer that reached the room's file another way (an
    editor's turn written to disk, a local turn of a file serve shares).

    With ``projected`` (the file this host's ``serve`` projects the room to,
    holding the answer) the snapshot is set only once the room's text is the
    file's (serve merged the answer in): never a snapshot ahead of the text.
    Returns ``False`` when that did not happen within ``wait_s`` seconds
    (nothing set)."""
    import anyio

    async def record() -> bool:
        async with RoomLink(target) as link:
            if projected is not None and not await _holds_file(link, projected, wait_s):
                return False
            sent = link.updates_sent
            link.change_to(link.current(), landing=(snapshot, None))
            await link.settled(sent)
            return True

    try:
        return anyio.run(record)
    except Exception as exc:
        raise room_failure(exc, target.url) from None


async def _holds_file(link: RoomLink, file: Path, wait_s: float) -> bool:
    """Wait (at most ``wait_s``) until the room's text is ``file``'s."""
    import anyio

    changed = anyio.Event()

    def on_change(_event: object) -> None:
        changed.set()

    subscription = link.doc.observe(on_change)
    try:
        with anyio.move_on_after(wait_s):
            while link.current() != read_document(file).text:
                with anyio.move_on_after(PROJECTION_POLL_S):  # or the file moves
                    await changed.wait()
                changed = anyio.Event()
            return True
        return False
    finally:
        link.doc.unobserve(subscription)


def patch_in_room(
    target: RoomTarget,
    file: Path,
    component: str,
    content: str,
    mode: str | None = None,
) -> RoomOutcome:
    """Patch one component of the room's document (as ``agent-doc patch``).

    The component hooks (pre_patch/post_patch) are not run for a room.
    """
    if not is_valid_name(component):
        raise PatchError(f"invalid component name '{component}'")
    configs = load_component_configs(project_root_for(Path(file)))
    config = configs.get(component)
    if config is not None and (config.pre_patch or config.post_patch):
        _warn(f"{component}: pre_patch/post_patch hooks are not run for a room")
    now = patch_time(configs, component)
    return edit_room(
        target,
        lambda text: apply_component_patch(
            text, component, content, configs, mode=mode, now=now
        ),
    )


def _warn(message: str) -> None:
    sys.stderr.write(f"warning: {message}\n")


def edit_room(target: RoomTarget, compute: Callable[[str], str]) -> RoomOutcome:
    """Join the room, turn its text into ``compute(text)``, wait for the ack."""
    import anyio

    try:
        return anyio.run(_edit_room, target, compute)
    except Exception as exc:
        raise room_failure(exc, target.url) from None


async def _edit_room(target: RoomTarget, compute: Callable[[str], str]) -> RoomOutcome:
    async with RoomLink(target) as link:
        before = link.current()
        after = compute(before)
        sent = link.updates_sent
        edits = link.change_to(after)
        if edits:
            await link.settled(sent)
    return RoomOutcome(target.url, before, after, edits)


def read_room(target: RoomTarget) -> str:
    """The room's current text (join as a reader, read, leave).

    Raises :class:`~agent_doc.errors.ShareError` when the room is refused or
    unreachable: ``run --room`` calls this before it pays the agent.
    """
    return read_room_turn(target)[0]


def read_room_turn(target: RoomTarget) -> tuple[str, str | None]:
    """The room's text and its snapshot (what the agent has seen; ``None``
    before the first answer), read together."""
    import anyio

    async def read() -> tuple[str, str | None]:
        async with RoomLink(target, writing=False) as link:
            return link.current(), room_snapshot(link.doc)

    try:
        return anyio.run(read)
    except Exception as exc:
        raise room_failure(exc, target.url) from None
