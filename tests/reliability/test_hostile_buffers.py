"""Hostile buffers in the real language server: deep nesting, lone surrogates.

* Components nested 200 deep: ``documentSymbol`` once got no answer (the symbol
  tree overflowed the recursion of the JSON serializer). Now every request
  answers: the tree is capped at ``MAX_SYMBOL_DEPTH`` with the deeper
  components listed flat, and a ``deep-nesting`` diagnostic says so.
* Lone surrogates (``\\ud800`` in the editor's JSON): ``agentDoc.outline`` and
  ``agentDoc.patch`` once failed with an internal error. Every command, socket
  message and CLI hand-off now handles them (stored as U+FFFD).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from agent_doc.editor.outline import MAX_SYMBOL_DEPTH
from agent_doc.store.state import StateStore
from tests.reliability._server import ask
from tests.reliability._server import open_session
from tests.reliability._server import wait_open
from tests.reliability._util import make_project
from tests.reliability._util import record
from tests.reliability._util import run_cli

BOUND_S = 15.0
FM = "---\nagent_doc_format: template\n---\n"
SURROGATES = (
    FM + "\n# Head \ud800 line\n\n"
    "<!-- agent:status -->\nbad \udfff here\n<!-- /agent:status -->\n\n"
    "<!-- agent:exchange -->\n## \ud83d tail\n<!-- /agent:exchange -->\n"
)


def _deep(depth: int) -> str:
    opens = "".join(f"<!-- agent:d{i} -->\n" for i in range(depth))
    closes = "".join(f"<!-- /agent:d{i} -->\n" for i in reversed(range(depth)))
    return FM + opens + "## core\n" + closes


def _tree(symbols: list[types.DocumentSymbol]) -> tuple[int, int]:
    """(how many symbols, the deepest level) of a symbol tree, iteratively."""
    count, deepest = 0, 0
    stack = [(s, 1) for s in symbols]
    while stack:
        symbol, level = stack.pop()
        count, deepest = count + 1, max(deepest, level)
        stack.extend((c, level + 1) for c in symbol.children or [])
    return count, deepest


def _ident(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("depth", [200, 2_000])
async def test_deeply_nested_components_get_an_outline(
    client: LanguageClient, tmp_path: Path, depth: int
) -> None:
    """documentSymbol, folding, agentDoc.outline and diagnostics all answer."""
    root = make_project(tmp_path / "ws")
    editor, reg = await open_session(client, root)
    doc = root / "deep.md"
    doc.write_text(_deep(depth))
    uri = doc.as_uri()
    editor.open(uri, doc.read_text())
    await wait_open(reg["socket"], doc)
    symbols = await asyncio.wait_for(
        client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=_ident(uri))
        ),
        BOUND_S,
    )
    assert symbols is not None
    count, deepest = _tree(symbols)  # type: ignore[arg-type]
    assert count == depth + 3  # components, the heading, frontmatter + its key
    assert deepest <= MAX_SYMBOL_DEPTH + 2
    folds = await asyncio.wait_for(
        client.text_document_folding_range_async(
            types.FoldingRangeParams(text_document=_ident(uri))
        ),
        BOUND_S,
    )
    assert folds is not None
    assert len(folds) == depth + 1
    found = await editor.diagnostics(uri)
    codes = [d.code for d in found]
    assert codes == ["deep-nesting"], codes
    outline = await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="agentDoc.outline", arguments=[{"uri": uri}]
            )
        ),
        BOUND_S,
    )
    assert outline
    record("deep-nesting", depth=depth, symbols=count, deepest=deepest)


async def _command(client: LanguageClient, name: str, **args: Any) -> Any:
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=[args])
        ),
        BOUND_S,
    )


@pytest.mark.timeout(120)
async def test_lone_surrogates_are_handled_everywhere(
    client: LanguageClient, tmp_path: Path
) -> None:
    """Commands, socket messages and CLI hand-offs on a buffer with lone surrogates."""
    root = make_project(tmp_path / "ws")
    editor, reg = await open_session(client, root)
    sock = reg["socket"]
    doc = root / "surrogates.md"
    doc.write_text(FM + "placeholder\n")
    uri = doc.as_uri()
    editor.open(uri, SURROGATES)
    reply = await wait_open(sock, doc)
    assert "\ud800" not in reply["text"]
    assert "\ufffd line" in reply["text"]  # same length, encodable

    sections = await _command(client, "agentDoc.outline", uri=uri)
    assert any("Head" in s["heading"] for s in sections), sections
    await _command(
        client, "agentDoc.patch", uri=uri, component="status", content="a\udc00b"
    )
    assert "a\ufffdb" in editor.text(uri)
    answer = "<!-- patch:exchange -->\nreply \ud800 one\n<!-- /patch:exchange -->\n"
    await _command(client, "agentDoc.write", uri=uri, response=answer)
    assert "reply \ufffd one" in editor.text(uri)
    await _command(client, "agentDoc.diff", uri=uri)

    line = json.dumps(
        {"type": "write", "file": str(doc), "response": answer.replace("one", "two")}
    )
    reply = await ask(sock, line.encode() + b"\n")
    assert reply["ok"] is True, reply
    assert "reply \ufffd two" in editor.text(uri)

    done = await asyncio.to_thread(
        run_cli,
        ["write", str(doc)],
        cwd=root,
        stdin="<!-- patch:exchange -->\nCLI-REPLY\n<!-- /patch:exchange -->\n",
    )
    assert done.returncode == 0, done.stderr.decode()
    assert "CLI-REPLY" in editor.text(uri)
    done = await asyncio.to_thread(run_cli, ["diff", str(doc)], cwd=root)
    assert done.returncode == 0, done.stderr.decode()
    snapshot = StateStore(root).load_snapshot(doc)
    assert snapshot is not None
    assert "\ufffd" in snapshot
    snapshot.encode("utf-8")  # stored as valid UTF-8
