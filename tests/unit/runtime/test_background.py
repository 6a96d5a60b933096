"""``in_background``: work runs on another thread while the caller goes on;
waiting gives its result or raises its error, in the caller."""

from __future__ import annotations

import _thread
from pathlib import Path

import pytest

from agent_doc._runtime.background import in_background
from agent_doc._runtime.background import wait_quietly
from agent_doc.errors import StateError
from agent_doc.write.pipeline import run_write


def test_the_work_runs_while_the_caller_goes_on() -> None:
    gate = _thread.allocate_lock()
    gate.acquire()

    def work() -> str:
        with gate:  # only after the caller released it below
            return "done"

    wait = in_background(work)
    gate.release()  # the caller was not blocked by the work
    assert wait() == "done"
    assert wait() == "done"  # every wait, the same outcome


def test_an_error_is_raised_in_the_waiting_caller() -> None:
    def work() -> None:
        raise StateError("cannot write x")

    wait = in_background(work)
    with pytest.raises(StateError, match="cannot write x"):
        wait()
    wait_quietly(wait)  # while another error goes up: dropped


def test_a_state_file_that_cannot_be_written_fails_the_write(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- agent:exchange -->\nhi\n<!-- /agent:exchange -->\n")
    (tmp_path / ".agent-doc").mkdir()
    (tmp_path / ".agent-doc" / "crdt").write_text("a file, not the folder")
    with pytest.raises(StateError, match="crdt"):
        run_write(doc, "answer\n", force_disk=True)  # saved on the other thread
    assert "answer" in doc.read_text()  # the document was written before it
