"""The built-in ``codex`` backend: OpenAI's Codex CLI, ``codex exec --json``.

``agent = "codex"`` (with no ``[agents.codex]`` table replacing it) runs::

    codex exec --json --skip-git-repo-check [-m MODEL]
        -c sandbox_mode="workspace-write" -c developer_instructions="…"
        [resume THREAD_ID] -

with the prompt on stdin (``-``). Codex prints JSON lines: ``thread.started``
names the thread (kept as the document's ``resume``, continued with
``codex exec resume ID``), each ``item.completed`` of type ``agent_message`` is
a message of the answer (the last one is the answer, as claude's ``result``),
``turn.failed`` says why a turn failed (the model's HTTP error, a dropped
stream). Other ``error`` events are warnings codex goes on after.
"""

from __future__ import annotations

import json

from agent_doc.errors import AgentError

CODEX = "codex"
"""The backend's name and its program."""
CODEX_BASE_ARGS = ("exec", "--json", "--skip-git-repo-check")
CODEX_SANDBOX = 'sandbox_mode="workspace-write"'
"""Like claude's ``acceptEdits``: codex may edit files in the project."""


def codex_argv(
    *, resume: str | None, model: str | None, system_prompt: str
) -> list[str]:
    """The ``codex exec`` command line for one turn (the prompt goes on stdin)."""
    argv = [CODEX, *CODEX_BASE_ARGS]
    if model:
        argv += ["-m", model]
    argv += ["-c", CODEX_SANDBOX]
    argv += ["-c", f"developer_instructions={json.dumps(system_prompt)}"]
    if resume:
        argv += ["resume", resume]
    argv.append("-")
    return argv


def codex_events(stdout: str) -> list[dict[str, object]]:
    """The JSON objects among codex's output lines (others are skipped)."""
    events = []
    for line in stdout.splitlines():
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def codex_failure(stdout: str, stderr: str) -> str | None:
    """Why a codex turn failed: ``turn.failed``'s message, else its ``Error:`` line."""
    for event in reversed(codex_events(stdout)):
        error = event.get("error")
        if event.get("type") == "turn.failed" and isinstance(error, dict):
            message = error.get("message")
            if isinstance(message, str) and message.strip():
                return message.strip()
    for line in stderr.splitlines():
        if line.startswith("Error: "):
            return line.removeprefix("Error: ").strip()
    return None


def parse_codex_reply(stdout: str, name: str) -> tuple[str, str | None]:
    """The answer and thread id of a finished ``codex exec --json`` turn."""
    events = codex_events(stdout)
    if not events:
        raise AgentError(
            f"agent '{name}' printed no JSON events, not the output of "
            f"'codex exec --json'"
        )
    thread = None
    messages: list[str] = []
    for event in events:
        kind = event.get("type")
        if kind == "thread.started" and isinstance(event.get("thread_id"), str):
            thread = str(event["thread_id"])
        item = event.get("item")
        if kind == "item.completed" and isinstance(item, dict):
            text = item.get("text")
            if item.get("type") == "agent_message" and isinstance(text, str):
                messages.append(text)
    failure = codex_failure(stdout, "")
    if failure:
        raise AgentError(f"agent '{name}' failed: {failure}")
    if not messages or not messages[-1].strip():
        raise AgentError(f"agent '{name}' returned an empty result")
    return messages[-1], thread
