"""The run-time stand-ins of agent_doc.document._static behave like typing's."""

from __future__ import annotations

import pickle
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from agent_doc.document import _static


class Point(_static.NamedTuple):
    """A point with a label."""

    x: int
    label: str
    y: int = 0
    """Height."""

    @property
    def norm(self) -> int:
        """Manhattan length."""
        return abs(self.x) + abs(self.y)

    def moved(self, dx: int) -> Point:
        """The point ``dx`` to the right."""
        return self._replace(x=self.x + dx)


class TypedPoint(typing.NamedTuple):
    """The same record built by typing itself."""

    x: int
    label: str
    y: int = 0


def test_named_tuple_matches_typing() -> None:
    ours, theirs = Point(1, "a"), TypedPoint(1, "a")
    assert tuple(ours) == tuple(theirs) == (1, "a", 0)
    assert Point._fields == TypedPoint._fields
    assert Point._field_defaults == TypedPoint._field_defaults == {"y": 0}
    assert ours._asdict() == theirs._asdict()
    assert repr(ours) == "Point(x=1, label='a', y=0)"
    assert Point.__doc__ == "A point with a label."
    assert Point.__module__ == __name__
    assert Point.__qualname__ == "Point"
    assert isinstance(ours, tuple)
    assert Point.__annotations__ == {"x": "int", "label": "str", "y": "int"}


def test_named_tuple_keeps_methods_properties_and_pickles() -> None:
    point = Point(-2, "b", 3)
    assert point.norm == 5
    assert point.moved(4) == Point(2, "b", 3)
    assert pickle.loads(pickle.dumps(point)) == point
    with pytest.raises(AttributeError):
        point.x = 9  # type: ignore[misc]


def test_named_tuple_refuses_a_required_field_after_a_default() -> None:
    with pytest.raises(TypeError, match="without a default"):

        class Bad(_static.NamedTuple):
            a: int = 0
            b: int


def test_generic_typevar_cast_protocol_at_run_time() -> None:
    t = _static.TypeVar("T")

    class Box(_static.Generic[t]):  # type: ignore[valid-type,misc]
        pass

    assert Box[int] is Box
    assert _static.cast("list[int]", "value") == "value"

    class Port(_static.Protocol):
        def send(self) -> None: ...

    assert Port.__mro__[-1] is object


def test_a_disk_write_does_not_import_typing(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- agent:exchange -->\nQ?\n<!-- /agent:exchange -->\n", "utf-8")
    baseline = tmp_path / "base.md"
    baseline.write_text(doc.read_text("utf-8"), "utf-8")
    code = (
        "import sys\n"
        "from agent_doc.cli.entry import main\n"
        "code = main(['write', 'doc.md', '--baseline-file', 'base.md', '--force-disk'])\n"
        "print(code, 'typing' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        input="The answer.\n",
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.split() == ["0", "False"], done.stderr
    assert "The answer." in doc.read_text("utf-8")
