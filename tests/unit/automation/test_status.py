"""Per-document status files: set, read, staleness, the busy context."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.automation.busy import HEARTBEAT_THREAD
from agent_doc.automation.busy import busy
from agent_doc.automation.busy import get_status
from agent_doc.automation.busy import is_busy
from agent_doc.automation.busy import parse_status
from agent_doc.automation.busy import set_status
from agent_doc.automation.busy import status_path
from agent_doc.errors import StateError
from agent_doc.store.state import doc_hash


@pytest.fixture
def doc(project: Path) -> Path:
    path = project / "d.md"
    path.write_text("---\nagent_doc_status_timeout_ms: 1000\n---\nhi\n")
    return path


def test_status_file_format_and_location(project: Path, doc: Path) -> None:
    set_status(doc, "generating", now_ms=1_000)
    stored = project / ".agent-doc" / "status" / doc_hash(doc)
    assert stored.read_text() == "generating:1000"
    assert parse_status("writing:12") == ("writing", 12)
    assert parse_status("bogus:12") is None
    assert parse_status("writing:x") is None


@pytest.mark.parametrize(
    ("age_ms", "expected"),
    [
        pytest.param(29_000, "writing", id="fresh"),
        pytest.param(30_000, "writing", id="at-limit"),
        pytest.param(31_000, "idle", id="stale"),
    ],
)
def test_staleness_boundary(project: Path, age_ms: int, expected: str) -> None:
    path = project / "plain.md"
    path.write_text("plain\n")
    set_status(path, "writing", now_ms=100_000)
    assert get_status(path, now_ms=100_000 + age_ms) == expected


def test_timeout_comes_from_frontmatter(doc: Path) -> None:
    set_status(doc, "routing", now_ms=10_000)
    assert get_status(doc, now_ms=10_900) == "routing"
    assert get_status(doc, now_ms=11_100) == "idle"


def test_missing_or_corrupt_status_is_idle(project: Path, doc: Path) -> None:
    assert get_status(doc) == "idle"
    target = project / ".agent-doc" / "status" / doc_hash(doc)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("garbage")
    assert not is_busy(doc)


def test_unknown_status_is_refused(doc: Path) -> None:
    with pytest.raises(StateError, match="unknown status"):
        set_status(doc, "sleeping")  # type: ignore[arg-type]


def test_busy_context_sets_and_resets_even_on_error(doc: Path) -> None:
    seen: list[bool] = []

    def work() -> None:
        with busy(doc, "writing"):
            seen.append(is_busy(doc))
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        work()
    assert seen == [True]
    assert get_status(doc) == "idle"


def test_heartbeat_keeps_a_long_turn_from_looking_stale(doc: Path) -> None:
    """With ``heartbeat`` the stamp is refreshed (timeout 1 s here: every 1/3 s),
    so a turn longer than the timeout still counts as busy."""
    import threading
    import time

    stored = status_path(doc)
    with busy(doc, "generating", heartbeat=True):
        first = parse_status(stored.read_text())
        assert first is not None
        deadline = time.monotonic() + 10
        while parse_status(stored.read_text()) == first:  # bounded: the next beat
            assert time.monotonic() < deadline, "the status was never refreshed"
            time.sleep(0.02)
        refreshed = parse_status(stored.read_text())
        assert refreshed is not None
        assert refreshed[0] == "generating"
        assert refreshed[1] > first[1]
    assert get_status(doc) == "idle"
    assert not [t for t in threading.enumerate() if t.name == HEARTBEAT_THREAD]
