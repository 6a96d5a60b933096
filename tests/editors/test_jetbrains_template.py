"""The JetBrains LSP4IJ template (editors/jetbrains/agent-doc-lsp)."""

from __future__ import annotations

import json
from typing import Any

from tests.editors.harness import EDITORS

TEMPLATE = EDITORS / "jetbrains" / "agent-doc-lsp"


def _json(name: str) -> Any:
    return json.loads((TEMPLATE / name).read_text("utf-8"))


def test_template_names_the_server_and_maps_markdown() -> None:
    template = _json("template.json")
    assert template["id"] == "agent-doc-lsp"
    assert template["name"] == "agent-doc"
    assert template["programArgs"]["default"] == "agent-doc-lsp"
    mappings = template["fileTypeMappings"]
    assert mappings == [
        {
            "fileType": {"name": "Markdown", "patterns": ["*.md", "*.markdown"]},
            "languageId": "markdown",
        }
    ]


def test_settings_and_initialization_options_are_objects() -> None:
    settings = _json("settings.json")
    assert isinstance(settings, dict)
    assert set(settings) == {"agentDoc"}
    assert settings["agentDoc"]["logLevel"] in {"error", "warning", "info", "debug"}
    assert _json("initializationOptions.json") == {}
