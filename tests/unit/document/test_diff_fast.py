"""``compute_diff`` writes the common one-hunk diff itself, byte for byte as difflib.

The fast path (``diff._one_hunk``) must give exactly what ``difflib.unified_diff``
gives on the same trimmed lines; these properties compare the two on random
small texts whose lines repeat a lot (where difflib's choices matter).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document import diff

LINES = st.sampled_from(["a\n", "b\n", "\n", "# h\n", "c\n", "a", "x\n"])
TEXTS = st.lists(LINES, max_size=14).map("".join)


def _with_difflib(previous: str, current: str, context: int) -> str | None:
    """``compute_diff`` with the fast path turned off."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(diff, "_one_hunk", lambda *_: None)
        return diff.compute_diff(previous, current, context)


@st.composite
def edited(draw: st.DrawFn) -> tuple[str, str]:
    """A text and the same text with one region replaced, inserted or deleted."""
    lines = draw(st.lists(LINES, max_size=16))
    lo = draw(st.integers(0, len(lines)))
    hi = draw(st.integers(lo, len(lines)))
    new = draw(st.lists(LINES, max_size=4))
    return "".join(lines), "".join(lines[:lo] + new + lines[hi:])


@settings(max_examples=3000, deadline=None)
@given(edited(), st.integers(0, 6))
def test_one_edit_diffs_as_difflib_does(pair: tuple[str, str], context: int) -> None:
    previous, current = pair
    assert diff.compute_diff(previous, current, context) == _with_difflib(
        previous, current, context
    )


@settings(max_examples=2000, deadline=None)
@given(TEXTS, TEXTS, st.integers(0, 6))
def test_any_two_texts_diff_as_difflib_does(
    previous: str, current: str, context: int
) -> None:
    assert diff.compute_diff(previous, current, context) == _with_difflib(
        previous, current, context
    )


def test_the_known_difflib_choices_are_kept() -> None:
    """Cases the fast path must leave to difflib (it would place them otherwise)."""
    cases = [
        ("y\ny\ny\n", "y\nq\ny\ny\n", 2),  # tail longer than head, found earlier
        ("x\ny\nz\n", "x\ny\nz\nx\ny\nz\n", 5),  # the insertion repeats the text
        ("".join(f"{i}\n" for i in range(300)), "0\n" + "\n" * 250, 5),  # 200+ lines
    ]
    for previous, current, context in cases:
        assert diff.compute_diff(previous, current, context) == _with_difflib(
            previous, current, context
        )


def test_appended_lines_are_diffed_without_importing_difflib() -> None:
    code = (
        "import sys\n"
        "from agent_doc.document.diff import compute_diff\n"
        "doc = ''.join(f'### Re: q{i}\\n\\nanswer {i}\\n\\n' for i in range(2000))\n"
        "out = compute_diff(doc, doc + 'a new question\\nwith two lines\\n')\n"
        "assert out.splitlines()[2] == '@@ -7996,5 +7996,7 @@', out\n"
        "print('difflib' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "False"
