"""CRDT merge of the agent's version of a document with the user's version.

``ours`` is the baseline with the agent's response applied, ``theirs`` is what
the user has now (file or live editor buffer), ``base`` is what both derive
from. The result is what replaying both edit scripts on two pycrdt documents
that share the base, and merging the user's update into the agent's document,
gives. The agent's document has the lower client id, so where both insert at
the same spot the response comes first and the user's newer text follows it.
Only the stretches where the two sides' edits meet go through pycrdt (each on
a document holding just that stretch); edits far from the other side's are
applied directly (:func:`_merge_ops`), so a large document costs one pass.

Edits are line-based (no character interleaving across lines) and refined to
characters inside a changed line only when the line stays recognisable, so a
user typing mid-line and the agent editing the same line both survive. Text
both sides added in the same place (the user's prompt already present in the
baseline the agent used) becomes part of the base first, so it appears once.

Offsets are Python ``str`` offsets everywhere except at the pycrdt calls, where
they become UTF-8 byte offsets (pycrdt ``Text`` indexes bytes).
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_doc.document import _yrs
from agent_doc.document._linediff import Hunk
from agent_doc.document._linediff import common_prefix
from agent_doc.document._linediff import common_suffix
from agent_doc.document._linediff import diff_lines
from agent_doc.errors import MergeError

AGENT_CLIENT_ID = 1
"""pycrdt client id of the agent's side: lower, so its inserts come first."""
USER_CLIENT_ID = 2
"""pycrdt client id of the user's side."""
STATE_CLIENT_ID = _yrs.STATE_CLIENT_ID
"""pycrdt client id of the fresh document encoded as the returned state."""
TEXT_KEY = _yrs.TEXT_KEY
"""Name of the shared ``Text`` inside the pycrdt document."""

_MAX_PAIRED_LINES = 64
_GAP = 2
"""Edits of the two sides this many characters apart or closer merge together."""

Op = tuple[int, int, str]
"""``(start, end, text)``: replace ``base[start:end]`` with ``text``."""


@dataclass(frozen=True, slots=True)
class MergeResult:
    """The merged text and the encoded pycrdt state of a document holding it."""

    text: str
    state: bytes


def merge_texts(
    base: str, ours: str, theirs: str, base_state: bytes | None = None
) -> MergeResult:
    """Merge the agent's ``ours`` and the user's ``theirs``, both derived from ``base``.

    ``base_state`` (a pycrdt update from a previous cycle) is accepted for
    callers that keep one; the merged text does not depend on it. Raises
    ``MergeError`` when pycrdt fails or the result cannot be encoded.
    """
    del base_state
    if ours == theirs or theirs == base:
        return _result(ours)
    if ours == base:
        return _result(theirs)
    # An unterminated last line gets a sentinel newline on all three sides, so
    # text typed at its end stays on that line instead of after the response,
    # and a side's unterminated last line does not run into the other's text.
    sentinel = not (
        base.endswith("\n") and ours.endswith("\n") and theirs.endswith("\n")
    )
    if sentinel:
        base, ours, theirs = base + "\n", ours + "\n", theirs + "\n"
    eff_text, ours_ops, theirs_ops = plan_ops(base, ours, theirs)
    merged = _merge_ops(eff_text, ours_ops, theirs_ops)
    if sentinel and merged.endswith("\n"):
        merged = merged[:-1]
    return _result(merged)


def plan_ops(base: str, ours: str, theirs: str) -> tuple[str, list[Op], list[Op]]:
    """The effective base text and both sides' character edits on it, ascending.

    ``base``, ``ours`` and ``theirs`` end with ``\n``. Replaying both edit
    lists on one CRDT document holding the effective base gives the merge.
    """
    base_lines, ours_lines, theirs_lines = _lines(base), _lines(ours), _lines(theirs)
    eff_lines, ours_hunks, theirs_hunks, changed = _plan(
        base_lines, ours_lines, theirs_lines
    )
    eff_text = "\n".join([*eff_lines, ""]) if changed else base
    return (
        eff_text,
        _char_ops(eff_lines, ours_lines, ours_hunks),
        _char_ops(eff_lines, theirs_lines, theirs_hunks),
    )


def encode_text_state(text: str) -> bytes:
    """Encode a fresh pycrdt document holding ``text`` as one update."""
    return _yrs.encode_text_state(text, STATE_CLIENT_ID)


def _result(text: str) -> MergeResult:
    try:
        return MergeResult(text, encode_text_state(text))
    except UnicodeEncodeError as exc:  # a lone surrogate
        raise MergeError(f"cannot encode the merged document: {exc}") from exc


def _lines(text: str) -> list[str]:
    """Lines of ``text`` (which ends with ``\\n``) without their newlines."""
    lines = text.split("\n")
    lines.pop()
    return lines


def _plan(
    base: list[str], ours: list[str], theirs: list[str]
) -> tuple[list[str], list[Hunk], list[Hunk], bool]:
    """Return the effective base, both sides' hunks on it, and whether it differs.

    Hunks of the two sides that overlap or touch form a cluster; inside a
    cluster, what both sides added alike moves into the effective base.
    """
    ours_hunks, theirs_hunks = diff_lines(base, ours), diff_lines(base, theirs)
    if not ours_hunks or not theirs_hunks:
        return base, ours_hunks, theirs_hunks, False
    events = sorted(
        [(h[0], h[1], 0, h) for h in ours_hunks]
        + [(h[0], h[1], 1, h) for h in theirs_hunks]
    )
    clusters: list[list[tuple[int, Hunk]]] = []
    end = -1
    for a1, a2, side, hunk in events:
        if clusters and a1 <= end:
            clusters[-1].append((side, hunk))
            end = max(end, a2)
        else:
            clusters.append([(side, hunk)])
            end = a2
    eff: list[str] = []
    new_hunks: tuple[list[Hunk], list[Hunk]] = ([], [])
    sides = (ours, theirs)
    deltas = [0, 0]
    changed = False
    pos = 0
    for cluster in clusters:
        start = min(h[0] for _, h in cluster)
        stop = max(h[1] for _, h in cluster)
        eff.extend(base[pos:start])
        pos = stop
        at = len(eff)
        spans = []
        for side in (0, 1):
            mine = [h for s, h in cluster if s == side]
            first = start + deltas[side]
            deltas[side] += sum((h[3] - h[2]) - (h[1] - h[0]) for h in mine)
            spans.append((mine, first, stop + deltas[side]))
        region = None
        if spans[0][0] and spans[1][0]:
            region = _region_base(
                base[start:stop],
                ours[spans[0][1] : spans[0][2]],
                theirs[spans[1][1] : spans[1][2]],
            )
        if region is None:
            for side in (0, 1):
                new_hunks[side].extend(
                    (h[0] - start + at, h[1] - start + at, h[2], h[3])
                    for h in spans[side][0]
                )
            eff.extend(base[start:stop])
            continue
        changed = True
        for side in (0, 1):
            first, last = spans[side][1], spans[side][2]
            new_hunks[side].extend(
                (at + a1, at + a2, first + b1, first + b2)
                for a1, a2, b1, b2 in diff_lines(region, sides[side][first:last])
            )
        eff.extend(region)
    eff.extend(base[pos:])
    return eff, new_hunks[0], new_hunks[1], changed


def _region_base(
    base: list[str], ours: list[str], theirs: list[str]
) -> list[str] | None:
    """Base lines for a region both sides changed, or ``None`` to keep ``base``.

    Identical changes become the base. Lines both sides start or end the region
    with are shared; where the base region is empty (both only inserted), long
    runs both inserted are shared as well.
    """
    if ours == theirs:
        return ours
    if not base:
        return _shared_lines(ours, theirs)
    pre = common_prefix(ours, theirs)
    suf = common_suffix(ours, theirs, min(len(ours), len(theirs)) - pre)
    if not pre and not suf:
        return None
    return ours[:pre] + base + ours[len(ours) - suf :]


def _shared_lines(ours: list[str], theirs: list[str]) -> list[str] | None:
    """Common subsequence of two inserts: leading and trailing runs, and runs
    between that hold a word (not only blank lines, fences or rules)."""
    hunks = diff_lines(ours, theirs)
    shared: list[str] = []
    pos = 0
    for a1, a2, _, _ in hunks:
        run = ours[pos:a1]
        if pos == 0 or any(ch.isalnum() for line in run for ch in line):
            shared.extend(run)
        pos = a2
    shared.extend(ours[pos:])
    return shared or None


def _char_ops(base: list[str], side: list[str], hunks: list[Hunk]) -> list[Op]:
    """Turn line hunks into character edits on the text of ``base``, ascending."""
    ops: list[Op] = []
    char = 0
    line = 0
    for a1, a2, b1, b2 in hunks:
        char += sum(map(len, base[line:a1])) + a1 - line
        if a2 - a1 == b2 - b1 <= _MAX_PAIRED_LINES:
            for old, new in zip(base[a1:a2], side[b1:b2], strict=True):
                ops.append(_line_op(char, old, new))
                char += len(old) + 1
        else:
            end = char + sum(map(len, base[a1:a2])) + a2 - a1
            ops.append((char, end, "".join([line + "\n" for line in side[b1:b2]])))
            char = end
        line = a2
    return ops


def _line_op(at: int, old: str, new: str) -> Op:
    """Edit turning line ``old`` (at offset ``at``) into ``new``.

    Character-level when the change starts mid-line and the common ends cover
    at least half of the shorter line; otherwise the whole line is replaced.
    """
    limit = min(len(old), len(new))
    pre = 0
    while pre < limit and old[pre] == new[pre]:
        pre += 1
    suf = 0
    while suf < limit - pre and old[-1 - suf] == new[-1 - suf]:
        suf += 1
    if pre > 0 and 2 * (pre + suf + 1) >= limit + 1:  # + 1: the newline
        return (at + pre, at + len(old) - suf, new[pre : len(new) - suf])
    return (at, at + len(old) + 1, new + "\n")


def _merge_ops(text: str, ours: list[Op], theirs: list[Op]) -> str:
    """Apply both sides' edits to ``text`` as the CRDT merge of them would.

    Edits of one side that no edit of the other side overlaps or touches are
    independent of it in the CRDT (their neighbours are untouched base text),
    so they are applied directly. Where edits of both sides meet, the stretch
    they cover, with one untouched character of context on each side, is
    merged by replaying both sides on a CRDT document holding just that stretch:
    an edit's place depends only on its neighbours, so the stretch merges
    exactly as it would inside the whole document, at a fraction of the cost.
    """
    if not ours or not theirs:
        return _apply_ops(text, ours or theirs)
    events = sorted(
        [(op[0], 0, i) for i, op in enumerate(ours)]
        + [(op[0], 1, i) for i, op in enumerate(theirs)]
    )
    sides = (ours, theirs)
    pieces: list[str] = []
    pos = 0
    cluster: list[tuple[int, int]] = []
    end = -_GAP
    for start, side, index in events:
        if start > end + _GAP and cluster:
            pos = _emit_cluster(text, sides, cluster, pos, pieces)
            cluster = []
        if not cluster:
            end = start
        cluster.append((side, index))
        end = max(end, sides[side][index][1])
    pos = _emit_cluster(text, sides, cluster, pos, pieces)
    pieces.append(text[pos:])
    return "".join(pieces)


def _emit_cluster(
    text: str,
    sides: tuple[list[Op], list[Op]],
    cluster: list[tuple[int, int]],
    pos: int,
    pieces: list[str],
) -> int:
    """Append the merged text of one cluster of touching edits; return its end."""
    mine = (
        [sides[0][i] for s, i in cluster if s == 0],
        [sides[1][i] for s, i in cluster if s == 1],
    )
    if not mine[0] or not mine[1]:
        for start, end, insert in mine[0] or mine[1]:
            pieces.append(text[pos:start])
            pieces.append(insert)
            pos = end
        return pos
    edits = mine[0] + mine[1]
    lo = max(min(op[0] for op in edits) - 1, pos)
    hi = min(max(op[1] for op in edits) + 1, len(text))
    pieces.append(text[pos:lo])
    shifted = [[(s - lo, e - lo, ins) for s, e, ins in ops] for ops in mine]
    pieces.append(_crdt_merge(text[lo:hi], shifted[0], shifted[1], None))
    return hi


def _apply_ops(text: str, ops: list[Op]) -> str:
    """Apply one side's ascending, disjoint edits to ``text``."""
    pieces: list[str] = []
    pos = 0
    for start, end, insert in ops:
        pieces.append(text[pos:start])
        pieces.append(insert)
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def _crdt_merge(
    text: str, ours: list[Op], theirs: list[Op], state: bytes | None
) -> str:
    """Replay both edit lists on two CRDT copies of ``text`` and merge them.

    ``state`` is accepted for callers that keep one, but the base is always a
    fresh encoding of ``text``: a saved state is exactly that encoding (see
    :func:`encode_text_state`), and the merged text does not depend on it.
    """
    del state
    try:
        update = encode_text_state(text)
        agent = _yrs.TextDoc(AGENT_CLIENT_ID, update)
        user = _yrs.TextDoc(USER_CLIENT_ID, update)
        agent.replay(_byte_ops(text, ours))
        user.replay(_byte_ops(text, theirs))
        agent.apply(user.update_since(agent.state()))
        return agent.text()
    except Exception as exc:
        raise MergeError(f"CRDT merge failed: {exc}") from exc


def _byte_ops(text: str, ops: list[Op]) -> list[Op]:
    """Convert ascending ``str``-offset ops on ``text`` to UTF-8 byte offsets."""
    if text.isascii():
        return ops
    out: list[Op] = []
    prev = 0
    pos = 0
    for start, end, insert in ops:
        pos += len(text[prev:start].encode("utf-8"))
        byte_start = pos
        pos += len(text[start:end].encode("utf-8"))
        out.append((byte_start, pos, insert))
        prev = end
    return out
