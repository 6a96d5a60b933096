"""``run``'s turn on the file's UTF-8 (the fast path of ``prepare_turn``)
builds what the plain path builds from the decoded texts: the same prompt,
mode, diff and AGENTS.md section, the same backlog step on the files, the
same errors; and for a resumed prompt it decodes neither whole text.

The plain path is ``prepare_turn`` given the document's text (the path a
live buffer takes), after the backlog step it would have taken. Both run on
the same files, restored between them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_doc.cycle.turn import PreparedTurn
from agent_doc.cycle.turn import prepare_turn
from agent_doc.document.apply_window import WINDOW_FROM
from agent_doc.errors import AgentDocError
from agent_doc.errors import DocumentError
from agent_doc.errors import StateError
from agent_doc.store.state import StateStore
from agent_doc.store.state import read_document
from agent_doc.write.backlog import tidy_backlog
from tests.cli_runner import cli
from tests.unit.cycle.forms import FORMS
from tests.unit.cycle.forms import write_in_form

CLOSE = "<!-- /agent:exchange -->\n"
HEAD = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
agent: fake
{resume}---

# Plan

<!-- agent:status patch=replace -->
idle
<!-- /agent:status -->

{backlog}<!-- agent:exchange patch=append -->
"""
BACKLOG = """<!-- agent:backlog -->
- [ ] keep the API stable
- [x] measure before and after
<!-- /agent:backlog -->

"""
ICEBOX = "\n<!-- agent:icebox -->\n- [ ] [#a3f2] someday\n<!-- /agent:icebox -->\n"
BODY = "".join(
    f"## User\n\nTurn {i}: café → 🚀 `<!-- kept -->`\n<!-- note {i} -->\n\n"
    f"```\n<!-- code {i} -->\n## not a heading {i}\n```\n\n"
    f"### Re: turn {i}\n\n" + "Answer text — naïve. " * 14 + "\n\n"
    for i in range(700)
)
MID = BODY.index("## User", len(BODY) // 2)
LATE = BODY.index("## User", MID + 5000)


def _doc(body: str = BODY, *, resume: bool = True, backlog: bool = False) -> str:
    front = "resume: sess-1\n" if resume else ""
    head = HEAD.format(resume=front, backlog=BACKLOG if backlog else "")
    return head + body + CLOSE


TYPED = _doc(BODY + "## User\n\nAnd 3 + 3? é 😀\n")
CASES: dict[str, tuple[str | None, str]] = {
    "typed at the end": (_doc(), TYPED),
    "typed in the middle": (
        _doc(),
        _doc(BODY[:MID] + "typed <!-- c -->\n" + BODY[MID:]),
    ),
    "a comment across the window": (
        _doc(),
        _doc(
            BODY[:MID] + "<!-- opened\n" + BODY[MID:LATE] + "closed -->\n" + BODY[LATE:]
        ),
    ),
    "a fence opened": (_doc(), _doc(BODY[:MID] + "```\n" + BODY[MID:])),
    "the status and the end": (
        _doc(),
        TYPED.replace("idle\n", "busy → 🚀\n", 1),
    ),
    "the status only": (_doc(), _doc().replace("idle\n", "busy\n", 1)),
    "unchanged": (_doc(), _doc()),
    "only a comment": (_doc(), _doc(BODY + "<!-- a note to self -->\n")),
    "first turn": (None, TYPED),
    "first turn, nothing typed": (None, _doc("## User\n\n")),
    "no resume id": (_doc(resume=False), _doc(BODY + "More?\n", resume=False)),
    "a backlog tidied": (
        _doc(backlog=True),
        _doc(BODY + "Next?\n", backlog=True).replace(
            "- [ ] keep", "- [ ] new item\n- [ ] keep"
        ),
    ),
    "an icebox": (
        _doc().replace(CLOSE, CLOSE + ICEBOX),
        TYPED.replace(CLOSE, CLOSE + ICEBOX),
    ),
    "small": (_doc(BODY[:2000]), _doc(BODY[:2000] + "More? é\n")),
}


def _plain(doc: Path) -> PreparedTurn | None:
    """The turn as the text path builds it: the document's text after the
    backlog step, the stored snapshot decoded."""
    text = read_document(doc).text
    if ("agent:backlog" in text or "agent:icebox" in text) and tidy_backlog(
        doc, None
    ) is not None:
        text = read_document(doc).text
    return prepare_turn(doc, None, text)


def _setup(project: Path, snapshot: str | None, text: str, form: str) -> Path:
    return write_in_form(project / "plan.md", text, form, snapshot)


def _files(project: Path) -> dict[str, bytes]:
    """Every file of the project but git's (a CRDT state by name only: it
    holds a random client id; a snapshot index without its key, which holds
    the snapshot's modification time)."""
    found = {}
    for p in sorted(project.rglob("*")):
        if p.is_file() and ".git" not in p.relative_to(project).parts:
            data = b"" if p.suffix == ".yrs" else p.read_bytes()
            if p.suffix == ".idx":
                lines = data.split(b"\n")
                data = b"\n".join([lines[0], lines[1].split(b" ")[0], *lines[2:]])
            found[str(p.relative_to(project))] = data
    return found


def _restore(project: Path, saved: Path, doc: Path, data: bytes) -> None:
    shutil.rmtree(project / ".agent-doc")
    shutil.copytree(saved, project / ".agent-doc")
    doc.write_bytes(data)


def _both(project: Path, doc: Path) -> tuple[tuple[object, ...], tuple[object, ...]]:
    """``(plain, fast)``: each turn's fields (or error), run on the same files."""
    saved = project.parent / f"{project.name}-state"
    (project / ".agent-doc").mkdir(exist_ok=True)
    shutil.copytree(project / ".agent-doc", saved)
    data = doc.read_bytes()
    outcomes: list[tuple[object, ...]] = []
    for build in (_plain, lambda d: prepare_turn(d, None)):
        _restore(project, saved, doc, data)
        try:
            turn = build(doc)
        except AgentDocError as exc:
            outcomes.append((type(exc), str(exc), _files(project)))
            continue
        fields = None
        if turn is not None:
            fields = (turn.prompt, turn.mode, turn.diff, turn.instructions,
                      turn.front, turn.text, turn.full_prompt())  # fmt: skip
        outcomes.append((fields, _files(project)))
    return outcomes[0], outcomes[1]


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("form", FORMS)
def test_the_turn_on_the_bytes_is_the_plain_one(
    project: Path, name: str, form: str
) -> None:
    snapshot, text = CASES[name]
    (project / "AGENTS.md").write_text("Answer briefly — in English.\n")
    doc = _setup(project, snapshot, text, form)
    plain, fast = _both(project, doc)
    assert fast == plain
    fields = plain[0]
    if name in ("unchanged", "only a comment"):
        assert fields is None
    else:
        assert isinstance(fields, tuple)
        assert fields[1] == ("resumed" if snapshot and "resume:" in text else "full")


def test_the_cases_take_the_paths_they_are_meant_to(project: Path) -> None:
    """The large cases reach the window (an index, no whole text decoded for
    a resumed prompt); CRLF takes the text path."""
    snapshot, text = CASES["typed at the end"]
    doc = _setup(project, snapshot, text, "plain")
    assert len(text.encode()) >= WINDOW_FROM
    found = StateStore.for_document(doc).load_snapshot_indexed(doc)
    assert found is not None
    assert found[1] is not None  # the snapshot has its index
    turn = prepare_turn(doc, None)
    assert turn is not None
    assert turn.mode == "resumed"
    assert turn.document.data is not None
    assert turn.document.decoded() is None  # the whole text never decoded
    assert "+And 3 + 3? é 😀" in (turn.diff or "")
    assert turn.text == text  # decoded when asked (the answer's write)
    doc.write_bytes(text.replace("\n", "\r\n").encode())
    crlf = prepare_turn(doc, None)
    assert crlf is not None
    assert crlf.document.data is None


@pytest.mark.parametrize(
    "bad",
    [b"\xff", b"\xed\xa0\x80", "😀".encode()[:3], b"\0"],
    ids=["xff", "surrogate", "cut", "nul"],
)
@pytest.mark.parametrize("where", ["middle", "end"])
def test_a_bad_document_is_refused_as_the_plain_path_refuses_it(
    project: Path, bad: bytes, where: str
) -> None:
    snapshot, text = CASES["typed at the end"]
    doc = _setup(project, snapshot, text, "plain")
    data = text.encode()
    at = len(data) - len(CLOSE) if where == "end" else data.index(b"## User", MID)
    doc.write_bytes(data[:at] + bad + data[at:])
    plain, fast = _both(project, doc)
    assert fast == plain
    assert plain[0] is DocumentError


@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_a_bad_snapshot_is_refused_as_the_plain_path_refuses_it(
    project: Path, where: str
) -> None:
    """The snapshot is checked past the prefix it shares with the document
    (checked whole): a bad byte anywhere in it is the plain path's error."""
    snapshot, text = CASES["typed at the end"]
    assert snapshot is not None
    doc = _setup(project, snapshot, text, "plain")
    target = StateStore.for_document(doc).snapshot_path(doc)
    data = target.read_bytes()
    at = {"start": 200, "middle": data.index(b"## User", MID), "end": len(data) - 3}
    target.write_bytes(data[: at[where]] + b"\xff" + data[at[where] :])
    plain, fast = _both(project, doc)
    assert fast == plain
    assert plain[0] is StateError


@pytest.mark.parametrize("bad", ["document", "snapshot"])
def test_run_dry_run_refuses_bad_utf8_with_one_line(project: Path, bad: str) -> None:
    """One ``agent-doc:`` line, a non-zero exit, nothing written."""
    snapshot, text = CASES["typed at the end"]
    assert snapshot is not None
    doc = _setup(project, snapshot, text, "plain")
    snap = StateStore.for_document(doc).snapshot_path(doc)
    target = doc if bad == "document" else snap
    data = target.read_bytes()
    at = data.index(b"## User", MID)
    target.write_bytes(data[:at] + b"\xff" + data[at:])
    line = data.count(b"\n", 0, at) + 1
    says = {
        "document": f"{doc.name}: not valid UTF-8 (line {line})",
        "snapshot": f"corrupt state file {snap}: not valid UTF-8",
    }[bad]
    before = _files(project)
    result = cli(project, "run", "plan.md", "--dry-run")
    assert result.returncode != 0
    assert result.stdout == ""
    assert result.stderr == f"agent-doc: {says}\n"
    assert _files(project) == before
