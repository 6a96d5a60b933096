"""The Helix configuration snippets (editors/helix)."""

from __future__ import annotations

import tomllib

from tests.editors.harness import EDITORS

HELIX = EDITORS / "helix"


def test_languages_toml_registers_the_server_for_markdown() -> None:
    config = tomllib.loads((HELIX / "languages.toml").read_text("utf-8"))
    assert config["language-server"]["agent-doc-lsp"]["command"] == "agent-doc-lsp"
    (markdown,) = [lang for lang in config["language"] if lang["name"] == "markdown"]
    assert markdown["language-servers"][0] == "agent-doc-lsp"
    assert markdown["roots"] == [".agent-doc", ".git"]


def test_keys_call_the_cli() -> None:
    config = tomllib.loads((HELIX / "config.toml").read_text("utf-8"))
    keys = config["keys"]["normal"]["space"]["a"]
    assert keys["a"] == ":sh agent-doc route %{buffer_name}"
    assert set(keys) == {"a", "c", "m"}
