"""The server's decision of a room's turn (:class:`LeaseArbiter`), on a real
Yjs document with the clock given: first claim wins, queue order, expiry."""

from __future__ import annotations

from typing import Any

import pycrdt
import pytest

from agent_doc.share.lease_arbiter import LeaseArbiter
from agent_doc.share.turn_state import Claim
from agent_doc.share.turn_state import claims_map
from agent_doc.share.turn_state import current_lease

TTL = 10.0


@pytest.fixture
async def room() -> tuple[pycrdt.Doc[Any], LeaseArbiter]:
    doc: pycrdt.Doc[Any] = pycrdt.Doc()
    return doc, LeaseArbiter("room", doc, ttl=TTL)


def claim(doc: pycrdt.Doc[Any], key: str, beat: int = 0) -> None:
    claims_map(doc)[key] = Claim(key, "box", 100, "run", 1.0, beat).encode()


def holder(doc: pycrdt.Doc[Any]) -> str | None:
    lease = current_lease(doc)
    return None if lease is None else lease.id


async def test_the_first_claim_seen_holds_and_the_next_waits_in_order(
    room: tuple[pycrdt.Doc[Any], LeaseArbiter],
) -> None:
    doc, arbiter = room
    claim(doc, "a")
    arbiter.decide(0.0)
    claim(doc, "c")
    arbiter.decide(1.0)
    claim(doc, "b")
    arbiter.decide(1.5)
    assert holder(doc) == "a"
    lease = current_lease(doc)
    assert lease is not None
    assert lease.ttl == TTL
    del claims_map(doc)["a"]  # a's turn ended
    arbiter.decide(2.0)
    assert holder(doc) == "c"  # seen before b
    del claims_map(doc)["c"]
    del claims_map(doc)["b"]
    arbiter.decide(3.0)
    assert holder(doc) is None


async def test_a_holder_that_beats_keeps_the_turn_one_that_stops_loses_it(
    room: tuple[pycrdt.Doc[Any], LeaseArbiter],
) -> None:
    doc, arbiter = room
    claim(doc, "a")
    arbiter.decide(0.0)
    claim(doc, "b")
    for beat, now in enumerate((8.0, 16.0, 24.0), start=1):
        claim(doc, "a", beat)
        arbiter.decide(now)
        assert holder(doc) == "a"
    arbiter.decide(24.0 + TTL)  # exactly the ttl: still held
    assert holder(doc) == "a"
    arbiter.decide(24.0 + TTL + 0.1)
    assert holder(doc) == "b"
    assert "a" not in claims_map(doc)  # the dead holder's claim is deleted
    claim(doc, "a", 9)  # it comes back (a stopped process continued)
    del claims_map(doc)["b"]
    arbiter.decide(40.0)
    assert holder(doc) is None  # never granted again
    assert "a" not in claims_map(doc)
