"""Answer identity and idempotent landing (:mod:`agent_doc.write.landing`)."""

from __future__ import annotations

from pathlib import Path

from agent_doc.automation import served_write
from agent_doc.document.boundary import boundary_marker
from agent_doc.store.landing import KEEP_LANDED
from agent_doc.store.landing import Landing
from agent_doc.store.landing import LandingRecord
from agent_doc.store.landing import load_record
from agent_doc.store.state import StateStore
from agent_doc.store.state import split_pending
from agent_doc.write.landing import added_lines
from agent_doc.write.landing import data_digest
from agent_doc.write.landing import landing_verdict
from agent_doc.write.landing import lines_in_text
from agent_doc.write.pipeline import WriteRequest
from agent_doc.write.pipeline import write_response

DOC = """---
agent_doc_format: template
---
<!-- agent:exchange patch=append -->
Question?
<!-- /agent:exchange -->
"""
RESPONSE = "<!-- patch:exchange -->\nThe answer.\n<!-- /patch:exchange -->\n"


def test_a_landed_answer_written_again_changes_nothing(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text(DOC)
    first = write_response(WriteRequest(doc, RESPONSE, answer_id="0a1b2c3d"))
    assert first.changed
    landed = doc.read_text()
    assert boundary_marker("0a1b2c3d") in landed  # the id is visible
    store = StateStore(project)
    assert load_record(store, doc).has_landed("0a1b2c3d")
    again = write_response(WriteRequest(doc, RESPONSE, answer_id="0a1b2c3d"))
    assert not again.changed
    assert doc.read_text() == landed
    assert landed.count("The answer.") == 1


def test_the_server_hand_off_refuses_a_landed_id(project: Path) -> None:
    doc = project / "doc.md"
    doc.write_text(DOC)
    write_response(WriteRequest(doc, RESPONSE, answer_id="feedbeef"))
    assert served_write.begin(doc, RESPONSE, "feedbeef") is None
    assert StateStore(project).load_pending(doc) is None
    fresh = served_write.begin(doc, RESPONSE, None)
    assert fresh is not None
    assert StateStore(project).load_pending_answer(doc) == (RESPONSE, fresh)
    served_write.end(doc)


def test_pending_copy_carries_its_id() -> None:
    assert split_pending("<!-- agent-doc:answer ab12 -->\nhello\n") == (
        "hello\n",
        "ab12",
    )
    assert split_pending("hello\n") == ("hello\n", None)


def test_verdicts() -> None:
    ours = DOC.replace("Question?\n", "Question?\nThe answer.\n")
    landing = Landing("c0ffee00", data_digest(ours))
    record = LandingRecord().accept(landing)
    typed = ours.replace("---\n<", "---\ntyped\n<", 1)
    assert landing_verdict(record, "c0ffee00", DOC, DOC).state == "lost"
    assert landing_verdict(record, "c0ffee00", ours, DOC).state == "landed"
    assert landing_verdict(record, "c0ffee00", typed, DOC).state == "lost"
    marked = typed + boundary_marker("c0ffee00") + "\n"
    assert landing_verdict(record, "c0ffee00", marked, DOC).state == "landed"
    assert landing_verdict(record, "c0ffee00", typed, ours).in_snapshot
    done = record.land("c0ffee00", data_digest(ours))
    assert done.landing is None
    assert landing_verdict(done, "c0ffee00", DOC, DOC).state == "recorded"
    assert landing_verdict(done, "other", DOC, DOC).state == "lost"


def test_the_record_keeps_the_last_ids() -> None:
    record = LandingRecord()
    for n in range(KEEP_LANDED + 5):
        record = record.land(f"{n:08x}", "d")
    assert len(record.landed) == KEEP_LANDED
    assert record.has_landed(f"{KEEP_LANDED + 4:08x}")
    assert not record.has_landed(f"{0:08x}")
    assert LandingRecord.from_json(record.to_json()) == record


def test_added_lines_are_the_answers_own_lines() -> None:
    base = "# Doc\n\n## User\n\nQ?\n"
    ours = base + "## Assistant\n\nA.\n\n## User\n\n"
    assert added_lines(base, ours, "abc") == "## Assistant\n\nA.\n\n## User\n\n"
    marked = base + boundary_marker("abc") + "\n"
    assert added_lines(base, marked, "abc") is None  # its marker finds it


def test_an_inline_answer_is_found_in_a_text_typed_and_merged_around() -> None:
    added = "## Assistant\n\n### Re: two\nMARK-2.\n\n## User\n\n"
    merged = (
        "# Doc\n## Assistant\n\n### Re: two\nMARK-2.\n### Re: one\nMARK-1.\n"
        "\n## User\n\ntyped\n"
    )
    assert lines_in_text(added, merged)
    assert not lines_in_text(added, merged.replace("MARK-2.", "MARK-3."))
    assert not lines_in_text(added, "MARK-2.\n### Re: two\n")  # out of order
    assert not lines_in_text("\n\n", merged)  # nothing to find


def test_an_inline_answer_across_a_compaction_is_landed_not_lost() -> None:
    """The landing's own lines decide, not the staged snapshot against a
    snapshot compacted since (it holds archived turns the text lost)."""
    old_turns = "## Assistant\n\nold.\n\n## User\n\nQ?\n"
    baseline = "# Doc\n\n" + old_turns
    ours = baseline + "## Assistant\n\nNEW.\n"
    compacted = "# Doc\n\n[archived](doc.archive.md)\n\n## User\n\nQ?\n"
    text = compacted + "## Assistant\n\nNEW.\ntyped\n"
    landing = Landing("x", data_digest(ours), None, added_lines(baseline, ours, "x"))
    verdict = landing_verdict(
        LandingRecord().accept(landing), "x", text, compacted, staged=ours
    )
    assert verdict.state == "landed"
    older = Landing("x", data_digest(ours))  # a record without ``added``
    verdict = landing_verdict(
        LandingRecord().accept(older), "x", text, compacted, staged=ours
    )
    assert verdict.state == "lost"  # what the staged snapshot alone said
