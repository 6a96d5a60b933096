"""The long-conversation bench's documents (bench/_long_docs.py) are what the
bench says they are: a valid session document of N turns, ~3.8 KB a turn."""

from __future__ import annotations

from agent_doc.document.components import parse_components
from agent_doc.document.frontmatter import parse_frontmatter
from bench._long_docs import CLOSE
from bench._long_docs import SESSION_ID
from bench._long_docs import conversation
from bench._long_docs import type_line


def test_size_grows_with_turns_and_is_deterministic() -> None:
    small, last = conversation(10)
    big, _ = conversation(100)
    assert conversation(10) == (small, last)
    per_turn = (len(big.encode()) - len(small.encode())) / 90
    assert 3_500 < per_turn < 4_200
    assert last.startswith("### Re: ")


def test_a_session_document_with_status_and_exchange() -> None:
    text, _ = conversation(20)
    front = parse_frontmatter(text)
    assert front.session
    assert front.resume == SESSION_ID
    names = [c.name for c in parse_components(text)]
    assert names == ["status", "exchange"]
    assert text.count("### Re: ") == 19
    assert "🚀" in text  # every size is stored as UCS-4 by Python


def test_type_line_types_above_the_closing_marker() -> None:
    text, _ = conversation(3)
    typed = type_line(text, "hello")
    assert typed.endswith("hello\n" + CLOSE + "\n")
    assert typed.replace("hello\n", "", 1) == text
