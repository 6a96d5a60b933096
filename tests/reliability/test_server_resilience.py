"""Server resilience: failing handlers, vanishing clients, typing storms.

* **Failing handlers**: every feature (documentSymbol, folding, hover,
  completion, rename, codeAction, codeLens, executeCommand, didOpen/didChange…)
  gets hostile input (lone surrogates, directories, missing and non-``file:``
  URIs, positions and ranges out of bounds or inverted, changes to documents
  never opened, versions going backwards). Each request gets a result or a
  JSON-RPC error in bounded time, a follow-up request succeeds, and the
  tracebacks of unexpected exceptions reach stderr or ``window/logMessage``.
* **Vanishing clients**: after a clean shutdown, a closed stdin (the editor
  vanished), SIGTERM and SIGKILL of the server, no socket or registration is
  left behind (after SIGKILL the next ``agent-doc diff`` cleans up).
* **Typing storm**: 1,000 ``didChange`` keystrokes interleaved with 100 CLI
  writes (socket ``write`` messages through ``ServerLink`` and real
  ``agent-doc write`` processes): no deadlock, every answer and every typed
  token exactly once, bounded total time.

Real parts only: the server over stdio (pytest-lsp), its Unix socket, real CLI
processes. Seeded (``AGENT_DOC_RESILIENCE_SEED``, default 11).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import time
from collections.abc import Awaitable
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.exceptions import JsonRpcInternalError
from pytest_lsp import LanguageClient

from agent_doc.errors import EX_TEMPFAIL
from agent_doc.errors import ServerTimeout
from agent_doc.write.server_link import ServerLink
from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import start_editor
from tests.reliability._server import alive
from tests.reliability._server import open_session
from tests.reliability._server import wait_open
from tests.reliability._util import AGENT_DOC
from tests.reliability._util import cli_env
from tests.reliability._util import make_project
from tests.reliability._util import record
from tests.reliability._util import run_cli
from tests.reliability._util import template_doc

SEED = int(os.environ.get("AGENT_DOC_RESILIENCE_SEED", "11"))
BOUND_S = 15.0
"""Bound of every single request."""

SURROGATES = (
    "---\nagent_doc_format: template\n---\n\n# Head \ud800 line\n\n"
    "<!-- agent:status -->\nbad \udfff here\n<!-- /agent:status -->\n\n"
    "<!-- agent:exchange -->\n## \ud83d tail\n<!-- /agent:exchange -->\n"
)
"""A buffer with lone surrogates (valid JSON ``\\ud800`` escapes, not UTF-8)."""


def _pos(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


def _rng(a: types.Position, b: types.Position) -> types.Range:
    return types.Range(start=a, end=b)


RequestMaker = Callable[[LanguageClient, str, types.Position], Awaitable[Any]]


def _ident(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


FEATURES: dict[str, RequestMaker] = {
    "documentSymbol": lambda c, u, p: c.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=_ident(u))
    ),
    "foldingRange": lambda c, u, p: c.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=_ident(u))
    ),
    "hover": lambda c, u, p: c.text_document_hover_async(
        types.HoverParams(text_document=_ident(u), position=p)
    ),
    "completion": lambda c, u, p: c.text_document_completion_async(
        types.CompletionParams(text_document=_ident(u), position=p)
    ),
    "prepareRename": lambda c, u, p: c.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=_ident(u), position=p)
    ),
    "rename": lambda c, u, p: c.text_document_rename_async(
        types.RenameParams(text_document=_ident(u), position=p, new_name="x\ud800")
    ),
    "codeAction": lambda c, u, p: c.text_document_code_action_async(
        types.CodeActionParams(
            text_document=_ident(u),
            range=_rng(p, _pos(0, 0)),  # inverted when p is past the start
            context=types.CodeActionContext(
                diagnostics=[
                    types.Diagnostic(
                        range=_rng(p, p), message="\ud800", code="unclosed"
                    )
                ]
            ),
        )
    ),
    "codeLens": lambda c, u, p: c.text_document_code_lens_async(
        types.CodeLensParams(text_document=_ident(u))
    ),
    "executeCommand outline": lambda c, u, p: _command(c, "agentDoc.outline", u),
    "executeCommand diff": lambda c, u, p: _command(c, "agentDoc.diff", u),
    "executeCommand patch": lambda c, u, p: _command(
        c, "agentDoc.patch", u, component="status", content="\ud800"
    ),
    "executeCommand bad args": lambda c, u, p: c.workspace_execute_command_async(
        types.ExecuteCommandParams(command="agentDoc.outline", arguments=[{"u": 1}])
    ),
    "executeCommand unknown": lambda c, u, p: _command(c, "agentDoc.nope", u),
}


def _command(client: LanguageClient, name: str, uri: str, **extra: Any) -> Any:
    return client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=[{"uri": uri, **extra}])
    )


def _hostile_notifications(editor: Editor, root: Path) -> dict[str, Callable[[], None]]:
    """didOpen/didChange/didClose/didSave with hostile content or targets."""
    client = editor.client
    never = (root / "never-opened.md").as_uri()
    opened = (root / "notes.md").as_uri()

    def change(uri: str, version: int, rng: types.Range | None, text: str) -> None:
        event: types.TextDocumentContentChangeEvent = (
            types.TextDocumentContentChangePartial(range=rng, text=text)
            if rng is not None
            else types.TextDocumentContentChangeWholeDocument(text=text)
        )
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=version
                ),
                content_changes=[event],
            )
        )

    def reopen(text: str, version: int) -> Callable[[], None]:
        return lambda: client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=opened, language_id="markdown", version=version, text=text
                )
            )
        )

    far = _pos(10**6, 10**6)
    return {
        "didOpen surrogates": reopen(SURROGATES, 1),
        "didOpen again, huge version": reopen(SURROGATES + "x", 2**31 - 1),
        "didChange never opened": lambda: change(never, 2, _rng(_pos(0, 0), far), "x"),
        "didChange far range": lambda: change(opened, 3, _rng(far, far), "x\ud800"),
        "didChange inverted range": lambda: change(
            opened, 4, _rng(_pos(5, 3), _pos(1, 0)), "<!-- agent:"
        ),
        "didChange version backwards": lambda: change(opened, 0, None, SURROGATES),
        "didChange whole doc markers": lambda: change(
            opened, 5, None, "<!-- agent:a -->\n" * 2000 + "<!-- /agent:b -->\n"
        ),
        "didSave never opened": lambda: client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=_ident(never), text="\ud800")
        ),
        "didClose never opened": lambda: client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=_ident(never))
        ),
    }


async def _follow_up(client: LanguageClient, uri: str) -> None:
    """A request on a healthy document that must succeed (the server is up)."""
    result = await asyncio.wait_for(
        client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=_ident(uri))
        ),
        BOUND_S,
    )
    assert result, "the follow-up documentSymbol returned nothing"


@pytest.mark.timeout(180)
async def test_failing_handlers_never_kill_the_server(
    client: LanguageClient, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Hostile input to every feature: an answer or an error, never a dead server."""
    root = make_project(tmp_path / "ws")
    editor, reg = await open_session(client, root)
    good = root / "good.md"
    good.write_text(template_doc())
    editor.open(good.as_uri(), good.read_text())
    hostile = root / "hostile.md"
    hostile.write_text("placeholder\n")
    editor.open(hostile.as_uri(), SURROGATES)
    (root / "a-dir.md").mkdir()
    targets = {
        "surrogates": hostile.as_uri(),
        "directory": (root / "a-dir.md").as_uri(),
        "missing": (root / "missing.md").as_uri(),
        "untitled": "untitled:Untitled-1",
    }
    positions = [_pos(4, 8), _pos(7, 12), _pos(10**6, 10**6), _pos(0, 10**6)]
    answers: dict[str, dict[str, int]] = {}
    internal: list[str] = []
    for feature, make in FEATURES.items():
        tally = answers.setdefault(feature, {"result": 0, "error": 0})
        for target, uri in targets.items():
            for pos in positions:
                try:
                    await asyncio.wait_for(make(client, uri, pos), BOUND_S)
                    tally["result"] += 1
                except JsonRpcInternalError as exc:
                    tally["error"] += 1
                    internal.append(f"{feature} on {target}: {exc}")
                except JsonRpcException:
                    tally["error"] += 1
                await _follow_up(client, good.as_uri())
    for name, send in _hostile_notifications(editor, root).items():
        send()
        await _follow_up(client, good.as_uri())
        answers[name] = {"sent": 1}
    await alive(reg["socket"], good)
    logs = "\n".join(m.message for m in client.log_messages)
    await asyncio.sleep(0)  # let pytest-lsp forward the last stderr lines
    stderr = capfd.readouterr().err
    assert not internal, internal  # lone surrogates once gave internal errors
    assert "Traceback" in stderr + logs, "no traceback reached the log"
    record(
        "resilience-handlers",
        requests=sum(a.get("result", 0) + a.get("error", 0) for a in answers.values()),
        notifications=len(_hostile_notifications(editor, root)),
        internal_errors=len(internal),
        internal_examples=sorted({i.split(":")[0] for i in internal})[:8],
    )


def _leftovers(root: Path, reg: dict[str, Any]) -> list[str]:
    found = [str(p) for p in (root / ".agent-doc" / "servers").glob("*.json")]
    if Path(reg["socket"]).exists():
        found.append(reg["socket"])
    return found


async def _ended(process: asyncio.subprocess.Process) -> int:
    return await asyncio.wait_for(process.wait(), BOUND_S)


@pytest.mark.parametrize("how", ["shutdown", "stdin-closed", "sigterm", "sigkill"])
async def test_client_gone_leaves_nothing_behind(
    client: LanguageClient, tmp_path: Path, how: str
) -> None:
    """Clean exit, vanished editor, SIGTERM: cleaned by the server; SIGKILL: by the CLI."""
    root = make_project(tmp_path / "ws")
    editor, reg = await open_session(client, root)
    doc = root / "doc.md"
    doc.write_text(template_doc())
    editor.open(doc.as_uri(), doc.read_text())
    await alive(reg["socket"], doc)
    process = client._server
    assert process is not None
    if how == "shutdown":
        await asyncio.wait_for(client.shutdown_session(), BOUND_S)
    elif how == "stdin-closed":
        assert process.stdin is not None
        process.stdin.close()
        await _ended(process)
    else:
        process.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGKILL)
        await _ended(process)
    client.capabilities = None  # the fixture must not talk to it again
    if how == "sigkill":
        assert _leftovers(root, reg), "SIGKILL cannot clean up: nothing to prove"
        done = await asyncio.to_thread(run_cli, ["diff", str(doc)], cwd=root)
        assert done.returncode == 0, done.stderr.decode()
    assert _leftovers(root, reg) == [], how
    record("resilience-exit", how=how, exit_code=process.returncode)


TYPED = 1000
WRITES = 100
CLI_WRITES = 4
"""Of the :data:`WRITES`, how many are real ``agent-doc write`` processes."""


def _answer(i: int) -> str:
    return f"<!-- patch:exchange -->\nANSWER-{i:03d}\n<!-- /patch:exchange -->\n"


RETRIES: list[int] = []
"""Writes refused with exit 75 (not landed within the budget), retried."""


def _link_write(doc: Path, i: int) -> None:
    """One socket ``write`` message through the CLI's own ``ServerLink``.

    A ``ServerTimeout`` means the edit did not land (the CLI exits 75 and keeps
    the response pending); like the agent, retry it (bounded).
    """
    link = ServerLink(write_timeout=60)
    for _attempt in range(5):
        handle = link.find_owner(doc)
        assert handle is not None, "the server does not have the document open"
        try:
            link.write(handle, _answer(i), None, origin="resilience")
            return
        except ServerTimeout:
            RETRIES.append(i)
    raise AssertionError(f"write {i} never landed")


async def _cli_write(root: Path, doc: Path, i: int) -> None:
    process = await asyncio.create_subprocess_exec(
        AGENT_DOC,
        "write",
        str(doc),
        cwd=root,
        env=cli_env(),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _out, err = await asyncio.wait_for(process.communicate(_answer(i).encode()), 90)
    if process.returncode == EX_TEMPFAIL:  # response pending: the agent recovers
        RETRIES.append(i)
        done = await asyncio.to_thread(run_cli, ["recover", str(doc)], cwd=root)
        assert done.returncode == 0, done.stderr.decode()
        return
    assert process.returncode == 0, err.decode()


@pytest.mark.slow
@pytest.mark.timeout(300)
async def test_typing_storm_with_cli_writes(
    client: LanguageClient, tmp_path: Path
) -> None:
    """1,000 keystrokes + 100 writes: no deadlock, everything exactly once."""
    rng = random.Random(SEED)
    RETRIES.clear()
    root = make_project(tmp_path / "ws")
    doc = root / "doc.md"
    doc.write_text(template_doc())
    editor = await start_editor(
        client, root=root, initialization_options={"writeTimeoutMs": 60000}
    )
    servers = root / ".agent-doc" / "servers"
    entries = await editor.wait_for(
        lambda: list(servers.glob("*.json")), 10.0, "registration"
    )
    sock = json.loads(entries[0].read_text())["socket"]
    uri = doc.as_uri()
    editor.open(uri, doc.read_text())
    await wait_open(sock, doc)
    cli_at = set(rng.sample(range(WRITES), CLI_WRITES))
    started = time.monotonic()

    typed_count = [0]
    in_flight = [0]
    during = [0]

    def key(_editor: Editor | None = None) -> None:
        """One keystroke: the next unique token at the end of the buffer."""
        i = typed_count[0]
        if i >= TYPED:
            return
        typed_count[0] += 1
        during[0] += in_flight[0] > 0
        editor.append(uri, f"u{i:04d} " + ("\n" if i % 20 == 19 else ""))

    # also type between the server's read of the buffer and its edit's arrival
    editor.before_apply = lambda ed: key() if rng.random() < 0.2 else None

    async def typist() -> None:
        # bursts of fast typing with short pauses (~400 keys/s overall); the
        # writes wait for the typist's pause (docs/lsp.md "Live writes")
        while typed_count[0] < TYPED:
            for _ in range(rng.randint(1, 12)):
                key()
            await asyncio.sleep(0.015)  # typing pace, not a wait for anything

    async def writer(slot: asyncio.Semaphore, i: int) -> None:
        async with slot:
            in_flight[0] += 1
            try:
                if i in cli_at:
                    await _cli_write(root, doc, i)
                else:
                    await asyncio.to_thread(_link_write, doc, i)
            finally:
                in_flight[0] -= 1

    slot = asyncio.Semaphore(4)
    await asyncio.wait_for(
        asyncio.gather(typist(), *(writer(slot, i) for i in range(WRITES))), 240
    )
    took = time.monotonic() - started
    final = await alive(sock, doc)
    text = editor.text(uri)
    assert final["text"] == text, "server and editor buffers differ"
    missing = [i for i in range(WRITES) if text.count(f"ANSWER-{i:03d}\n") != 1]
    assert missing == [], f"answers not exactly once: {missing[:10]}"
    typed = [i for i in range(TYPED) if text.count(f"u{i:04d} ") != 1]
    assert typed == [], f"typed tokens not exactly once: {typed[:10]}"
    positions = [text.index(f"u{i:04d} ") for i in range(TYPED)]
    assert positions == sorted(positions), "typed tokens out of order"
    assert took < 240
    assert during[0] >= TYPED // 4, f"only {during[0]} keystrokes during writes"
    record(
        "resilience-storm",
        keystrokes=TYPED,
        writes=WRITES,
        cli_processes=CLI_WRITES,
        keystrokes_during_writes=during[0],
        retried_after_exit_75=len(RETRIES),
        seconds=round(took, 1),
        seed=SEED,
    )
