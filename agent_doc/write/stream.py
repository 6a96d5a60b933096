"""An answer that grows in a live buffer while the agent streams it (ACP).

The buffer holds, at every step, ``shown`` (the baseline with the answer so far
applied, :func:`agent_doc.document.apply.build_content_ours` with one fixed
boundary id) merged with whatever the person typed. The next step merges
``shown → target`` into the live text (:func:`agent_doc.write.live.plan_merge`
with ``shown`` as the common ancestor), so each edit only adds the new part of
the answer and never rewrites the person's text.

While streaming, only the text outside an unfinished patch block is shown
(:func:`streamable`): a ``<!-- patch:NAME -->`` without its closing marker
waits until it is complete. The final step is the whole answer; the snapshot
becomes its ``content_ours`` (:func:`finish_stream`), exactly as a
``write_response`` of the same answer against the same baseline would leave it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from agent_doc.document.apply import build_content_ours
from agent_doc.document.boundary import new_boundary_id
from agent_doc.document.frontmatter import parse_frontmatter
from agent_doc.document.frontmatter import set_field
from agent_doc.document.merge import encode_text_state
from agent_doc.document.merge import merge_texts
from agent_doc.store.state import StateStore
from agent_doc.store.state import doc_lock
from agent_doc.store.state import read_document
from agent_doc.store.state import write_document
from agent_doc.write.landing import land_bookkeeping
from agent_doc.write.landing import record_landing
from agent_doc.write.live import LivePlan
from agent_doc.write.live import plan_merge
from agent_doc.write.pipeline import text_digest

_OPEN_PATCH = re.compile(r"<!--\s*patch:([a-zA-Z0-9][a-zA-Z0-9-]*)")
_MARKER_START = "<!--"


def streamable(answer: str) -> str:
    """The part of a partial ``answer`` that can be shown already.

    Cut before a patch block whose closing marker has not arrived, and before
    a trailing ``<``, ``<!`` … that may be the start of a marker.
    """
    for match in _OPEN_PATCH.finditer(answer):
        close = f"<!-- /patch:{match.group(1)} -->"
        if close not in answer[match.end() :]:
            answer = answer[: match.start()]
            break
    for size in range(min(len(_MARKER_START), len(answer)), 0, -1):
        if _MARKER_START.startswith(answer[-size:]):
            return answer[:-size]
    tail = answer.rfind(_MARKER_START)
    if tail >= 0 and "-->" not in answer[tail:]:
        return answer[:tail]
    return answer


@dataclass
class StreamedAnswer:
    """The state of one answer streaming into one live buffer."""

    baseline: str
    """The document the prompt was built from (``\\n`` line endings)."""
    configs: Mapping[str, Any]
    """The project's component configs."""
    boundary_id: str = field(default_factory=lambda: _new_boundary())
    """One boundary id for every step, so steps differ only by answer text."""
    shown: str = ""
    """``content_ours`` of what the buffer holds now (starts as the baseline)."""

    def __post_init__(self) -> None:
        if not self.shown:
            self.shown = self.baseline

    def target(self, answer: str, *, final: bool = False) -> str:
        """``content_ours`` for the answer so far (unchanged when nothing shows)."""
        text = answer if final else streamable(answer)
        if not text.strip():
            return self.shown
        return build_content_ours(
            self.baseline, text, dict(self.configs), boundary_id=self.boundary_id
        )

    def plan(self, live_text: str, target: str) -> LivePlan:
        """The edits (one per changed region) bringing ``live_text`` from
        ``shown`` to ``target``."""
        return plan_merge(self.shown, target, live_text)

    def plan_removal(self, live_text: str, content_ours: str) -> LivePlan:
        """The edits taking the final answer (``content_ours``) out of
        ``live_text`` again: the baseline plus whatever the person typed."""
        return plan_merge(content_ours, self.baseline, live_text)

    def landed(self, target: str) -> None:
        """Record that the buffer now holds ``target`` (merged with typing)."""
        self.shown = target


def _new_boundary() -> str:
    return new_boundary_id()


def with_resume_field(content_ours: str, session_id: str | None) -> str:
    """``content_ours`` with ``resume: session_id`` in its frontmatter."""
    if not session_id or parse_frontmatter(content_ours).resume == session_id:
        return content_ours
    return set_field(content_ours, "resume", session_id)


def begin_final(
    path: Path, answer: str, content_ours: str, answer_id: str | None = None
) -> None:
    """Keep the answer pending until :func:`finish_stream` (``recover`` can redo it).

    With ``answer_id`` (the stream's boundary id) the pending copy carries it
    and the landing record names it with ``content_ours`` staged; without it,
    the expected digest is saved as before.
    """
    store = StateStore.for_document(path)
    store.save_pending(path, answer, answer_id)
    if answer_id is None:
        store.save_expected(path, text_digest(content_ours))
    else:
        record_landing(path, answer_id, content_ours)


def finish_stream(path: Path, content_ours: str, answer_id: str | None = None) -> None:
    """The streamed answer is final: snapshot and CRDT state, the answer landed
    in the record (with ``answer_id``), pending cleared."""
    store = StateStore.for_document(path)
    if answer_id is not None:
        land_bookkeeping(path, answer_id, content_ours)
        store.delete_pending_of(path, answer_id)
        return
    store.save_snapshot(path, content_ours)
    store.save_crdt(path, encode_text_state(content_ours))
    store.delete_pending(path)


def finish_on_disk(
    path: Path,
    stream: StreamedAnswer,
    content_ours: str,
    answer_id: str | None = None,
) -> bool:
    """The buffer was closed mid-stream: write the final answer to the file.

    The file holds the baseline (closed without saving) or, when the person
    saved before closing, what the buffer showed (``stream.shown``) plus their
    typing; the merge uses that as its base so the streamed part is not added
    twice. Returns whether the file changed. Snapshot as :func:`finish_stream`
    (``answer_id``: the stream's boundary id, the answer's identity).
    """
    store = StateStore.for_document(path)
    with doc_lock(path, root=store.root):
        current = read_document(path)
        base = stream.baseline if current.text == stream.baseline else stream.shown
        final = merge_texts(base, content_ours, current.text).text
        changed = final != current.text
        if changed:
            write_document(path, current, final)
    finish_stream(path, content_ours, answer_id)
    return changed
