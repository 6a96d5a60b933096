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


THREE = """---
agent_doc_format: template
---
<!-- agent:exchange -->
Q1?

### Re: Q1?

A1 said this.
note under A1
Q2?

### Re: Q2?

A2 said this.
note under A2
Q3?

### Re: Q3? (HEAD)

A3 said this.
<!-- agent:boundary:0123abcd -->
note under A3
<!-- /agent:exchange -->
"""
"""Three turns; the person typed under each answer (Q2 and Q3 were sent with
the next turn, the notes are unsent)."""


def _as_written(n: int) -> str:
    """The answer block in the commit of turn ``n`` (it ended at the boundary)."""
    return f"### Re: Q{n}? (HEAD)\n\nA{n} said this.\n"


@pytest.mark.parametrize("turn", [1, 2, 3], ids=["first", "middle", "last"])
def test_revert_of_any_turn_keeps_what_was_typed_under_it(turn: int) -> None:
    """Regression: reverting an earlier answer also removed the question typed
    right under it (the snapshot's answer block runs to the next heading)."""
    snapshot = THREE.replace("note under A1\n", "").replace("note under A2\n", "")
    snapshot = snapshot.replace("note under A3\n", "")
    new_buffer, new_snapshot = revert_answer(
        THREE, snapshot, f"### Re: Q{turn}?", 0, _as_written(turn)
    )
    assert f"A{turn} said this." not in new_buffer
    assert f"### Re: Q{turn}?" not in new_buffer
    gone = f"### Re: Q{turn}?"
    expected = THREE.split(gone)[0].rstrip("\n") + "\n"  # up to the blank line
    assert new_buffer.startswith(expected)
    for kept in (
        "Q1?",
        "Q2?",
        "Q3?",
        "note under A1",
        "note under A2",
        "note under A3",
    ):
        assert kept in new_buffer
    for other in {1, 2, 3} - {turn}:
        assert f"A{other} said this." in new_buffer
    assert new_snapshot is not None
    assert f"A{turn} said this." not in new_snapshot
    assert all(q in new_snapshot for q in ("Q1?", "Q2?", "Q3?"))
    assert new_buffer.count("\n") == THREE.count("\n") - 3


def test_answer_as_written_is_the_block_of_its_first_commit(project) -> None:
    import subprocess

    from agent_doc.editor.turn_history import answer_as_written

    doc = project / "doc.md"
    first = THREE.split("note under A1")[0].replace("### Re: Q1?", "### Re: Q1? (HEAD)")
    doc.write_text(
        first + "<!-- agent:boundary:0123abcd -->\n<!-- /agent:exchange -->\n"
    )
    subprocess.run(["git", "-C", str(project), "add", "doc.md"], check=True)
    subprocess.run(["git", "-C", str(project), "commit", "-qm", "t1"], check=True)
    doc.write_text(THREE)
    subprocess.run(["git", "-C", str(project), "commit", "-qam", "t3"], check=True)
    assert answer_as_written(doc, "### Re: Q1?", 0) == _as_written(1)
    assert answer_as_written(doc, "### Re: Q3?", 0) == _as_written(3)
    assert answer_as_written(doc, "### Re: Q9?", 0) is None
    outside = project.parent / "loose.md"
    outside.write_text(THREE)
    assert answer_as_written(outside, "### Re: Q1?", 0) is None


def test_revert_falls_back_to_the_snapshot_copy_when_the_commit_differs() -> None:
    """The committed copy no longer matches the buffer (edited since): the
    snapshot's copy is tried before the whole block goes."""
    snapshot = THREE.replace("note under A3\n", "")
    buffer = THREE.replace("note under A3\n", "")
    stale = "### Re: Q3? (HEAD)\n\nA3 as first written.\n"
    new_buffer, _ = revert_answer(buffer, snapshot, "### Re: Q3?", 0, stale)
    assert "A3 said this." not in new_buffer
    assert new_buffer.endswith(
        "Q3?\n\n<!-- agent:boundary:0123abcd -->\n<!-- /agent:exchange -->\n"
    )
