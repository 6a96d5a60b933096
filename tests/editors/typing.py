"""Typing like a person while the agent writes: trials, measures, the table.

Shared by the real-editor typing tests (Neovim, Emacs). A *trial* resets a
small session document, puts the person's cursor on the prompt line (or on
a new follow-up line), types keys through ``tmux send-keys`` at a human pace
(10 characters a second) and starts a real ``agent-doc write`` (``status`` +
``exchange`` patches, baseline = what the agent saw) while they type. After
the person's pause the answer must land; then the buffer, the cursor and one
undo are checked in the editor itself.

Measures per trial: characters lost or misplaced, cursor outside the person's
text, whether one undo right after the answer removes exactly the answer, and
the time from the person's pause to the answer in the buffer.
"""

from __future__ import annotations

import difflib
import os
import re
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_doc.write.pause import DEFAULT_QUIET_MS
from tests.editors.harness import PrivateTmux

CHARS_PER_SECOND = 10.0
"""A person's typing pace (the issue asks for at least 8)."""
TRIALS = int(os.environ.get("AGENT_DOC_TYPING_TRIALS", "30"))
"""Trials per editor."""
BOUNDARY = re.compile(r"<!-- agent:boundary:[0-9a-f]{8} -->\n")

PROMPT_TYPED = " and the tests"
FOLLOW_UP_TYPED = "Also the docs?"


def doc_text(session: str, n: int) -> str:
    """The document of trial ``n``: a status, and one prompt in the exchange."""
    return (
        f"---\nagent_doc_session: {session}\nagent_doc_format: template\n---\n"
        "# Typing\n\n"
        "<!-- agent:status patch=replace -->\nidle\n<!-- /agent:status -->\n\n"
        f"<!-- agent:exchange patch=append -->\nQuestion {n}?\n"
        "<!-- /agent:exchange -->\n"
    )


def response(n: int) -> str:
    """The agent's answer of trial ``n``: replace the status, append an answer."""
    return (
        f"<!-- patch:status -->\nanswering {n}\n<!-- /patch:status -->\n"
        f"<!-- patch:exchange -->\n### Re: question {n}\n\nAnswer {n}.\n"
        "<!-- /patch:exchange -->\n"
    )


@dataclass(frozen=True, slots=True)
class Expectation:
    """What the buffer must hold once the answer landed, and after one undo."""

    typed: str
    answered: str
    """Boundary markers removed (their ids are random)."""
    undone: str
    cursor_line_text: str
    """The line holding the person's text: the cursor must stay at its end."""
    typed_at: int
    """Offset of the typed text in ``answered``."""


def expectation(session: str, n: int, follow_up: bool) -> Expectation:
    """The expected texts and cursor of trial ``n``."""
    base = doc_text(session, n)
    prompt = f"Question {n}?\n"
    answer = f"\n### Re: question {n}\n\nAnswer {n}.\n"
    status = base.replace("idle\n", f"answering {n}\n")
    if follow_up:
        typed = FOLLOW_UP_TYPED
        undone = base.replace(prompt, prompt + typed + "\n")
        answered = status.replace(prompt, prompt + answer + typed + "\n")
        line_text = typed
    else:
        typed = PROMPT_TYPED
        line_text = prompt[:-1] + typed
        undone = base.replace(prompt, line_text + "\n")
        answered = status.replace(prompt, line_text + "\n" + answer)
    return Expectation(typed, answered, undone, line_text, answered.index(typed))


def cursor_outside(expected: Expectation, text: str, line: int, column: int) -> bool:
    """Whether the cursor (0-based line, column) left the end of the person's text."""
    lines = text.split("\n")
    if not 0 <= line < len(lines) or lines[line] != expected.cursor_line_text:
        return True
    return column != len(expected.cursor_line_text.encode("utf-8"))


def lost_characters(expected: Expectation, actual: str) -> int:
    """Typed characters missing from their place in ``actual`` (0 = none)."""
    text = BOUNDARY.sub("", actual)
    if text == expected.answered:
        return 0
    start, end = expected.typed_at, expected.typed_at + len(expected.typed)
    matcher = difflib.SequenceMatcher(None, expected.answered, text, autojunk=False)
    kept = 0
    for a, _b, size in matcher.get_matching_blocks():
        kept += max(0, min(a + size, end) - max(a, start))
    return max(len(expected.typed) - kept, 1 if text != expected.answered else 0)


@dataclass(frozen=True, slots=True)
class Trial:
    """The measures of one trial."""

    variant: str
    lost: int
    cursor_outside: bool
    undo_exact: bool | None
    """Whether one undo took exactly the answer; ``None``: not measured (the
    answer landed before the last key: a loaded machine stalled the keys for
    the server's quiet time, :data:`QUIET_S`, so the typing after the answer
    is an undo step of its own)."""
    pause_to_answer_s: float
    note: str = ""


QUIET_S = DEFAULT_QUIET_MS / 1000
"""The server's quiet time: an answer waits for a pause in typing this long."""


def type_keys(
    tmux: PrivateTmux, pane: str, keys: str, gaps: list[float] | None = None
) -> float:
    """Send ``keys`` one by one at :data:`CHARS_PER_SECOND`; return the time of
    the last key (``time.monotonic``). ``gaps`` gets the time between each
    two keys sent (a loaded machine may stall one far past the pace)."""
    step = 1.0 / CHARS_PER_SECOND
    last = time.monotonic()
    for ch in keys:
        due = last + step
        time.sleep(max(due - time.monotonic(), 0))
        tmux.run("send-keys", "-t", pane, "-l", ch)
        sent = time.monotonic()
        if gaps is not None:
            gaps.append(sent - last)
        last = sent
    return last


WORD_PAUSE_S = 1.5
"""A person's pause after each word: the server's 500 ms quiet time, the
editor's report of the change and a landing fit in it."""


def type_words(
    tmux: PrivateTmux,
    pane: str,
    words: list[str],
    after_word: Callable[[], None],
    stop: Callable[[], bool] = lambda: False,
    pause_s: float = WORD_PAUSE_S,
) -> str:
    """Type ``words`` separated by spaces at :data:`CHARS_PER_SECOND`, pausing
    ``pause_s`` after each word (``after_word`` runs first) and
    stopping early when ``stop()`` is true after a pause; return the typed text."""
    typed: list[str] = []
    for word in words:
        type_keys(tmux, pane, word if not typed else " " + word)
        typed.append(word)
        after_word()
        time.sleep(pause_s)  # the person thinks: no event to wait for
        if stop():
            break
    return " ".join(typed)


def start_write(doc: Path, baseline: str, answer: str) -> subprocess.Popen[str]:
    """Start ``agent-doc write`` with the agent's baseline (not waiting)."""
    base = doc.with_name(f".{doc.name}.{uuid.uuid4().hex[:6]}.base")
    base.write_text(baseline, "utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_doc.cli.entry", "write", str(doc),
         "--baseline-file", str(base)],
        cwd=doc.parent, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdin is not None
    proc.stdin.write(answer)
    proc.stdin.close()
    return proc


def finish_write(proc: subprocess.Popen[str], timeout: float = 40) -> tuple[int, str]:
    """Wait (bounded) for a write started by :func:`start_write`."""
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
    err = proc.stderr.read() if proc.stderr else ""
    return proc.returncode, err


def summary(editor: str, trials: list[Trial]) -> dict[str, Any]:
    """The figures of one editor's trials."""
    latencies = [t.pause_to_answer_s for t in trials]
    measured = [t.undo_exact for t in trials if t.undo_exact is not None]
    return {
        "editor": editor,
        "trials": len(trials),
        "lost_or_misplaced_chars": sum(t.lost for t in trials),
        "cursor_outside": sum(t.cursor_outside for t in trials),
        "undo_exact_pct": round(100 * sum(measured) / max(len(measured), 1)),
        "undo_not_measured": len(trials) - len(measured),
        "pause_to_answer_median_ms": round(1000 * statistics.median(latencies)),
        "pause_to_answer_max_ms": round(1000 * max(latencies)),
    }


def print_table(editor: str, trials: list[Trial]) -> None:
    """Print every trial and the summary (shown with ``pytest -s`` / on failure)."""
    print(
        f"\n{editor}: trial | variant | lost | cursor out | undo exact | pause→answer"
    )
    for n, t in enumerate(trials):
        print(f"{n:5} | {t.variant:9} | {t.lost:4} | {t.cursor_outside!s:10} | "
              f"{t.undo_exact!s:10} | {1000 * t.pause_to_answer_s:6.0f} ms {t.note}")  # fmt: skip
    print(summary(editor, trials))


def record_summary(editor: str, trials: list[Trial]) -> None:
    """Append the summary to the reliability figures (``docs/reliability.md``)."""
    from tests.reliability._util import record

    record("typing like a person", **summary(editor, trials))
