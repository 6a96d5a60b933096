"""The seam an agent's own ``fs/write_text_file`` takes (issue 35, item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.errors import AgentDocError
from agent_doc.write.agent_write import AgentView
from agent_doc.write.agent_write import buffer_planner
from agent_doc.write.agent_write import merge_into_file
from agent_doc.write.agent_write import merged_text
from agent_doc.write.agent_write import read_for_agent
from agent_doc.write.live import apply_changes

BASE = "# Plan\n\nQuestion?\n\nNotes:\n"
AGENT = BASE.replace("# Plan", "# Plan (agent)")
TYPED = BASE + "typed meanwhile\n"


@pytest.fixture
def doc(tmp_path: Path) -> Path:
    (tmp_path / ".agent-doc").mkdir()
    return tmp_path / "plan.md"


def test_merged_text_keeps_both_sides() -> None:
    assert merged_text(BASE, AGENT, TYPED) == AGENT + "typed meanwhile\n"
    assert merged_text(BASE, AGENT, BASE) == AGENT  # nothing typed
    assert merged_text(BASE, BASE, TYPED) == TYPED  # the agent changed nothing
    assert merged_text(None, AGENT, TYPED) == AGENT  # never seen: the agent's text


def test_a_file_keeps_its_bom_crlf_and_mode(doc: Path) -> None:
    doc.write_bytes(b"\xef\xbb\xbf" + TYPED.replace("\n", "\r\n").encode())
    doc.chmod(0o640)
    final = merge_into_file(doc, BASE, AGENT)
    assert final == AGENT + "typed meanwhile\n"
    expected = b"\xef\xbb\xbf" + final.replace("\n", "\r\n").encode()
    assert doc.read_bytes() == expected
    assert doc.stat().st_mode & 0o777 == 0o640
    assert read_for_agent(doc) == final  # the agent reads the core's form


def test_a_crlf_write_by_the_agent_is_taken_as_its_text(doc: Path) -> None:
    doc.write_text(BASE)
    merge_into_file(doc, BASE, AGENT.replace("\n", "\r\n"))
    assert doc.read_text() == AGENT


def test_an_unchanged_file_is_not_rewritten(doc: Path) -> None:
    doc.write_text(TYPED)
    before = doc.stat().st_mtime_ns
    assert merge_into_file(doc, BASE, BASE) == TYPED
    assert doc.stat().st_mtime_ns == before


def test_a_missing_document_is_an_error_and_nothing_is_created(doc: Path) -> None:
    with pytest.raises(AgentDocError):
        merge_into_file(doc, BASE, AGENT)
    assert not doc.exists()


def test_the_view_remembers_what_the_agent_saw(tmp_path: Path) -> None:
    doc = tmp_path / "plan.md"
    view = AgentView(doc, BASE.replace("\n", "\r\n"))
    assert view.base(doc) == BASE  # the prompt's text, in the core's form
    assert view.saw(tmp_path / "." / "plan.md", AGENT) == AGENT
    assert view.base(doc) == AGENT
    assert view.base(tmp_path / "other.md") is None


def test_the_buffer_plan_is_minimal_and_keeps_crlf() -> None:
    live = TYPED.replace("\n", "\r\n")
    plan = buffer_planner(BASE, AGENT)(live)
    assert plan.merged == (AGENT + "typed meanwhile\n").replace("\n", "\r\n")
    assert len(plan.changes) == 1
    assert plan.changes[0].new_text == " (agent)"  # only what the agent changed
    assert apply_changes(live, plan.changes) == plan.merged


def test_without_a_base_the_first_buffer_text_stands_in() -> None:
    plan_for = buffer_planner(None, AGENT)
    assert plan_for(BASE).merged == AGENT
    # a retry after the person typed: their typing is merged, not replaced
    assert plan_for(TYPED).merged == AGENT + "typed meanwhile\n"
