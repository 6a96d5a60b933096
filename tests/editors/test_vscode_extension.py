"""The VS Code extension (editors/vscode): manifest checks, and a full
``npm ci && npm run compile && npm test && npx @vscode/vsce package`` build in
a temporary copy when npm and its registry are reachable.

The pure logic (columns, sync arguments, status formatting, debounce/serialize)
is unit-tested by ``npm test`` (``node --test`` on the compiled JS); the
installed ``.vsix`` runs in a real VS Code in ``test_vscode_e2e.py``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.editors.harness import EDITORS

VSCODE = EDITORS / "vscode"


def _manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VSCODE / "package.json").read_text("utf-8"))
    return data


def _server_sources() -> str:
    root = VSCODE.parent.parent / "agent_doc_lsp"
    return "".join(p.read_text("utf-8") for p in sorted(root.rglob("*.py")))


def test_manifest_commands_keys_and_settings() -> None:
    manifest = _manifest()
    contributes = manifest["contributes"]
    keys = {k["command"]: k["key"] for k in contributes["keybindings"]}
    assert keys == {
        "agentDoc.run": "ctrl+shift+alt+a",
        "agentDoc.claimPane": "ctrl+shift+alt+c",
        "agentDoc.syncLayout": "ctrl+shift+alt+l",
        "agentDoc.commitDocument": "ctrl+shift+alt+m",
        "agentDoc.askAgent": "ctrl+shift+alt+enter",
        "agentDoc.stopAsking": "ctrl+shift+alt+x",
        "agentDoc.sharedUndo": "ctrl+z",
        "agentDoc.sharedRedo": "ctrl+shift+z",
    }
    commands = {c["command"] for c in contributes["commands"]}
    assert set(keys) <= commands
    # vscode-languageclient registers the server's commands itself: no id may collide
    server = set(re.findall(r'"(agentDoc\.[A-Za-z]+)"', _server_sources()))
    assert "agentDoc.stopAgent" in server
    assert not commands & server
    props = contributes["configuration"]["properties"]
    assert props["agentDoc.server.command"]["default"] == "agent-doc-lsp"
    assert props["agentDoc.server.args"]["type"] == "array"
    assert "onLanguage:markdown" in manifest["activationEvents"]
    assert {"agentDoc.undo", "agentDoc.redo"} <= server


def test_undo_keys_are_taken_over_only_in_shared_documents() -> None:
    """Ctrl+Z / Ctrl+Shift+Z (Cmd on macOS) run the person's own undo only
    while the extension's context key says the document is shared; elsewhere
    VS Code's own undo keeps the keys."""
    bindings = _manifest()["contributes"]["keybindings"]
    undo = {
        k["command"]: k for k in bindings if k["command"].startswith("agentDoc.shared")
    }
    assert {c: (k["key"], k["mac"]) for c, k in undo.items()} == {
        "agentDoc.sharedUndo": ("ctrl+z", "cmd+z"),
        "agentDoc.sharedRedo": ("ctrl+shift+z", "cmd+shift+z"),
    }
    for binding in undo.values():
        assert "agentDoc.ownUndo" in binding["when"].split(" && ")
    source = (VSCODE / "src" / "shareUndo.ts").read_text("utf-8")
    assert 'OWN_UNDO_CONTEXT = "agentDoc.ownUndo"' in source


def test_dependencies_are_pinned_and_locked() -> None:
    manifest = _manifest()
    deps = {**manifest["dependencies"], **manifest["devDependencies"]}
    for name, version in deps.items():
        assert version[0].isdigit(), f"{name} is not pinned: {version}"
    lock = json.loads((VSCODE / "package-lock.json").read_text("utf-8"))
    locked = lock["packages"][""]
    assert locked["dependencies"] == manifest["dependencies"]
    assert locked["devDependencies"] == manifest["devDependencies"]


def test_logic_module_has_no_vscode_import() -> None:
    source = (VSCODE / "src" / "logic.ts").read_text("utf-8")
    assert '"vscode"' not in source
    assert "'vscode'" not in source


def _npm_ready() -> str | None:
    """Why the npm build cannot run here, or ``None`` when it can."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        return "node/npm are not installed"
    try:
        ping = subprocess.run(
            ["npm", "ping"], capture_output=True, text=True, timeout=30
        )
    except subprocess.TimeoutExpired:
        return "the npm registry did not answer `npm ping` within 30 s"
    if ping.returncode != 0:
        return f"the npm registry is not reachable: {ping.stderr.strip()[-200:]}"
    return None


def _run(args: list[str], cwd: Path, timeout: float) -> str:
    proc = subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    assert proc.returncode == 0, (
        f"{' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}"
    )
    return proc.stdout


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_npm_build_test_and_package(tmp_path: Path) -> None:
    reason = _npm_ready()
    if reason:
        pytest.skip(reason)
    work = tmp_path / "vscode"
    shutil.copytree(
        VSCODE, work, ignore=shutil.ignore_patterns("node_modules", "out", "*.vsix")
    )
    _run(["npm", "ci", "--no-audit", "--no-fund"], work, 600)
    _run(["npm", "run", "compile"], work, 300)
    tests = _run(["npm", "test"], work, 300)
    assert "# fail 0" in tests, tests
    _run(["npx", "--no-install", "@vscode/vsce", "package"], work, 300)
    version = _manifest()["version"]
    vsix = work / f"agent-doc-{version}.vsix"
    assert vsix.is_file()
    assert vsix.stat().st_size > 10_000

    names = zipfile.ZipFile(vsix).namelist()
    assert "extension/out/extension.js" in names
    assert "extension/out/logic.js" in names
    assert "extension/node_modules/vscode-languageclient/package.json" in names
