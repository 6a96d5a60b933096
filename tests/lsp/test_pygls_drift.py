"""The pygls internals that ``agent_doc_lsp.protocol`` and ``fast_document``
override or read still look the way they were written against (pygls 2.1).

When one of these fails after a pygls upgrade, re-read that method in pygls
and adjust the override before changing the expectation here.
"""

from __future__ import annotations

import inspect

import pytest
from lsprotocol import types
from pygls.protocol import JsonRPCProtocol
from pygls.protocol import LanguageServerProtocol
from pygls.workspace import TextDocument
from pygls.workspace import Workspace

from agent_doc_lsp.fast_document import FastTextDocument
from agent_doc_lsp.fast_document import FastWorkspace
from agent_doc_lsp.protocol import AgentDocProtocol
from agent_doc_lsp.server import create_server

OVERRIDDEN = [
    (LanguageServerProtocol, "lsp_initialize", ["self", "params"]),
    (JsonRPCProtocol, "_send_data", ["self", "data"]),
    (
        Workspace,
        "_create_text_document",
        ["self", "doc_uri", "source", "version", "language_id"],
    ),
    (Workspace, "update_text_document", ["self", "text_doc", "change"]),
    (
        Workspace,
        "__init__",
        ["self", "root_uri", "sync_kind", "workspace_folders", "position_encoding"],
    ),
    (TextDocument, "_apply_incremental_change", ["self", "change"]),
    (TextDocument, "_apply_full_change", ["self", "change"]),
    (
        TextDocument,
        "__init__",
        [
            "self",
            "uri",
            "source",
            "version",
            "language_id",
            "local",
            "sync_kind",
            "position_codec",
        ],
    ),
]


@pytest.mark.parametrize(
    ("owner", "name", "parameters"),
    OVERRIDDEN,
    ids=[f"{o.__name__}.{n}" for o, n, _ in OVERRIDDEN],
)
def test_overridden_pygls_signature_is_unchanged(owner, name, parameters):
    assert list(inspect.signature(getattr(owner, name)).parameters) == parameters


def test_the_initialize_handler_is_still_a_generator_pygls_drives():
    assert inspect.isgeneratorfunction(LanguageServerProtocol.lsp_initialize)
    assert inspect.isgeneratorfunction(AgentDocProtocol.lsp_initialize)


def test_initialize_gives_a_fast_workspace_before_any_feature_runs():
    server = create_server()
    protocol = server.protocol
    params = types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri="file:///tmp/x"
    )
    steps = protocol.lsp_initialize(params)
    next(steps)  # runs up to the lifecycle feature's initialize
    assert isinstance(server.workspace, FastWorkspace)
    assert server.workspace.root_uri == "file:///tmp/x"
    doc = server.workspace.get_text_document("file:///tmp/x/a.md")
    assert isinstance(doc, FastTextDocument)
    steps.close()


def test_source_is_still_a_property_the_fast_document_can_override():
    # FastTextDocument serves ``source`` from its chunks; pygls' own code
    # reads the text only through it (``lines``, ``text_in_server_range``).
    assert isinstance(inspect.getattr_static(TextDocument, "source"), property)
    assert "self.source" in inspect.getsource(TextDocument.lines.fget)


def test_the_private_attributes_the_overrides_read_still_exist():
    workspace = FastWorkspace(None)
    assert hasattr(workspace, "_sync_kind")
    assert hasattr(workspace, "_position_codec")
    doc = TextDocument("file:///a.md", source="x")
    assert hasattr(doc, "_source")
    protocol = create_server().protocol
    for name in ("_workspace", "_include_headers", "CONTENT_TYPE", "CHARSET"):
        assert hasattr(protocol, name), name
    assert hasattr(protocol._server, "_report_server_error")
