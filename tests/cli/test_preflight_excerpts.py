"""``preflight --excerpts``: a conversation that has seen the document gets the
parts it needs, not the whole document again.

Real CLI and git; the first answer comes from ``run`` with the stand-in
``tests/data/fake_claude.py`` (it only has to leave a snapshot behind).
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from agent_doc.cli._output import emit_json
from agent_doc.cli.commands import _fast_turn
from agent_doc.cycle.preflight import PreflightResult
from agent_doc.document import apply_window
from agent_doc.document.excerpt import resumed_context
from agent_doc.store.snapshot_index import index_path
from agent_doc.store.state import StateStore
from tests.cli_runner import cli
from tests.fake_claude_config import configure_fake_claude

OLD_TURNS = "\n\n".join(
    f"## User\n\nOld question {i}?\n\n### Re: old {i}\n\n" + "Old answer text. " * 60
    for i in range(300)
)
DOC = f"""---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
agent: fake
---
# Plan

<!-- agent:status patch=replace -->
idle
<!-- /agent:status -->

<!-- agent:exchange patch=append -->
{OLD_TURNS}

## User

What is 2 + 2?
<!-- /agent:exchange -->
"""


@pytest.fixture
def answered(project: Path) -> Path:
    """plan.md (about 330 KB of old turns) answered once, then a new question."""
    configure_fake_claude()
    doc = project / "plan.md"
    doc.write_text(DOC)
    env = {"FAKE_CLAUDE_REPLY": "### Re: sum\n\nIt is 4."}
    assert cli(project, "run", "plan.md", "--yes", env=env).returncode == 0
    close = "<!-- /agent:exchange -->"
    doc.write_text(doc.read_text().replace(close, f"And 3 + 3?\n{close}"))
    return doc


def preflight(project: Path, *args: str) -> dict[str, object]:
    result = cli(project, "preflight", "plan.md", "--no-wait", *args)
    assert result.returncode == 0, result.stderr
    out: dict[str, object] = json.loads(result.stdout)
    return out


def test_excerpts_replace_the_document_once_it_was_seen(
    project: Path, answered: Path
) -> None:
    out = preflight(project, "--excerpts")
    assert "document" not in out
    assert out["document_form"] == "excerpts"
    excerpts = str(out["excerpts"])
    assert "### Re: sum" in excerpts
    assert "And 3 + 3?" in excerpts
    assert "Old question 3?" not in excerpts  # far above the change
    assert len(excerpts) < 20_000 < len(answered.read_text())
    assert "+And 3 + 3?" in str(out["diff"])


def test_without_the_flag_the_document_is_whole(project: Path, answered: Path) -> None:
    out = preflight(project)
    assert out["document"] == answered.read_text()
    assert out["document_form"] == "full"
    assert "excerpts" not in out


def test_prompt_full_keeps_the_whole_document(project: Path, answered: Path) -> None:
    (project / ".agent-doc" / "config.toml").write_text('prompt = "full"\n')
    out = preflight(project, "--excerpts")
    assert out["document"] == answered.read_text()
    assert out["document_form"] == "full"


def test_a_first_turn_gets_the_whole_document(project: Path) -> None:
    doc = project / "plan.md"
    doc.write_text(DOC)
    out = preflight(project, "--excerpts")
    assert out["document"] == DOC
    assert out["document_form"] == "full"


def test_the_excerpts_made_once_give_the_same_prompt_size(
    project: Path, answered: Path
) -> None:
    with_excerpts = preflight(project, "--excerpts")  # excerpts reused for the size
    whole = preflight(project)  # the size's own excerpts
    assert with_excerpts["prompt_mode"] == whole["prompt_mode"] == "resumed"
    assert with_excerpts["prompt_bytes"] == whole["prompt_bytes"]
    assert isinstance(whole["prompt_bytes"], int)
    assert str(with_excerpts["excerpts"]).encode() != b""
    assert whole["prompt_bytes"] > len(str(with_excerpts["excerpts"]).encode())


@pytest.mark.parametrize("index", ["kept", "corrupt", "stale", "missing"])
def test_the_excerpts_on_the_bytes_are_the_plain_ones(
    project: Path, answered: Path, index: str
) -> None:
    """The document is past the window's size: preflight takes the excerpts on
    its bytes (with the snapshot's index, or without one when it is corrupt,
    stale or missing), and they are what the plain function makes of the texts."""
    store = StateStore.for_document(answered)
    snapshot = store.load_snapshot(answered)
    assert snapshot is not None
    assert len(answered.read_bytes()) >= apply_window.WINDOW_FROM
    found = store.load_snapshot_indexed(answered)
    assert found is not None
    assert found[1] is not None  # the snapshot has its index
    idx = index_path(store.snapshot_path(answered))
    if index == "corrupt":  # its key kept, a checkpoint unreadable
        lines = idx.read_bytes().split(b"\n")
        idx.write_bytes(b"\n".join([*lines[:3], b"0 0", b"7 x", b"end", b""]))
    elif index == "stale":  # the key of other bytes
        idx.write_bytes(idx.read_bytes().replace(b"\n", b"\n9", 1))
    elif index == "missing":
        idx.unlink()
    if index != "kept":
        assert store.load_snapshot_indexed(answered) == (found[0], None)
    out = preflight(project, "--excerpts")
    assert out["excerpts"] == resumed_context(snapshot, answered.read_text())
    after = store.load_snapshot_indexed(answered)  # (the commit kept the snapshot)
    assert after is not None
    assert (after[1] is None) is (index != "kept")


def test_the_baseline_is_stored_only_when_it_changed(
    project: Path, answered: Path
) -> None:
    baseline = StateStore.for_document(answered).baseline_path(answered)
    preflight(project, "--excerpts")
    assert baseline.read_bytes() == answered.read_bytes()
    first = baseline.stat().st_ino
    preflight(project, "--excerpts")  # the same document: the file is kept
    assert baseline.stat().st_ino == first
    close = "<!-- /agent:exchange -->"
    answered.write_text(answered.read_text().replace(close, f"And 4 + 4?\n{close}"))
    preflight(project, "--excerpts")
    assert baseline.read_bytes() == answered.read_bytes()


def test_the_full_prompt_is_sized_as_run_sends_it(
    project: Path, answered: Path
) -> None:
    """The full form's size is counted from the bytes (the document never
    joined into a prompt): it is the size of the prompt ``run`` builds."""
    (project / ".agent-doc" / "config.toml").write_text('prompt = "full"\n')
    with answered.open("a") as fh:
        fh.write("\n\n\n")  # trailing line breaks the prompt leaves out
    out = preflight(project, "--excerpts")
    assert out["prompt_mode"] == "full"
    dry = cli(project, "run", "plan.md", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert out["prompt_bytes"] == len(dry.stdout.encode())


@pytest.mark.parametrize("piece", [1, 2, 3, 5, 1 << 20])
def test_the_full_form_written_a_piece_at_a_time_is_the_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, piece: int
) -> None:
    """The full form's document, written from its UTF-8 a piece at a time
    (pieces cut inside characters move to the character's start), is the
    JSON of its whole text: quotes, backslashes, control characters, astral
    characters, a key-like line."""
    text = '---\na: "b"\n---\n\\ \t\x01 é → 🚀😀 \u2028\n  "document": "x"\n' * 3
    result = PreflightResult(
        False, True, ['claim "q"'], "@@ -1 +1 @@\n-a\n+b\n", None,
        prompt_bytes=7, prompt_mode="full", document_data=text.encode(),
    )  # fmt: skip
    emit_json(result.to_json())
    whole = capsys.readouterr().out
    monkeypatch.setattr(_fast_turn, "_PIECE", piece)
    _fast_turn.emit_preflight(result)
    assert capsys.readouterr().out == whole
    assert json.loads(whole)["document"] == text


@pytest.mark.parametrize("encoding", ["utf-8", "UTF8", "utf-16", "latin-1"])
@pytest.mark.parametrize("piece", [1, 3, 1 << 20])
def test_the_full_form_on_any_stdout_is_the_json(
    monkeypatch: pytest.MonkeyPatch, encoding: str, piece: int
) -> None:
    """On a UTF-8 stdout the document's bytes are escaped as bytes and
    written under the text layer (a piece with a control character other
    than a line break takes ``json.dumps``); any other encoding gets the
    text: the bytes out are ``emit_json``'s either way."""
    text = "".join(chr(c) for c in range(1, 0x80)) + '"\\ é → 🚀 \u2028\n' * 5
    plain = '---\na: "b"\n---\nquote " and \\ é → 🚀 \u2028\n' * 40
    outs = []
    for emit in ("whole", "pieces"):
        for document in (text, plain):
            raw = io.BytesIO()
            stream = io.TextIOWrapper(
                raw, encoding, "backslashreplace", write_through=False
            )
            monkeypatch.setattr(sys, "stdout", stream)
            monkeypatch.setattr(_fast_turn, "_PIECE", piece)
            result = PreflightResult(
                False, True, [], "@@ -1 +1 @@\n-a\n+b\n", None,
                prompt_bytes=7, prompt_mode="full", document_data=document.encode(),
            )  # fmt: skip
            if emit == "whole":
                emit_json(result.to_json())
            else:
                _fast_turn.emit_preflight(result)
            stream.flush()
            outs.append(raw.getvalue())
    assert outs[:2] == outs[2:]
    if encoding != "latin-1":  # (there 🚀 is written as the text \U0001f680)
        assert json.loads(outs[1].decode(encoding))["document"] == plain


def test_the_bytes_escape_is_the_jsons() -> None:
    """Every ASCII character and the non-ASCII ones escape as ``json.dumps``
    escapes them (``ensure_ascii=False``)."""
    for char in [*map(chr, range(0x80)), "é", "→", "🚀", "\u2028", "\u2029", "\x7f"]:
        for piece in (char, f'a{char}b\n"{char}\\'):
            wanted = json.dumps(piece, ensure_ascii=False)[1:-1].encode()
            assert _fast_turn._escaped(piece.encode()) == wanted
