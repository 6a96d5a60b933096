"""Whether a document names an item list (``agent:backlog``/``agent:icebox``)
is answered the same by the whole search and by the search past the prefix it
shares with the snapshot (whose first name its index remembers): random
snapshots and edits over a few bytes that make names, cut names and names
deleted or made by an edit, at any shared length up to the real one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.cycle.preflight_utf8 import names_past
from agent_doc.document.linediff import common_prefix
from agent_doc.document.snap_scan import first_name

BITS = [b"agent:", b"backlog", b"icebox", b"agent:backlog", b"agent:icebox",
        b"agent:back", b"log", b"ice", b"box", b"agen", b"t:", b"a", b"\n", b"x"]  # fmt: skip
texts = st.lists(st.sampled_from(BITS), max_size=30).map(b"".join)


@st.composite
def edited(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """A snapshot and the document: the snapshot with a few ranges deleted
    or replaced and pieces inserted."""
    snapshot = draw(texts)
    document = snapshot
    for _ in range(draw(st.integers(1, 3))):
        lo = draw(st.integers(0, len(document)))
        hi = draw(st.integers(lo, min(len(document), lo + 20)))
        document = document[:lo] + draw(texts) + document[hi:]
    return snapshot, document


def _names(data: bytes) -> bool:
    """The plain search (what ``preflight`` did on the whole document)."""
    return b"agent:backlog" in data or b"agent:icebox" in data


@settings(max_examples=3000, deadline=None)
@given(pair=st.one_of(edited(), st.tuples(texts, texts)), data=st.data())
def test_the_search_past_the_shared_prefix_is_the_whole_search(
    pair: tuple[bytes, bytes], data: st.DataObject
) -> None:
    snapshot, document = pair
    same = common_prefix(snapshot, document)
    shared = data.draw(st.sampled_from([same, *range(same + 1)]))
    names_at = first_name(snapshot)
    assert (first_name(document) >= 0) is _names(document)
    assert names_past(document, names_at, shared) is _names(document)
    assert names_past(document, None, shared) is _names(document)  # not known


def test_a_name_deleted_cut_or_made_at_the_edge() -> None:
    snapshot = b"intro\nagent:backlog\nmiddle\ntail\n"
    at = snapshot.index(b"agent:backlog")
    # deleted: the only name was past the shared prefix
    document = snapshot[:at] + snapshot[at + len(b"agent:backlog") :]
    same = common_prefix(snapshot, document)
    assert not names_past(document, at, same)
    # cut by the edge: the shared prefix ends inside the snapshot's name
    document = snapshot[: at + 8] + b"X" + snapshot[at + 9 :]
    assert not names_past(document, at, common_prefix(snapshot, document))
    # made across the edge: half was shared, half typed
    plain = b"intro\nagent:\n"
    document = b"intro\nagent:icebox\n"
    assert names_past(document, first_name(plain), common_prefix(plain, document))
    # kept: wholly in the shared prefix, found without searching past it
    document = snapshot + b"typed\n"
    assert names_past(document, at, common_prefix(snapshot, document))
