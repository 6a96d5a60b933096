"""Odd project paths round-trip between URIs, the socket registration and the CLI.

A project whose path holds spaces, ``#``, ``%``, non-ASCII letters and is longer
than the Unix socket path limit (``sun_path``, about 107 bytes) is opened in the
real language server (pytest-lsp); real ``agent-doc write`` / ``patch`` / ``diff``
processes must find the open buffer through the registration and land their
edit in it (once ``write`` exited 75, "the document was closed in the editor",
because the buffer table is keyed by the unquoted URI).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from tests.reliability._server import open_session
from tests.reliability._server import wait_open
from tests.reliability._util import make_project
from tests.reliability._util import record
from tests.reliability._util import run_cli
from tests.reliability._util import template_doc

ODD_NAMES = {
    "spaces": "my project/with spaces",
    "hash": "issue #12/notes#1",
    "percent": "100% done/50%20off",
    "non-ascii": "Überprüfung/déjà vu/日本語",
    "long": "a very long folder name with spaces " * 4,
    "all": "ünï #%20 ☃ " + "x" * 120,
}


def _reply(i: int) -> str:
    return f"<!-- patch:exchange -->\nODD-REPLY-{i}\n<!-- /patch:exchange -->\n"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", list(ODD_NAMES))
async def test_cli_reaches_the_open_buffer_on_odd_paths(
    client: LanguageClient, tmp_path: Path, kind: str
) -> None:
    """write/patch/diff by the CLI land in the live buffer, whatever the path."""
    root = make_project(tmp_path / ODD_NAMES[kind])
    editor, reg = await open_session(client, root)
    doc = root / f"{kind} döc #1 50%.md"
    doc.write_text(template_doc("Question?"))
    uri = doc.as_uri()
    if kind in ("long", "all"):
        assert len(str(doc).encode()) > 107
    editor.open(uri, doc.read_text())
    await wait_open(reg["socket"], doc)
    editor.append(uri, "typed but unsaved\n")

    done = await asyncio.to_thread(
        run_cli, ["write", str(doc)], cwd=root, stdin=_reply(1)
    )
    assert done.returncode == 0, done.stderr.decode()
    assert "(server" in done.stderr.decode(), done.stderr.decode()
    text = editor.text(uri)
    assert "ODD-REPLY-1" in text
    assert "typed but unsaved" in text

    done = await asyncio.to_thread(
        run_cli, ["patch", str(doc), "status", "ODD-STATUS"], cwd=root
    )
    assert done.returncode == 0, done.stderr.decode()
    assert "ODD-STATUS" in editor.text(uri)

    done = await asyncio.to_thread(run_cli, ["diff", str(doc)], cwd=root)
    assert done.returncode == 0, done.stderr.decode()
    assert b"typed but unsaved" not in done.stdout  # snapshot = the merged text
    assert "ODD-REPLY-1" not in doc.read_text()  # the editor owns the file
    record("odd-path", case=kind, path_bytes=len(str(doc).encode()))
