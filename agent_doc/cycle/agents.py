"""Agent backends: run the agent CLI once and parse its JSON answer (spec §5).

The built-in ``claude`` backend runs ``claude -p --output-format json
--permission-mode acceptEdits`` with ``--resume ID`` or ``--continue
--fork-session``; a ``[agents.NAME]`` table in the global config replaces the
command and its base arguments (the session, model and system-prompt flags are
still added, so a custom backend speaks the same argv and JSON as claude).
The built-in ``codex`` backend runs ``codex exec --json``
(:mod:`agent_doc.cycle.codex`) unless an ``[agents.codex]`` table replaces it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from agent_doc._runtime.lazy import lazy_compile
from agent_doc.cycle.cancel import SignalLatch
from agent_doc.cycle.cancel import SignalReceived
from agent_doc.cycle.cancel import TurnCancelled
from agent_doc.cycle.cancel import live_groups
from agent_doc.cycle.cancel import raise_on_signal
from agent_doc.cycle.cancel import signal_name
from agent_doc.cycle.cancel import signals_routed
from agent_doc.cycle.cancel import stop_group
from agent_doc.cycle.codex import CODEX
from agent_doc.cycle.codex import codex_argv
from agent_doc.cycle.codex import codex_failure
from agent_doc.cycle.codex import parse_codex_reply
from agent_doc.errors import AgentError
from agent_doc.store.config import DEFAULT_AGENT as DEFAULT_AGENT
from agent_doc.store.config import AgentCommand
from agent_doc.store.config import GlobalConfig
from agent_doc.store.config import missing_agent_hint
from agent_doc.store.config import resolve_agent_name as resolve_agent_name

CLAUDE_BASE_ARGS = ("-p", "--output-format", "json", "--permission-mode", "acceptEdits")
SYSTEM_PROMPT = (
    "You are responding inside an interactive session document. The user edits "
    "the document and submits diffs to you. Respond concisely in markdown. "
    "Address inline annotations (blockquotes, comments) as well as new ## User blocks."
)
DEFAULT_TIMEOUT_S = 600.0
LOST_SESSION = lazy_compile(
    r"no conversation found|no rollout found|session\b.{0,80}\bnot found|"
    r"(?:could not|cannot|failed to) (?:resume|load)",
    re.IGNORECASE,
)
"""An agent error that says the ``--resume`` session is gone."""


def lost_session(error: str) -> bool:
    """True when an agent's error says the session to resume does not exist."""
    return LOST_SESSION.search(error) is not None


@dataclass(frozen=True, slots=True)
class AgentReply:
    """What the agent answered."""

    text: str
    """The response text (``result``)."""
    session_id: str | None
    """The agent's conversation id, stored as ``resume`` for the next cycle."""


@dataclass(frozen=True, slots=True)
class AgentInvocation:
    """Everything needed to start the agent process once."""

    name: str
    """Resolved backend name."""
    argv: tuple[str, ...]
    """The full command line."""
    output: str = "claude"
    """What it prints: ``claude`` (one JSON object) or ``codex`` (JSON lines)."""


def build_invocation(
    name: str,
    config: GlobalConfig,
    *,
    resume: str | None = None,
    model: str | None = None,
    claude_args: list[str] | None = None,
    system_prompt: str = SYSTEM_PROMPT,
) -> AgentInvocation:
    """Build the argv for backend ``name`` (claude's or codex's, or a custom one)."""
    configured = config.agents.get(name)
    if configured is None and name == CODEX:
        argv = codex_argv(resume=resume, model=model, system_prompt=system_prompt)
        return AgentInvocation(name=name, argv=tuple(argv), output="codex")
    if configured is None and name != DEFAULT_AGENT:
        raise AgentError(
            f"unknown agent '{name}': add [agents.{name}] with a command to "
            f"{config.path or 'the global config.toml'}"
        )
    base = configured or AgentCommand(command=DEFAULT_AGENT, args=CLAUDE_BASE_ARGS)
    argv = [base.command, *(claude_args or []), *base.args]
    if resume:
        argv += ["--resume", resume]
    else:
        argv += ["--continue", "--fork-session"]
    if model:
        argv += ["--model", model]
    argv += ["--append-system-prompt", system_prompt]
    return AgentInvocation(name=name, argv=tuple(argv))


def require_installed(invocation: AgentInvocation, config: GlobalConfig) -> None:
    """Raise :class:`AgentError` when the agent's program is not on PATH."""
    program = invocation.argv[0]
    if shutil.which(program) is not None:
        return
    where = config.path or "~/.config/agent-doc/config.toml"
    other = (
        f"or pick another agent with --agent NAME / [agents.NAME] in {where}"
        if invocation.name in (DEFAULT_AGENT, CODEX)
        else f"or fix [agents.{invocation.name}] in {where}"
    )
    raise AgentError(
        f"agent '{invocation.name}' is not installed: '{program}' is not on PATH; "
        f"{missing_agent_hint(program)}, {other}"
    )


def _agent_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("CLAUDECODE", None)
    return env


def parse_reply(stdout: str, name: str) -> AgentReply:
    """Parse the agent's JSON (``result``, ``session_id``, ``is_error``)."""
    try:
        data = json.loads(stdout)
    except json.JSONDecodeError as exc:
        raise AgentError(
            f"agent '{name}' printed invalid JSON, not the answer of "
            f"'claude -p --output-format json': {_excerpt(stdout)}"
        ) from exc
    if not isinstance(data, dict):
        raise AgentError(f"agent '{name}' printed JSON that is not an object")
    result = data.get("result")
    if data.get("is_error"):
        raise AgentError(f"agent '{name}' reported an error: {result or 'no message'}")
    if not isinstance(result, str) or not result.strip():
        raise AgentError(f"agent '{name}' returned an empty result")
    session = data.get("session_id")
    return AgentReply(
        text=result, session_id=session if isinstance(session, str) else None
    )


def send(
    invocation: AgentInvocation,
    prompt: str,
    *,
    cwd: Path | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> AgentReply:
    """Run the agent with ``prompt`` on stdin and return its parsed reply.

    SIGINT, SIGTERM or SIGHUP meanwhile stop the agent's whole process group
    and raise :class:`~agent_doc.cycle.cancel.TurnCancelled` (see
    :mod:`agent_doc.cycle.cancel`); so does the timeout, as an ``AgentError``.
    """
    program = invocation.argv[0]
    if shutil.which(program) is None:
        raise AgentError(f"agent command '{program}' not found on PATH")
    latch = SignalLatch()
    proc: subprocess.Popen[str] | None = None
    with signals_routed(raise_on_signal(latch)):
        try:
            latch.defer = True  # a signal now must not orphan a half-started agent
            proc = _start(invocation, cwd)
            latch.defer = False
            if latch.first is not None:
                raise SignalReceived(latch.first)
            stdout, stderr = proc.communicate(prompt, timeout=timeout)
        except SignalReceived as received:
            raise _cancelled(invocation, proc, received.signum, latch) from None
        except subprocess.TimeoutExpired as exc:
            assert proc is not None
            _stop(proc, latch)
            raise AgentError(
                f"agent '{invocation.name}' timed out after {timeout:g} s "
                f"and was stopped; the document is unchanged"
            ) from exc
        finally:
            if proc is not None:
                live_groups.discard(proc.pid)
    return _reply_of(invocation, proc.returncode, stdout, stderr)


def _start(invocation: AgentInvocation, cwd: Path | None) -> subprocess.Popen[str]:
    """Start the agent in its own session (a terminal's Ctrl-C reaches us only)."""
    try:
        proc = subprocess.Popen(
            invocation.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
            env=_agent_env(),
            start_new_session=True,
        )
    except OSError as exc:
        raise AgentError(
            f"cannot start agent '{invocation.argv[0]}': {exc.strerror}"
        ) from exc
    live_groups.add(proc.pid)
    return proc


def _stop(proc: subprocess.Popen[str], latch: SignalLatch) -> None:
    """End the agent's process group and close its pipes."""
    try:
        stop_group(proc.pid, reap=proc.poll, hurry=lambda: latch.hurry)
    except SignalReceived:  # pragma: no cover - the latch raises only once
        pass
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=1)


def _cancelled(
    invocation: AgentInvocation,
    proc: subprocess.Popen[str] | None,
    signum: int,
    latch: SignalLatch,
) -> TurnCancelled:
    if proc is None:
        what = f"agent '{invocation.name}' was not started"
    else:
        _stop(proc, latch)
        what = f"stopped agent '{invocation.name}' (pid {proc.pid}) and its processes"
    return TurnCancelled(
        f"cancelled ({signal_name(signum)}): {what}; the document is unchanged",
        signum,
    )


def _reply_of(
    invocation: AgentInvocation, status: int, stdout: str, stderr: str
) -> AgentReply:
    """The reply of an agent that exited with ``status``, or the error to show."""
    name, codex = invocation.name, invocation.output == "codex"
    detail = _last_line(stderr)
    if status < 0:
        raise AgentError(
            f"agent '{name}' was killed by {signal_name(-status)}"
            + (f": {detail}" if detail else "")
        )
    if status != 0:
        reported = codex_failure(stdout, stderr) if codex else reported_error(stdout)
        if reported:
            raise AgentError(f"agent '{name}' failed (exit {status}): {reported}")
        raise AgentError(
            f"agent '{name}' exited with status {status}"
            + (f": {detail}" if detail else " and printed no error")
        )
    if not stdout.strip():
        raise AgentError(
            f"agent '{name}' printed nothing (exit {status})"
            + (f"; stderr: {detail}" if detail else "")
        )
    if codex:
        text, session = parse_codex_reply(stdout, name)
        return AgentReply(text=text, session_id=session)
    return parse_reply(stdout, name)


def reported_error(stdout: str) -> str | None:
    """The cause an agent that failed put in its JSON (``is_error``, ``result``).

    claude exits 1 with an empty stderr when the model's API fails (401, 429,
    529, a dropped stream) and says why only there: ``"API Error: 529
    Overloaded…"``, ``"Invalid API key · Fix external API key"``.
    """
    try:
        data = json.loads(stdout)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or not data.get("is_error"):
        return None
    result = data.get("result")
    if not isinstance(result, str) or not result.strip():
        return None
    return _excerpt(result, limit=300)


def _excerpt(text: str, limit: int = 80) -> str:
    """The start of ``text`` on one line, for an error message."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""
