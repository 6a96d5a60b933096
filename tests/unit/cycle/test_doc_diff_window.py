"""``document_diff`` on the bytes (the windowed fast path) answers what the
plain path answers from the decoded texts, and raises as it does."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.cycle.doc_diff import document_diff
from agent_doc.document.diff import compute_diff
from agent_doc.errors import DocumentError
from agent_doc.store.state import StateStore
from agent_doc.store.state import read_document
from tests.unit.cycle.forms import FORMS
from tests.unit.cycle.forms import write_in_form

BODY = "".join(
    f"## User\n\nTurn {i}: café → 🚀 `<!-- kept -->`\n<!-- note {i} -->\n\n"
    f"```\n<!-- code {i} -->\n```\n\n"
    for i in range(400)
)
MID = BODY.index("## User", 9000)
CASES = {
    "typed at the end": (BODY, BODY + "typed\n"),
    "typed at the start": (BODY, "typed\n" + BODY),
    "typed in the middle": (BODY, BODY[:MID] + "typed <!-- c -->\n" + BODY[MID:]),
    "a fence opened": (BODY, BODY[:MID] + "```\n" + BODY[MID:]),
    "no snapshot": (None, BODY),
    "unchanged": (BODY, BODY),
}


def _plain(doc: Path) -> str | None:
    previous = StateStore.for_document(doc).load_snapshot(doc)
    return compute_diff(previous or "", read_document(doc).text)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("form", FORMS)
def test_the_fast_path_answers_as_the_plain_one(
    project: Path, name: str, form: str
) -> None:
    snapshot, text = CASES[name]
    doc = write_in_form(project / "doc.md", text, form, snapshot)
    result = document_diff(doc)
    assert result.diff == _plain(doc)
    assert result.has_snapshot is (snapshot is not None)
    assert result.source == "file"
    if name == "typed in the middle":
        assert result.diff is not None
        assert "+typed\n" in result.diff


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (BODY.encode() + b"\xff\n", "not valid UTF-8"),
        (BODY.encode() + b"\0\n", "NUL byte"),
    ],
)
def test_a_bad_document_is_refused_as_before(
    project: Path, data: bytes, says: str
) -> None:
    doc = project / "doc.md"
    doc.write_bytes(data)
    StateStore.for_document(doc).save_snapshot(doc, BODY)
    with pytest.raises(DocumentError, match=says):
        document_diff(doc)
