""":class:`~agent_doc._runtime.record.Record`: what a named tuple gave its
callers (equality and hash by value, repr, ``_asdict``, ``_replace``) from a
plain class's ``__slots__``."""

from __future__ import annotations

import pytest

from agent_doc._runtime.record import Record
from agent_doc.document.boundary import Boundary
from agent_doc.tmux.registry import SessionEntry


class Point(Record):
    __slots__ = ("x", "y")

    def __init__(self, x: int, y: int = 0) -> None:
        self.x = x
        self.y = y


class Other(Record):
    __slots__ = ("x", "y")

    def __init__(self, x: int, y: int = 0) -> None:
        self.x = x
        self.y = y


def test_records_compare_and_hash_by_value_and_type() -> None:
    assert Point(1, 2) == Point(1, 2)
    assert Point(1, 2) != Point(1, 3)
    assert Point(1, 2) != Other(1, 2)  # same fields, another record
    assert Point(1, 2) != (1, 2)  # not a tuple
    assert len({Point(1, 2), Point(1, 2), Point(2, 1)}) == 2


def test_repr_asdict_and_replace() -> None:
    point = Point(1, 2)
    assert repr(point) == "Point(x=1, y=2)"
    assert point._asdict() == {"x": 1, "y": 2}
    moved = point._replace(y=5)
    assert (moved, point) == (Point(1, 5), Point(1, 2))  # a copy; the original stays
    with pytest.raises(TypeError, match="no field"):
        point._replace(z=1)


def test_a_record_does_not_unpack_or_take_new_attributes() -> None:
    with pytest.raises(TypeError):
        _x, _y = Point(1, 2)  # type: ignore[misc]
    with pytest.raises(AttributeError):
        Point(1).z = 3  # type: ignore[attr-defined]


def test_the_converted_records_keep_their_fields() -> None:
    boundary = Boundary(0, 10, "abc")
    assert boundary._asdict() == {"start": 0, "end": 10, "id": "abc"}
    entry = SessionEntry(pane="%1")  # defaults as the named tuple had them
    assert entry._replace(socket="s").pane == "%1"
