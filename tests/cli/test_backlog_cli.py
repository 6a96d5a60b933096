"""The backlog through the real console script on a real git project:
every operation, ``write --backlog-*``, preflight's tidy and reorder report
with the snapshot in step, and the refusal of a whole-list replace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_doc.document.backlog import split_items
from agent_doc.store.state import StateStore
from tests.cli_runner import agent_doc

DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
---
# Work

<!-- agent:backlog -->
- [ ] [#a1] write the parser
- [/] [#g1] ship 1.0 (gate: the release)
- [ ] [#b2] document it
<!-- /agent:backlog -->

<!-- agent:icebox -->
- [ ] [#ice1] a parked idea
<!-- /agent:icebox -->

<!-- agent:exchange patch=append -->
## User

Go on.
<!-- /agent:exchange -->
"""

ANSWER = "<!-- patch:exchange -->\n### Re: go on\n\nDone.\n<!-- /patch:exchange -->\n"


def run(project: Path, *args: str, stdin: str = "") -> tuple[int, str, str]:
    result = agent_doc(*args, cwd=project, stdin=stdin)
    return result.returncode, result.stdout, result.stderr


def backlog(
    text: str, name: str = "backlog"
) -> list[tuple[str | None, str | None, str]]:
    start = text.index(f"<!-- agent:{name} -->") + len(f"<!-- agent:{name} -->")
    content = text[start : text.index(f"<!-- /agent:{name} -->")]
    return [(i.state, i.id, i.text) for i in split_items(content)[1]]


@pytest.fixture
def doc(project: Path) -> Path:
    path = project / "work.md"
    path.write_text(DOC)
    code, _, err = run(project, "write", "work.md", stdin=ANSWER)  # a snapshot
    assert code == 0, err
    return path


def snapshot(doc: Path) -> str:
    found = StateStore.for_document(doc).load_snapshot(doc)
    assert found is not None
    return found


def test_every_operation_from_the_cli(project: Path, doc: Path) -> None:
    code, out, err = run(project, "backlog", "add", "work.md", "add tests", "--json")
    assert code == 0, err
    new = json.loads(out)["id"]
    assert backlog(doc.read_text())[0] == (" ", new, "add tests")
    assert run(project, "backlog", "edit", "work.md", new, "add more tests")[0] == 0
    assert run(project, "backlog", "gate", "work.md", "#a1")[0] == 0
    assert run(project, "backlog", "ungate", "work.md", "g1")[0] == 0
    assert run(project, "backlog", "done", "work.md", "b2")[0] == 0
    assert run(project, "backlog", "reorder", "work.md", "g1,b2", new)[0] == 0
    assert backlog(doc.read_text()) == [
        (" ", "g1", "ship 1.0 (gate: the release)"),
        ("x", "b2", "document it"),
        (" ", new, "add more tests"),
        ("/", "a1", "write the parser"),
    ]
    # the agent's own changes are not news to it: the snapshot follows
    assert backlog(snapshot(doc)) == backlog(doc.read_text())
    assert run(project, "backlog", "clear", "work.md")[0] == 0
    assert [i for _, i, _ in backlog(doc.read_text())] == ["g1", new, "a1"]
    code, out, _ = run(project, "backlog", "add", "work.md", "x", "--icebox", "--json")
    assert code == 0
    assert backlog(doc.read_text(), "icebox")[0][1] == json.loads(out)["id"]
    assert run(project, "backlog", "clear", "work.md", "--all", "--icebox")[0] == 0
    assert backlog(doc.read_text(), "icebox") == []


def test_operations_are_idempotent_by_id(project: Path, doc: Path) -> None:
    for _ in range(2):
        code, out, _ = run(
            project, "backlog", "add", "work.md", "id=t9 tests", "--json"
        )
        assert code == 0
    assert json.loads(out) | {"file": None} == {
        "file": None, "op": "add", "id": "t9", "changed": False, "target": "disk",
    }  # fmt: skip
    assert run(project, "backlog", "done", "work.md", "t9")[0] == 0
    before = doc.read_bytes()
    code, out, _ = run(project, "backlog", "done", "work.md", "t9", "--json")
    assert (code, json.loads(out)["changed"]) == (0, False)
    assert doc.read_bytes() == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["gate", "work.md", "nope"], r"no item [#nope]"),
        (["ungate", "work.md", "a1"], "cannot ungate an item that is open"),
        (["add", "work.md", "id=a1 another text"], "[#a1] is already another item"),
        (["add", "work.md", "x", "--id", "bad id"], "invalid id"),
        (["edit", "work.md", "a1", " "], "one non-empty line"),
        (["reorder", "work.md", "a1", "zz"], "no item [#zz]"),
    ],
)
def test_refused_operations_are_one_line_and_change_nothing(
    project: Path, doc: Path, args: list[str], message: str
) -> None:
    before, snap = doc.read_bytes(), snapshot(doc)
    code, _, err = run(project, "backlog", *args)
    assert code == 1
    assert err.startswith("agent-doc: ")
    assert message in err
    assert err.count("\n") == 1
    assert doc.read_bytes() == before
    assert snapshot(doc) == snap


def test_gate_on_a_done_item_is_refused(project: Path, doc: Path) -> None:
    assert run(project, "backlog", "done", "work.md", "a1")[0] == 0
    code, _, err = run(project, "backlog", "gate", "work.md", "a1")
    assert code == 1
    assert "cannot gate an item that is done" in err


def test_write_options_apply_after_the_answer(project: Path, doc: Path) -> None:
    code, _, err = run(
        project, "write", "work.md",
        "--backlog-add", "id=n1 new work", "--backlog-done", "a1",
        "--backlog-gate", "b2", "--backlog-edit", "g1=ship 1.1",
        "--backlog-reorder", "b2,n1",
        stdin=ANSWER.replace("Done.", "Second."),
    )  # fmt: skip
    assert code == 0, err
    text = doc.read_text()
    assert "Second." in text
    assert backlog(text) == [
        ("/", "b2", "document it"),
        (" ", "n1", "new work"),
        ("x", "a1", "write the parser"),
        ("/", "g1", "ship 1.1"),
    ]
    assert backlog(snapshot(doc)) == backlog(text)
    code, _, err = run(
        project, "write", "work.md", "--backlog-ungate", "n1", stdin=ANSWER
    )
    assert code == 1
    assert "the answer was written; backlog ungate" in err


def test_preflight_backfills_reaps_and_keeps_the_snapshot_in_step(
    project: Path, doc: Path
) -> None:
    text = doc.read_text()
    # the person: a new bullet without box or id, one with a box only, a done mark
    text = text.replace(
        "- [ ] [#a1] write the parser\n", "- [x] [#a1] write the parser\n"
    )
    text = text.replace(
        "<!-- agent:backlog -->\n", "<!-- agent:backlog -->\n- fix CI\n"
    )
    text = text.replace(
        "- [ ] [#b2] document it\n", "- [ ] [#b2] document it\n- [ ] bench\n"
    )
    doc.write_text(text)
    code, out, err = run(project, "preflight", "work.md", "--no-wait")
    assert code == 0, err
    report = json.loads(out)["backlog"]
    items = backlog(doc.read_text())
    assert [(s, t) for s, _, t in items] == [
        (" ", "fix CI"), ("/", "ship 1.0 (gate: the release)"),
        (" ", "document it"), (" ", "bench"),
    ]  # fmt: skip
    assert all(item_id for _, item_id, _ in items)
    assert report["reaped"] == ["a1"]
    assert sorted(report["backfilled"]) == sorted([items[0][1], items[3][1]])
    assert (report["open"], report["gated"]) == (3, 1)
    assert report["order"] == [i for _, i, _ in items]
    assert report["reordered_by_person"] is False
    assert report["removed_by_person"] == []
    assert report["icebox"] == 1
    # the snapshot: done items gone there too, so the agent's diff shows the
    # new items with their ids and nothing of the reaping
    snap = snapshot(doc)
    assert "write the parser" not in snap
    diff = json.loads(out)["diff"]
    assert f"+- [ ] [#{items[0][1]}] fix CI" in diff
    assert "write the parser" not in diff
    # a second preflight changes nothing more
    before = doc.read_bytes()
    code, out, _ = run(project, "preflight", "work.md", "--no-wait")
    assert json.loads(out)["backlog"]["backfilled"] == []
    assert doc.read_bytes() == before


def test_a_reorder_by_the_person_is_kept_and_reported(project: Path, doc: Path) -> None:
    text = doc.read_text()
    text = text.replace(
        "- [ ] [#a1] write the parser\n- [/] [#g1] ship 1.0 (gate: the release)\n",
        "- [/] [#g1] ship 1.0 (gate: the release)\n- [ ] [#a1] write the parser\n",
    )
    doc.write_text(text)
    code, out, err = run(project, "preflight", "work.md", "--no-wait")
    assert code == 0, err
    report = json.loads(out)["backlog"]
    assert report["reordered_by_person"] is True
    assert report["order"] == ["g1", "a1", "b2"]
    assert report["removed_by_person"] == []
    assert [i for _, i, _ in backlog(doc.read_text())] == ["g1", "a1", "b2"]
    # once the agent has answered (its snapshot holds the new order), no more
    assert run(project, "write", "work.md", stdin=ANSWER)[0] == 0
    code, out, _ = run(project, "preflight", "work.md", "--no-wait")
    assert json.loads(out)["backlog"]["reordered_by_person"] is False


def test_a_whole_list_replace_is_refused(project: Path, doc: Path) -> None:
    before, snap = doc.read_bytes(), snapshot(doc)
    block = "<!-- patch:backlog -->\n- [ ] only this\n<!-- /patch:backlog -->\n"
    code, _, err = run(project, "write", "work.md", stdin=ANSWER + block)
    assert code == 1
    assert "the backlog is changed item by item, never replaced whole" in err
    assert err.count("\n") == 1
    assert doc.read_bytes() == before
    assert snapshot(doc) == snap
    pending = project / ".agent-doc" / "pending"
    assert not pending.exists() or not any(pending.iterdir())  # nothing kept
    code, _, err = run(project, "patch", "work.md", "backlog", "- [ ] only this")
    assert code == 1
    assert "never replaced whole" in err
    assert doc.read_bytes() == before


def test_run_tidies_the_backlog_before_the_agent_sees_it(project: Path) -> None:
    import sys

    from agent_doc.store.config import global_config_path

    fake = Path(__file__).parent.parent / "data" / "fake_claude.py"
    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        "[agents.fake]\n"
        f'command = "{sys.executable}"\n'
        f'args = ["{fake}", "-p", "--output-format", "json"]\n'
    )
    doc = project / "work.md"
    doc.write_text(
        DOC.replace("format: template\n", "format: template\nagent: fake\n").replace(
            "- [ ] [#b2] document it\n", "- [x] [#b2] document it\n- new idea\n"
        )
    )
    log = project.parent / "agent.log"
    env = {"FAKE_CLAUDE_REPLY": "### Re: go on\n\nOk.", "FAKE_CLAUDE_LOG": str(log)}
    result = agent_doc("run", "work.md", cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    prompt = json.loads(log.read_text().splitlines()[-1])["prompt"]
    assert "Never answer with a patch:backlog or patch:icebox block" in prompt
    assert "agent-doc backlog done|gate|ungate|add|edit work.md ID" in prompt
    assert "document it" not in prompt  # reaped before the agent read it
    items = backlog(doc.read_text())
    assert [t for _, _, t in items] == [
        "write the parser", "ship 1.0 (gate: the release)", "new idea",
    ]  # fmt: skip
    assert all(s in (" ", "/") for s, _, _ in items)
    assert all(i for _, i, _ in items)
    # preflight sizes the same prompt run sends (the hint counted)
    with doc.open("a") as fh:
        fh.write("one more line\n")
    data = json.loads(
        agent_doc("preflight", "work.md", "--no-wait", cwd=project).stdout
    )
    dry = agent_doc("run", "work.md", "--dry-run", cwd=project).stdout
    assert data["prompt_bytes"] == len(dry.encode())


MATRIX = {
    ("done", " "): "x", ("done", "/"): "x", ("done", "x"): "x",
    ("gate", " "): "/", ("gate", "/"): "/", ("gate", "x"): None,
    ("ungate", " "): None, ("ungate", "/"): " ", ("ungate", "x"): None,
}  # fmt: skip


@pytest.mark.parametrize(("op", "state"), sorted(MATRIX))
def test_the_transition_matrix_from_the_cli(project: Path, op: str, state: str) -> None:
    path = project / "work.md"
    path.write_text(DOC.replace("- [ ] [#a1]", f"- [{state}] [#a1]"))
    before = path.read_bytes()
    code, out, err = run(project, "backlog", op, "work.md", "a1", "--json")
    expected = MATRIX[(op, state)]
    if expected is None:
        assert code == 1
        assert f"cannot {op} an item that is" in err
        assert path.read_bytes() == before
        return
    assert code == 0, err
    assert json.loads(out)["changed"] is (expected != state)
    assert backlog(path.read_text())[0] == (expected, "a1", "write the parser")


def test_an_item_deleted_by_the_person_is_told_from_a_done_one(
    project: Path, doc: Path
) -> None:
    text = doc.read_text().replace("- [ ] [#b2] document it\n", "")
    doc.write_text(text.replace("- [ ] [#a1]", "- [x] [#a1]"))
    code, out, err = run(project, "preflight", "work.md", "--no-wait")
    assert code == 0, err
    report = json.loads(out)["backlog"]
    assert report["reaped"] == ["a1"]
    assert report["removed_by_person"] == ["b2"]
    assert report["order"] == ["g1"]
