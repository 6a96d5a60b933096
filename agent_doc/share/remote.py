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
disconnects. No file of the writer's host is written: its copy of the
document only names the room (its session id) and holds the component
configuration.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

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
from agent_doc.share.room_link import RoomLink
from agent_doc.share.room_link import RoomTarget
from agent_doc.share.room_link import room_failure
from agent_doc.store.state import project_root_for
from agent_doc.write.outcome import normalize_text
from agent_doc.write.patch_time import patch_time

URL_ENV = "AGENT_DOC_SHARE_URL"
"""Environment variable: the room (or server) URL when ``--room`` is not given."""
TOKEN_ENV = "AGENT_DOC_SHARE_TOKEN"
"""Environment variable: the token when ``--token-file`` is not given."""


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
    target: RoomTarget, file: Path, response: str, baseline: str | None = None
) -> RoomOutcome:
    """Apply an agent response to the room's document (as ``agent-doc write``).

    Without ``baseline`` the response applies to the room's current text; with
    it, the response applies to ``baseline`` and is merged with what the room
    holds now (the edits peers made meanwhile survive).
    """
    if not response.strip():
        raise PatchError("empty response — nothing to write")
    configs = load_component_configs(project_root_for(Path(file)))
    built: list[str] = []

    def compute(current: str) -> str:
        base = current if baseline is None else normalize_text(baseline)
        ours = build_content_ours(base, response, configs)
        built.append(ours)
        for warning in patch_block_warnings(response, base):
            _warn(warning)
        return ours if base == current else merge_texts(base, ours, current).text

    return replace(edit_room(target, compute), ours=built[-1])


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
    import anyio

    async def read() -> str:
        async with RoomLink(target, writing=False) as link:
            return link.current()

    try:
        return anyio.run(read)
    except Exception as exc:
        raise room_failure(exc, target.url) from None
