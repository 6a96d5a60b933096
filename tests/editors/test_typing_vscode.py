"""Typing like a person in a real VS Code while the agent writes (issue 12).

The installed ``.vsix`` runs in code-server (the harness of
tests/editors/README.md); ``vscode_e2e/typing.js`` types real key events in
Chromium at 10 characters a second at the end of the prompt line or on a new
follow-up line while a real ``agent-doc write`` (``status`` + ``exchange``
patches) runs, then reports the buffer, the cursor, one Ctrl+Z and the time
from the last keystroke to the answer. The measures are those of
:mod:`tests.editors.typing`.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from tests.editors.typing import TRIALS
from tests.editors.typing import Trial
from tests.editors.typing import cursor_outside
from tests.editors.typing import doc_text
from tests.editors.typing import expectation
from tests.editors.typing import lost_characters
from tests.editors.typing import print_table
from tests.editors.typing import record_summary
from tests.editors.typing import response
from tests.editors.typing import summary
from tests.editors.vscode_fixtures import make_project
from tests.editors.vscode_harness import VSCode

pytestmark = [pytest.mark.editor, pytest.mark.timeout(900)]


def undo_exact(exp: Any, got: dict[str, Any], mark: str) -> bool:
    """One Ctrl+Z undid exactly the last step: the answer (it landed after the
    person's last key), or — when the person typed on after it landed (their
    pause let it in) — their own typing since, the answer kept."""
    if not got.get("typedAfterAnswer"):
        return bool(got["undone"] == exp.undone)
    return mark in got["undone"] and got["undone"] != got["text"]


def test_typing_in_vscode_while_answers_land(
    vscode: Callable[[str], VSCode], tmp_path_factory: pytest.TempPathFactory
) -> None:
    base = tmp_path_factory.mktemp("vscode-typing")
    rng = random.Random(12)
    session = str(uuid.uuid4())
    with make_project(base) as project:
        specs: list[dict[str, Any]] = []
        expected = []
        for n in range(TRIALS):
            follow_up = n % 2 == 1
            text = doc_text(session, n)
            baseline = base / f"trial{n}.base"
            baseline.write_text(text, "utf-8")
            exp = expectation(session, n, follow_up)
            expected.append(exp)
            specs.append({
                "base": text,
                "promptLine": f"Question {n}?",
                "followUp": follow_up,
                "typed": exp.typed,
                "head": rng.randint(2, 6),
                "response": response(n),
                "baselinePath": str(baseline),
                "answerMark": f"Answer {n}.",
            })  # fmt: skip
        project.doc.write_text(doc_text(session, 0), "utf-8")
        result = vscode("typing").run(
            "typing.js",
            project.root,
            {**project.params(), "trials": specs},
            settings={**project.settings(), "agentDoc.autoSync": False},
            env=project.env(),
        )
    checks = result["checks"]
    assert "_aborted" not in checks, checks.get("_aborted")
    trials = []
    for n, exp in enumerate(expected):
        check = checks[f"trial_{n}"]
        assert check["ok"], check["detail"]
        got = check["detail"]
        lost = lost_characters(exp, got["text"])
        trials.append(
            Trial(
                "follow-up" if n % 2 else "prompt",
                lost,
                cursor_outside(exp, got["text"], got["line"], got["column"]),
                undo_exact(exp, got, f"Answer {n}."),
                max(got["latencyMs"], 0) / 1000,
                "" if lost == 0 else repr(got["text"][-160:]),
            )
        )
    print_table("vscode", trials)
    record_summary("vscode", trials)
    figures = summary("vscode", trials)
    assert figures["lost_or_misplaced_chars"] == 0, [t.note for t in trials]
    assert figures["cursor_outside"] == 0
    assert figures["undo_exact_pct"] == 100
