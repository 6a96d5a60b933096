"""A peer's outbox: updates queued behind a slow write go out merged, in order.

The server writes each peer's messages from one task
(:class:`agent_doc.share.outbox.Outbox`); what queued up while a write was in
flight goes out next, each run of updates as one merged update. Driven with a
writer the test holds open, so "queued while writing" is certain, not timing.
"""

from __future__ import annotations

import anyio
import pycrdt
import pytest
from pycrdt import create_awareness_message
from pycrdt import create_sync_message
from pycrdt import create_update_message

from agent_doc.share.outbox import Outbox
from agent_doc.share.outbox import coalesce
from agent_doc.share.outbox import is_update

pytestmark = pytest.mark.timeout(30)


def typed_updates(text: str) -> list[bytes]:
    """One Yjs update message per character typed into an empty text."""
    doc: pycrdt.Doc = pycrdt.Doc()
    ytext = doc.get("content", type=pycrdt.Text)
    updates: list[bytes] = []
    doc.observe(lambda event: updates.append(create_update_message(event.update)))
    for char in text:
        ytext += char  # typed at the end
    return updates


def replayed(messages: list[bytes]) -> str:
    """The text a fresh document holds after applying the update messages."""
    doc: pycrdt.Doc = pycrdt.Doc()
    ytext = doc.get("content", type=pycrdt.Text)
    for message in messages:
        assert is_update(message)
        doc.apply_update(pycrdt.read_message(message[2:]))
    return str(ytext)


AWARENESS = create_awareness_message(b"\x00")
SYNC_STEP1 = create_sync_message(pycrdt.Doc())


def test_a_run_of_updates_becomes_one_update_with_the_same_text() -> None:
    updates = typed_updates("héllo 😀")
    merged = coalesce(updates)
    assert len(merged) == 1
    assert replayed(merged) == replayed(updates) == "héllo 😀"


def test_other_messages_keep_their_place_between_merged_runs() -> None:
    first, second = typed_updates("ab"), typed_updates("cd")
    messages = [*first, AWARENESS, SYNC_STEP1, *second]
    out = coalesce(messages)
    assert out[1:3] == [AWARENESS, SYNC_STEP1]
    assert len(out) == 4
    assert replayed([out[0]]) == "ab"
    assert replayed([out[3]]) == "cd"


def test_a_lone_message_goes_out_as_it_came() -> None:
    (one,) = typed_updates("x")
    assert coalesce([one]) == [one]
    assert coalesce([AWARENESS]) == [AWARENESS]


def test_updates_that_cannot_be_decoded_pass_unmerged() -> None:
    broken = [b"\x00\x02\x05ab", b"\x00\x02\x00"]
    assert coalesce(broken) == broken


async def test_updates_queued_behind_a_slow_write_go_out_as_one() -> None:
    written: list[bytes] = []
    entered, release, three = anyio.Event(), anyio.Event(), anyio.Event()

    async def slow_write(message: bytes) -> None:
        written.append(message)
        if len(written) == 3:
            three.set()
        if len(written) == 1:
            entered.set()
            await release.wait()  # the socket is slow: the next keys queue up

    outbox = Outbox(slow_write)
    updates = typed_updates("hello")
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(outbox.pump)
        outbox.put(updates[0])
        await entered.wait()
        for message in updates[1:]:
            outbox.put(message)
        outbox.put(AWARENESS)
        release.set()
        with anyio.fail_after(5):
            await three.wait()
        await anyio.sleep(0.05)  # nothing more is written after those three
        tasks.cancel_scope.cancel()
    assert written[0] == updates[0]
    assert written[2] == AWARENESS
    assert replayed(written[:2]) == "hello"
    assert outbox.writes == 3  # 6 messages, 3 socket writes


async def test_a_failed_write_drops_what_follows_without_raising() -> None:
    attempts: list[bytes] = []

    async def gone(message: bytes) -> None:
        attempts.append(message)
        raise OSError("client disconnected")

    outbox = Outbox(gone)
    outbox.put(AWARENESS)
    with anyio.fail_after(5):
        await outbox.pump()  # returns once the socket is known gone
    outbox.put(AWARENESS)
    assert outbox.closed
    assert attempts == [AWARENESS]
    assert outbox.writes == 0
