"""Run the reliability suite and write ``docs/reliability.md`` with its figures.

Usage: ``.venv/bin/python scripts/reliability_report.py`` (from the repository);
``--typing`` runs only the typing-like-a-person trials in real editors and
replaces their section of the existing report. Each part runs as its own
pytest process; the tests append their figures
(scenarios, kills, hostile cases, slowest case) as JSON lines to a temporary
file named by ``AGENT_DOC_RELIABILITY_FIGURES``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARTS = {
    "concurrency fuzz": "tests/reliability/test_concurrency_fuzz.py",
    "crash safety": "tests/reliability/test_crash_safety.py",
    "hostile input": "tests/reliability/test_hostile.py",
    "security": "tests/reliability/test_security.py",
    "server resilience": "tests/reliability/test_server_resilience.py",
    "cycle order": "tests/reliability/test_cycle_order.py",
    "special files": "tests/reliability/test_special_files.py",
    "odd paths": "tests/reliability/test_odd_paths.py",
    "hostile buffers": "tests/reliability/test_hostile_buffers.py",
    "stuck state": "tests/reliability/test_stuck_state.py",
    "audit trees": "tests/reliability/test_audit_trees.py",
    "malformed patches": "tests/reliability/test_malformed_patches.py",
    "debris": "tests/reliability/test_debris.py",
    "turns": "tests/lsp/test_turns.py",
    "editor wait": "tests/cli/test_write_editor_wait.py",
    "convert": "tests/cli/test_doc_tools_cli.py",
    "no junk commits": "tests/cli/test_honest_commits.py",
    "honest commits": "tests/unit/cycle/test_commit_fidelity.py",
    "state out of git": "tests/cli/test_state_out_of_git.py",
    "crash points": "tests/reliability/test_crash_points.py",
    "exactly-once model": "tests/reliability/test_landing_model.py",
}
TYPING_PARTS = {
    "typing in neovim": "tests/editors/test_typing_neovim.py",
    "typing in emacs": "tests/editors/test_typing_emacs.py",
    "typing in vscode": "tests/editors/test_typing_vscode.py",
}
TYPING_KIND = "typing like a person"
TYPING_START, TYPING_END = "<!-- typing:start -->", "<!-- typing:end -->"
CRASH_START, CRASH_END = "<!-- crash-points:start -->", "<!-- crash-points:end -->"
"""The crash-point section (its table is checked by test_crash_points.py) is
kept as it is when the report is written again."""


def kept_crash_points() -> list[str]:
    """The report's crash-point section, as it is now (none: empty)."""
    report = ROOT / "docs" / "reliability.md"
    text = report.read_text(encoding="utf-8") if report.exists() else ""
    if CRASH_START not in text or CRASH_END not in text:
        return []
    body = text.split(CRASH_START, 1)[1].split(CRASH_END, 1)[0]
    return [CRASH_START, *body.strip("\n").splitlines(), CRASH_END, ""]


ROOMS_START = "<!-- crash-points-rooms:start -->"
ROOMS_END = "<!-- crash-points-rooms:end -->"
"""The shared rooms' crash-point table, written by hand: kept as it is."""


def kept_block(start: str, end: str) -> list[str]:
    """The report's block between ``start`` and ``end`` (markers included)."""
    report = ROOT / "docs" / "reliability.md"
    text = report.read_text(encoding="utf-8") if report.exists() else ""
    if start not in text or end not in text:
        return []
    block = text.split(start, 1)[1].split(end, 1)[0]
    return [start + block + end, ""]


def run_parts(
    parts: dict[str, str], env: dict[str, str]
) -> list[tuple[str, str, float]]:
    """Run each part as its own pytest process; return (name, result, seconds)."""
    rows: list[tuple[str, str, float]] = []
    for name, path in parts.items():
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             "--durations=5", "-s", path],
            cwd=ROOT, env=env, check=False,
        )  # fmt: skip
        status = "passed" if done.returncode == 0 else "FAILED"
        rows.append((name, status, time.monotonic() - started))
    return rows


def typing_section(
    figures: list[dict[str, object]], rows: list[tuple[str, str, float]]
) -> list[str]:
    """The typing-like-a-person table (one row per editor), between markers."""
    out = [
        TYPING_START,
        "## Typing like a person while answers land",
        "",
        f"Generated on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
        "(`scripts/reliability_report.py --typing`). Real editors in a private "
        "tmux server, keys via `tmux send-keys` at 10 characters a second in "
        "Insert mode (end of the prompt line / a new follow-up line), a real "
        "`agent-doc write` with `status` + `exchange` patches started while "
        "typing; see `docs/editors/typing.md`.",
        "",
        "| editor | trials | chars lost or misplaced | cursor outside the "
        "person's text | one undo = exactly the answer | pause → answer median "
        "| max | test seconds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    seconds = {name.split()[-1]: t for name, _, t in rows}
    for fig in figures:
        if fig.get("kind") != TYPING_KIND:
            continue
        editor = str(fig["editor"])
        out.append(
            f"| {editor} | {fig['trials']} | {fig['lost_or_misplaced_chars']} | "
            f"{fig['cursor_outside']} | {fig['undo_exact_pct']} % | "
            f"{fig['pause_to_answer_median_ms']} ms | "
            f"{fig['pause_to_answer_max_ms']} ms | {seconds.get(editor, 0):.0f} |"
        )
    failed = [name for name, status, _ in rows if status != "passed"]
    if failed:
        out.append(f"\nFAILED: {', '.join(failed)}")
    out += [
        "",
        "Neovim 0.11 and `emacs -nw` + eglot (default idle time) run in the "
        "tmux pane and get keys from `tmux send-keys`; VS Code is code-server "
        "with the installed `.vsix`, keys are real key events in Chromium "
        "(Playwright). The pause → answer time is measured in the editor (the "
        "apply time the client records, or the document change events).",
        TYPING_END,
    ]
    return out


def _read_figures(path: Path) -> list[dict[str, object]]:
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line) for line in lines]


def update_typing() -> int:
    """Run only the typing trials; replace their section of the report."""
    with tempfile.TemporaryDirectory() as tmp:
        figures_file = Path(tmp) / "figures.jsonl"
        env = dict(os.environ, AGENT_DOC_RELIABILITY_FIGURES=str(figures_file))
        rows = run_parts(TYPING_PARTS, env)
        section = "\n".join(typing_section(_read_figures(figures_file), rows))
    report = ROOT / "docs" / "reliability.md"
    text = report.read_text(encoding="utf-8") if report.exists() else ""
    if TYPING_START in text and TYPING_END in text:
        head, rest = text.split(TYPING_START, 1)
        text = head + section + rest.split(TYPING_END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    report.write_text(text, encoding="utf-8")
    print(section)
    return 0 if all(s == "passed" for _, s, _ in rows) else 1


HARDENED = [
    "**files that are not documents** (FIFO, socket, device, folder, dangling "
    "symlink, missing file) given to any command taking FILE: one "
    "`agent-doc: …` line, non-zero exit, at once (checked with `stat` while "
    "the arguments are parsed; reads open with `O_NONBLOCK` + `fstat`); the "
    "server's socket `read`/`write`/`patch` answer `ok: false`; the server "
    "never reads a FIFO from disk (unopened URIs, workspace-symbol scan, "
    "`sessions.json`, `config.toml`) — *special files*;",
    "**a failed command creates nothing**: no `.agent-doc/`, lock, status or "
    "pending file anywhere (once a failed `write` through a dangling symlink "
    "created `.agent-doc/` next to its target) — *special files*;",
    "**odd paths**: spaces, `#`, `%`, non-ASCII letters and paths longer than "
    "`sun_path` round-trip between URIs, the socket registration and the CLI "
    '(`write`/`patch`/`diff` reach the live buffer; once exit 75 "closed in '
    'the editor") — *odd paths*;',
    "**deep nesting**: documentSymbol on components nested 200 / 2,000 deep "
    "answers (tree capped at 48 levels, deeper ones listed flat, a "
    "`deep-nesting` diagnostic); folding and workspace symbols are flat — "
    "*hostile buffers*;",
    "**lone surrogates** from the editor (`\\ud800` in JSON) become U+FFFD in "
    "the server's copy, command and socket arguments and when encoding: "
    "outline, patch, write, diff and the CLI hand-off all answer (no internal "
    "error anywhere in the server resilience run) — *hostile buffers*;",
    "**stuck state**: an empty pending response is dropped by `recover` and "
    "preflight with one line; `gc` removes `locks/<hash>.lock` of deleted "
    "documents unless a process holds the lock — *stuck state*;",
    "**debris of a killed writer**: `kill -9` of `agent-doc write` between "
    "writing its `.doc.md.<pid>.<random>.tmp` and the rename left that file"
    " next to the document; `recover` and `gc` now remove the temporary "
    "files of writers that are gone (pid not running, or reused by a "
    "process started after the file was written), next to documents and "
    "under `.agent-doc/`, never a live writer's (30 real kills, then no "
    "stray file and an old-or-new document) — *debris*;",
    '**the revert lens on any turn**: "Revert this turn" on an earlier '
    "answer also deleted the question typed right under it; only the "
    "agent's own text (its first commit's copy) goes now, tested on the "
    "first, a middle and the last turn with typing under each, in the core "
    "and through the real server — *turns*;",
    "**a silent editor**: a write waits `AGENT_DOC_WRITE_TIMEOUT` seconds "
    "(counted on a terminal), then one line with one prefix says the answer"
    " is kept as pending and how to land it (`recover`, `recover --force-"
    "disk`), both of which work (a real socket server that never answers) —"
    " *editor wait*;",
    "**gc and locks**: code and docs agree — gc removes the lock files of "
    "deleted documents that no process holds, never a held lock or one of "
    "an existing document — *stuck state*;",
    "**convert keeps the unsent**: the snapshot is converted with the "
    "document, so a question typed since the last answer is still in the "
    "next diff — *convert*;",
    "**audit-docs** checks `## Project Structure` trees drawn with "
    "indentation only as well as `├──`/`└──` trees — *audit trees*;",
    "**bad command lines** (an unknown command or option, a missing "
    "argument, a value not among an option's choices on `mode`, `convert`, "
    "`claim`, `layout`, `install`, `plugin`, `hook fire`, a non-number for "
    "`route --debounce`/`--prompt-timeout`): one `agent-doc: COMMAND: … "
    "(see agent-doc COMMAND -h)` line, exit 2, nothing changed; free text "
    'that starts with a dash (`patch … "- [ ] ship it"`) is an argument, '
    "and the fast parser of the per-turn commands and typer read every line"
    " alike; `-h` is `--help` on every command — "
    "`tests/cli/test_usage_errors.py`, `tests/cli/test_parsers_agree.py` "
    "(both parsers, same lists), `tests/cli/test_help_everywhere.py`;",
    "**a typo in config.toml** (`defualt_agent`, an unknown key in "
    "`[agents.NAME]`): one warning per key naming the file and the closest "
    "known key, never an error; `agent-doc doctor` lists them with the rest"
    " of the set-up — `tests/cli/test_config_warnings.py`, "
    "`tests/cli/test_doctor.py`;",
    "**cancel means cancel**: SIGINT (a terminal's Ctrl-C, also pressed in a "
    "tmux pane), SIGTERM or SIGHUP to `agent-doc run` or `watch` mid-turn, and "
    "Stop, `shutdown` or SIGTERM of the language server, end the agent's whole "
    "process group (the agent runs in its own session; SIGTERM, SIGKILL after "
    "the grace, so an agent that ignores signals and its child die too): one "
    "line, exit 128 + signal, document, snapshot and git unchanged; an ACP turn "
    "keeps what streamed, marked `*(interrupted)*`; an agent that prints "
    "nothing is named as such — *tests/cli/test_cancel.py, "
    "tests/cli/test_cancel_acp.py, tests/lsp/test_acp_cancel.py, "
    "tests/cli/test_watch_cli.py*;",
    "**malformed patch blocks** (unknown name, closed with another name, "
    "unclosed) keep the spec's fallback (text to exchange) with one "
    "`warning:` line each on stderr and one `window/showMessage` warning each "
    "when the write goes through the server — *malformed patches*;",
    "**no junk commits**: `commit` and `preflight` with nothing new since "
    'HEAD add no commit ("nothing to commit", exit 0): the snapshot is '
    "compared with HEAD without `(HEAD)` and boundary markers, and a boundary "
    "that does not move keeps its id (it got a new random id every time, so "
    "the skill's commit + preflight left two commits per turn) — *no junk "
    "commits*;",
    "**honest commits**: the per-turn commit keeps an executable document "
    "`100755` (`core.fileMode = false` keeps HEAD's mode), a symlinked "
    "document a `120000` link with its target committed, signs when "
    "`commit.gpgSign` is set (through `git commit-tree -S`; a failing signer "
    "fails the commit instead of leaving it unsigned) and runs the hooks "
    "`git commit --no-verify` runs (`prepare-commit-msg`, `post-commit`; "
    "`pre-commit`/`commit-msg` are skipped as spec §7.15 says) — *honest "
    "commits*;",
    "**runtime state out of git**: `.agent-doc/.gitignore` (written by "
    "`init`, added by the per-turn commit and `gc` to older projects, never "
    "rewritten) keeps snapshots, CRDT state, locks, logs, status and events "
    "out of `git add -A` while `config.toml` and `components.toml` stay "
    "trackable; `audit-docs` passes on a project fresh from `init` — *state "
    "out of git*.",
]
"""The hardening classes of issue 16, each with the part that proves it."""


def main() -> int:
    """Run every part, then write the report; return 1 if a part failed."""
    with tempfile.TemporaryDirectory() as tmp:
        figures_file = Path(tmp) / "figures.jsonl"
        env = dict(os.environ, AGENT_DOC_RELIABILITY_FIGURES=str(figures_file))
        rows = run_parts(PARTS, env)
        typing_rows = run_parts(TYPING_PARTS, env)
        figures = _read_figures(figures_file)
    out = [
        "# Reliability report",
        "",
        f"Generated by `scripts/reliability_report.py` on "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        "",
        "| part | result | seconds |",
        "|---|---|---|",
        *(f"| {n} | {s} | {t:.1f} |" for n, s, t in rows),
        f"| **total** | | {sum(t for _, _, t in rows):.1f} |",
        "",
        "## Figures",
        "",
    ]
    for fig in figures:
        if fig.get("kind") == TYPING_KIND:
            continue
        fig.pop("at", None)
        kind = fig.pop("kind")
        out.append(f"* **{kind}**: " + ", ".join(f"{k}={v}" for k, v in fig.items()))
    out += [
        "",
        "## What is checked",
        "",
        "* live-buffer fuzz: typed tokens and agent answers exactly once, answers "
        "after their prompt, <= 1 boundary, snapshot == content_ours, server "
        "buffer == editor buffer; editor modes reject-stale, skip-stale (Neovim) "
        "and apply (an editor ignoring versions only gets edits between writes: "
        "applying a stale edit corrupts text whatever the server does);",
        "* disk fuzz: concurrent writer and user processes, every edit survives;",
        "* crash safety: kill -9 of `agent-doc write` -> old or new document, "
        "consistent snapshot, `recover` lands the answer exactly once; crash "
        "points: each durable step of write, recover, compact and commit "
        "(table below);",
        "* exactly-once model (hypothesis rule-based, "
        "`tests/reliability/test_landing_model.py`): typing, answers (stale "
        "baselines too), a second writer, crashes at the named points, "
        "recover and compact over the commands' pure steps, 500 schedules of "
        "24 steps (2,048 of 32 with `CI=true`): answers, archived turns and "
        "typed lines exactly once, <= 1 boundary, nothing reported landed "
        "before the commit point;",
        "* server resilience: hostile input to every LSP feature gets an answer "
        "or an error and the server keeps answering (tracebacks logged); clean "
        "shutdown, closed stdin, SIGTERM leave no socket/registration, after "
        "SIGKILL the next `agent-doc diff` removes them; 1,000 keystrokes "
        "interleaved with 100 writes (ServerLink + real `agent-doc write`): "
        "every answer and keystroke exactly once (writes wait for the typist's "
        "pause; one that cannot land within writeTimeoutMs exits 75 and is "
        "retried / recovered, as an agent does);",
        "* order over 2-4 cycles on the disk path (hypothesis, "
        "`tests/reliability/test_cycle_order.py`): every follow-up typed after "
        "the prompt lands after the answer;",
        "* hostile input and security: see `docs/security.md`.",
        "",
        *kept_crash_points(),
        *typing_section(figures, typing_rows),
        "## Hardened classes",
        "",
        *(f"* {line}" for line in HARDENED),
        "",
        *kept_block(ROOMS_START, ROOMS_END),
    ]
    rows += typing_rows
    (ROOT / "docs" / "reliability.md").write_text("\n".join(out), encoding="utf-8")
    print("\n".join(out))
    return 0 if all(s == "passed" for _, s, _ in rows) else 1


if __name__ == "__main__":
    raise SystemExit(update_typing() if "--typing" in sys.argv[1:] else main())
