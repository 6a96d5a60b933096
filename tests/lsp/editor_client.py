"""An editor-like test client on top of pytest-lsp (reusable by every LSP test).

:func:`start_editor` initializes a pytest-lsp ``LanguageClient`` with explicit
capabilities and turns it into an :class:`Editor`: it keeps its own copy of each
open document, answers ``workspace/applyEdit`` by applying the edits to that
copy (honouring the document version according to :class:`ApplyMode`) and then
sends ``didChange`` like a real editor. Helpers type text, read the buffer and
wait (bounded) for diagnostics or edits.

Position conversion here is deliberately independent of ``agent_doc_lsp.convert``.
"""

from __future__ import annotations

import asyncio
import enum
import time
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path
from pytest_lsp import LanguageClient

from tests.lsp.positions import offset_of
from tests.lsp.positions import position_of

__all__ = ["offset_of", "position_of"]  # re-exported: tests import them from here

WAIT = 5.0
START_WAIT = 20.0
"""Bound on ``initialize``: the server's start-up (a fresh interpreter importing
pygls) takes longer than one request on a loaded machine."""
"""Default bound (seconds) of every wait."""


def range_from_str(spec: str) -> types.Range:
    """Parse ``"3:0-3:16"`` (``line:char-line:char``) into a ``Range``."""
    start, end = spec.split("-")
    sl, sc = (int(x) for x in start.split(":"))
    el, ec = (int(x) for x in end.split(":"))
    return types.Range(
        start=types.Position(line=sl, character=sc),
        end=types.Position(line=el, character=ec),
    )


def range_to_str(rng: types.Range) -> str:
    """Format a ``Range`` as ``"3:0-3:16"``."""
    s, e = rng.start, rng.end
    return f"{s.line}:{s.character}-{e.line}:{e.character}"


class ApplyMode(enum.Enum):
    """How the editor treats ``workspace/applyEdit`` for a stale version."""

    APPLY = "apply"
    """Apply every edit whatever its version (a lax editor)."""
    REJECT_STALE = "reject-stale"
    """Answer ``applied=false`` when a pinned version is not the current one."""
    SKIP_STALE = "skip-stale"
    """Answer ``applied=true`` but silently skip stale edits (like Neovim)."""


@dataclass
class Buffer:
    """The editor's copy of one open document."""

    uri: str
    text: str
    version: int


@dataclass
class Editor:
    """A pytest-lsp client that behaves like an editor."""

    client: LanguageClient
    encoding: str = "utf-16"
    mode: ApplyMode = ApplyMode.REJECT_STALE
    init_result: types.InitializeResult | None = None
    buffers: dict[str, Buffer] = field(default_factory=dict)
    applied: list[types.ApplyWorkspaceEditParams] = field(default_factory=list)
    """Every ``workspace/applyEdit`` received (applied or not)."""
    published: list[types.PublishDiagnosticsParams] = field(default_factory=list)
    """Every ``publishDiagnostics`` received, in order."""
    before_apply: Callable[[Editor], None] | None = None
    """Hook run just before an edit is applied (e.g. to type concurrently)."""

    # -- documents -------------------------------------------------------
    def open(self, uri: str, text: str, version: int = 1) -> None:
        """Send ``didOpen`` for ``text``."""
        self.buffers[uri] = Buffer(uri, text, version)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="markdown", version=version, text=text
                )
            )
        )

    def close(self, uri: str) -> None:
        """Send ``didClose``."""
        self.buffers.pop(uri, None)
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=uri)
            )
        )

    def save(self, uri: str) -> None:
        """Write the buffer to its file and send ``didSave``, as an editor does."""
        Path(to_fs_path(uri) or uri).write_text(self.text(uri), encoding="utf-8")
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=uri)
            )
        )

    def text(self, uri: str) -> str:
        """The editor's current text of ``uri``."""
        return self.buffers[uri].text

    def version(self, uri: str) -> int:
        """The editor's current version of ``uri``."""
        return self.buffers[uri].version

    def replace(self, uri: str, rng: types.Range, new_text: str) -> None:
        """Replace ``rng`` with ``new_text`` and send an incremental ``didChange``."""
        self._edit_local(uri, [(rng, new_text)])

    def type(self, uri: str, line: int, character: int, new_text: str) -> None:
        """Insert ``new_text`` at ``line:character`` (one keystroke-like change)."""
        pos = types.Position(line=line, character=character)
        self.replace(uri, types.Range(start=pos, end=pos), new_text)

    def append(self, uri: str, new_text: str) -> None:
        """Type ``new_text`` at the end of the buffer."""
        end = position_of(self.text(uri), len(self.text(uri)), self.encoding)
        self.type(uri, end.line, end.character, new_text)

    def _edit_local(self, uri: str, changes: list[tuple[types.Range, str]]) -> None:
        """Apply ``changes`` (each against the previous result) and send them."""
        buf = self.buffers[uri]
        events: list[types.TextDocumentContentChangeEvent] = []
        for rng, new_text in changes:
            start = offset_of(buf.text, rng.start, self.encoding)
            end = offset_of(buf.text, rng.end, self.encoding)
            buf.text = buf.text[:start] + new_text + buf.text[end:]
            events.append(
                types.TextDocumentContentChangePartial(range=rng, text=new_text)
            )
        buf.version += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=buf.version
                ),
                content_changes=events,
            )
        )

    # -- workspace/applyEdit ----------------------------------------------
    def handle_apply_edit(
        self, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        """Apply a workspace edit to the editor's buffers, as configured."""
        self.applied.append(params)
        if self.before_apply is not None:
            self.before_apply(self)
        edits: list[tuple[str, int | None, list[types.TextEdit]]] = []
        for change in params.edit.document_changes or []:
            if isinstance(change, types.TextDocumentEdit):
                doc = change.text_document
                plain = [e for e in change.edits if isinstance(e, types.TextEdit)]
                edits.append((doc.uri, doc.version, plain))
        for uri, plain_edits in (params.edit.changes or {}).items():
            edits.append((uri, None, list(plain_edits)))
        for uri, version, _ in edits:
            buf = self.buffers.get(uri)
            if buf is None:
                return types.ApplyWorkspaceEditResult(
                    applied=False, failure_reason=f"{uri} is not open"
                )
            stale = version is not None and version != buf.version
            if stale and self.mode is ApplyMode.REJECT_STALE:
                return types.ApplyWorkspaceEditResult(
                    applied=False,
                    failure_reason=f"version {version} != {buf.version}",
                )
        for uri, version, text_edits in edits:
            buf = self.buffers[uri]
            stale = version is not None and version != buf.version
            if stale and self.mode is ApplyMode.SKIP_STALE:
                continue
            ordered = sorted(
                text_edits,
                key=lambda e: (e.range.start.line, e.range.start.character),
                reverse=True,
            )
            self._edit_local(uri, [(e.range, e.new_text) for e in ordered])
        return types.ApplyWorkspaceEditResult(applied=True)

    # -- waiting ----------------------------------------------------------
    async def wait_for(
        self, predicate: Callable[[], Any], timeout: float = WAIT, what: str = ""
    ) -> Any:
        """Poll ``predicate`` until it is truthy; fail after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for {what}")
            await asyncio.sleep(0.01)

    async def settled(self, uri: str) -> None:
        """Return once the server has handled every message sent before: a
        barrier for "nothing happened". ``documentSymbol``'s handler is a
        coroutine, and pygls runs each message's coroutine as a task in the
        order the messages came, so its answer comes after whatever the earlier
        notifications' handlers sent."""
        await self.client.text_document_document_symbol_async(
            types.DocumentSymbolParams(
                text_document=types.TextDocumentIdentifier(uri=uri)
            )
        )

    async def diagnostics(
        self, uri: str, version: int | None = None, timeout: float = WAIT
    ) -> list[types.Diagnostic]:
        """Wait for diagnostics of ``uri`` published for ``version`` (default: current)."""
        wanted = self.version(uri) if version is None else version

        def found() -> types.PublishDiagnosticsParams | None:
            for params in reversed(self.published):
                if params.uri == uri and params.version == wanted:
                    return params
            return None

        params = await self.wait_for(found, timeout, f"diagnostics of {uri}@{wanted}")
        return list(params.diagnostics)


def capabilities(
    encodings: list[str] | None = None, *, configuration: bool = True
) -> types.ClientCapabilities:
    """Explicit editor capabilities used by :func:`start_editor`."""
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind(e) for e in encodings]
            if encodings
            else None
        ),
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
            configuration=configuration,
            did_change_configuration=types.DidChangeConfigurationClientCapabilities(
                dynamic_registration=False
            ),
            symbol=types.WorkspaceSymbolClientCapabilities(),
        ),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
            document_symbol=types.DocumentSymbolClientCapabilities(
                hierarchical_document_symbol_support=True
            ),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                version_support=True,
                tag_support=types.ClientDiagnosticsTagOptions(
                    value_set=[types.DiagnosticTag.Deprecated]
                ),
            ),
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(
                        value_set=[types.CodeActionKind.QuickFix]
                    )
                )
            ),
            rename=types.RenameClientCapabilities(prepare_support=True),
            completion=types.CompletionClientCapabilities(
                completion_item=types.ClientCompletionItemOptions(
                    documentation_format=[types.MarkupKind.Markdown]
                )
            ),
            hover=types.HoverClientCapabilities(
                content_format=[types.MarkupKind.Markdown]
            ),
        ),
        window=types.WindowClientCapabilities(show_message=None),
    )


async def start_editor(
    client: LanguageClient,
    *,
    encodings: list[str] | None = None,
    mode: ApplyMode = ApplyMode.REJECT_STALE,
    root: Path | None = None,
    initialization_options: Any = None,
    settings: dict[str, Any] | None = None,
    configuration: bool = True,
    client_caps: types.ClientCapabilities | None = None,
) -> Editor:
    """Initialize ``client`` as an editor and return the :class:`Editor`.

    ``settings`` become the client's ``agentDoc`` configuration section;
    ``client_caps`` replaces the default capabilities (e.g. a real editor's).
    """
    editor = Editor(client=client, mode=mode)

    def apply_edit(
        ls: LanguageClient, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        return editor.handle_apply_edit(params)

    client.feature(types.WORKSPACE_APPLY_EDIT)(apply_edit)
    features = client.protocol.fm.features
    original = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def publish(params: types.PublishDiagnosticsParams) -> None:
        # the stored handler is already bound to the client (pygls wraps it)
        editor.published.append(params)
        original(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    if settings is not None:
        client.set_configuration(settings, section="agentDoc")
        if initialization_options is None:
            # The server pulls the section after ``initialized``; a request
            # sent right after start-up must not race that pull (a loaded
            # machine answers it late), so the same settings come first here.
            initialization_options = settings
    folders = None
    root_uri = None
    if root is not None:
        root_uri = root.as_uri()
        folders = [types.WorkspaceFolder(uri=root_uri, name=root.name)]
    result = await asyncio.wait_for(
        client.initialize_session(
            types.InitializeParams(
                capabilities=client_caps
                or capabilities(encodings, configuration=configuration),
                root_uri=root_uri,
                workspace_folders=folders,
                initialization_options=initialization_options,
            )
        ),
        START_WAIT,
    )
    editor.init_result = result
    editor.encoding = str(result.capabilities.position_encoding or "utf-16")
    return editor
