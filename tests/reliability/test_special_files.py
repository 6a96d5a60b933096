"""Files that are not documents: refused at once, nothing created, nothing blocks.

A FIFO, a socket, a device, a folder, a dangling symlink or a missing file given
as the document to any command that takes FILE gets one ``agent-doc: …`` line on
stderr and a non-zero exit within a few seconds (a FIFO once hung ``diff``,
``outline``, ``patch`` and ``write`` forever), and no ``.agent-doc/`` (lock,
status, pending) is created anywhere — once a failed ``write`` through a
dangling symlink created one next to the link's target. The language server
refuses them on its socket and never blocks reading one from disk.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.reliability._server import alive
from tests.reliability._server import ask
from tests.reliability._server import open_session
from tests.reliability._server import request
from tests.reliability._server import wait_open
from tests.reliability._util import make_project
from tests.reliability._util import record
from tests.reliability._util import run_cli
from tests.reliability._util import template_doc
from tests.reliability._util import tree_bytes

LIMIT_S = 10.0
RESPONSE = "<!-- patch:exchange -->\nSPECIAL-REPLY\n<!-- /patch:exchange -->\n"

COMMANDS: dict[str, list[str]] = {
    "diff": ["diff", "{f}"],
    "diff --json": ["diff", "--json", "{f}"],
    "outline": ["outline", "{f}"],
    "patch": ["patch", "{f}", "status", "x"],
    "write": ["write", "{f}"],
    "write --baseline-file": ["write", "--baseline-file", "{f}", "{ok}"],
    "convert": ["convert", "{f}"],
    "run": ["run", "--dry-run", "{f}"],
    "preflight": ["preflight", "--no-wait", "{f}"],
    "commit": ["commit", "{f}"],
    "clean": ["clean", "{f}"],
    "history": ["history", "{f}"],
    "log": ["log", "{f}"],
    "show": ["show", "{f}", "--back", "0"],
    "backlog": ["backlog", "done", "{f}", "a1"],
    "instructions": ["instructions", "{f}"],
    "dedupe": ["dedupe", "{f}"],
    "mode": ["mode", "{f}"],
    "mode --format": ["mode", "{f}", "--format", "template"],
    "recover": ["recover", "{f}"],
    "reset": ["reset", "{f}"],
    "prompt": ["prompt", "{f}"],
    "claim": ["claim", "{f}"],
    "route": ["route", "{f}"],
    "focus": ["focus", "{f}"],
    "start": ["start", "{f}"],
    "terminal": ["terminal", "{f}"],
    "layout": ["layout", "{ok}", "{f}"],
    "skill baseline": ["skill", "baseline", "{f}"],
    "init": ["init", "{f}"],
}
"""Every command taking a document; ``{ok}`` is a valid document beside it."""

PER_TURN = ("diff", "outline", "patch", "write", "mode --format")
KINDS = ("fifo", "socket", "device", "directory", "dangling-symlink", "missing")


@contextmanager
def _special(folder: Path, kind: str) -> Iterator[Path]:
    """Make ``folder/doc.md`` a ``kind`` (``/dev/null`` for a device)."""
    path = folder / "doc.md"
    listener = None
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        listener = socket.socket(socket.AF_UNIX)
        # bound through the folder's descriptor: a pytest-xdist temp path can
        # be longer than AF_UNIX's 107 bytes
        folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            listener.bind(f"/proc/self/fd/{folder_fd}/{path.name}")
        finally:
            os.close(folder_fd)
    elif kind == "device":
        path = Path("/dev/null")
    elif kind == "directory":
        path.mkdir()
    elif kind == "dangling-symlink":
        path.symlink_to(folder.parent / "elsewhere" / "gone.md")
    try:
        yield path
    finally:
        if listener is not None:
            listener.close()


def _states(base: Path) -> list[str]:
    return sorted(str(p.relative_to(base)) for p in base.rglob(".agent-doc"))


def _case(base: Path, command: str, kind: str) -> float:
    where = base / f"{command.replace(' ', '_')}-{kind}"
    project = where / "project"
    project.mkdir(parents=True)
    (where / "elsewhere").mkdir()
    ok = where / "elsewhere" / "ok.md"
    ok.write_text(template_doc())
    with _special(project, kind) as path:
        args = [a.format(f=path, ok=ok) for a in COMMANDS[command]]
        if command == "init" and kind == "missing":
            return 0.0  # creating a missing document is what init is for
        done = run_cli(args, cwd=project, stdin=RESPONSE, timeout=LIMIT_S * 3)
    err = done.stderr.decode("utf-8", "replace").strip()
    label = f"{command} on a {kind}"
    assert done.returncode > 0, f"{label}: exit {done.returncode}\n{err}"
    assert len(err.splitlines()) == 1, f"{label}: not one line\n{err}"
    assert err.startswith("agent-doc: "), f"{label}: {err}"
    assert "internal error" not in err, f"{label}: {err}"
    assert _states(where) == [], f"{label}: created {_states(where)}"
    return 0.0


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_every_file_command_refuses_special_files_and_creates_nothing(
    tmp_path: Path,
) -> None:
    """Every command on a FIFO and a dangling symlink, every kind of non-document
    on the per-turn commands: one line, non-zero, no ``.agent-doc`` anywhere."""
    jobs = [(c, k) for c in COMMANDS for k in ("fifo", "dangling-symlink")]
    jobs += [(c, k) for c in PER_TURN for k in KINDS if (c, k) not in jobs]
    with ThreadPoolExecutor(max_workers=2) as pool:
        for future in [pool.submit(_case, tmp_path, c, k) for c, k in jobs]:
            future.result()
    record(
        "special-files-cli", commands=len(COMMANDS), kinds=len(KINDS), runs=len(jobs)
    )


@pytest.mark.parametrize("command", PER_TURN[:4])
def test_fifo_never_blocks_the_per_turn_commands(tmp_path: Path, command: str) -> None:
    """The four commands that once hung on a FIFO answer within seconds."""
    _case(tmp_path, command, "fifo")


@pytest.mark.parametrize("kind", ["dangling-symlink", "missing"])
def test_failed_write_in_a_project_changes_no_state(tmp_path: Path, kind: str) -> None:
    """Inside an existing project a failed write leaves ``.agent-doc/`` as it was."""
    root = make_project(tmp_path / "p")
    before = tree_bytes(root)
    folders = sorted(p for p in root.rglob("*") if p.is_dir())
    with _special(root, kind) as path:
        done = run_cli(["write", str(path)], cwd=root, stdin=RESPONSE)
    assert done.returncode == 1
    assert tree_bytes(root) == before
    assert sorted(p for p in root.rglob("*") if p.is_dir()) == folders


@pytest.mark.timeout(120)
async def test_server_refuses_special_files_and_never_blocks(
    client: LanguageClient, tmp_path: Path
) -> None:
    """Socket read/write/patch of a FIFO, socket, device or folder: ``ok: false``;
    documentSymbol of a FIFO never opened and workspace/symbol over a folder
    holding one both answer."""
    root = make_project(tmp_path / "ws")
    (root / "real.md").write_text(template_doc())
    os.mkfifo(root / "pipe.md")  # found by the workspace symbol scan
    editor, reg = await open_session(client, root)
    sock = reg["socket"]
    good = root / "good.md"
    good.write_text(template_doc())
    editor.open(good.as_uri(), good.read_text())
    await wait_open(sock, good)
    for kind in ("fifo", "socket", "directory"):
        folder = root / kind
        folder.mkdir()
        with _special(folder, kind) as path:
            for message in (
                request(type="read", file=str(path)),
                request(type="write", file=str(path), response=RESPONSE),
                request(type="patch", file=str(path), component="status", content="x"),
            ):
                reply = await ask(sock, message)
                assert reply["ok"] is False, (kind, reply)
                assert "not a document" in reply["error"], (kind, reply)
            await alive(sock, good)
    pipe = types.TextDocumentIdentifier(uri=(root / "pipe.md").as_uri())
    symbols = await asyncio.wait_for(
        client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=pipe)
        ),
        LIMIT_S,
    )
    assert not symbols
    found = await asyncio.wait_for(
        client.workspace_symbol_async(types.WorkspaceSymbolParams(query="")),
        LIMIT_S,
    )
    assert found is not None
    await alive(sock, good)


@pytest.mark.parametrize(
    ("state_file", "args"),
    [
        ("sessions.json", ["status"]),
        ("config.toml", ["session"]),
    ],
)
def test_state_files_that_are_fifos_never_block(
    tmp_path: Path, state_file: str, args: list[str]
) -> None:
    """A hostile repository's ``.agent-doc/`` FIFO: an answer, never a hang."""
    root = make_project(tmp_path / "p")
    doc = root / "doc.md"
    doc.write_text(template_doc())
    os.mkfifo(root / ".agent-doc" / state_file)
    done = run_cli([a.format(doc=doc) for a in args], cwd=root, timeout=LIMIT_S)
    err = done.stderr.decode()
    assert "Traceback" not in err
    if done.returncode:
        assert "not a regular file" in err, err
