"""The Zed extension (editors/zed): manifest and crate checked statically.

The crate cannot be compiled here (crates.io is unreachable); these checks keep
the manifest, Cargo.toml and the Rust code consistent.
"""

from __future__ import annotations

import re
from typing import Any

import tomllib

from tests.editors.harness import EDITORS

ZED = EDITORS / "zed"


def _toml(name: str) -> dict[str, Any]:
    return tomllib.loads((ZED / name).read_text("utf-8"))


def test_extension_manifest() -> None:
    manifest = _toml("extension.toml")
    assert manifest["id"] == "agent-doc"
    assert re.fullmatch(r"[a-z0-9-]+", manifest["id"])
    assert manifest["schema_version"] == 1
    assert re.fullmatch(r"\d+\.\d+\.\d+", manifest["version"])
    servers = manifest["language_servers"]
    assert list(servers) == ["agent-doc-lsp"]
    assert servers["agent-doc-lsp"]["languages"] == ["Markdown"]
    assert servers["agent-doc-lsp"]["name"]


def test_crate_is_a_cdylib_on_zed_extension_api() -> None:
    cargo = _toml("Cargo.toml")
    assert cargo["lib"]["crate-type"] == ["cdylib"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", cargo["dependencies"]["zed_extension_api"])
    assert cargo["package"]["version"] == _toml("extension.toml")["version"]


def test_rust_code_launches_the_declared_server() -> None:
    source = (ZED / "src" / "lib.rs").read_text("utf-8")
    server_id = next(iter(_toml("extension.toml")["language_servers"]))
    assert f'const SERVER_ID: &str = "{server_id}";' in source
    assert "fn language_server_command(" in source
    assert "worktree.which(SERVER_ID)" in source
    # An absolute server path from Zed's settings wins over PATH lookup.
    assert "LspSettings::for_worktree(SERVER_ID, worktree)" in source
    assert "b.path" in source
    assert "pip install agent-doc-lsp" in source
    assert "zed::register_extension!(AgentDocExtension);" in source
    assert source.count("{") == source.count("}")
