"""Line diff hunks: they rebuild the new side, and stay the same as before the
shortcuts for regions past the edit-distance cap (issue 17)."""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from agent_doc.document.linediff import MAX_EDIT_DISTANCE
from agent_doc.document.linediff import _myers
from agent_doc.document.linediff import common_prefix
from agent_doc.document.linediff import diff_lines
from agent_doc.document.linediff import known_prefix


def apply(
    a: list[str], b: list[str], hunks: list[tuple[int, int, int, int]]
) -> list[str]:
    out: list[str] = []
    at = 0
    for a1, a2, b1, b2 in hunks:
        out += a[at:a1] + b[b1:b2]
        at = a2
    return out + a[at:]


def edited(n: int, edits: int) -> tuple[list[str], list[str]]:
    a = [f"line {i}\n" if i % 3 else "\n" for i in range(n)]
    b = list(a)
    for k in range(edits):
        i = (k * 7919) % len(b)
        b[i] = b[i].rstrip("\n") + " (edited)\n" if k % 3 else "\n"
    b.insert(n // 2, "moved?\n")
    b.append(b.pop(10))
    return a, b


@pytest.mark.parametrize(
    ("n", "edits", "count", "digest"),
    [
        pytest.param(2000, 300, 302, "dcb18af641bb2f90", id="past-the-cap"),
        pytest.param(600, 150, 92, "9b6783255d33e9ac", id="near-the-cap"),
        pytest.param(5000, 40, 42, "feb08a0349ca95a5", id="within-the-first-try"),
    ],
)
def test_hunks_are_the_ones_computed_before_the_shortcuts(
    n: int, edits: int, count: int, digest: str
) -> None:
    """Digests recorded with the implementation before issue 17's shortcuts."""
    a, b = edited(n, edits)
    hunks = diff_lines(a, b)
    assert apply(a, b, hunks) == b
    assert len(hunks) == count
    assert hashlib.sha256(json.dumps(hunks).encode()).hexdigest()[:16] == digest


@pytest.mark.parametrize("seed", range(4))
def test_hunks_rebuild_the_new_side_with_moves_and_repeats(seed: int) -> None:
    rnd = random.Random(seed)
    a = [f"u{i}\n" if rnd.random() < 0.7 else "\n" for i in range(2000)]
    b = list(a)
    for _ in range(MAX_EDIT_DISTANCE):
        pos = rnd.randrange(len(b))
        roll = rnd.random()
        if roll < 0.3:
            b[pos] = f"changed {rnd.random()}\n"
        elif roll < 0.5:
            del b[pos]
        elif roll < 0.7:
            b.insert(pos, "\n")
        else:
            b.insert(rnd.randrange(len(b)), b.pop(pos))
    hunks = diff_lines(a, b)
    assert apply(a, b, hunks) == b
    assert all(h[0] <= h[1] and h[2] <= h[3] for h in hunks)
    assert hunks == sorted(hunks)


@given(
    st.lists(st.sampled_from("abc"), max_size=80),
    st.lists(st.sampled_from("xyz"), max_size=80),
    st.lists(st.sampled_from("abcxyz"), max_size=4),
)
@settings(max_examples=300)
def test_regions_without_a_common_line_are_one_hunk_as_the_search_finds(
    a_mid: list[str], b_mid: list[str], around: list[str]
) -> None:
    a, b = around + a_mid + around, around + b_mid + around
    lo, a_hi, b_hi = len(around), len(around) + len(a_mid), len(around) + len(b_mid)
    if a_mid and b_mid:  # what the full search gives for such a region
        searched = _myers(a, b, lo, a_hi, lo, b_hi, len(a_mid) + len(b_mid))
        assert searched == [(lo, a_hi, lo, b_hi)]
    hunks = diff_lines(a, b)
    assert apply(a, b, hunks) == b
    if a_mid and b_mid and not set(around) & set(a_mid + b_mid):
        assert hunks == [(lo, a_hi, lo, b_hi)]


def test_a_known_prefix_is_lent_for_those_very_texts_only() -> None:
    a, b = (
        b"same start, then a" * 50,
        b"same start, then a" * 49 + b"same start, then b",
    )
    true = common_prefix(a, b, chunk=1 << 16)
    with known_prefix(a, b, true):
        assert common_prefix(a, b, chunk=1 << 16) == true  # lent
        with known_prefix(a, b, -7):  # (a wrong answer shows it is lent)
            assert common_prefix(a, b) == -7
            assert common_prefix(bytes(bytearray(a)), b) == true  # a copy: compared
            assert common_prefix(a, b, 3) == true - 3  # not from 0: compared
        assert common_prefix(a, b) == true
    with known_prefix(a, b, -7):
        pass
    assert common_prefix(a, b) == true  # gone on leaving


@given(
    a=st.binary(max_size=80),
    b=st.binary(max_size=80),
    lo=st.integers(0, 80),
    chunk=st.sampled_from([1, 2, 3, 8, 64]),
)
def test_bytes_compared_in_place_give_the_sliced_comparison(
    a: bytes, b: bytes, lo: int, chunk: int
) -> None:
    same = common_prefix(b"".join([a, b"x"]), b"".join([a, b]), 0, chunk)
    assert same == common_prefix(list(a + b"x"), list(a + b), 0, chunk)
    lo = min(lo, len(a), len(b))
    assert common_prefix(a, b, lo, chunk) == common_prefix(list(a), list(b), lo, chunk)
