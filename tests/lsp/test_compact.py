"""``agent-doc compact`` on a document open in an editor, end to end.

The real CLI finds the real server through the project socket; the older turns
leave the buffer as one workspace edit, and what the person typed below them
(unsaved) stays.
"""

from __future__ import annotations

from pathlib import Path

from agent_doc.store.state import StateStore
from tests.lsp.editor_client import position_of
from tests.lsp.editor_client import start_editor
from tests.lsp.test_live_write import opened
from tests.lsp.test_live_write import registered
from tests.lsp.test_live_write import run_cli

TURNS = "".join(
    f"### Re: question {i}\n\nAnswer {i}.\n\nQuestion {i + 1}?\n" for i in range(1, 13)
)
DOC = (
    "---\nagent_doc_format: template\n---\n# Session\n\n"
    "<!-- agent:exchange patch=append -->\n## User\n\nQuestion 1?\n"
    f"{TURNS}<!-- /agent:exchange -->\n"
)
LINK = "*[9 earlier turns archived in doc.archive.md](doc.archive.md)*\n\n"


async def test_compact_in_an_open_editor_is_one_edit_keeping_unsaved_typing(
    client, project: Path
) -> None:
    ed = await start_editor(client, root=project)
    doc = project / "doc.md"
    doc.write_text(DOC)
    StateStore(project).save_snapshot(doc, DOC)  # the agent saw all of it
    uri = doc.as_uri()
    ed.open(uri, DOC)
    await registered(ed, project)
    await opened(project, doc)
    at = ed.text(uri).index("<!-- /agent:exchange -->")
    pos = position_of(ed.text(uri), at, ed.encoding)
    ed.type(uri, pos.line, pos.character, "Typed below, unsaved.\n")
    code, err = await run_cli("compact", str(doc), "--keep", "3", "--no-git")
    assert code == 0, err
    assert "in the editor" in err
    assert len(ed.applied) == 1  # one workspace edit: one undo
    text = ed.text(uri)
    assert text.count(LINK) == 1
    assert "### Re: question 9\n" not in text
    assert text.index(LINK) < text.index("### Re: question 10")
    assert text.endswith(
        "Question 13?\nTyped below, unsaved.\n<!-- /agent:exchange -->\n"
    )
    assert doc.read_text() == DOC  # the file is the editor's to save
    archive = (project / "doc.archive.md").read_text()
    assert "### Re: question 9\n" in archive
    assert "### Re: question 10" not in archive
    # The snapshot was compacted the same way: only the typing is unsent.
    snapshot = StateStore(project).load_snapshot(doc)
    assert snapshot == text.replace("Typed below, unsaved.\n", "")
