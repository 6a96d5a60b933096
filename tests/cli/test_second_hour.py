"""A newcomer's second hour through the real CLI: patch, convert, compact,
doctor, upgrade (issue 39)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_runner import cli

DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
---
# Plan

<!-- agent:exchange patch=append -->
## User

What is 2 + 2?

### Re: the sum

It is 4.
<!-- /agent:exchange -->
"""


def test_text_patched_into_the_exchange_starts_a_paragraph(project: Path) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    result = cli(project, "patch", "plan.md", "exchange", stdin="And 3 + 3?\n")
    assert result.returncode == 0, result.stderr
    assert "It is 4.\n\nAnd 3 + 3?\n<!-- /agent:exchange -->" in doc.read_text()
