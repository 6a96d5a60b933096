"""Agent backends: run the agent CLI once and parse its JSON answer (spec §5).

The built-in ``claude`` backend runs ``claude -p --output-format json
--permission-mode acceptEdits`` with ``--resume ID`` or ``--continue
--fork-session``; a ``[agents.NAME]`` table in the global config replaces the
command and its base arguments (the session, model and system-prompt flags are
still added, so a custom backend speaks the same argv and JSON as claude).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from agent_doc.errors import AgentError
from agent_doc.store.config import AgentCommand
from agent_doc.store.config import GlobalConfig
from agent_doc.store.config import missing_agent_hint

DEFAULT_AGENT = "claude"
CLAUDE_BASE_ARGS = ("-p", "--output-format", "json", "--permission-mode", "acceptEdits")
SYSTEM_PROMPT = (
    "You are responding inside an interactive session document. The user edits "
    "the document and submits diffs to you. Respond concisely in markdown. "
    "Address inline annotations (blockquotes, comments) as well as new ## User blocks."
)
DEFAULT_TIMEOUT_S = 600.0


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


def resolve_agent_name(
    cli_agent: str | None, frontmatter_agent: str | None, config: GlobalConfig
) -> str:
    """Pick the backend: --agent > frontmatter ``agent`` > config > claude (§5.2)."""
    for name in (cli_agent, frontmatter_agent, config.default_agent):
        if name and name.strip():
            return name.strip()
    return DEFAULT_AGENT


def build_invocation(
    name: str,
    config: GlobalConfig,
    *,
    resume: str | None = None,
    model: str | None = None,
    claude_args: list[str] | None = None,
    system_prompt: str = SYSTEM_PROMPT,
) -> AgentInvocation:
    """Build the argv for backend ``name`` (claude's exact argv, or a custom one)."""
    configured = config.agents.get(name)
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
        if invocation.name == DEFAULT_AGENT
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
        raise AgentError(f"agent '{name}' printed invalid JSON: {exc.msg}") from exc
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
    """Run the agent with ``prompt`` on stdin and return its parsed reply."""
    program = invocation.argv[0]
    if shutil.which(program) is None:
        raise AgentError(f"agent command '{program}' not found on PATH")
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
        raise AgentError(f"cannot start agent '{program}': {exc.strerror}") from exc
    try:
        stdout, stderr = proc.communicate(prompt, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AgentError(
            f"agent '{invocation.name}' timed out after {timeout:g} s"
        ) from exc
    if proc.returncode != 0:
        detail = (stderr.strip().splitlines() or ["no output"])[-1]
        raise AgentError(
            f"agent '{invocation.name}' exited with status {proc.returncode}: {detail}"
        )
    return parse_reply(stdout, invocation.name)
