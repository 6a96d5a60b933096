"""A deterministic stateful model of exactly-once landing (hypothesis rule-based).

The durable state of one document — its text, snapshot, pending copy, landing
record, staged snapshot and archive — is kept in memory and changed by the
same pure functions the commands use (``build_content_ours``,
``merge_texts``, ``single_boundary``, the record's ``accept``/``land``,
:func:`~agent_doc.write.landing.landing_verdict`, ``plan_compaction``,
:func:`~agent_doc.cycle.compact_landing.compaction_verdict`), in the order of
the durable steps of ``write``, ``recover`` and ``compact``; a crash stops a
command at one of their named points. Rules: the person types; an answer is
accepted and written (its baseline possibly stale); a second writer lands
its own answer while a crashed one's copy is pending; ``recover``;
``compact``; each may crash at any of its points.

Invariants (the original tool's simulator's, adopted): an answer is never
reported landed before it crosses the commit point; a duplicate visible
answer is refused before the commit (writing a landed id changes nothing);
at most one live boundary marker; every fault point has a stated outcome
(the table of ``test_crash_points.py``); and after a ``recover`` every
accepted answer, archived turn and typed line is in exactly one file, with
no pending copy, staged snapshot or open record left.

Default: 500 schedules of 24 steps (derandomized: the same every run);
``CI=true`` or ``AGENT_DOC_WIDE=1``: 2,048 of 32. A failure prints its steps
and a reproduction blob; keep it below as a named regression.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace

import pytest
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine
from hypothesis.stateful import invariant
from hypothesis.stateful import rule

from agent_doc.cycle.compact_landing import compaction_verdict
from agent_doc.document.apply import build_content_ours
from agent_doc.document.boundary import find_boundaries
from agent_doc.document.compaction import Compaction
from agent_doc.document.compaction import archive_entry
from agent_doc.document.compaction import plan_compaction
from agent_doc.document.merge import merge_texts
from agent_doc.store.landing import Compacting
from agent_doc.store.landing import Landing
from agent_doc.store.landing import LandingRecord
from agent_doc.write.disk import single_boundary
from agent_doc.write.landing import added_lines
from agent_doc.write.landing import data_digest
from agent_doc.write.landing import landing_verdict
from tests.reliability.test_crash_points import OUTCOMES

WIDE = os.environ.get("CI") == "true" or os.environ.get("AGENT_DOC_WIDE") == "1"
EXAMPLES, STEPS = (2048, 32) if WIDE else (500, 24)

START = """---
agent_doc_format: template
---
# Doc

<!-- agent:exchange patch=append -->
## User

Question 0?
<!-- /agent:exchange -->
"""
CLOSE = "<!-- /agent:exchange -->"
WRITE_POINTS = [p for c, p in OUTCOMES if c == "write"]
RECOVER_POINTS = [p for c, p in OUTCOMES if c == "recover"]
COMPACT_POINTS = [p for c, p in OUTCOMES if c == "compact" and p.startswith("compact.")]
STATED = {p for _, p in OUTCOMES}


class Crash(Exception):
    """The process ended at a crash point."""


@dataclass
class Disk:
    """What survives a crash."""

    doc: str = START
    snapshot: str = START
    pending: tuple[str, str] | None = None
    record: LandingRecord = field(default_factory=LandingRecord)
    staged: str | None = None
    archive: str = ""


@dataclass
class Run:
    """One command's run: where it crashes, what it passed."""

    crash_at: str | None
    passed: list[str] = field(default_factory=list)

    def point(self, name: str) -> None:
        assert name in STATED, f"{name}: a fault point without a stated outcome"
        self.passed.append(name)
        if name == self.crash_at:
            raise Crash(name)


def answer(n: int) -> tuple[str, str]:
    """The response of answer ``n`` and the line that marks it."""
    mark = f"MARK-{n}."
    return (
        f"<!-- patch:exchange -->\n### Re: answer {n}\n{mark}\n<!-- /patch:exchange -->\n",
        mark,
    )


def write(disk: Disk, response: str, answer_id: str, baseline: str, run: Run) -> bool:
    """``write``'s durable steps (pipeline + disk); True: reported landed."""
    if disk.record.has_landed(answer_id):
        if disk.pending is not None and disk.pending[1] == answer_id:
            disk.pending = None
        return False
    if disk.pending is not None and disk.pending[1] != answer_id:
        recover_pending(disk, Run(None))  # a pending copy is never overwritten
    disk.pending = (response, answer_id)
    run.point("write.pending_saved")
    ours = build_content_ours(baseline, response, {}, boundary_id=answer_id)
    current = disk.doc  # under the document lock from here
    if disk.record.has_landed(answer_id):
        return False
    final = ours
    if current != baseline:
        final = single_boundary(merge_texts(baseline, ours, current).text, ours)
    landing = Landing(
        answer_id, data_digest(ours), data_digest(final) if final != ours else None,
        added_lines(baseline, ours, answer_id),
    )  # fmt: skip
    disk.staged, disk.record = ours, disk.record.accept(landing)
    run.point("write.landing_recorded")
    disk.doc = final
    run.point("write.document_written")
    disk.snapshot, disk.staged = ours, None
    run.point("write.snapshot_saved")
    disk.record = disk.record.land(answer_id, data_digest(ours))
    run.point("write.landed")
    disk.pending = None
    return True


def recover_pending(disk: Disk, run: Run) -> None:
    """``recover``'s durable steps for a pending copy."""
    if disk.pending is None:
        return
    response, answer_id = disk.pending
    verdict = landing_verdict(
        disk.record, answer_id, disk.doc, disk.snapshot, staged=disk.staged
    )
    if verdict.state == "recorded":
        disk.staged, disk.pending = None, None
        return
    if verdict.state == "lost":
        disk.staged = None
        if verdict.landing is not None:
            disk.record = disk.record.accept(None)
        write(disk, response, answer_id, disk.doc, run)
        return
    if not verdict.in_snapshot:
        disk.snapshot = disk.staged if disk.staged is not None else disk.doc
    disk.staged = None
    run.point("recover.snapshot_promoted")
    disk.record = disk.record.land(answer_id, data_digest(disk.snapshot))
    run.point("recover.landed")
    disk.pending = None


def settle_compaction(disk: Disk, run: Run) -> None:
    """A compaction a crash interrupted: undone or completed."""
    intent = disk.record.compacting
    if intent is None:
        return
    digest = data_digest(disk.archive) if disk.archive else None
    verdict = compaction_verdict(intent, digest, disk.doc)
    if verdict == "undo":
        disk.archive = disk.archive.encode()[: intent.archive_size or 0].decode()
        run.point("recover.archive_restored")
    elif verdict == "complete":
        change = Compaction(0, 0, intent.replaced, "", 0, 0, intent.link)
        disk.snapshot = change.apply_to(disk.snapshot) or disk.snapshot
    disk.record = disk.record.with_compacting(None)


def compact(disk: Disk, run: Run) -> None:
    """``compact --keep 1``'s durable steps (the document on disk)."""
    settle_compaction(disk, Run(None))
    plan = plan_compaction(disk.doc, 1, "doc.archive.md")
    if plan is None:
        return
    snapshot = plan.apply_to(disk.snapshot)
    if snapshot is None:
        return  # refused: the turns hold edits the agent has not seen
    head = disk.archive or "# Archive of doc.md\n\n"
    if not head.endswith("\n\n"):
        head += "\n"
    new_archive = head + archive_entry(plan, "T", "doc.md")
    intent = Compacting(
        "c", "doc.archive.md", len(disk.archive.encode()) if disk.archive else None,
        data_digest(new_archive), plan.replaced, plan.link,
    )  # fmt: skip
    disk.record = disk.record.with_compacting(intent)
    run.point("compact.intent_recorded")
    disk.archive = new_archive
    run.point("compact.archive_written")
    disk.doc = plan.apply(disk.doc)
    run.point("compact.document_written")
    disk.snapshot = snapshot
    run.point("compact.state_saved")
    disk.record = disk.record.with_compacting(None)
    run.point("compact.done")


class LandingModel(RuleBasedStateMachine):
    """The document's durable state under typing, answers, crashes, recover."""

    start = START
    """The document the model starts from."""

    def __init__(self) -> None:
        super().__init__()
        self.disk = Disk(doc=self.start, snapshot=self.start)
        self.accepted: dict[str, str] = {}  # answer id -> its mark
        self.reported: set[str] = set()
        self.typed: list[str] = []
        self.turn_text = self.start  # what the agent was sent (the baseline)
        self.count = 0

    def _next(self) -> tuple[str, str, str]:
        self.count += 1
        response, mark = self.answer(self.count)
        answer_id = f"{self.count:08x}"
        self.accepted[answer_id] = mark
        return response, answer_id, mark

    def answer(self, n: int) -> tuple[str, str]:
        """The response of answer ``n`` and the line that marks it."""
        return answer(n)

    def _at_end(self, doc: str, line: str) -> str:
        """``doc`` with ``line`` typed at the end of the exchange."""
        return doc.replace(CLOSE, f"{line}\n{CLOSE}")

    def _write(self, crash_at: str | None, baseline: str) -> None:
        response, answer_id, _ = self._next()
        try:
            landed = write(self.disk, response, answer_id, baseline, Run(crash_at))
        except Crash:
            return
        assert landed
        assert self.disk.record.has_landed(answer_id)  # reported after the commit
        self.reported.add(answer_id)
        self.turn_text = self.disk.doc

    @rule(where=st.sampled_from(["end", "top"]))
    def person_types(self, where: str) -> None:
        line = f"typed-{len(self.typed)}."
        self.typed.append(line)
        doc = self.disk.doc
        if where == "end":
            self.disk.doc = self._at_end(doc, line)
        elif "# Doc\n" in doc:
            self.disk.doc = doc.replace("# Doc\n", f"# Doc\n{line}\n", 1)
        else:  # compacted away with the first turns (an inline document)
            end = doc.index("---\n", 4) + 4
            self.disk.doc = doc[:end] + f"{line}\n" + doc[end:]

    @rule(crash_at=st.sampled_from([None, *WRITE_POINTS]), stale=st.booleans())
    def agent_answers(self, crash_at: str | None, stale: bool) -> None:
        self._write(crash_at, self.turn_text if stale else self.disk.doc)

    @rule()
    def second_writer_answers(self) -> None:
        """Another process lands its own answer (a crashed copy may be pending)."""
        self._write(None, self.disk.doc)

    @rule()
    def writing_a_landed_answer_again_changes_nothing(self) -> None:
        if not self.reported:
            return
        answer_id = sorted(self.reported)[0]
        before = replace(self.disk)
        mark = self.accepted[answer_id]
        response = self.answer(int(mark.strip(".").split("-")[1]))[0]
        assert not write(self.disk, response, answer_id, self.disk.doc, Run(None))
        assert self.disk.doc == before.doc

    @rule(crash_at=st.sampled_from([None, *RECOVER_POINTS]))
    def recover(self, crash_at: str | None) -> None:
        run = Run(crash_at)
        try:
            settle_compaction(self.disk, run)
            recover_pending(self.disk, run)
        except Crash:
            return
        self._check_settled()

    @rule(crash_at=st.sampled_from([None, *COMPACT_POINTS]))
    def compact(self, crash_at: str | None) -> None:
        if self.disk.pending is not None:
            return  # compact runs after recover (preflight); the model keeps that
        try:
            compact(self.disk, Run(crash_at))
        except Crash:
            return

    def _count(self, text: str) -> int:
        return self.disk.doc.count(text) + self.disk.archive.count(text)

    def _check_settled(self) -> None:
        disk = self.disk
        assert disk.pending is None
        assert disk.staged is None
        assert disk.record.landing is None
        assert disk.record.compacting is None
        for answer_id, mark in self.accepted.items():
            assert self._count(mark) == 1, f"{mark} ({answer_id})"

    @invariant()
    def at_most_one_boundary(self) -> None:
        assert len(find_boundaries(self.disk.doc)) <= 1

    @invariant()
    def reported_answers_once_typing_kept(self) -> None:
        if self.disk.record.compacting is not None:
            return  # between the archive and the document: recover settles it
        for answer_id in self.reported:
            assert self._count(self.accepted[answer_id]) == 1
        for line in self.typed:
            assert self._count(line + "\n") == 1, line
        for n in range(1, self.count + 1):
            assert self._count(f"### Re: answer {n}\n") <= 1


def schedules(examples: int) -> settings:
    """``examples`` derandomized schedules of :data:`STEPS` steps (the same
    every run; a failure prints its reproduction blob)."""
    return settings(
        max_examples=examples,
        stateful_step_count=STEPS,
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow],
    )


LandingModel.TestCase.settings = schedules(EXAMPLES)
test_landing_model = pytest.mark.timeout(1800)(LandingModel.TestCase)

INLINE_START = """---
agent_doc_format: inline
---
# Doc

## User

Question 0?
"""


class InlineLandingModel(LandingModel):
    """The same schedules on an inline-format document: answers are appended
    and carry no boundary marker (recover must recognise them another way)."""

    start = INLINE_START

    def answer(self, n: int) -> tuple[str, str]:
        """An appended answer ``n`` and the line that marks it."""
        mark = f"MARK-{n}."
        return f"## Assistant\n\n### Re: answer {n}\n{mark}\n", mark

    def _at_end(self, doc: str, line: str) -> str:
        return doc + f"{line}\n"


InlineLandingModel.TestCase.settings = schedules(max(EXAMPLES // 4, 100))
test_inline_landing_model = pytest.mark.timeout(1800)(InlineLandingModel.TestCase)


# -- named regressions -----------------------------------------------------------


def test_regression_crash_after_the_document_then_typing_lands_once() -> None:
    """The measured fault: killed between the document and the snapshot, the
    person types, ``recover`` must not land the answer a second time."""
    model = LandingModel()
    model.agent_answers("write.document_written", stale=False)
    model.person_types("end")
    model.recover(None)
    model.reported_answers_once_typing_kept()


def test_regression_a_crashed_copy_is_not_overwritten_by_the_next_write() -> None:
    """A pending copy that never landed, then another write: both land once."""
    model = LandingModel()
    model.agent_answers("write.pending_saved", stale=False)
    model.second_writer_answers()
    model.recover(None)


def test_regression_compact_killed_between_archive_and_document() -> None:
    model = LandingModel()
    for _ in range(3):
        model.agent_answers(None, stale=False)
        model.person_types("end")
    model.compact("compact.archive_written")
    model.person_types("end")
    model.recover(None)
    model.compact(None)
    model.reported_answers_once_typing_kept()


def test_regression_a_landed_id_again_keeps_another_answers_pending_copy() -> None:
    """Found by the model: writing a landed answer again cleared the pending
    copy of another answer (a crashed one), which was then lost."""
    model = LandingModel()
    model.second_writer_answers()
    model.agent_answers("write.pending_saved", stale=False)
    model.writing_a_landed_answer_again_changes_nothing()
    model.recover(None)


def test_regression_a_write_after_a_crashed_compaction_keeps_it_undoable() -> None:
    """Found by the model: a write between a compaction's archive and its
    document drops the boundary marker the moved turns held; recover took the
    turns for gone and completed the compaction (turns in both files)."""
    model = LandingModel()
    model.agent_answers("write.pending_saved", stale=False)
    model.second_writer_answers()
    model.compact("compact.archive_written")
    model.second_writer_answers()
    model.recover(None)
    model.reported_answers_once_typing_kept()


def test_regression_inline_crash_after_the_document_then_typing_lands_once() -> None:
    """Killed between the document and the snapshot on an inline-format
    document (no boundary marker), the person types: ``recover`` recognises
    the landed answer from the record and the staged snapshot."""
    model = InlineLandingModel()
    model.agent_answers("write.document_written", stale=False)
    model.person_types("end")
    model.recover(None)
    model.reported_answers_once_typing_kept()


def test_regression_inline_compact_killed_between_archive_and_document() -> None:
    """Found by the inline model: ``compact`` of an inline-format document
    (its first turns start at the title) killed after the archive write, the
    person types among those turns: ``recover`` took them for gone (the
    exact text was not there any more) and completed the compaction — the
    turns in both files. The link never replaced them: undone."""
    model = InlineLandingModel()
    model.second_writer_answers()
    model.second_writer_answers()
    model.compact("compact.archive_written")
    model.person_types("top")
    model.recover(None)
    model.reported_answers_once_typing_kept()
    model.compact(None)
    model.reported_answers_once_typing_kept()


def test_regression_inline_stale_answer_across_a_compaction() -> None:
    """Found by the inline model: an answer whose baseline predates a
    ``compact`` of an inline-format document, killed after its document
    write, then typing: ``recover`` compared the staged snapshot (the old
    turns and the answer) with the compacted snapshot, missed the old turns
    in the text, took the answer for lost and wrote it a second time. The
    landing now keeps the lines the answer added to its own baseline."""
    model = InlineLandingModel()
    model.second_writer_answers()
    model.second_writer_answers()
    LandingModel.compact(model, None)  # the baseline stays the older text
    model.agent_answers("write.document_written", stale=True)
    model.person_types("end")
    model.recover(None)
