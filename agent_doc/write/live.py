"""Pure helpers for writing into a *live* editor buffer.

The language server owns no domain rules: given the text of the open buffer it
asks this module what the buffer should become and which edits get it there.
Everything here is text in, values out (Python ``str`` offsets); the server
converts each :class:`TextChange` into one LSP ``TextEdit`` of a single
versioned ``TextDocumentEdit``.

The write algorithm (spec §7.22, "Our decisions" 2):

* ``content_ours`` = the baseline with the agent's response applied
  (:func:`agent_doc.document.apply.build_content_ours`); it is computed **once**;
* ``merged`` = CRDT merge of baseline → ``content_ours`` with baseline → live
  buffer (:func:`agent_doc.document.merge.merge_texts`), recomputed against the newest
  buffer text whenever an attempt has to be retried;
* the edits are one :class:`TextChange` per region where the live buffer and
  ``merged`` differ (:func:`minimal_changes`, the edits of
  :mod:`agent_doc.document.textedit`): a line diff into hunks, each refined
  to characters. An edit never spans text both sides hold alike, so
  the text the person is typing in is never replaced by an edit that only
  "moves" it (that is how keystrokes got lost, issue 12).

Editors may keep ``\\r\\n`` line endings in the buffer while the core works on
``\\n``; :func:`plan_merge` normalises for the merge and restores the buffer's
convention in the result, so the edit never rewrites line endings.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent_doc.document.apply import apply_component_patch
from agent_doc.document.apply import build_content_ours
from agent_doc.document.boundary import find_boundaries
from agent_doc.document.boundary import reposition_boundary_before_close
from agent_doc.document.merge import merge_texts
from agent_doc.document.textedit import edit_ops
from agent_doc.document.textedit import single_op
from agent_doc.write.patch_time import patch_time

__all__ = [
    "LivePlan",
    "TextChange",
    "answer_in_buffer",
    "apply_changes",
    "minimal_change",
    "minimal_changes",
    "plan_from_text",
    "plan_merge",
    "plan_patch",
    "plan_reposition",
    "plan_write",
    "plan_write_retry",
]


@dataclass(frozen=True, slots=True)
class TextChange:
    """Replace ``text[start:end]`` with ``new_text`` (``str`` offsets)."""

    start: int
    """Offset of the first replaced character."""
    end: int
    """Offset just after the last replaced character."""
    new_text: str
    """The replacement."""

    def apply(self, text: str) -> str:
        """Return ``text`` with this change applied."""
        return text[: self.start] + self.new_text + text[self.end :]


@dataclass(frozen=True, slots=True)
class LivePlan:
    """What one attempt at a live-buffer write will do."""

    live_text: str
    """The buffer text the plan was computed from."""
    content_ours: str
    """Baseline + response (the snapshot the CLI saves); for patches the result."""
    merged: str
    """The text the buffer must hold once the edit is applied."""
    changes: tuple[TextChange, ...]
    """Disjoint, ascending edits (offsets in ``live_text``) turning it into
    ``merged``; empty when nothing changes."""

    @property
    def changed(self) -> bool:
        """Whether the buffer must be edited at all."""
        return bool(self.changes)


def minimal_change(old: str, new: str) -> TextChange | None:
    """Return the single smallest edit turning ``old`` into ``new``.

    The edit covers the span between the longest common prefix and the longest
    common suffix (which never overlap). A ``\\r\\n`` pair is never split.
    """
    op = single_op(old, new)
    return None if op is None else TextChange(*op)


def minimal_changes(old: str, new: str) -> tuple[TextChange, ...]:
    """Return one small edit per changed region turning ``old`` into ``new``.

    The edits of :func:`agent_doc.document.textedit.edit_ops` (the ones a
    shared room gets): the lines are diffed into hunks; a hunk replacing as
    many lines as it removes is trimmed line by line, any other is diffed by
    character, so text both sides hold is never replaced. Pure insertions stay
    at line starts; a ``\\r\\n`` pair is never split. The edits are
    disjoint, ascending and relative to ``old`` (apply them back to front, or
    all at once as LSP does).
    """
    return tuple(TextChange(*op) for op in edit_ops(old, new))


def apply_changes(text: str, changes: tuple[TextChange, ...]) -> str:
    """Return ``text`` with disjoint ascending ``changes`` applied."""
    for change in reversed(changes):
        text = change.apply(text)
    return text


def plan_from_text(live_text: str, content_ours: str, merged: str) -> LivePlan:
    """Build a plan whose target is ``merged`` (edits computed here)."""
    return LivePlan(live_text, content_ours, merged, minimal_changes(live_text, merged))


def _to_lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def plan_merge(baseline: str, content_ours: str, live_text: str) -> LivePlan:
    """Merge ``content_ours`` into the live buffer; used for every (re)try.

    ``baseline`` is the common ancestor. When the buffer still equals the
    baseline the result is ``content_ours``; when the agent changed nothing it
    is the buffer itself; otherwise the CRDT merge decides (agent text first,
    the user's newer text after it).
    """
    crlf = "\r\n" in live_text
    base, ours, theirs = _to_lf(baseline), _to_lf(content_ours), _to_lf(live_text)
    if theirs == base:
        merged = ours
    elif ours == base:
        merged = theirs
    else:
        merged = merge_texts(base, ours, theirs).text
    if crlf:
        merged = merged.replace("\n", "\r\n")
    return plan_from_text(live_text, content_ours, merged)


def plan_write(
    live_text: str,
    baseline: str | None,
    response: str,
    configs: Mapping[str, Any],
    answer_id: str | None = None,
) -> tuple[str, LivePlan]:
    """Plan the first attempt of a write; return ``(baseline, plan)``.

    ``baseline`` defaults to the live buffer (no concurrent edits possible then).
    The returned baseline (``\\n`` line endings) is reused for retries.
    ``answer_id``: the id of the boundary the answer lands with.
    """
    base = _to_lf(live_text if baseline is None else baseline)
    content_ours = build_content_ours(
        base, response, dict(configs), boundary_id=answer_id
    )
    return base, plan_merge(base, content_ours, live_text)


def answer_in_buffer(baseline: str, content_ours: str, live_text: str) -> bool:
    """Whether the buffer already holds the answer of ``content_ours``: its
    boundary marker (a fresh id, not in ``baseline``) is in ``live_text``."""
    before = {b.id for b in find_boundaries(baseline)}
    landed = {b.id for b in find_boundaries(content_ours)} - before
    return bool(landed & {b.id for b in find_boundaries(live_text)})


def plan_write_retry(baseline: str, content_ours: str, live_text: str) -> LivePlan:
    """Plan a write's next attempt on the newest buffer text.

    An attempt the editor did apply but reported in several ``didChange``
    notifications (Neovim sends a multi-edit workspace edit piecewise) may be
    judged skipped; merging the answer again into a buffer that holds it would
    repeat part of it. So when the buffer holds the answer's boundary the
    plan changes nothing; otherwise it is :func:`plan_merge`.
    """
    if answer_in_buffer(_to_lf(baseline), _to_lf(content_ours), _to_lf(live_text)):
        return LivePlan(live_text, content_ours, live_text, ())
    return plan_merge(baseline, content_ours, live_text)


def _plan_transform(live_text: str, transform: Callable[[str], str]) -> LivePlan:
    crlf = "\r\n" in live_text
    result = transform(_to_lf(live_text))
    target = result.replace("\n", "\r\n") if crlf else result
    return plan_from_text(live_text, result, target)


def plan_patch(
    live_text: str,
    component: str,
    content: str,
    configs: Mapping[str, Any],
    *,
    mode: str | None = None,
) -> LivePlan:
    """Plan a component patch (``patch`` semantics) on the live buffer."""
    now = patch_time(configs, component)
    return _plan_transform(
        live_text,
        lambda text: apply_component_patch(
            text, component, content, dict(configs), mode=mode, now=now
        ),
    )


def plan_reposition(live_text: str) -> LivePlan:
    """Plan moving the boundary marker to the end of the exchange, after the
    person's last line even when it is blank (the one they may be typing on)."""
    return _plan_transform(live_text, reposition_boundary_before_close)
