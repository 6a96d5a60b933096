"""A language server on a private tmux server, for the session routing LSP tests.

:func:`private_tmux` starts ``tmux -L agentdoc-lsp-<uuid>`` (killed afterwards)
and points this process at it; :func:`lsp_on_tmux` starts ``agent-doc-lsp``
over stdio with ``AGENT_DOC_TMUX_SOCKET`` / ``AGENT_DOC_AGENT_COMMAND`` (the
stand-in agent) in its environment; :func:`start` initializes it with
capabilities chosen per test and records the server's custom notifications and
``workspace/codeLens/refresh`` requests. Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import AsyncIterator
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import ClientServerConfig
from pytest_lsp import LanguageClient

from agent_doc.tmux.adapter import Tmux
from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import capabilities
from tests.private_tmux import private_server

SERVER = [sys.executable, "-m", "agent_doc_lsp"]
WAIT = 15.0
"""Bound (seconds) of waits that involve tmux and the agent."""


@pytest.fixture
def private_tmux(monkeypatch: pytest.MonkeyPatch) -> Iterator[Tmux]:
    """A private tmux server with session ``main``; this process uses it too."""
    with private_server(monkeypatch, "agentdoc-lsp") as name:
        yield Tmux(name)


@pytest.fixture
def server_env() -> dict[str, str]:
    """Extra environment of the server process (tests may add to it)."""
    return {}


@pytest_asyncio.fixture
async def lsp_on_tmux(
    private_tmux: Tmux, server_env: dict[str, str]
) -> AsyncIterator[LanguageClient]:
    """``agent-doc-lsp`` over stdio using the private tmux server (not initialized)."""
    env = {**os.environ, **server_env}
    config = ClientServerConfig(server_command=SERVER, server_env=env)
    client = await config.start()
    assert isinstance(client, LanguageClient)
    try:
        yield client
    finally:
        try:
            await asyncio.wait_for(client.shutdown_session(), 10)
        except Exception:  # a failed test may leave the session half open
            process = getattr(client, "_server", None)
            if process is not None and process.returncode is None:
                process.kill()
        await asyncio.wait_for(client.stop(), 10)  # type: ignore[no-untyped-call]


@dataclass
class Session:
    """An initialized editor plus what the server sent on its own."""

    editor: Editor
    statuses: list[dict[str, Any]] = field(default_factory=list)
    """Every ``agentDoc/status`` payload, in order."""
    refreshes: int = 0
    """Number of ``workspace/codeLens/refresh`` requests."""
    requests: list[types.ShowMessageRequestParams] = field(default_factory=list)
    """Every ``window/showMessageRequest``."""

    @property
    def client(self) -> LanguageClient:
        """The pytest-lsp client."""
        return self.editor.client

    async def wait_for(
        self, predicate: Callable[[], Any], timeout: float = WAIT, what: str = ""
    ) -> Any:
        """Poll ``predicate`` (20 ms, event loop kept running) until truthy."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for {what}")
            await asyncio.sleep(0.02)

    async def tick(self, timeout: float = 0.1) -> None:
        """Wait for the next ``agentDoc/status`` or ``timeout``, whichever is first."""
        count = len(self.statuses)
        with contextlib.suppress(AssertionError):
            await self.wait_for(lambda: len(self.statuses) > count, timeout)

    async def status(
        self, uri: str, state: str, timeout: float = WAIT
    ) -> dict[str, Any]:
        """Wait for an ``agentDoc/status`` of ``uri`` with ``state``."""

        def found() -> dict[str, Any] | None:
            return next(
                (s for s in reversed(self.statuses)
                 if s.get("uri") == uri and s.get("state") == state),
                None,
            )  # fmt: skip

        try:
            result: dict[str, Any] = await self.wait_for(found, timeout, state)
        except AssertionError as exc:
            seen = [s.get("state") for s in self.statuses]
            raise AssertionError(f"{exc}; states seen: {seen}") from None
        return result

    async def lenses(self, uri: str) -> list[types.CodeLens]:
        """``textDocument/codeLens`` of ``uri``."""
        result = await asyncio.wait_for(
            self.client.text_document_code_lens_async(
                types.CodeLensParams(
                    text_document=types.TextDocumentIdentifier(uri=uri)
                )
            ),
            WAIT,
        )
        return list(result or [])

    async def command(
        self, name: str, args: dict[str, Any], timeout: float = 60
    ) -> Any:
        """``workspace/executeCommand`` with one object argument."""
        return await asyncio.wait_for(
            self.client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=name, arguments=[args])
            ),
            timeout,
        )


def _as_dict(params: Any) -> dict[str, Any]:
    if isinstance(params, dict):
        return params
    if hasattr(params, "_asdict"):
        return dict(params._asdict())
    return dict(vars(params))


async def start(
    client: LanguageClient,
    root: Path,
    *,
    actions: bool = False,
    refresh: bool = True,
    pick: Callable[[types.ShowMessageRequestParams], str | None] | None = None,
    options: dict[str, Any] | None = None,
) -> Session:
    """Initialize ``client`` with ``root`` as workspace.

    ``actions``: advertise ``window.showMessage.messageActionItem``; ``refresh``:
    advertise ``workspace.codeLens.refreshSupport``; ``pick`` chooses the title
    of the action answering each ``window/showMessageRequest`` (``None``:
    dismiss); ``options`` are the ``initializationOptions``.
    """
    editor = Editor(client=client)
    session = Session(editor)

    def on_apply_edit(
        _ls: LanguageClient, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        return editor.handle_apply_edit(params)

    def on_status(_ls: LanguageClient, params: Any) -> None:
        session.statuses.append(_as_dict(params))

    def on_refresh(_ls: LanguageClient, _params: None) -> None:
        session.refreshes += 1

    def on_request(
        _ls: LanguageClient, params: types.ShowMessageRequestParams
    ) -> types.MessageActionItem | None:
        session.requests.append(params)
        title = pick(params) if pick is not None else None
        return types.MessageActionItem(title=title) if title is not None else None

    handlers: dict[str, Callable[..., Any]] = {
        types.WORKSPACE_APPLY_EDIT: on_apply_edit,
        "agentDoc/status": on_status,
        types.WORKSPACE_CODE_LENS_REFRESH: on_refresh,
        types.WINDOW_SHOW_MESSAGE_REQUEST: on_request,
    }
    for method, handler in handlers.items():
        client.feature(method)(handler)
    caps = capabilities(configuration=False)
    assert caps.workspace is not None
    assert caps.text_document is not None
    caps.workspace.code_lens = types.CodeLensWorkspaceClientCapabilities(
        refresh_support=refresh
    )
    caps.text_document.code_lens = types.CodeLensClientCapabilities()
    caps.window = types.WindowClientCapabilities(
        show_message=types.ShowMessageRequestClientCapabilities(
            message_action_item=types.ClientShowMessageActionItemOptions(
                additional_properties_support=False
            )
            if actions
            else None
        )
    )
    result = await asyncio.wait_for(
        client.initialize_session(
            types.InitializeParams(
                capabilities=caps,
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
                initialization_options=options,
            )
        ),
        WAIT,
    )
    editor.init_result = result
    return session


async def wait_text(tmux: Tmux, pane: str, text: str, timeout: float = WAIT) -> str:
    """Wait (event loop kept running) until ``text`` shows in ``pane``."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux.capture(pane)
        if text in screen:
            return screen
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {text!r} in {pane}; pane:\n{screen}")


def project(tmp_path: Path) -> Path:
    """A project folder (``.agent-doc/`` pins the root)."""
    root = tmp_path / "ws"
    (root / ".agent-doc").mkdir(parents=True, exist_ok=True)
    return root
