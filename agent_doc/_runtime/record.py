"""Value records without :mod:`typing` at run time.

A ``typing.NamedTuple`` costs the process ``import typing`` (about 7 ms of CPU
on the 2-core machine of docs/benchmarks.md) and about 0.24 ms to create each
class, against 0.02 ms for a plain class with ``__slots__``; the per-turn
commands import some fifty records. So a record on their path is a plain class:
its ``__slots__`` name the fields in order, a hand-written ``__init__`` gives
them their types (mypy checks it as any class), and :class:`Record` adds what a
named tuple gave its callers — equality and hashing by value, a readable
``repr``, ``_asdict`` and ``_replace``. A record is not a tuple: it does not
unpack or index, so a caller names the field it reads.

Records are values: nothing assigns to a field after ``__init__`` (mypy's
``Final`` is not used, to keep ``__init__`` plain); :meth:`Record._replace`
makes a changed copy. A record's ``__slots__`` hold all its fields: records do
not inherit from one another.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any
    from typing import TypeVar

    R = TypeVar("R", bound="Record")


class Record:
    """Base of a value record: equality, hash, repr and named-tuple helpers from
    the subclass's ``__slots__`` (its fields, in order)."""

    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self).__name__, *self._values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def _asdict(self) -> dict[str, Any]:
        """The fields by name, in order (as a named tuple's ``_asdict``)."""
        return {name: getattr(self, name) for name in self.__slots__}

    def _replace(self: R, **changes: Any) -> R:
        """A copy with ``changes`` applied (as a named tuple's ``_replace``)."""
        unknown = set(changes) - set(self.__slots__)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)}")
        new = object.__new__(type(self))
        for name in self.__slots__:
            object.__setattr__(new, name, changes.get(name, getattr(self, name)))
        return new
