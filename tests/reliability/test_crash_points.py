"""Crash points swept: every durable step of write, recover, compact and commit.

Each case runs a real ``agent-doc`` process with ``AGENT_DOC_CRASH_AT`` naming
one point (:mod:`agent_doc._runtime.faults`); the process ends there with
``os._exit(137)``, as ``kill -9`` would. The person then types, ``recover``
runs, then the next command, and the project is checked: the answer present
exactly once, every archived turn in exactly one file, nothing the person
typed lost, no torn file, no stray debris (pending copy, staged snapshot,
temporary file, a landing or compaction left in the record, a staged revert
in git's index).

:data:`OUTCOMES` is the table of docs/reliability.md (a test keeps them the
same) and lists every declared point of these commands: a test checks that no
point is left out, and each case checks its point was reached (exit 137).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import agent_doc.cycle.commit
import agent_doc.cycle.compact_landing
import agent_doc.cycle.gitcommit
import agent_doc.write.landing  # noqa: F401 - they declare the points
from agent_doc._runtime.faults import CRASH_EXIT
from agent_doc._runtime.faults import KNOWN_POINTS
from agent_doc.store.landing import load_record
from agent_doc.store.state import StateStore
from tests.reliability._util import AGENT_DOC
from tests.reliability._util import ROOT
from tests.reliability._util import cli_env
from tests.reliability._util import template_doc

COMMANDS = ("write", "recover", "compact", "commit")
OWN_PREFIXES = ("write.", "recover.", "compact.", "commit.")

FAIL_CLOSED, RECOVERED, NO_OP = "fail closed", "recovered", "no-op"
OUTCOMES: dict[tuple[str, str], tuple[str, str]] = {
    ("write", "write.pending_saved"): (RECOVERED, "recover lands the answer once"),
    ("write", "write.landing_recorded"): (
        RECOVERED, "recover drops the staged snapshot and lands the answer once",
    ),
    ("write", "write.document_written"): (
        RECOVERED, "recover sees the answer's id in the document: bookkeeping only",
    ),
    ("write", "write.snapshot_saved"): (RECOVERED, "recover records it landed"),
    ("write", "write.landed"): (RECOVERED, "recover clears the pending copy"),
    ("recover", "write.pending_saved"): (RECOVERED, "the next recover lands it once"),
    ("recover", "write.landing_recorded"): (RECOVERED, "the next recover lands it once"),
    ("recover", "write.document_written"): (RECOVERED, "the next recover: bookkeeping"),
    ("recover", "write.snapshot_saved"): (RECOVERED, "the next recover: bookkeeping"),
    ("recover", "write.landed"): (RECOVERED, "the next recover clears the pending copy"),
    ("recover", "recover.snapshot_promoted"): (RECOVERED, "the next recover records it"),
    ("recover", "recover.landed"): (RECOVERED, "the next recover clears the pending copy"),
    ("recover", "recover.archive_restored"): (
        RECOVERED, "the next recover clears the record; the turns stay in the document",
    ),
    ("compact", "compact.intent_recorded"): (
        FAIL_CLOSED, "nothing moved; recover clears the record, compact again moves them",
    ),
    ("compact", "compact.archive_written"): (
        RECOVERED, "undone: recover restores the archive; the next compact moves them",
    ),
    ("compact", "compact.document_written"): (
        RECOVERED, "completed: recover compacts the snapshot; the next compact commits",
    ),
    ("compact", "compact.state_saved"): (
        RECOVERED, "completed: recover clears the record; the next compact commits",
    ),
    ("compact", "compact.done"): (NO_OP, "the next compact commits the archive"),
    ("compact", "commit.committed"): (NO_OP, "committed; the boundary moves next time"),
    ("commit", "commit.objects_written"): (
        FAIL_CLOSED, "unreferenced objects (git gc's); the next commit makes it",
    ),
    ("commit", "commit.ref_moved"): (
        RECOVERED, "the branch moved; the next commit brings the index along",
    ),
    ("commit", "commit.committed"): (NO_OP, "the next commit moves the boundary"),
}  # fmt: skip
"""(command, point) → (stated outcome, what completes it)."""

POINT_ORDER = (
    "write.pending_saved", "write.landing_recorded", "write.document_written",
    "write.snapshot_saved", "write.landed",
    "recover.snapshot_promoted", "recover.landed", "recover.archive_restored",
    "compact.intent_recorded", "compact.archive_written", "compact.document_written",
    "compact.state_saved", "compact.done",
    "commit.objects_written", "commit.ref_moved", "commit.committed",
)  # fmt: skip
"""The points in the order a command reaches them (the table's rows)."""

MARK = "ANSWER-MARK-5e1f"
NEXT_MARK = "SECOND-ANSWER-77aa"
TYPED_DURING = "Typed while the agent worked."
TYPED_AFTER = "Typed after the crash."
CLOSE = "<!-- /agent:exchange -->"


def _response(mark: str) -> str:
    return f"<!-- patch:exchange -->\n### Re: it\n{mark}\n<!-- /patch:exchange -->\n"


def _agent_doc(
    root: Path, *args: str, stdin: str = "", crash: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = cli_env({"AGENT_DOC_CRASH_AT": crash} if crash else None)
    if not crash:
        env.pop("AGENT_DOC_CRASH_AT", None)
    return subprocess.run(
        [AGENT_DOC, *args], cwd=root, input=stdin, capture_output=True, text=True,
        timeout=60, env=env, check=False,
    )  # fmt: skip


def _ok(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr


def _crashes(done: subprocess.CompletedProcess[str], point: str) -> None:
    assert done.returncode == CRASH_EXIT, (
        f"{point} not reached (exit {done.returncode}): {done.stderr}"
    )


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def _type(doc: Path, line: str) -> None:
    """The person types ``line`` at the end of the exchange."""
    text = doc.read_text()
    doc.write_text(text.replace(CLOSE, f"{line}\n{CLOSE}"))


def _committed_doc(root: Path, text: str) -> Path:
    doc = root / "doc.md"
    doc.write_text(text)
    StateStore(root).save_snapshot(doc, text)
    git(root, "add", "doc.md")
    git(root, "commit", "-qm", "start")
    return doc


def _no_debris(root: Path, doc: Path) -> None:
    store = StateStore(root)
    assert store.load_pending(doc) is None
    assert not store.expected_path(doc).exists()
    stray = [p for p in root.rglob("*.tmp") if ".git" not in p.parts]
    assert stray == []
    assert list((store.state_dir / "landing").glob("*.next.md")) == []
    record = load_record(store, doc)
    assert record.landing is None
    assert record.compacting is None
    assert git(root, "diff", "--cached", "--name-only") == ""  # no staged revert


def _not_torn(doc: Path) -> str:
    text = doc.read_text()
    assert text.startswith("---\n")
    assert text.endswith(f"{CLOSE}\n")
    return text


# -- write and recover -------------------------------------------------------


def _start_write(
    root: Path, crash: str | None
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A document, a baseline, the person's typing since; ``write`` (crashing)."""
    doc = _committed_doc(root, template_doc("Please answer."))
    (root / "base.md").write_text(doc.read_text())
    _type(doc, TYPED_DURING)  # the write merges this
    args = ("write", "doc.md", "--force-disk", "--baseline-file", "base.md")
    return doc, _agent_doc(root, *args, stdin=_response(MARK), crash=crash)


def _check_answered(root: Path, doc: Path) -> None:
    text = _not_torn(doc)
    assert text.count(MARK) == 1, text
    assert TYPED_DURING in text
    assert TYPED_AFTER in text
    snapshot = StateStore(root).load_snapshot(doc)
    assert snapshot is not None
    assert snapshot.count(MARK) == 1
    assert len(re.findall(r"<!-- agent:boundary:", text)) <= 1
    _no_debris(root, doc)
    # the next answer lands once, the first stays once
    _ok(_agent_doc(root, "write", "doc.md", "--force-disk", stdin=_response(NEXT_MARK)))
    final = doc.read_text()
    assert final.count(MARK) == 1
    assert final.count(NEXT_MARK) == 1


def _sweep_write(root: Path, point: str) -> None:
    doc, done = _start_write(root, point)
    _crashes(done, point)
    _type(doc, TYPED_AFTER)
    _ok(_agent_doc(root, "recover", "doc.md"))
    _check_answered(root, doc)


def _sweep_recover(root: Path, point: str) -> None:
    if point == "recover.archive_restored":
        _sweep_recover_compaction(root, point)
        return
    # a write that never reached the document (replayed by recover) or one
    # that did (recover only finishes its bookkeeping)
    first = (
        "write.pending_saved"
        if point.startswith("write.")
        else "write.document_written"
    )
    doc, done = _start_write(root, first)
    _crashes(done, first)
    _type(doc, TYPED_AFTER)
    _crashes(_agent_doc(root, "recover", "doc.md", crash=point), point)
    _ok(_agent_doc(root, "recover", "doc.md"))
    _check_answered(root, doc)


# -- compact -------------------------------------------------------------------

TURNS = 6


def _conversation(root: Path) -> Path:
    turns = "".join(
        f"### Re: question {i}\n\nAnswer {i}.\n\nQuestion {i + 1}?\n"
        for i in range(1, TURNS + 1)
    )
    text = template_doc("Question 1?").replace(CLOSE, turns + CLOSE)
    return _committed_doc(root, text)


def _answers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"^### Re: question (\d+)$", text, re.M)]


def _check_compacted(root: Path, doc: Path) -> None:
    text = _not_torn(doc)
    archive = root / "doc.archive.md"
    archived = _answers(archive.read_text()) if archive.exists() else []
    kept = _answers(text)
    assert sorted(archived + kept) == list(range(1, TURNS + 1)), (archived, kept)
    assert kept == [TURNS]
    assert TYPED_AFTER in text
    assert text.count("earlier turns archived in") == 1
    _no_debris(root, doc)
    assert git(root, "status", "--porcelain", "doc.archive.md") == ""
    assert _answers(git(root, "show", "HEAD:doc.archive.md")) == archived
    snapshot = StateStore(root).load_snapshot(doc)
    assert snapshot is not None
    assert _answers(snapshot) == [TURNS]


def _sweep_compact(root: Path, point: str) -> None:
    doc = _conversation(root)
    _crashes(_agent_doc(root, "compact", "doc.md", "--keep", "1", crash=point), point)
    _type(doc, TYPED_AFTER)
    _ok(_agent_doc(root, "recover", "doc.md"))
    _ok(_agent_doc(root, "compact", "doc.md", "--keep", "1"))
    _check_compacted(root, doc)


def _sweep_recover_compaction(root: Path, point: str) -> None:
    doc = _conversation(root)
    first = "compact.archive_written"
    _crashes(_agent_doc(root, "compact", "doc.md", "--keep", "1", crash=first), first)
    _type(doc, TYPED_AFTER)
    _crashes(_agent_doc(root, "recover", "doc.md", crash=point), point)
    _ok(_agent_doc(root, "recover", "doc.md"))
    _ok(_agent_doc(root, "compact", "doc.md", "--keep", "1"))
    _check_compacted(root, doc)


# -- commit --------------------------------------------------------------------


def _sweep_commit(root: Path, point: str) -> None:
    doc = _committed_doc(root, template_doc("Please answer."))
    _ok(_agent_doc(root, "write", "doc.md", "--force-disk", stdin=_response(MARK)))
    _crashes(_agent_doc(root, "commit", "doc.md", crash=point), point)
    _ok(_agent_doc(root, "recover", "doc.md"))
    _ok(_agent_doc(root, "commit", "doc.md"))
    assert git(root, "show", "HEAD:doc.md").count(MARK) == 1
    assert doc.read_text().count(MARK) == 1
    _no_debris(root, doc)  # the index holds what HEAD holds
    subprocess.run(["git", "-C", str(root), "fsck", "--no-dangling"], check=True,
                   capture_output=True)  # fmt: skip


SWEEPS = {
    "write": _sweep_write,
    "recover": _sweep_recover,
    "compact": _sweep_compact,
    "commit": _sweep_commit,
}


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("command", "point"),
    sorted(OUTCOMES),
    ids=[f"{c}@{p}" for c, p in sorted(OUTCOMES)],
)
def test_crash_at_a_point_then_recover_lands_everything_once(
    project: Path, command: str, point: str
) -> None:
    SWEEPS[command](project, point)


def test_every_declared_point_is_swept() -> None:
    """No point of these commands is left out of the sweep, none is made up."""
    declared = {p for p in KNOWN_POINTS if p.startswith(OWN_PREFIXES)}
    swept = {point for _, point in OUTCOMES}
    assert swept == declared
    assert set(POINT_ORDER) == declared
    by_command = {c: {p for k, p in OUTCOMES if k == c} for c in COMMANDS}
    for command in ("write", "compact"):  # each reaches all its own points
        own = {p for p in declared if p.startswith(command + ".")}
        assert own <= by_command[command]


def outcome_table() -> str:
    """The table of docs/reliability.md: points × commands, with outcomes."""
    points = [p for p in POINT_ORDER if any(q == p for _, q in OUTCOMES)]
    lines = [
        "| point | what is durable there | " + " | ".join(COMMANDS) + " |",
        "|---|---|" + "---|" * len(COMMANDS),
    ]
    for point in points:
        cells = []
        for command in COMMANDS:
            found = OUTCOMES.get((command, point))
            cells.append(f"{found[0]}: {found[1]}" if found else "—")
        lines.append(
            f"| `{point}` | {KNOWN_POINTS[point]} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines) + "\n"


def test_the_table_in_the_docs_is_current() -> None:
    doc = (ROOT / "docs" / "reliability.md").read_text()
    assert outcome_table() in doc, "docs/reliability.md: paste outcome_table()"


def test_regression_inline_answer_landed_then_typed_is_recovered_once(
    project: Path,
) -> None:
    """Named regression: ``write`` killed just after the document write, the
    person types, and the answer has no boundary marker (an inline-format
    document): ``recover`` finds the landed answer from the landing record
    and the staged snapshot, and does not write it a second time."""
    text = "---\nagent_doc_format: inline\n---\n\n## User\n\nPlease answer.\n"
    doc = project / "doc.md"
    doc.write_text(text)
    StateStore(project).save_snapshot(doc, text)
    git(project, "add", "doc.md")
    git(project, "commit", "-qm", "start")
    (project / "base.md").write_text(text)
    args = ("write", "doc.md", "--force-disk", "--baseline-file", "base.md")
    point = "write.document_written"
    answer = f"## Assistant\n\n{MARK}\n"
    _crashes(_agent_doc(project, *args, stdin=answer, crash=point), point)
    assert "agent:boundary" not in doc.read_text()
    doc.write_text(doc.read_text() + f"\n## User\n\n{TYPED_AFTER}\n")
    _ok(_agent_doc(project, "recover", "doc.md"))
    landed = doc.read_text()
    assert landed.count(MARK) == 1, landed
    assert TYPED_AFTER in landed
    snapshot = StateStore(project).load_snapshot(doc)
    assert snapshot is not None
    assert snapshot.count(MARK) == 1
    assert TYPED_AFTER not in snapshot  # typed after: in the next diff
    _no_debris(project, doc)


def _inline_talk(project: Path, after: str = "") -> Path:
    """``doc.md``: an inline-format talk of :data:`TURNS` turns (then
    ``after``), its snapshot, committed."""
    turns = "".join(
        f"## User\n\nQuestion {i}?\n\n## Assistant\n\n### Re: question {i}\n\n"
        f"Answer {i}.\n\n"
        for i in range(1, TURNS + 1)
    )
    text = f"---\nagent_doc_format: inline\n---\n# Talk\n\n{turns}{after}"
    doc = project / "doc.md"
    doc.write_text(text)
    StateStore(project).save_snapshot(doc, text)
    git(project, "add", "doc.md")
    git(project, "commit", "-qm", "start")
    return doc


def test_regression_inline_compact_killed_then_typed_is_settled_once(
    project: Path,
) -> None:
    """Named regression (found by the inline landing model): ``compact`` of an
    inline-format document (no boundary markers; its first turns start at
    the title) killed between the archive write and the document write, the
    person types among those turns: ``recover`` undoes the archive (the
    turns never left the document; it took them for moved and completed the
    compaction: turns in both files) — every turn in exactly one file, the
    typing kept."""
    doc = _inline_talk(project)
    point = "compact.archive_written"
    compact = ("compact", "doc.md", "--keep", "1")
    _crashes(_agent_doc(project, *compact, crash=point), point)
    assert "Re: question 1\n" in (project / "doc.archive.md").read_text()
    doc.write_text(doc.read_text().replace("# Talk\n", f"# Talk\n{TYPED_AFTER}\n"))
    _ok(_agent_doc(project, "recover", "doc.md"))
    archive = project / "doc.archive.md"
    archived = _answers(archive.read_text()) if archive.exists() else []
    assert archived == []  # undone: the turns never left the document
    assert _answers(doc.read_text()) == list(range(1, TURNS + 1))
    assert doc.read_text().count(TYPED_AFTER) == 1
    _no_debris(project, doc)
    # the typing is in the turns now: the next compact refuses, moving nothing
    refused = _agent_doc(project, *compact)
    assert refused.returncode == 1, refused.stderr
    assert "edits the agent has not seen" in refused.stderr
    assert not archive.exists()


def test_regression_inline_stale_answer_across_a_compaction_lands_once(
    project: Path,
) -> None:
    """Named regression (found by the inline landing model): an answer whose
    baseline predates a ``compact`` of an inline-format document, ``write``
    killed after its document write, the person types: ``recover`` compared
    the staged snapshot (archived turns and the answer) with the compacted
    snapshot and wrote the answer again. The landing's own added lines decide."""
    doc = _inline_talk(project, after="## User\n\nMore?\n")
    (project / "base.md").write_text(doc.read_text())  # began before the compact
    _ok(_agent_doc(project, "compact", "doc.md", "--keep", "1"))
    assert "Re: question 1\n" not in doc.read_text()
    args = ("write", "doc.md", "--force-disk", "--baseline-file", "base.md")
    point = "write.document_written"
    answer = f"## Assistant\n\n{MARK}\n"
    _crashes(_agent_doc(project, *args, stdin=answer, crash=point), point)
    assert doc.read_text().count(MARK) == 1
    doc.write_text(doc.read_text() + f"\n## User\n\n{TYPED_AFTER}\n")
    _ok(_agent_doc(project, "recover", "doc.md"))
    landed = doc.read_text()
    assert landed.count(MARK) == 1, landed
    assert landed.count(TYPED_AFTER) == 1
    assert "Re: question 1\n" not in landed  # archived turns stay archived
    assert (project / "doc.archive.md").read_text().count("Re: question 1\n") == 1
    _no_debris(project, doc)
