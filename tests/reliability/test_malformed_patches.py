"""Malformed patch blocks keep the spec's fallback but are no longer silent.

An unknown ``<!-- patch:name -->``, a block closed with another name and an
unclosed block all send their text to ``exchange`` (spec §7.22); each now also
prints one warning line on stderr, and a write that goes through the language
server shows one ``window/showMessage`` warning per block in the editor.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.reliability._server import open_session
from tests.reliability._server import wait_open
from tests.reliability._util import make_project
from tests.reliability._util import run_cli
from tests.reliability._util import template_doc

MALFORMED = {
    "unknown name": "<!-- patch:nowhere -->\nTEXT-A\n<!-- /patch:nowhere -->\n",
    "closed with another name": "<!-- patch:status -->\nTEXT-B\n<!-- /patch:exchange -->\n",
    "unclosed": "<!-- patch:status -->\nTEXT-C\n",
}
EXPECTED = {
    "unknown name": "patch block 'nowhere' names no component of the document",
    "closed with another name": (
        "patch block 'status' is closed by '<!-- /patch:exchange -->'"
    ),
    "unclosed": "patch block 'status' is never closed",
}
VALID = "<!-- patch:status -->\nFINE\n<!-- /patch:status -->\n"


def _warnings(stderr: bytes) -> list[str]:
    return [ln for ln in stderr.decode().splitlines() if ln.startswith("warning:")]


@pytest.mark.parametrize("case", list(MALFORMED))
def test_each_malformed_block_warns_once_and_falls_back(
    tmp_path: Path, case: str
) -> None:
    """Exit 0, its text in exchange, exactly one warning line naming the block."""
    root = make_project(tmp_path / "p")
    doc = root / "doc.md"
    doc.write_text(template_doc())
    done = run_cli(["write", str(doc)], cwd=root, stdin=VALID + MALFORMED[case])
    assert done.returncode == 0, done.stderr.decode()
    warnings = _warnings(done.stderr)
    assert len(warnings) == 1, done.stderr.decode()
    assert EXPECTED[case] in warnings[0]
    assert "went to the exchange" in warnings[0]
    text = doc.read_text()
    exchange = text[text.index("<!-- agent:exchange") :]
    assert "TEXT-" in exchange  # the spec's fallback is kept
    assert "FINE" in text


def test_well_formed_responses_print_no_warning(tmp_path: Path) -> None:
    """Patch blocks, plain text and markers inside code: no warning."""
    root = make_project(tmp_path / "p")
    doc = root / "doc.md"
    doc.write_text(template_doc())
    response = VALID + "Plain text, and `<!-- patch:x -->` in code.\n"
    done = run_cli(["write", str(doc)], cwd=root, stdin=response)
    assert done.returncode == 0, done.stderr.decode()
    assert _warnings(done.stderr) == []


@pytest.mark.timeout(120)
async def test_write_through_the_server_shows_one_message_per_block(
    client: LanguageClient, tmp_path: Path
) -> None:
    """CLI write into an open buffer: stderr warnings + showMessage warnings."""
    root = make_project(tmp_path / "ws")
    editor, reg = await open_session(client, root)
    doc = root / "doc.md"
    doc.write_text(template_doc())
    uri = doc.as_uri()
    editor.open(uri, doc.read_text())
    await wait_open(reg["socket"], doc)
    response = MALFORMED["unknown name"] + MALFORMED["unclosed"]
    done = await asyncio.to_thread(
        run_cli, ["write", str(doc)], cwd=root, stdin=response
    )
    assert done.returncode == 0, done.stderr.decode()
    assert len(_warnings(done.stderr)) == 2, done.stderr.decode()
    assert "TEXT-A" in editor.text(uri)

    def shown() -> list[types.ShowMessageParams]:
        return [
            m
            for m in client.messages
            if m.type == types.MessageType.Warning and "patch block" in m.message
        ]

    messages = await editor.wait_for(
        lambda: shown() if len(shown()) >= 2 else None, 10.0, "showMessage"
    )
    assert len(messages) == 2
    assert any("nowhere" in m.message for m in messages)
    assert any("never closed" in m.message for m in messages)
