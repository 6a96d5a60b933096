"""The server decides who holds a room's turn (one :class:`LeaseArbiter` per room).

Hosts ask for the turn by adding a claim to the room's claims map
(:mod:`agent_doc.share.turn_state`); Yjs merges concurrent writes without an
order, so the decision is the server's, the one place every claim passes:
the lease goes to the claim the server saw first while no lease is live,
and stays with it until the claim is deleted (the turn ended) or its ``beat``
has not changed for the lease's ttl (the holder died: its lease is ended and
its claim deleted, and never granted again). Waiting claims then get the
lease in the order the server saw them (``run --wait`` queues). A server
restarted mid-turn gives a claim it finds the full ttl to beat again.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from agent_doc.share.turn_state import Claim
from agent_doc.share.turn_state import claims_map
from agent_doc.share.turn_state import current_lease
from agent_doc.share.turn_state import turn_map

logger = logging.getLogger(__name__)

LEASE_ENV = "AGENT_DOC_ROOM_LEASE_S"
"""Environment variable of ``serve``: the lease's ttl in seconds."""
DEFAULT_TTL = 30.0
"""Seconds without a beat before a holder loses the turn (it beats every
quarter of this)."""


def lease_ttl() -> float:
    """The ttl this server gives its leases (:data:`LEASE_ENV`, else the default)."""
    try:
        value = float(os.environ.get(LEASE_ENV, ""))
    except ValueError:
        return DEFAULT_TTL
    return value if value > 0 else DEFAULT_TTL


class LeaseArbiter:
    """Grants one room's turn (see the module docstring)."""

    def __init__(self, name: str, doc: Any, ttl: float | None = None) -> None:
        import anyio

        self.name = name
        """The room (for the log)."""
        self.doc = doc
        """The room's Yjs document."""
        self.ttl = ttl if ttl is not None else lease_ttl()
        """Seconds without a beat before a lease ends."""
        self._seen: dict[str, tuple[int, float]] = {}
        """Claim id → (its beat, when the server last saw it change)."""
        self._order: dict[str, int] = {}
        """Claim id → the order the server first saw it in."""
        self._next = 0
        """The order number of the next new claim."""
        self._expired: set[str] = set()
        """Claims whose lease expired: a holder that comes back (a stopped
        process continued) never gets the turn again with them."""
        self._changed = anyio.Event()
        self._subscription = claims_map(doc).observe(lambda _e: self._changed.set())

    async def run(self) -> None:
        """Decide whenever a claim changes, and when a lease may expire (forever)."""
        import anyio

        while True:
            try:
                self.decide(anyio.current_time())
            except Exception:
                logger.exception("room %s: deciding the turn failed", self.name)
            with anyio.move_on_after(max(self.ttl / 4, 0.05)):
                await self._changed.wait()
            self._changed = anyio.Event()

    def decide(self, now: float) -> None:
        """Bring the lease up to the claims as they are at ``now``."""
        claims = claims_map(self.doc)
        live: dict[str, Claim] = {}
        stale = [key for key in claims if key in self._expired]
        if stale:
            with self.doc.transaction():
                for key in stale:
                    del claims[key]
        for key, raw in list(claims.items()):
            claim = Claim.decode(raw)
            if claim is None:
                continue
            beat, _ = self._seen.get(key, (claim.beat - 1, now))
            if claim.beat != beat:
                self._seen[key] = (claim.beat, now)
            live[key] = claim
        # claims new since the last decision queue in the order of their
        # ``since`` (the server saw them at once: no order of its own)
        new = sorted((c.since, k) for k, c in live.items() if k not in self._order)
        for _since, key in new:
            self._order[key] = self._next
            self._next += 1
        for key in list(self._seen):
            if key not in live:
                self._seen.pop(key)
                self._order.pop(key, None)
        lease = current_lease(self.doc)
        holder = live.get(lease.id) if lease is not None else None
        if holder is not None and now - self._seen[holder.id][1] <= self.ttl:
            return
        with self.doc.transaction():
            if holder is not None:  # it stopped beating: its process is gone
                logger.info(
                    "room %s: the turn of pid %d on %s expired",
                    self.name,
                    holder.pid,
                    holder.host,
                )
                del claims[holder.id]
                live.pop(holder.id)
                self._expired.add(holder.id)
            waiting = sorted(live, key=lambda key: self._order[key])
            if waiting:
                granted = live[waiting[0]]
                lease_text = Claim(
                    granted.id,
                    granted.host,
                    granted.pid,
                    granted.command,
                    granted.since,
                    granted.beat,
                    self.ttl,
                ).encode()
                turn_map(self.doc)["lease"] = lease_text
                self._seen[granted.id] = (granted.beat, now)
            elif lease is not None:
                turn_map(self.doc)["lease"] = ""

    def close(self) -> None:
        """Stop observing the claims."""
        claims_map(self.doc).unobserve(self._subscription)
