"""Typing names for the type checker, with cheap stand-ins at run time.

Importing :mod:`typing` costs about 3 ms of every process (measured here: 2.8 ms
CPU over a bare interpreter), and a per-turn command such as ``agent-doc
write`` needs nothing from it at run time: annotations are never evaluated
(``from __future__ import annotations``). Modules on those paths import these
names from here instead. Type checkers see :mod:`typing` itself (everything
under ``TYPE_CHECKING``), so checking is unchanged; at run time:

- ``NamedTuple`` builds the class with :func:`collections.namedtuple` from the
  annotated fields and their defaults, then adds the class's methods,
  properties and docstring, as :class:`typing.NamedTuple` does;
- ``Generic[...]`` and ``Protocol`` are plain bases, ``TypeVar`` gives its
  name and ``cast`` returns its value.

Names only used in annotations (``Any``, ``Literal``, ``Callable``…) are imported
from :mod:`typing` under ``if TYPE_CHECKING:`` where they are used.
"""

from __future__ import annotations

TYPE_CHECKING = False
"""``True`` only for type checkers (they treat any ``TYPE_CHECKING`` so)."""

if TYPE_CHECKING:
    from typing import Generic as Generic
    from typing import NamedTuple as NamedTuple
    from typing import Protocol as Protocol
    from typing import TypeVar as TypeVar
    from typing import cast as cast
else:
    from collections import namedtuple as _namedtuple

    _NOT_COPIED = frozenset({"__module__", "__name__", "__annotations__"})

    def cast(_type, value):
        """The value itself (``typing.cast`` does nothing at run time either)."""
        return value

    def TypeVar(name, *_constraints, **_options):  # noqa: N802 (typing's name)
        """The variable's name: no run-time object needs more."""
        return name

    class Generic:
        """A base that ``Generic[T]`` gives back unchanged."""

        __slots__ = ()

        def __class_getitem__(cls, _params):
            return cls

    class Protocol(Generic):
        """A plain base (no run-time ``isinstance`` checks are made)."""

        __slots__ = ()

    def _named_tuple(name, namespace):
        annotations = namespace.get("__annotations__", {})
        fields = tuple(annotations)
        defaults = [namespace[f] for f in fields if f in namespace]
        if any(f not in namespace for f in fields[len(fields) - len(defaults) :]):
            raise TypeError(f"{name}: a field without a default follows one with")
        cls = _namedtuple(
            name, fields, defaults=defaults, module=namespace.get("__module__")
        )
        cls.__annotations__ = annotations
        for key, value in namespace.items():
            if key not in _NOT_COPIED and key not in fields:
                setattr(cls, key, value)
        return cls

    class _NamedTupleMeta(type):
        def __new__(cls, name, _bases, namespace):
            return _named_tuple(name, namespace)

    NamedTuple = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})
