"""The turn a room carries beside its text: snapshot, landed answers, lease.

Every host and editor of a shared document reads the same turn from the
room's Yjs document, never from a file of its own host:

- :data:`TURN_MAP` ``"snapshot"``: the text the agent has seen (the last
  answer's ``content_ours``); the next ``run --room`` diffs against it;
- :data:`TURN_MAP` ``"landed"``: the ids of the answers landed last (JSON
  list), so a retried write of the same answer is a no-op;
- :data:`TURN_MAP` ``"lease"``: who answers now (JSON: claim id, host, pid,
  command, since, ttl), written by the server only
  (:mod:`agent_doc.share.lease_arbiter`);
- :data:`CLAIMS_MAP`: every host's request for the turn, by claim id (JSON:
  host, pid, command, since, beat); the holder's ``beat`` grows while it
  answers, and a request is deleted when its turn ends or is given up.

An answer's text, its snapshot and its id change in one Yjs transaction
(:func:`record_landing`): a room never holds the answer without them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

TURN_MAP = "agent-doc-turn"
"""The Y.Map of the room's turn (snapshot, landed ids, lease)."""
CLAIMS_MAP = "agent-doc-claims"
"""The Y.Map of the hosts' requests for the turn, by claim id."""
LANDED_KEPT = 64
"""How many landed answer ids a room remembers."""


def answer_id(baseline: str | None, response: str) -> str:
    """The identity of an answer: the response and the text it answered."""
    digest = hashlib.sha256()
    digest.update((baseline if baseline is not None else "\0none").encode())
    digest.update(b"\0")
    digest.update(response.encode())
    return digest.hexdigest()[:24]


def result_id(snapshot: str, response: str) -> str:
    """The identity of an answer written without its baseline (``write --room``
    on the room's text): the response and the snapshot it left. A retry
    finds the room's snapshot still the one it left, so the same id."""
    return answer_id("\0result\0" + snapshot, response)


@dataclass(frozen=True, slots=True)
class Claim:
    """One host's request for (or hold of) a room's turn."""

    id: str
    host: str
    pid: int
    command: str
    since: float
    beat: int = 0
    ttl: float = 0.0
    """Set in a lease: seconds without a beat before the server ends it."""

    def encode(self) -> str:
        """The claim as the JSON string kept in the room."""
        return json.dumps(
            {
                "id": self.id,
                "host": self.host,
                "pid": self.pid,
                "command": self.command,
                "since": self.since,
                "beat": self.beat,
                "ttl": self.ttl,
            }
        )

    @classmethod
    def decode(cls, raw: object) -> Claim | None:
        """A claim from its JSON string (``None``: empty or unreadable)."""
        if not isinstance(raw, str) or not raw:
            return None
        try:
            data = json.loads(raw)
            return cls(
                str(data["id"]),
                str(data.get("host", "")),
                int(data.get("pid", 0)),
                str(data.get("command", "")),
                float(data.get("since", 0.0)),
                int(data.get("beat", 0)),
                float(data.get("ttl", 0.0)),
            )
        except (ValueError, KeyError, TypeError):
            return None


def turn_map(doc: Any) -> Any:
    """The room's :data:`TURN_MAP`."""
    from pycrdt import Map

    return doc.get(TURN_MAP, type=Map)


def claims_map(doc: Any) -> Any:
    """The room's :data:`CLAIMS_MAP`."""
    from pycrdt import Map

    return doc.get(CLAIMS_MAP, type=Map)


def room_snapshot(doc: Any) -> str | None:
    """The text the agent has seen, or ``None`` (no answer landed yet)."""
    value = turn_map(doc).get("snapshot")
    return value if isinstance(value, str) else None


def landed_ids(doc: Any) -> list[str]:
    """The ids of the answers landed last, oldest first."""
    raw = turn_map(doc).get("landed")
    try:
        ids = json.loads(raw) if isinstance(raw, str) else []
    except ValueError:
        return []
    return [str(i) for i in ids] if isinstance(ids, list) else []


def has_landed(doc: Any, answer: str) -> bool:
    """Whether the answer with id ``answer`` is in the room already."""
    return answer in landed_ids(doc)


def record_landing(doc: Any, snapshot: str, answer: str | None) -> None:
    """Set the snapshot and add ``answer`` to the landed ids (call it inside
    the transaction that writes the answer's text)."""
    turn = turn_map(doc)
    turn["snapshot"] = snapshot
    if answer is not None:
        ids = [i for i in landed_ids(doc) if i != answer] + [answer]
        turn["landed"] = json.dumps(ids[-LANDED_KEPT:])


def current_lease(doc: Any) -> Claim | None:
    """The claim holding the room's turn now (as the server last said)."""
    return Claim.decode(turn_map(doc).get("lease"))
