"""agent_doc.editor.turns: agent answers, named by heading and occurrence."""

from __future__ import annotations

import pytest

from agent_doc.editor.turns import answers
from agent_doc.editor.turns import revert_answer

DOC = """---
agent_doc_format: template
---
<!-- agent:exchange -->
q1

### Re: q1 (HEAD)

a1
```
### Re: in code
```
<!-- not ### Re: a comment -->

### Re: q1

again
<!-- agent:boundary:0123abcd -->
typed after
<!-- /agent:exchange -->
"""


def test_answers_skip_code_and_count_repeated_headings():
    found = answers(DOC)
    assert [(a.heading, a.occurrence) for a in found] == [
        ("### Re: q1", 0),
        ("### Re: q1", 1),
    ]
    assert DOC[found[0].start : found[0].heading_end] == "### Re: q1 (HEAD)"
    assert DOC[found[1].start : found[1].end] == "### Re: q1\n\nagain\n"


def test_inline_assistant_sections_are_answers():
    text = "## User\n\nhi\n\n## Assistant\n\nhello\n\n## User\n\nmore\n"
    (found,) = answers(text)
    assert text[found.start : found.end] == "## Assistant\n\nhello\n\n"


def test_revert_keeps_text_typed_below_the_answer():
    snapshot = DOC.replace("typed after\n", "")
    buffer = DOC.replace("again\n", "again\nmy note right under it\n")
    new_buffer, new_snapshot = revert_answer(buffer, snapshot, "### Re: q1", 1)
    assert "again" not in new_buffer
    assert "my note right under it\n<!-- agent:boundary" in new_buffer
    assert new_snapshot is not None
    assert "again" not in new_snapshot
    assert "typed after" in new_buffer


def test_revert_without_snapshot_removes_the_block_only():
    new_buffer, new_snapshot = revert_answer(DOC, None, "### Re: q1", 0)
    assert new_snapshot is None
    assert "a1" not in new_buffer
    assert "again" in new_buffer


def test_revert_of_a_missing_answer_is_a_lookup_error():
    with pytest.raises(LookupError, match="no answer"):
        revert_answer(DOC, DOC, "### Re: nope", 0)
