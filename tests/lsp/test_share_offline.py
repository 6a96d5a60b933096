"""An editor offline for 30 s while both sides type, through the real servers.

Issue 29, item 6: a real ``agent-doc serve``; editor A is the real language
server (``sync`` through :class:`~tests.share.proxy.FaultyProxy`), editor B an
editor peer (:class:`~agent_doc.share.peer.RoomPeer`) connected directly. The
proxy refuses A for 30 s while A and B type at a human pace (10 chars/s), on
their own lines and then on the same line. After A reconnects and all is
quiet, A's buffer, B's text, the room, the server's file and its store are
byte-identical, and every typed character is there exactly once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import position_of
from tests.lsp.test_share_sync import label
from tests.lsp.test_share_sync import sharing_editor
from tests.share.proxy import FaultyProxy
from tests.share.rooms import DOC
from tests.share.rooms import SESSION
from tests.share.rooms import ServeProcess
from tests.share.rooms import peer
from tests.share.rooms import serving
from tests.share.rooms import stored_text
from tests.share.rooms import token_of
from tests.share.rooms import wait_file
from tests.share.test_peer import Running
from tests.share.test_peer import joined

pytestmark = pytest.mark.timeout(150)

OUTAGE_S = 30.0
RATE = 10.0  # chars/s: a person typing
A_OWN = "alpha types on the question line while offline, one key at a time"
B_OWN = "bravo keeps typing on the status line, online all along"
A_SAME = " [alpha, same line]"
B_SAME = " [bravo, same line]"


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    with serving(project) as server:
        yield server


async def at_pace(chars: str, type_key: Callable[[int, str], None]) -> None:
    """Call ``type_key(i, ch)`` for each key on a 10 chars/s schedule."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    for i, ch in enumerate(chars):
        await asyncio.sleep(max(0.0, start + i / RATE - loop.time()))  # the pace
        type_key(i, ch)


def editor_keys(editor: Editor, uri: str, after: str) -> Callable[[int, str], None]:
    """Keystrokes in A's buffer after the first ``after`` (didChange each)."""

    def key(i: int, ch: str) -> None:
        text = editor.text(uri)
        pos = position_of(text, text.index(after) + len(after) + i, editor.encoding)
        editor.type(uri, pos.line, pos.character, ch)

    return key


def peer_keys(bob: Running, after: str) -> Callable[[int, str], None]:
    """Keystrokes in B's text after the first ``after`` (a transaction each)."""

    def key(i: int, ch: str) -> None:
        old = bob.peer.current()
        at = old.index(after) + len(after) + i
        bob.peer.apply_local(old, old[:at] + ch + old[at:])

    return key


async def both(*typing: Awaitable[None]) -> None:
    await asyncio.gather(*typing)


def expected_texts() -> set[str]:
    """The converged document: both runs on the same line in either order
    (Yjs orders the two concurrent runs by client id, each run kept whole)."""
    own = DOC.replace("What is", "What is" + A_OWN, 1).replace(
        "idle", "idle" + B_OWN, 1
    )
    return {
        own.replace("# Pairing", "# Pairing" + first + second, 1)
        for first, second in ((A_SAME, B_SAME), (B_SAME, A_SAME))
    }


async def test_an_editor_offline_for_30_s_while_both_type_converges_once(
    client: LanguageClient, served: ServeProcess
) -> None:
    project = served.root
    token = token_of(project)
    uri = (project / "pair.md").as_uri()
    loop = asyncio.get_running_loop()
    async with FaultyProxy(served.url) as proxy:
        alice, statuses = await sharing_editor(client, project, proxy.url)
        async with joined(served.room(), token, "bravo") as bob:
            await label(alice, statuses, "shared · 1 peer")
            await bob.label("shared · 1 peer")
            proxy.down = True  # every reconnect is refused until it comes back
            proxy.cut()
            cut_at = loop.time()
            await label(alice, statuses, "offline")
            await bob.label("shared · 0 peers")  # the server cleared A
            seen = len(statuses)
            await both(  # own lines
                at_pace(A_OWN, editor_keys(alice, uri, "What is")),
                at_pace(B_OWN, peer_keys(bob, "idle")),
            )
            await both(  # the same line, the same place
                at_pace(A_SAME, editor_keys(alice, uri, "# Pairing")),
                at_pace(B_SAME, peer_keys(bob, "# Pairing")),
            )
            assert B_OWN not in alice.text(uri)  # A really was offline
            assert A_OWN not in bob.peer.current()
            await asyncio.sleep(max(0.0, cut_at + OUTAGE_S - loop.time()))  # outage
            assert {s["label"] for s in statuses[seen:]} <= {"offline"}
            offline_for = loop.time() - cut_at
            proxy.down = False
            await label(alice, statuses, "shared · 1 peer")  # backoff: ≤ 10 s
            await bob.label("shared · 1 peer")
            await alice.wait_for(
                lambda: (
                    alice.text(uri) in expected_texts()
                    and bob.peer.current() == alice.text(uri)
                ),
                30,
                f"convergence (A: {alice.text(uri)!r}, B: {bob.peer.current()!r})",
            )
            final = alice.text(uri)
            async with peer(served.room(), token) as carol:  # the room itself
                assert str(carol.text) == final
    assert offline_for >= OUTAGE_S
    assert await wait_file(project / "pair.md", lambda t: t == final) == final
    assert served.stop() == 0
    db = project / ".agent-doc" / "share" / "rooms" / f"{SESSION}.db"
    assert await stored_text(db) == final
    for run in (A_OWN, B_OWN, A_SAME, B_SAME):
        assert final.count(run) == 1, final
    typed = len(A_OWN) + len(B_OWN) + len(A_SAME) + len(B_SAME)
    assert len(final) == len(DOC) + typed
