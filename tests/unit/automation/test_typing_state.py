"""Typing awareness: live server answer first, indicator file second, timings."""

from __future__ import annotations

from pathlib import Path

from agent_doc.automation.user_typing import DEFAULT_TIMINGS
from agent_doc.automation.user_typing import is_typing
from agent_doc.automation.user_typing import last_typed
from agent_doc.automation.user_typing import record_typing
from agent_doc.automation.user_typing import timings_for
from agent_doc.store.state import doc_hash


class FakeLink:
    """Stands in for ServerLink.typing (the real socket is covered in tests/lsp)."""

    def __init__(self, value: int | None) -> None:
        self.value = value

    def typing(self, path: Path) -> int | None:
        return self.value


def test_indicator_file_holds_unix_ms(project: Path) -> None:
    doc = project / "sub" / "d.md"
    doc.parent.mkdir()
    doc.write_text("x\n")
    record_typing(doc, now_ms=123_456)
    stored = project / ".agent-doc" / "typing" / doc_hash(doc)
    assert stored.read_text() == "123456"
    assert last_typed(doc) == 123_456


def test_window_decides(project: Path) -> None:
    doc = project / "d.md"
    doc.write_text("x\n")
    assert not is_typing(doc, 1500)
    record_typing(doc, now_ms=10_000)
    assert is_typing(doc, 1500, now_ms=11_000)
    assert not is_typing(doc, 1500, now_ms=11_600)


def test_server_answer_wins_over_the_file(project: Path) -> None:
    doc = project / "d.md"
    doc.write_text("x\n")
    record_typing(doc, now_ms=1_000)
    assert last_typed(doc, FakeLink(50_000)) == 50_000  # type: ignore[arg-type]
    assert last_typed(doc, FakeLink(None)) == 1_000  # type: ignore[arg-type]
    assert is_typing(doc, 1500, link=FakeLink(50_000), now_ms=50_500)  # type: ignore[arg-type]


def test_timings_from_frontmatter_and_defaults(project: Path) -> None:
    doc = project / "d.md"
    doc.write_text(
        "---\nagent_doc_debounce_ms: 200\nagent_doc_typing_indicator_ms: 900\n"
        "agent_doc_status_timeout_ms: 5000\n---\nx\n"
    )
    timings = timings_for(doc)
    assert (timings.debounce_ms, timings.typing_indicator_ms) == (200, 900)
    assert timings.status_timeout_ms == 5000
    plain = project / "p.md"
    plain.write_text("x\n")
    assert timings_for(plain) == DEFAULT_TIMINGS
    assert timings_for(project / "missing.md") == DEFAULT_TIMINGS
    record_typing(doc, now_ms=10_000)
    assert is_typing(doc, now_ms=10_800)
    assert not is_typing(doc, now_ms=11_000)
