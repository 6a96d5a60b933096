"""A second editor's room peer as its own process (``kill -9`` takes it down).

Usage: ``python -m tests.share.peer_process URL TOKEN NAME``. It joins the
room as :class:`agent_doc.share.peer.RoomPeer` with the user name ``NAME`` and
prints one JSON line per status it reaches: ``{"label", "presence"}`` (the
other peers, as the language server sends them). Lines on stdin move its
cursor: ``LINE CHARACTER`` (``-`` hides it).
"""

from __future__ import annotations

import json
import sys

import anyio

from agent_doc.share.peer import PeerStatus
from agent_doc.share.peer import RoomPeer


def _report(status: PeerStatus) -> None:
    presence = [p.to_json() for p in status.present]
    print(json.dumps({"label": status.label(), "presence": presence}), flush=True)


async def _read_cursors(peer: RoomPeer) -> None:
    stream = anyio.wrap_file(sys.stdin)
    async for line in stream:
        words = line.split()
        if words == ["-"]:
            peer.set_cursor(None)
        elif len(words) == 2:
            peer.set_cursor((int(words[0]), int(words[1])))
    peer.close()


async def main(url: str, token: str, name: str) -> None:
    """Run the peer until stdin closes."""
    peer = RoomPeer(
        url, lambda: token, on_remote=lambda _t: None, on_status=_report, user=name
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(_read_cursors, peer)
        await peer.run()
        tg.cancel_scope.cancel()


if __name__ == "__main__":
    anyio.run(main, *sys.argv[1:4])
