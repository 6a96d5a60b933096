"""The cost guard of ``run``: a prompt above ``prompt_limit_bytes`` is sent only
when the person agrees.

Real CLI, real git, a real terminal (a private tmux) where one is asked; the
agent is ``tests/data/fake_claude.py``, which records every prompt it gets (a
stand-in: what is tested is that nothing reaches the agent, which needs no
model).
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from agent_doc.store.config import global_config_path
from tests.cli_runner import cli
from tests.fake_claude_config import configure_fake_claude
from tests.private_tmux import private_server
from tests.private_tmux import wait_for

DOC = """---
agent_doc_session: 11111111-2222-3333-4444-555555555555
agent_doc_format: template
agent: fake
---
# Plan

<!-- agent:exchange patch=append -->
## User

{notes}

{question}
<!-- /agent:exchange -->
"""

NOTES = "\n\n".join(
    f"Note {i}: the meeting said lorem ipsum dolor." for i in range(150)
)


@pytest.fixture
def setup(project: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A fake agent, a committed document of about 6 KB and a 4 KB limit."""
    configure_fake_claude()
    (project / ".agent-doc" / "config.toml").write_text("prompt_limit_bytes = 4000\n")
    doc = project / "plan.md"
    doc.write_text(DOC.format(notes=NOTES, question="Summarise the notes."))
    git(project, "add", "-A")
    git(project, "commit", "-qm", "start")
    return doc, tmp_path / "agent-log.jsonl"


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def agent_env(log: Path, reply: str = "### Re: summary\n\nShort.") -> dict[str, str]:
    return {"FAKE_CLAUDE_LOG": str(log), "FAKE_CLAUDE_REPLY": reply}


def state_of(project: Path, doc: Path) -> tuple[str, str, list[str]]:
    """The document, the git head and every file under .agent-doc/ but the
    turn's lock and status files (any run, refused or not, leaves those)."""
    files = sorted(
        str(p.relative_to(project))
        for p in (project / ".agent-doc").rglob("*")
        if "turns" not in p.parts and "status" not in p.parts
    )
    return doc.read_text(), git(project, "rev-parse", "HEAD"), files


def test_without_a_terminal_a_big_first_prompt_is_refused_and_nothing_changes(
    project: Path, setup: tuple[Path, Path]
) -> None:
    doc, log = setup
    before = state_of(project, doc)
    result = cli(project, "run", "plan.md", env=agent_env(log))
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("agent-doc: not sent: the prompt for plan.md is ")
    assert "above the 4.0 KB limit (a first turn sends the whole document)" in line
    assert "'agent-doc run plan.md --yes'" in line
    assert "'agent-doc compact plan.md'" in line
    assert "tokens" in line
    assert not log.exists(), "the agent was called"
    assert state_of(project, doc) == before


def test_yes_sends_it_and_says_its_size(
    project: Path, setup: tuple[Path, Path]
) -> None:
    doc, log = setup
    result = cli(project, "run", "plan.md", "--yes", env=agent_env(log))
    assert result.returncode == 0, result.stderr
    assert re.search(
        r"agent-doc: sending \d+\.\d KB \(about [\d.]+ k tokens\)", (result.stderr)
    ), result.stderr
    assert "a first turn sends the whole document" in result.stderr
    assert len(log.read_text().splitlines()) == 1
    assert doc.read_text().count("### Re: summary") == 1


def test_a_small_resumed_turn_passes_without_a_word(
    project: Path, setup: tuple[Path, Path]
) -> None:
    doc, log = setup
    assert cli(project, "run", "plan.md", "--yes", env=agent_env(log)).returncode == 0
    close = "<!-- /agent:exchange -->"
    doc.write_text(doc.read_text().replace(close, f"And shorter?\n{close}"))
    result = cli(project, "run", "plan.md", env=agent_env(log, "### Re: two\n\nOk."))
    assert result.returncode == 0, result.stderr
    assert "sending" not in result.stderr
    assert "not sent" not in result.stderr
    prompts = [json.loads(x)["prompt"] for x in log.read_text().splitlines()]
    assert len(prompts) == 2
    assert len(prompts[1].encode()) < 4000


def test_a_lost_session_is_not_sent_the_whole_document_unasked(
    project: Path, setup: tuple[Path, Path]
) -> None:
    """The resumed prompt is small; the session turns out lost; the full
    prompt that would follow is above the limit: refused, nothing written."""
    doc, log = setup
    assert cli(project, "run", "plan.md", "--yes", env=agent_env(log)).returncode == 0
    close = "<!-- /agent:exchange -->"
    doc.write_text(doc.read_text().replace(close, f"And shorter?\n{close}"))
    before = state_of(project, doc)
    env = {**agent_env(log, "### Re: two\n\nOk."), "FAKE_CLAUDE_MODE": "lost-error"}
    result = cli(project, "run", "plan.md", env=env)
    assert result.returncode == 1
    assert "the agent's session was lost, so a new one gets the whole document" in (
        result.stderr
    )
    prompts = [json.loads(x)["prompt"] for x in log.read_text().splitlines()]
    assert len(prompts) == 2, "only the small resumed prompt went out"
    assert state_of(project, doc) == before


def test_the_default_limit_is_200_kb_and_zero_removes_it(
    project: Path, setup: tuple[Path, Path]
) -> None:
    doc, log = setup
    (project / ".agent-doc" / "config.toml").write_text("")
    assert cli(project, "run", "plan.md", "--dry-run").returncode == 0
    big = DOC.format(notes="\n\n".join([NOTES] * 36), question="Summarise.")
    doc.write_text(big)  # about 240 KB
    result = cli(project, "run", "plan.md", "--no-git", env=agent_env(log))
    assert result.returncode == 1
    assert "above the 200 KB limit" in result.stderr
    assert not log.exists()
    global_config_path().write_text(
        "prompt_limit_bytes = 0\n" + global_config_path().read_text()
    )
    result = cli(project, "run", "plan.md", "--no-git", env=agent_env(log))
    assert result.returncode == 0, result.stderr
    assert "sending" not in result.stderr


def test_dry_run_is_never_guarded(project: Path, setup: tuple[Path, Path]) -> None:
    result = cli(project, "run", "plan.md", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "<document>" in result.stdout or "lorem ipsum" in result.stdout


def test_a_bad_limit_is_one_line_naming_the_file(
    project: Path, setup: tuple[Path, Path]
) -> None:
    doc, log = setup
    config = project / ".agent-doc" / "config.toml"
    config.write_text('prompt_limit_bytes = "lots"\n')
    before = state_of(project, doc)
    result = cli(project, "run", "plan.md", env=agent_env(log))
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert "prompt_limit_bytes" in result.stderr
    assert str(config) in result.stderr
    assert state_of(project, doc) == before


@pytest.mark.tmux
@pytest.mark.parametrize("answer", ["y", "n"])
def test_on_a_terminal_the_person_is_asked(
    project: Path,
    setup: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    answer: str,
) -> None:
    doc, log = setup
    before = state_of(project, doc)
    for key, value in agent_env(log).items():
        monkeypatch.setenv(key, value)
    with private_server(monkeypatch, "costguard") as server:
        tmux = ["tmux", "-L", server]
        command = (
            f"cd {shlex.quote(str(project))} && {shlex.quote(sys.executable)} "
            "-m agent_doc.cli.entry run plan.md; echo EXIT=$?"
        )
        subprocess.run([*tmux, "send-keys", "-t", "main", command, "Enter"], check=True)

        def screen() -> str:
            return subprocess.run(
                [*tmux, "capture-pane", "-p", "-J", "-t", "main"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout

        wait_for(lambda: "Send it? [y/N]" in screen(), 30, "the question")
        assert "above the 4.0 KB limit" in screen()
        assert not log.exists(), "the agent was called before the answer"
        subprocess.run([*tmux, "send-keys", "-t", "main", answer, "Enter"], check=True)
        wait_for(lambda: re.search(r"EXIT=\d", screen()) is not None, 60, "the end")
        text = screen()
    if answer == "y":
        assert "EXIT=0" in text
        assert doc.read_text().count("### Re: summary") == 1
        assert len(log.read_text().splitlines()) == 1
    else:
        assert "EXIT=1" in text
        assert "you declined" in text
        assert not log.exists()
        assert state_of(project, doc) == before
