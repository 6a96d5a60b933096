"""A stand-in ACP agent written with the SDK's agent side (``acp.run_agent``).

It speaks the real protocol over stdio. What it does is set by environment:

- ``ACP_AGENT_REPLY``: the answer, streamed as ``agent_message_chunk`` updates
  (default ``"### Re: question\\n\\nHello from ACP."``);
- ``ACP_AGENT_CHUNK`` (characters per chunk, default 6) and ``ACP_AGENT_DELAY``
  (seconds between chunks, default 0.02);
- ``ACP_AGENT_ASK=1``: before answering, start a tool call and ask permission;
  the answer starts with ``permission: <option id | cancelled>``;
- ``ACP_AGENT_READ=PATH``: read PATH with ``fs/read_text_file``; the answer
  then holds ``read: <first line>`` (or ``read failed: <message>``);
  ``ACP_AGENT_READ_LINE=N`` reads only line N (1-based);
- ``ACP_AGENT_WRITE=PATH`` (with ``ACP_AGENT_WRITE_TEXT``): write PATH with
  ``fs/write_text_file`` (after an allowed permission when ``ACP_AGENT_ASK=1``);
  with ``ACP_AGENT_EDIT_FROM``/``ACP_AGENT_EDIT_TO`` the text written is what
  ``ACP_AGENT_READ`` read with the first FROM replaced by TO (an edit tool's
  way); ``ACP_AGENT_WRITE_GATE=FILE``: the write waits (60 s at most) until
  FILE exists, so a test can type between the read and the write (the read's
  text and the write's result are logged as ``read`` and ``write``);
- ``ACP_AGENT_TERMINAL=1``: run ``echo term-ok`` through ``terminal/*``;
- ``ACP_AGENT_LOG=FILE``: one JSON line per call received (method + details);
- ``ACP_AGENT_CRASH_AFTER=N``: exit abruptly after N chunks;
- ``ACP_AGENT_CHILD=1``: at the prompt, start a child process (``sleep``) and
  log ``child`` with its pid (the grandchild a cancel must end too);
- ``ACP_AGENT_DEAF=1``: ignore ``session/cancel`` and SIGINT/SIGTERM/SIGHUP
  (only SIGKILL stops it; so does its child);
- ``ACP_AGENT_LOG_CHUNKS=1``: log ``chunk`` (with ``sent``) for every chunk;
- ``ACP_AGENT_NO_LOAD=1``: do not offer ``session/load`` (an agent that cannot
  resume a session: every turn opens a new one).

``session/cancel`` stops the stream; the turn ends with ``cancelled``.
A JSON file named as the first argument may set the same keys (for agents
started by a language server whose environment a test cannot change); it is
read at every use, so a test may change it between two turns of one agent.
Every call logged carries the agent's ``pid``.

Kept (issue 36) for what the real adapter cannot be made to show on
demand (scripted plans, file and terminal requests, faults, slow streams);
the real Claude ACP adapter against a scripted model is in
``tests/agents/test_claude_acp.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION
from acp import plan_entry
from acp import run_agent
from acp import start_tool_call
from acp import update_agent_message_text
from acp import update_plan
from acp.schema import AgentCapabilities
from acp.schema import InitializeResponse
from acp.schema import LoadSessionResponse
from acp.schema import NewSessionResponse
from acp.schema import PermissionOption
from acp.schema import PromptResponse
from acp.schema import ToolCallUpdate


def setting(key: str, default: str | None = None) -> str | None:
    """The setting ``key``: the settings file (read anew: the agent lives across
    turns and a test may change it between them), else the environment."""
    settings: dict[str, str] = {}
    if len(sys.argv) > 1:
        with open(sys.argv[1], encoding="utf-8") as settings_file:
            settings = json.load(settings_file)
    return settings.get(key, os.environ.get(key, default))


def log(method: str, **details: Any) -> None:
    path = setting("ACP_AGENT_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(
                json.dumps({"method": method, "pid": os.getpid(), **details}) + "\n"
            )


class StandInAgent:
    def __init__(self) -> None:
        self.client: Any = None
        self.cancelled: dict[str, asyncio.Event] = {}

    read_text: str | None = None
    """The text the last ``fs/read_text_file`` returned."""

    def write_content(self) -> str:
        """The text to write: the read text edited, or ``ACP_AGENT_WRITE_TEXT``."""
        old, new = setting("ACP_AGENT_EDIT_FROM"), setting("ACP_AGENT_EDIT_TO")
        if old is not None and new is not None and self.read_text is not None:
            if old not in self.read_text:
                raise AssertionError(f"{old!r} is not in the text read")
            return self.read_text.replace(old, new, 1)
        return setting("ACP_AGENT_WRITE_TEXT", "written by acp\n") or ""

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, **_: Any
    ) -> InitializeResponse:
        caps = (
            client_capabilities.model_dump(by_alias=True, exclude_none=True)
            if client_capabilities
            else None
        )
        log("initialize", capabilities=caps)
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=setting("ACP_AGENT_NO_LOAD") != "1"
            ),
        )

    async def new_session(self, cwd: str, **_: Any) -> NewSessionResponse:
        session_id = f"acp-{uuid.uuid4().hex[:8]}"
        log("session/new", cwd=cwd, session_id=session_id)
        return NewSessionResponse(session_id=session_id)

    async def load_session(
        self, cwd: str, session_id: str, **_: Any
    ) -> LoadSessionResponse:
        log("session/load", cwd=cwd, session_id=session_id)
        # A real agent replays the history; the client must not take it as the answer.
        await self.client.session_update(
            session_id, update_agent_message_text("OLD HISTORY ")
        )
        return LoadSessionResponse()

    async def cancel(self, session_id: str, **_: Any) -> None:
        log("session/cancel", session_id=session_id)
        if setting("ACP_AGENT_DEAF") != "1":
            self.cancelled.setdefault(session_id, asyncio.Event()).set()

    async def prompt(
        self, session_id: str, prompt: list[Any], **_: Any
    ) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt)
        log("session/prompt", session_id=session_id, prompt=text)
        cancelled = self.cancelled.setdefault(session_id, asyncio.Event())
        cancelled.clear()
        if setting("ACP_AGENT_CHILD") == "1":
            deaf = "trap '' INT TERM HUP; " if setting("ACP_AGENT_DEAF") == "1" else ""
            # it inherits the agent's stdout, as a tool's shell would
            child = await asyncio.create_subprocess_exec(
                "/bin/sh", "-c", f"{deaf}sleep 3600; :", stdin=subprocess.DEVNULL
            )
            log("child", child=child.pid)
        await self.client.session_update(
            session_id,
            update_plan([plan_entry("answer the question", status="in_progress")]),
        )
        head = await self.side_effects(session_id)
        reply = head + setting("ACP_AGENT_REPLY", "### Re: question\n\nHello from ACP.")
        size = int(setting("ACP_AGENT_CHUNK", "6"))
        delay = float(setting("ACP_AGENT_DELAY", "0.02"))
        crash_after = int(setting("ACP_AGENT_CRASH_AFTER", "0") or 0)
        for start in range(0, len(reply), size):
            if crash_after and start >= crash_after * size:
                log("crash", sent=start)
                os._exit(3)  # the agent dies mid-answer
            if cancelled.is_set():
                log("stopped", sent=start)
                return PromptResponse(stop_reason="cancelled")
            await self.client.session_update(
                session_id, update_agent_message_text(reply[start : start + size])
            )
            if setting("ACP_AGENT_LOG_CHUNKS") == "1":
                log("chunk", sent=start + size)
            try:
                await asyncio.wait_for(cancelled.wait(), delay)
            except asyncio.TimeoutError:
                pass
        log("done", sent=len(reply))
        return PromptResponse(
            stop_reason="cancelled" if cancelled.is_set() else "end_turn"
        )

    async def side_effects(self, session_id: str) -> str:
        head = ""
        allowed = True
        if setting("ACP_AGENT_ASK") == "1":
            await self.client.session_update(
                session_id,
                start_tool_call("t1", "Write notes.txt", kind="edit", status="pending"),
            )
            options = [
                PermissionOption(
                    option_id="allow", name="Allow once", kind="allow_once"
                ),
                PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
            ]
            answer = await self.client.request_permission(
                session_id=session_id,
                tool_call=ToolCallUpdate(tool_call_id="t1", title="Write notes.txt"),
                options=options,
            )
            picked = getattr(answer.outcome, "option_id", None) or "cancelled"
            log("permission", picked=picked)
            allowed = picked == "allow"
            head += f"permission: {picked}\n\n"
        if path := setting("ACP_AGENT_READ"):
            try:
                line = setting("ACP_AGENT_READ_LINE")
                got = await self.client.read_text_file(
                    session_id=session_id,
                    path=path,
                    line=int(line) if line else None,
                    limit=1 if line else None,
                )
                self.read_text = got.content
                log("read", content=got.content)
                first = got.content.splitlines()[0] if got.content else ""
                head += f"read: {first}\n\n"
            except Exception as exc:
                head += f"read failed: {exc}\n\n"
        if (path := setting("ACP_AGENT_WRITE")) and allowed:
            await gate_open(setting("ACP_AGENT_WRITE_GATE"))
            try:
                await self.client.write_text_file(
                    session_id=session_id, path=path, content=self.write_content()
                )
                log("write", ok=True)
                head += "wrote: ok\n\n"
            except Exception as exc:
                log("write", ok=False, error=str(exc))
                head += f"write failed: {exc}\n\n"
        if setting("ACP_AGENT_TERMINAL") == "1":
            try:
                term = await self.client.create_terminal(
                    session_id=session_id, command="echo", args=["term-ok"]
                )
                await self.client.wait_for_terminal_exit(
                    session_id=session_id, terminal_id=term.terminal_id
                )
                out = await self.client.terminal_output(
                    session_id=session_id, terminal_id=term.terminal_id
                )
                await self.client.release_terminal(
                    session_id=session_id, terminal_id=term.terminal_id
                )
                head += f"terminal: {out.output.strip()}\n\n"
            except Exception as exc:
                head += f"terminal failed: {exc}\n\n"
        return head


async def gate_open(gate: str | None) -> None:
    """Wait until the file ``gate`` exists (60 s at most); no gate: at once."""
    if not gate:
        return
    log("waiting", gate=gate)
    for _ in range(600):
        if await asyncio.to_thread(Path(gate).exists):
            return
        await asyncio.sleep(0.1)


if __name__ == "__main__":
    if setting("ACP_AGENT_DEAF") == "1":
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
    asyncio.run(run_agent(StandInAgent()))
