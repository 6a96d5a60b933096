"""Presence in a shared document, through the real server (issue 29, item 4).

A real ``agent-doc serve``, the real language server over stdio (editor
"ann"), a second editor's peer in its own process ("bob",
:mod:`tests.share.peer_process`) and a CLI writer sharing no files:
``agentDoc/shareStatus`` lists bob with his cursor (in the editor's position
encoding), ann's ``agentDoc/cursor`` reaches bob, ``write --room`` shows
"agent writing" while it writes and not after, bob killed with ``kill -9``
is gone from ann's presence within 2 s, and a bob whose network goes silent
(a proxy throwing his traffic away) within 6 s (the server's 2 s ping).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
import time
from collections.abc import AsyncIterator
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import LanguageClient

from agent_doc.share.peer import RoomPeer
from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import start_editor
from tests.share.proxy import FaultyProxy
from tests.share.rooms import ANSWER
from tests.share.rooms import DOC
from tests.share.rooms import ServeProcess
from tests.share.rooms import serving
from tests.share.rooms import token_of

pytestmark = pytest.mark.timeout(120)

STATUS = "agentDoc/shareStatus"
CURSOR = "agentDoc/cursor"
REPO = Path(__file__).resolve().parents[2]
"""Where ``python -m tests.share.peer_process`` is found."""
HEADING = 5
"""The line of ``# Pairing`` in :data:`DOC`."""


def plain(value: Any) -> Any:
    """Custom params as plain JSON values (pygls hands them over as objects)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not hasattr(value, "_asdict"):
        return [plain(v) for v in value]
    if hasattr(value, "_asdict"):
        return plain(value._asdict())
    if hasattr(value, "__dict__"):
        return plain(vars(value))
    return value


@pytest.fixture
def served(project: Path) -> Iterator[ServeProcess]:
    with serving(project) as server:
        yield server


class Ann:
    """The language server's editor, its statuses and the buffer's text then."""

    def __init__(self, editor: Editor, uri: str) -> None:
        self.editor = editor
        self.uri = uri
        self.statuses: list[dict[str, Any]] = []

    def record(self, params: Any) -> None:
        status = plain(params)
        status["buffer"] = self.editor.text(self.uri) if self.editor.buffers else ""
        self.statuses.append(status)

    def last(self) -> dict[str, Any]:
        return self.statuses[-1] if self.statuses else {}

    async def until(
        self, check: Callable[[dict[str, Any]], bool], what: str, timeout: float = 20
    ) -> dict[str, Any]:
        await self.editor.wait_for(
            lambda: self.statuses and check(self.last()),
            timeout,
            f"{what} (last status: {self.last()})",
        )
        return self.last()

    def names(self) -> list[str]:
        return [p["name"] for p in self.last().get("presence", [])]


async def ann_editor(
    client: LanguageClient, served: ServeProcess, encodings: list[str] | None = None
) -> Ann:
    uri = (served.root / "pair.md").as_uri()
    ann: Ann | None = None

    def on_status(_ls: LanguageClient, params: Any) -> None:
        if ann is not None:
            ann.record(params)

    client.feature(STATUS)(on_status)
    editor = await start_editor(
        client,
        root=served.root,
        settings={"sync": served.url, "syncUserName": "ann"},
        encodings=encodings,
    )
    ann = Ann(editor, uri)
    editor.open(uri, DOC)
    await ann.until(lambda s: s.get("label") == "shared · 0 peers", "joined")
    return ann


class Bob:
    """A second editor's peer in its own process, and what it reports."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.reports: list[dict[str, Any]] = []
        self._changed = asyncio.Event()
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        async for line in self.proc.stdout:
            self.reports.append(json.loads(line))
            self._changed.set()

    async def until(
        self, check: Callable[[dict[str, Any]], bool], what: str, timeout: float = 20
    ) -> dict[str, Any]:
        async def reached() -> dict[str, Any]:
            while not (self.reports and check(self.reports[-1])):
                self._changed.clear()
                await self._changed.wait()
            return self.reports[-1]

        try:
            return await asyncio.wait_for(reached(), timeout)
        except TimeoutError:
            raise AssertionError(f"bob never saw {what}: {self.reports[-1:]}") from None

    def move(self, line: int, character: int) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{line} {character}\n".encode())


@asynccontextmanager
async def bob_process(served: ServeProcess) -> AsyncIterator[Bob]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.share.peer_process",
        served.room(),
        token_of(served.root),
        "bob",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=REPO,
    )
    bob = Bob(proc)
    try:
        yield bob
    finally:
        if proc.returncode is None:
            proc.kill()
        await asyncio.wait_for(proc.wait(), 10)
        bob._reader.cancel()


async def test_presence_lists_the_other_peer_with_its_cursor_and_sends_ours(
    client: LanguageClient, served: ServeProcess
) -> None:
    ann = await ann_editor(client, served, encodings=["utf-8"])
    assert ann.editor.encoding == "utf-8"
    # a line where UTF-8, UTF-16 and code points all differ
    ann.editor.type(ann.uri, HEADING, len("# Pairing"), " é🙂")
    async with bob_process(served) as bob:
        await bob.until(lambda r: "ann" in [p["name"] for p in r["presence"]], "ann")
        await ann.until(lambda s: s["label"] == "shared · 1 peer", "bob joined")
        bob.move(HEADING, len("# Pairing é🙂".encode("utf-16-le")) // 2)  # 13
        status = await ann.until(
            lambda s: (
                [p["cursor"] for p in s["presence"]]
                == [{"line": HEADING, "character": len("# Pairing é🙂".encode())}]
            ),
            "bob's cursor at the end of the heading, in UTF-8 units (16)",
        )
        (seen,) = status["presence"]
        assert (seen["name"], seen["kind"], seen["writing"]) == ("bob", "editor", False)
        assert status["writing"] is False

        for bad in (
            {"uri": 3},
            {"uri": ann.uri, "position": {"line": -1, "character": 0}},
            {"uri": ann.uri, "position": {"line": "5", "character": 0}},
            {"uri": "file:///not-open.md", "position": {"line": 0, "character": 0}},
        ):
            client.protocol.notify(CURSOR, bad)  # ignored, nothing breaks
        client.protocol.notify(
            CURSOR,
            {"uri": ann.uri, "position": {"line": HEADING, "character": 12}},
        )  # after "é" (UTF-8): character 11 in UTF-16
        report = await bob.until(
            lambda r: any(
                p["name"] == "ann" and p["cursor"] == {"line": HEADING, "character": 11}
                for p in r["presence"]
            ),
            "ann's cursor after é (UTF-16 character 11)",
        )
        assert [p["kind"] for p in report["presence"]] == ["editor"]
        assert [p["cursor"] for p in bob.reports[-1]["presence"]] == [
            {"line": HEADING, "character": 11}
        ]  # none of the bad notifications moved it


async def test_a_room_write_shows_agent_writing_while_it_writes_and_not_after(
    client: LanguageClient, served: ServeProcess, tmp_path: Path
) -> None:
    ann = await ann_editor(client, served)
    host = tmp_path / "agent-host"  # shares no files with the editor
    host.mkdir()
    shutil.copy(served.root / "pair.md", host / "pair.md")
    token = tmp_path / "token"
    token.write_text(token_of(served.root))
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent_doc.cli.entry",
        "write",
        "pair.md",
        "--room",
        served.url,
        "--token-file",
        str(token),
        cwd=host,
        stdin=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _out, err = await asyncio.wait_for(proc.communicate(ANSWER.encode()), 30)
    assert proc.returncode == 0, err.decode()
    await ann.editor.wait_for(
        lambda: "It is 42." in ann.editor.text(ann.uri), 20, "the answer"
    )
    done = await ann.until(lambda s: not s["presence"], "the agent gone")
    assert (done["label"], done["writing"]) == ("shared · 0 peers", False)

    writing = [s for s in ann.statuses if s["writing"]]
    assert writing, [s["label"] for s in ann.statuses]
    first = writing[0]
    assert first["label"] == "shared · 0 peers · agent writing"
    assert first["presence"] == [
        {"id": first["presence"][0]["id"], "name": "agent", "kind": "agent",
         "cursor": None, "writing": True}
    ]  # fmt: skip
    assert "It is 42." not in first["buffer"]  # shown before the answer landed
    at = {id(s): i for i, s in enumerate(ann.statuses)}  # equal dicts may repeat
    assert at[id(first)] < at[id(done)]


async def test_a_peer_killed_with_kill_9_disappears_within_2_s(
    client: LanguageClient, served: ServeProcess
) -> None:
    ann = await ann_editor(client, served)
    async with bob_process(served) as bob:
        bob.move(HEADING, 2)
        await ann.until(
            lambda s: (
                [p["cursor"] for p in s["presence"]]
                == [{"line": HEADING, "character": 2}]
            ),
            "bob with his cursor",
        )
        killed = time.monotonic()
        os.kill(bob.proc.pid, signal.SIGKILL)
        await ann.until(lambda s: not s["presence"], "bob gone", timeout=10)
        gone_after = time.monotonic() - killed
    assert ann.last()["label"] == "shared · 0 peers"
    assert gone_after < 2.0, f"bob still shown {gone_after:.2f} s after kill -9"


async def test_a_peer_whose_network_goes_silent_disappears_within_6_s(
    client: LanguageClient, served: ServeProcess
) -> None:
    """No FIN, no RST: bob's traffic is thrown away (a cable pulled). The
    server's keep-alive ping goes unanswered, it drops the socket and bob's
    presence with it (uvicorn's default, 20 s + 20 s, took up to 40 s)."""
    ann = await ann_editor(client, served)
    async with FaultyProxy(served.url) as proxy:
        room = f"{proxy.url}/{served.room().rsplit('/', 1)[1]}"
        bob = RoomPeer(
            room, lambda: token_of(served.root), on_remote=lambda _t: None,
            user="bob", backoff=(30.0, 30.0),
        )  # fmt: skip
        task = asyncio.ensure_future(bob.run())
        try:
            await ann.until(lambda s: ann.names() == ["bob"], "bob joined")
            silent = time.monotonic()
            proxy.drop = True
            await ann.until(lambda s: not s["presence"], "bob gone", timeout=20)
            gone_after = time.monotonic() - silent
        finally:
            bob.close()
            await asyncio.wait_for(task, 10)
    assert gone_after < 6.0, f"bob still shown {gone_after:.1f} s after going silent"
