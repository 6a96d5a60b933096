"""Presence on pycrdt's public codec and API, without a server.

The server's side (:mod:`agent_doc.share.presence`) reads client ids and
clocks from pycrdt's own awareness messages and writes the "left" message
pycrdt reads back; a peer's side (:class:`agent_doc.share.peer_link.Presence`)
is seen again after a reconnect by a peer that was told it left, and sees
again a peer it forgot while offline, whatever clock that peer announces.
"""

from __future__ import annotations

from typing import Any

import pycrdt

from agent_doc.share.peer_link import Presence
from agent_doc.share.presence import removal_message
from agent_doc.share.presence import update_clocks


def _room_with(*states: tuple[int, dict[str, Any]]) -> pycrdt.Awareness:
    """A room's awareness that heard each ``(client, state)`` once."""
    room = pycrdt.Awareness(pycrdt.Doc(client_id=1))
    for client, state in states:
        peer = pycrdt.Awareness(pycrdt.Doc(client_id=client))
        peer.set_local_state(state)
        room.apply_awareness_update(peer.encode_awareness_update([client]), "x")
    return room


def test_ids_and_clocks_are_read_from_pycrdts_own_messages() -> None:
    room = _room_with((2**40, {"user": {"name": "ann"}}), (7, {"user": {}}))
    update = room.encode_awareness_update([2**40, 7])
    assert update_clocks(update) == {2**40: 1, 7: 1}
    message = pycrdt.create_awareness_message(update)
    assert list(update_clocks(pycrdt.read_message(message[1:]))) == [2**40, 7]


def test_the_removal_message_clears_the_states_where_pycrdt_reads_it() -> None:
    clocks = {2**40: 1, 7: 1}
    listener = _room_with((2**40, {"user": {"name": "ann"}}), (7, {"user": {}}))
    message = removal_message(clocks)
    assert message[0] == pycrdt.YMessageType.AWARENESS
    listener.apply_awareness_update(pycrdt.read_message(message[1:]), "server")
    assert set(listener.states) == {1}  # only its own placeholder is left
    assert update_clocks(pycrdt.read_message(message[1:])) == {2**40: 2, 7: 2}


def _peer(client: int, name: str) -> tuple[Presence, list[bytes]]:
    sent: list[bytes] = []
    presence = Presence(pycrdt.Doc(client_id=client), name)
    presence.send = sent.append
    return presence, sent


def _hear(listener: pycrdt.Awareness, sent: list[bytes]) -> None:
    for message in sent:
        listener.apply_awareness_update(pycrdt.read_message(message[1:]), "x")
    sent.clear()


def test_a_peer_back_after_its_left_message_is_seen_again() -> None:
    ann, sent = _peer(11, "ann")
    ann.connected()
    other = pycrdt.Awareness(pycrdt.Doc(client_id=12))
    _hear(other, sent)
    assert other.states[11]["user"]["name"] == "ann"
    # ann's socket closed: the server told the others she left, one clock on
    left = removal_message(update_clocks(other.encode_awareness_update([11])))
    other.apply_awareness_update(pycrdt.read_message(left[1:]), "server")
    assert 11 not in other.states
    ann.forget_others()
    ann.connected()  # the next connection
    _hear(other, sent)
    assert other.states[11]["user"]["name"] == "ann"


def test_a_peer_forgotten_while_offline_is_seen_again_at_the_same_clock() -> None:
    ann, _sent = _peer(11, "ann")
    shown: list[tuple[str, ...]] = []
    ann.on_change = lambda others: shown.append(tuple(p.name for p in others))
    bob = pycrdt.Awareness(pycrdt.Doc(client_id=12))
    bob.set_local_state({"user": {"name": "bob", "kind": "editor"}})
    announcement = pycrdt.create_awareness_message(bob.encode_awareness_update([12]))
    ann.connected()
    ann.received(announcement)
    ann.forget_others()  # offline: we cannot know who is there
    ann.connected()
    ann.received(announcement)  # bob's state did not change: the same clock
    assert shown == [("bob",), (), ("bob",)]
    assert [p.name for p in ann.others()] == ["bob"]


def test_a_newcomer_is_answered_with_our_state() -> None:
    ann, sent = _peer(11, "ann")
    ann.connected()
    sent.clear()
    bob = pycrdt.Awareness(pycrdt.Doc(client_id=12))
    bob.set_local_state({"user": {"name": "bob", "kind": "editor"}})
    ann.received(pycrdt.create_awareness_message(bob.encode_awareness_update([12])))
    assert list(update_clocks(pycrdt.read_message(sent[-1][1:]))) == [11]


def test_messages_while_offline_are_ignored() -> None:
    ann, _sent = _peer(11, "ann")
    bob = pycrdt.Awareness(pycrdt.Doc(client_id=12))
    bob.set_local_state({"user": {"name": "bob"}})
    ann.received(pycrdt.create_awareness_message(bob.encode_awareness_update([12])))
    assert ann.others() == ()
