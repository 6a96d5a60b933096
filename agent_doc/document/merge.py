"""CRDT merge of the agent's version of a document with the user's version.

``ours`` is the baseline with the agent's response applied, ``theirs`` is what
the user has now (file or live editor buffer), ``base`` is what both derive
from. The result is what replaying both edit scripts on two pycrdt documents
that share the base, and merging the user's update into the agent's document,
gives. The agent's document has the lower client id, so where both insert at
the same spot the response comes first and the user's newer text follows it.
Only the stretches where the two sides' edits meet go through pycrdt (each on
a document holding just that stretch); edits far from the other side's are
applied directly (:func:`_merge_hunks`), so a large document costs one pass.

Edits are line-based (no character interleaving across lines) and refined to
characters inside a changed line only when the line stays recognisable, so a
user typing mid-line and the agent editing the same line both survive. Text
both sides added in the same place (the user's prompt already present in the
baseline the agent used) becomes part of the base first, so it appears once.

Offsets are Python ``str`` offsets everywhere except at the pycrdt calls, where
they become UTF-8 byte offsets (pycrdt ``Text`` indexes bytes).
"""

from __future__ import annotations

from agent_doc._runtime.record import Record
from agent_doc.document import yrs_codec
from agent_doc.document._textwalk import TRIES
from agent_doc.document._textwalk import WINDOW
from agent_doc.document._textwalk import common_head
from agent_doc.document._textwalk import common_run
from agent_doc.document._textwalk import common_tail
from agent_doc.document._textwalk import merge_by_windows
from agent_doc.document._textwalk import resync
from agent_doc.document.linediff import Hunk
from agent_doc.document.linediff import common_prefix
from agent_doc.document.linediff import common_suffix
from agent_doc.document.linediff import diff_lines
from agent_doc.document.textedit import common_ends
from agent_doc.errors import MergeError

AGENT_CLIENT_ID = 1
"""pycrdt client id of the agent's side: lower, so its inserts come first."""
USER_CLIENT_ID = 2
"""pycrdt client id of the user's side."""
STATE_CLIENT_ID = yrs_codec.STATE_CLIENT_ID
"""pycrdt client id of the fresh document encoded as the returned state."""
TEXT_KEY = yrs_codec.TEXT_KEY
"""Name of the shared ``Text`` inside the pycrdt document."""

_MAX_PAIRED_LINES = 64

Op = tuple[int, int, str]
"""``(start, end, text)``: replace ``base[start:end]`` with ``text``."""


class MergeResult(Record):
    """The merged text and the encoded pycrdt state of a document holding it."""

    __slots__ = ("text", "state")

    def __init__(self, text: str, state: bytes) -> None:
        self.text = text
        self.state = state


def merge_texts(
    base: str, ours: str, theirs: str, base_state: bytes | None = None
) -> MergeResult:
    """Merge the agent's ``ours`` and the user's ``theirs``, both derived from ``base``.

    ``base_state`` (a pycrdt update from a previous cycle) is accepted for
    callers that keep one; the merged text does not depend on it. Raises
    ``MergeError`` when pycrdt fails or the result cannot be encoded.
    """
    del base_state
    return _result(_merge(base, ours, theirs))


WINDOWS_FROM = 1 << 16
"""Base size (characters) from which a merge goes window by window."""


def _merge(base: str, ours: str, theirs: str, by_windows: bool = True) -> str:
    """The merged text (see :func:`merge_texts`); ``by_windows=False`` merges
    line by line whatever the size (one window of a large document)."""
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    # An unterminated last line gets a sentinel newline on all three sides, so
    # text typed at its end stays on that line instead of after the response,
    # and a side's unterminated last line does not run into the other's text.
    sentinel = not (
        base.endswith("\n") and ours.endswith("\n") and theirs.endswith("\n")
    )
    if by_windows and not sentinel and len(base) >= WINDOWS_FROM:
        # a large document: only the lines around the edits become line lists
        return merge_by_windows(base, ours, theirs, merge_window)
    base_lines = _lines(base, sentinel)
    ours_lines = _lines(ours, sentinel, base, base_lines)
    theirs_lines = _lines(theirs, sentinel, base, base_lines)
    eff_lines, ours_hunks, theirs_hunks, _ = _plan(base_lines, ours_lines, theirs_lines)
    out = _merge_hunks(
        eff_lines, (ours_lines, theirs_lines), (ours_hunks, theirs_hunks)
    )
    if not sentinel or out[-1]:  # the text ends with its last item
        return "\n".join(out)
    return "\n".join(out[:-1])  # without the sentinel newline


def plan_ops(base: str, ours: str, theirs: str) -> tuple[str, list[Op], list[Op]]:
    """The effective base text and both sides' character edits on it, ascending.

    ``base``, ``ours`` and ``theirs`` end with ``\n``. Replaying both edit
    lists on one CRDT document holding the effective base gives the merge
    (what :func:`merge_texts` computes, touching the CRDT only where needed).
    """
    base_lines, ours_lines, theirs_lines = (
        _lines(base, False),
        _lines(ours, False),
        _lines(theirs, False),
    )
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
    return yrs_codec.encode_text_state(text, STATE_CLIENT_ID)


def _result(text: str) -> MergeResult:
    try:
        return MergeResult(text, encode_text_state(text))
    except UnicodeEncodeError as exc:  # a lone surrogate
        raise MergeError(f"cannot encode the merged document: {exc}") from exc


def merge_window(base: str, ours: str, theirs: str) -> str:
    """One window of :func:`merge_by_windows`: ``merge_texts(...).text`` of
    three ``\\n``-ended texts, merged line by line whatever their size."""
    return _merge(base, ours, theirs, by_windows=False)


def _lines(
    text: str,
    sentinel: bool,
    base: str | None = None,
    base_lines: list[str] | None = None,
) -> list[str]:
    """Lines of ``text`` (+ ``\\n`` when ``sentinel``) without their newlines.

    Without ``sentinel`` the text ends with ``\\n``. Given ``base`` and its
    lines, the whole lines ``text`` shares with ``base`` at its start and end
    are taken from ``base_lines`` (the same objects: less memory, and the line
    diff compares them by identity); only the rest of ``text`` is split.
    """
    if base is None or base_lines is None:
        lines = text.split("\n")
        if not sentinel:
            lines.pop()  # the "" after the final "\n"
        return lines
    head = common_head(base, text)
    tail = common_tail(base, text, min(len(base), len(text)) - head)
    head_count = base.count("\n", 0, head)
    if not tail:  # the rest may end without a newline (sentinel)
        rest = _walk(
            text, head, len(text), base, head, len(base), base_lines, head_count
        )
        return base_lines[:head_count] + rest + _split(text[rest.end :], sentinel)
    # the shared tail starts a line on both sides: the middle ends with "\n"
    tail_count = base.count("\n", len(base) - tail) + sentinel
    end = len(text) - tail
    middle = _walk(
        text, head, end, base, head, len(base) - tail, base_lines, head_count
    )
    middle.extend(_split(text[middle.end : end], False))
    return base_lines[:head_count] + middle + base_lines[len(base_lines) - tail_count :]


def _split(text: str, keep_last: bool) -> list[str]:
    """``text.split("\\n")``, without the last item unless ``keep_last``."""
    parts = text.split("\n")
    if not keep_last:
        parts.pop()
    return parts


class _Walked(list[str]):
    """Lines found by :func:`_walk`, and where in the text they end."""

    end = 0


def _walk(
    text: str,
    t: int,
    t_end: int,
    base: str,
    b: int,
    b_end: int,
    base_lines: list[str],
    line: int,
) -> _Walked:
    """The whole lines of ``text[t:t_end]``, up to where it stops finding its
    way back into ``base[b:b_end]``: runs of lines equal in both come from
    ``base_lines`` (``line`` is the index of the line at ``b``), the lines
    between runs are split from ``text``. ``t`` and ``b`` start lines.

    Every run taken from ``base_lines`` is compared with ``text`` first, so the
    lines are exactly ``text``'s whatever the anchors found.
    """
    out = _Walked()
    budget = [2 * (t_end - t) + TRIES * WINDOW]  # characters searched, at most
    while True:
        run = common_run(base, b, b_end, text, t, t_end)
        last = base.rfind("\n", b, b + run)
        if last >= 0:  # whole lines in common
            count = base.count("\n", b, last + 1)
            out.extend(base_lines[line : line + count])
            line += count
            t += last + 1 - b
            b = last + 1
        found = resync(text, t, t_end, base, b, b_end, budget) if t < t_end else None
        if found is None:
            out.end = t
            return out
        t_at, b_at = found
        out.extend(text[t:t_at].split("\n")[:-1])
        line += base.count("\n", b, b_at)
        t, b = t_at, b_at


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
    pre, suf = common_ends(old, new)
    if pre > 0 and 2 * (pre + suf + 1) >= min(len(old), len(new)) + 1:  # + 1: \n
        return (at + pre, at + len(old) - suf, new[pre : len(new) - suf])
    return (at, at + len(old) + 1, new + "\n")


def _merge_hunks(
    eff: list[str],
    lines: tuple[list[str], list[str]],
    hunks: tuple[list[Hunk], list[Hunk]],
) -> list[str]:
    """The merged text as items that ``"\\n".join`` turns into it.

    Hunks of one side that no hunk of the other side overlaps or touches are
    independent of it in the CRDT (an untouched line lies between them), so
    that side's lines are taken as they are. Where hunks of both sides meet,
    those lines, with the untouched line before and after them as context,
    are merged by replaying both sides on a CRDT document holding just that
    stretch: an edit's place depends only on its neighbours, so the stretch
    merges exactly as it would inside the whole document (see
    :func:`plan_ops`), at a fraction of the cost.
    """
    events = sorted(
        (h[0], h[1], side, i) for side in (0, 1) for i, h in enumerate(hunks[side])
    )
    out = _Lines()
    delta = [0, 0]  # a side's line index minus the effective base's, outside hunks
    pos = k = 0
    while k < len(events):
        start, end = events[k][0], events[k][1]
        members: tuple[list[Hunk], list[Hunk]] = ([], [])
        while k < len(events) and events[k][0] <= end:
            _, stop, side, index = events[k]
            members[side].append(hunks[side][index])
            end = max(end, stop)
            k += 1
        out.add_lines(eff[pos:start])
        pos = end
        if not members[0] or not members[1]:
            side = 0 if members[0] else 1
            first = start + delta[side]
            delta[side] += sum((h[3] - h[2]) - (h[1] - h[0]) for h in members[side])
            out.add_lines(lines[side][first : end + delta[side]])
            continue
        if _inserted_at_one_place(members):
            # both sides only insert lines, at the same place: the CRDT puts the
            # lower client id's insert first (the agent's answer, then the
            # person's lines), as here, without loading it
            for s in (0, 1):
                h = members[s][0]
                out.add_lines(lines[s][h[2] : h[3]])
                delta[s] += h[3] - h[2]
            continue
        lo, hi = max(start - 1, 0), min(end + 1, len(eff))  # one line of context
        region = eff[lo:hi]
        ops = [
            _char_ops(
                region,
                lines[s],
                [(h[0] - lo, h[1] - lo, h[2], h[3]) for h in members[s]],
            )
            for s in (0, 1)
        ]
        merged = _crdt_merge("\n".join([*region, ""]), ops[0], ops[1], None)
        left = len(eff[lo]) + 1 if lo < start else 0
        right = len(eff[end]) + 1 if hi > end else 0
        out.add_text(merged[left : len(merged) - right])
        for s in (0, 1):
            delta[s] += sum((h[3] - h[2]) - (h[1] - h[0]) for h in members[s])
    out.add_lines(eff[pos:])
    return out.finish()


def _inserted_at_one_place(members: tuple[list[Hunk], list[Hunk]]) -> bool:
    """True when each side's only hunk inserts lines and removes none, both at
    the same line of the effective base."""
    if len(members[0]) != 1 or len(members[1]) != 1:
        return False
    (ours_at, ours_end, _, _), (theirs_at, theirs_end, _, _) = (
        members[0][0],
        members[1][0],
    )
    return ours_at == ours_end == theirs_at == theirs_end


class _Lines:
    """Merged text collected as lines, for one ``"\\n".join`` at the end."""

    __slots__ = ("carry", "items")

    def __init__(self) -> None:
        self.items: list[str] = []
        self.carry = ""
        """Text after the last newline so far (the start of a line)."""

    def add_lines(self, lines: list[str]) -> None:
        """Append whole lines (without their newlines)."""
        if not lines:
            return
        if self.carry:
            self.items.append(self.carry + lines[0])
            self.items.extend(lines[1:])
            self.carry = ""
        else:
            self.items.extend(lines)

    def add_text(self, text: str) -> None:
        """Append text that may end anywhere in a line."""
        parts = (self.carry + text).split("\n")
        self.carry = parts.pop()
        self.items.extend(parts)

    def finish(self) -> list[str]:
        """The items; the last one is what follows the last newline."""
        self.items.append(self.carry)
        return self.items


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
        agent = yrs_codec.TextDoc(AGENT_CLIENT_ID, update)
        user = yrs_codec.TextDoc(USER_CLIENT_ID, update)
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
