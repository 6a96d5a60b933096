"""Options: camelCase parsing, per-field fallback, and the live settings flow."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from agent_doc_lsp.options import Options
from agent_doc_lsp.options import parse_options
from agent_doc_lsp.options import to_wire
from tests.lsp.editor_client import start_editor


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(None, Options(), id="nothing"),
        pytest.param({}, Options(), id="empty"),
        pytest.param(
            {"trustWorkspace": True, "writeTimeoutMs": 250},
            Options(trust_workspace=True, write_timeout_ms=250),
            id="flat",
        ),
        pytest.param(
            {"agentDoc": {"codeLens": False, "logLevel": "DEBUG"}},
            Options(code_lens=False, log_level="debug"),
            id="nested-section",
        ),
        pytest.param({"unknownKey": 1}, Options(), id="unknown-ignored"),
    ],
)
def test_parse_options_reads_camel_case(raw, expected):
    assert parse_options(raw) == (expected, [])


@pytest.mark.parametrize(
    ("raw", "bad"),
    [
        pytest.param({"trustWorkspace": "yes"}, "trustWorkspace", id="bool-as-str"),
        pytest.param({"writeTimeoutMs": -1}, "writeTimeoutMs", id="negative"),
        pytest.param({"writeTimeoutMs": True}, "writeTimeoutMs", id="bool-as-int"),
        pytest.param(
            {"diagnosticsDebounceMs": "10"}, "diagnosticsDebounceMs", id="str"
        ),
        pytest.param({"logLevel": "loud"}, "logLevel", id="level"),
    ],
)
def test_bad_value_falls_back_to_default_and_keeps_the_rest(raw, bad):
    options, problems = parse_options({**raw, "codeLens": False})
    assert options == Options(code_lens=False)
    assert len(problems) == 1
    assert bad in problems[0]


def test_non_mapping_settings_are_rejected_whole():
    options, problems = parse_options(["x"])
    assert options == Options()
    assert problems


def test_base_is_kept_for_unset_keys():
    base = Options(write_timeout_ms=10)
    assert parse_options({"codeLens": False}, base)[0] == Options(
        write_timeout_ms=10, code_lens=False
    )


def test_to_wire_round_trips():
    options = Options(trust_workspace=True, diagnostics_debounce_ms=7)
    assert parse_options(to_wire(options)) == (options, [])


async def test_bad_initialization_option_shows_a_warning(client: LanguageClient):
    await start_editor(
        client, initialization_options={"writeTimeoutMs": "soon"}, configuration=False
    )
    editor_messages = [m for m in client.messages if "writeTimeoutMs" in m.message]
    assert editor_messages
    assert editor_messages[0].type == types.MessageType.Warning


async def test_pulled_configuration_is_validated_too(client: LanguageClient):
    editor = await start_editor(client, settings={"logLevel": 3})
    await editor.wait_for(
        lambda: any("logLevel" in m.message for m in client.messages),
        what="showMessage about logLevel",
    )


async def test_log_messages_are_forwarded_without_pygls_chatter(client: LanguageClient):
    editor = await start_editor(client, settings={"codeLens": "no"})
    await editor.wait_for(
        lambda: any("codeLens" in m.message for m in client.log_messages),
        what="logMessage about codeLens",
    )
    warning = next(m for m in client.log_messages if "codeLens" in m.message)
    assert warning.type == types.MessageType.Warning
    editor.open("file:///tmp/log.md", "text\n")
    await editor.diagnostics("file:///tmp/log.md")
    # pygls logs every message it sends at INFO: none of that is forwarded
    assert not [m for m in client.log_messages if m.message.startswith("pygls")]


async def test_did_change_configuration_refreshes_options(client: LanguageClient):
    editor = await start_editor(client, settings={"codeLens": False})
    uri = "file:///tmp/opts-lens.md"
    editor.open(uri, "---\nagent_doc_session: a\n---\n")

    async def lens_titles() -> list[str]:
        lenses = await client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        return [lens.command.title for lens in lenses or [] if lens.command]

    async def wait_until(present: bool) -> None:
        # the configuration pull runs after `initialized`: poll, bounded
        for _ in range(200):
            if ("Submit" in await lens_titles()) is present:
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"Submit lens present={present} never seen")

    await wait_until(False)
    client.set_configuration({"codeLens": True}, section="agentDoc")
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    await wait_until(True)


async def test_settings_from_the_notification_when_no_configuration_support(
    client: LanguageClient,
):
    editor = await start_editor(client, configuration=False)
    uri = "file:///tmp/opts-push.md"
    editor.open(uri, "<!-- agent:a -->\n")
    await editor.diagnostics(uri)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"agentDoc": {"diagnosticsDebounceMs": -5}}
        )
    )
    await editor.wait_for(
        lambda: any("diagnosticsDebounceMs" in m.message for m in client.messages),
        what="warning about diagnosticsDebounceMs",
    )


def test_main_version_and_bad_tcp_argument():
    import subprocess
    import sys

    from agent_doc import __version__

    version = subprocess.run(
        [sys.executable, "-m", "agent_doc_lsp", "--version"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert version.stdout.strip() == f"agent-doc-lsp {__version__}"
    bad = subprocess.run(
        [sys.executable, "-m", "agent_doc_lsp", "--tcp", "nowhere"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert bad.returncode != 0
    assert "HOST:PORT" in bad.stderr
    assert bad.stdout == ""  # stdout is reserved for the protocol


def test_main_serves_tcp():
    import json
    import socket
    import subprocess
    import sys
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_doc_lsp", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        with conn:
            body = json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {"processId": None, "rootUri": None, "capabilities": {}},
                }
            ).encode()
            conn.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            data = b""
            while b'"serverInfo"' not in data:
                chunk = conn.recv(65536)
                assert chunk, "connection closed"
                data += chunk
        assert b'"agent-doc-lsp"' in data
    finally:
        proc.kill()
        proc.wait(timeout=10)
