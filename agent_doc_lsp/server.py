"""The agent-doc language server class and its factory.

:class:`AgentDocLanguageServer` holds the server's state; :func:`create_server`
builds one and lets every feature module in :data:`FEATURES` register its
handlers. pygls allows one handler per LSP method, so the lifecycle and document
notifications are owned by ``features.lifecycle`` and ``features.sync``; other
features subscribe to them through :attr:`AgentDocLanguageServer.hooks`. The
open buffers are read through :attr:`AgentDocLanguageServer.buffers`
(:mod:`agent_doc_lsp.buffers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import logging
import time
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from agent_doc import __version__
from agent_doc.document.component_config import ComponentConfig
from agent_doc.document.lineage import tell_when_let_go
from agent_doc.document.textlike import ChunkView
from agent_doc.document.textlike import TextLike
from agent_doc.editor.model import Problem
from agent_doc.editor.project import ConfigCache
from agent_doc.editor.project import SessionIndex
from agent_doc.errors import AgentDocError
from agent_doc.store.regular_file import require_document
from agent_doc_lsp.buffers import Buffer
from agent_doc_lsp.buffers import Buffers
from agent_doc_lsp.chunked_text import ChunkLineStarts
from agent_doc_lsp.convert import UTF16
from agent_doc_lsp.convert import LineIndex
from agent_doc_lsp.fast_document import FastTextDocument
from agent_doc_lsp.log import WindowLogMessageHandler
from agent_doc_lsp.options import Options
from agent_doc_lsp.protocol import AgentDocProtocol
from agent_doc_lsp.raw_json import RawJson
from agent_doc_lsp.structure_key import StructureKey
from agent_doc_lsp.symbol_json import SymbolEncoder

if TYPE_CHECKING:
    from cattrs import Converter  # lsprotocol's dependency, for the type only

logger = logging.getLogger(__name__)


DocumentListener = Callable[["AgentDocLanguageServer", str], Any]
"""``listener(ls, uri)``; may be a coroutine function."""
ServerListener = Callable[["AgentDocLanguageServer"], Any]
"""``listener(ls)``; may be a coroutine function."""
ProblemProvider = Callable[["AgentDocLanguageServer", "Buffer"], "list[Problem]"]
"""``provider(ls, buffer)`` → more problems to publish with the diagnostics.
It runs in a worker thread (:mod:`agent_doc_lsp.features.diagnostics`): it reads
``buffer`` and its own thread-safe state, and hands anything that talks to the
client to the loop (``ls.loop.call_soon_threadsafe``)."""


@dataclass
class Hooks:
    """Listeners run by the one handler pygls allows per notification.

    Each listener is isolated: an ``AgentDocError`` is logged as a warning, any
    other exception with its traceback, and the remaining listeners still run.
    """

    initialized: list[ServerListener] = field(default_factory=list)
    """After ``initialized`` and the first configuration pull."""
    options_changed: list[ServerListener] = field(default_factory=list)
    """After :attr:`AgentDocLanguageServer.options` changed."""
    shutdown: list[ServerListener] = field(default_factory=list)
    """On ``shutdown`` (stop sockets, flush state)."""
    did_open: list[DocumentListener] = field(default_factory=list)
    """After pygls stored a newly opened document."""
    did_change: list[DocumentListener] = field(default_factory=list)
    """After pygls applied a ``didChange`` to its copy."""
    did_save: list[DocumentListener] = field(default_factory=list)
    """After ``didSave``."""
    did_close: list[DocumentListener] = field(default_factory=list)
    """After pygls dropped a closed document."""
    problems: list[ProblemProvider] = field(default_factory=list)
    """More diagnostics of a document (called by each diagnostics run)."""


def converter() -> Converter:
    """pygls' converter; it decodes a :class:`RawJson` result if one reaches it
    (:class:`AgentDocProtocol` normally writes those as they are)."""
    from pygls.protocol import default_converter

    made: Converter = default_converter()  # type: ignore[no-untyped-call]
    made.register_unstructure_hook(RawJson, RawJson.value)
    return made


class AgentDocLanguageServer(LanguageServer):
    """The agent-doc language server: pygls plus agent-doc's state."""

    def __init__(self) -> None:
        super().__init__(
            name="agent-doc-lsp",
            version=__version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            converter_factory=converter,
            protocol_cls=AgentDocProtocol,
        )
        self.options = Options()
        """Current settings (``initializationOptions`` + ``agentDoc`` section)."""
        self.hooks = Hooks()
        """Listeners for lifecycle and document notifications."""
        self.last_edit: dict[str, float] = {}
        """URI → ``time.time()`` of its last ``didChange``."""
        self.buffers = Buffers(self, self.last_edit)
        """Live text + version of each open document."""
        self.loop: asyncio.AbstractEventLoop | None = None
        """The event loop serving the connection (set at ``initialize``)."""
        self.diagnostic_timers: dict[str, asyncio.TimerHandle] = {}
        """URI → pending debounced diagnostics run."""
        self.log_handler: WindowLogMessageHandler | None = None
        """The ``window/logMessage`` handler (installed at ``initialize``)."""
        self.init_options: Any = None
        """Raw ``initializationOptions``, the base under pulled settings."""
        self.configs = ConfigCache()
        """Component configs per project, reloaded when the TOML files change."""
        self.sessions = SessionIndex()
        """Session documents under the workspace folders (``workspace/symbol``)."""
        self.symbol_encoders: dict[str, SymbolEncoder] = {}
        """URI → the encoder of its ``documentSymbol`` answers (reuses JSON)."""
        self._indexes: dict[str, tuple[int | None, TextLike, LineIndex]] = {}
        self._readers: dict[str, int] = {}
        """URI → runs and requests reading its text in a worker thread."""
        tell_when_let_go(self)

    @property
    def encoding(self) -> str:
        """The negotiated position encoding (``utf-16`` before ``initialize``)."""
        try:
            return str(self.workspace.position_encoding or UTF16)
        except RuntimeError:
            return str(UTF16)

    def document(self, uri: str) -> tuple[TextDocument, LineIndex]:
        """Return the document of ``uri`` and a line index of its current text."""
        doc, text = self.document_text(uri)
        cached = self.cached_index(uri, doc.version, text)
        if cached is not None:
            return doc, cached
        starts = None
        if isinstance(doc, FastTextDocument) and text and uri in self.buffers:
            starts = doc.current_line_starts()  # kept across edits: no re-split
        index = LineIndex(text, self.encoding, starts)
        self.keep_index(uri, doc.version, index)
        return doc, index

    def document_text(self, uri: str) -> tuple[TextDocument, str]:
        """The document of ``uri`` and its current text (``""`` if unreadable)."""
        doc = self.workspace.get_text_document(uri)
        try:
            if uri not in self.buffers:  # pygls reads it from disk: never a FIFO
                require_document(Path(to_fs_path(uri) or uri))
            return doc, doc.source
        except (AgentDocError, OSError, UnicodeDecodeError) as exc:
            logger.info("cannot read %s: %s", uri, exc)
            return doc, ""

    def structure_key(self, uri: str) -> StructureKey | None:
        """The structure key of the open document ``uri``
        (:meth:`FastTextDocument.structure_key`; ``None`` when it is not open),
        read without its text: an answer kept under it is still exact."""
        if uri not in self.buffers:
            return None
        doc = self.workspace.get_text_document(uri)
        return doc.structure_key() if isinstance(doc, FastTextDocument) else None

    def line_index_maker(self, uri: str, text: TextLike) -> Callable[[], LineIndex]:
        """Builds the line index of ``text``, the current text of ``uri`` read
        just before (call it in a worker thread: an open document's index
        reads the line starts its chunks keep, without a re-split or a join;
        ``text`` may be the chunks' view)."""
        doc = self.workspace.get_text_document(uri)
        parts = None
        if isinstance(doc, FastTextDocument) and text and uri in self.buffers:
            parts = doc.line_start_parts()
        encoding = self.encoding
        if parts is None:
            return lambda: LineIndex(text, encoding)
        return lambda: LineIndex(text, encoding, ChunkLineStarts(parts))

    def cached_index(
        self, uri: str, version: int | None, text: str
    ) -> LineIndex | None:
        """The kept line index of ``text`` (``uri`` at ``version``), if any."""
        cached = self._indexes.get(uri)
        if not cached or cached[0] != version:
            return None
        if cached[1] is text:
            return cached[2]
        if isinstance(cached[1], ChunkView) and len(cached[1]) == len(text):
            # made on the view of the same version (a diagnostics run): its
            # line starts serve the joined text as well
            return LineIndex(text, cached[2].encoding, cached[2].starts)
        return None

    def keep_index(self, uri: str, version: int | None, index: LineIndex) -> None:
        """Remember ``index`` (built elsewhere, e.g. by a diagnostics run) as the
        line index of ``uri`` at ``version``, for :meth:`document` to reuse."""
        if version is not None:
            self._indexes[uri] = (version, index.source, index)

    def symbol_encoder(self, uri: str) -> SymbolEncoder:
        """The ``documentSymbol`` encoder of ``uri`` (kept while it is open)."""
        encoder = self.symbol_encoders.get(uri)
        if encoder is None:
            encoder = SymbolEncoder()
            if uri in self.buffers:
                self.symbol_encoders[uri] = encoder
        return encoder

    def configs_for(self, uri: str) -> tuple[dict[str, ComponentConfig], str | None]:
        """Component configs of the project of ``uri`` (and a config error)."""
        path = to_fs_path(uri)
        return self.configs.for_document(Path(path) if path else None)

    def roots(self) -> list[Path]:
        """The workspace folders (or the root path) as local paths."""
        try:
            workspace = self.workspace
        except RuntimeError:
            return []
        paths = [to_fs_path(f.uri) for f in workspace.folders.values()]
        if not paths and workspace.root_path:
            paths = [workspace.root_path]
        return [Path(p) for p in paths if p]

    @contextlib.contextmanager
    def reading(self, uri: str) -> Iterator[None]:
        """Around a run or request that reads the text of ``uri`` (in a worker
        thread, or memos keyed by it): when the last one ends and no
        diagnostics run is waiting, the document is at rest and the long
        ``str`` of its version is let go (:meth:`rest`)."""
        self._readers[uri] = self._readers.get(uri, 0) + 1
        try:
            yield
        finally:
            left = self._readers.pop(uri, 1) - 1
            if left:
                self._readers[uri] = left
            else:
                self.rest(uri)

    def rest(self, uri: str) -> None:
        """Let go of the long ``str`` of the current version of ``uri``
        (:meth:`FastTextDocument.let_go_text`) unless a reader of it is
        running or a diagnostics run is due: every holder keeps the version's
        view, and a request that needs the whole text joins it again."""
        if self._readers.get(uri) or uri in self.diagnostic_timers:
            return
        try:
            doc = self.workspace.text_documents.get(unquote(uri))
        except RuntimeError:  # not initialized
            return
        if isinstance(doc, FastTextDocument) and doc.let_go_text():
            logger.debug("%s at rest: its text is let go", uri)

    def let_go(self, old: str, view: TextLike) -> None:
        """A kept line index of ``old`` reads ``view`` (the same text:
        :func:`agent_doc.document.lineage.let_go`)."""
        for uri, (version, text, index) in list(self._indexes.items()):
            if text is old:
                kept = LineIndex(view, index.encoding, index.starts)
                self._indexes[uri] = (version, view, kept)

    def forget(self, uri: str) -> None:
        """Drop per-document state of a closed document."""
        self._indexes.pop(uri, None)
        self._readers.pop(uri, None)
        self.symbol_encoders.pop(uri, None)
        self.last_edit.pop(uri, None)
        timer = self.diagnostic_timers.pop(uri, None)
        if timer:
            timer.cancel()

    async def emit(self, listeners: list[Any], *args: Any) -> None:
        """Run ``listeners(self, *args)`` one by one, isolating their failures."""
        for listener in list(listeners):
            try:
                result = listener(self, *args)
                if inspect.isawaitable(result):
                    await result
            except AgentDocError as exc:
                logger.warning("%s: %s", getattr(listener, "__name__", listener), exc)
            except Exception:
                logger.exception("listener %r failed", listener)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log out-of-band errors; show them only if they are not ours."""
        logger.error(
            "server error (%s): %s", getattr(source, "__name__", source), error
        )
        if not isinstance(error, AgentDocError):
            super().report_server_error(error, source)


FEATURES: tuple[str, ...] = (
    "agent_doc_lsp.features.lifecycle",
    "agent_doc_lsp.features.sync",
    "agent_doc_lsp.features.symbols",
    "agent_doc_lsp.features.folding",
    "agent_doc_lsp.features.workspace_symbols",
    "agent_doc_lsp.features.diagnostics",
    "agent_doc_lsp.features.unsent",
    "agent_doc_lsp.features.actions",
    "agent_doc_lsp.features.completion",
    "agent_doc_lsp.features.hover",
    "agent_doc_lsp.features.rename",
    "agent_doc_lsp.features.lenses",
    "agent_doc_lsp.features.writes",
    "agent_doc_lsp.features.patch_handoff",
    "agent_doc_lsp.features.commands",
    "agent_doc_lsp.features.backlog",
    "agent_doc_lsp.features.turns",
    "agent_doc_lsp.features.sessions",
    "agent_doc_lsp.features.tmux_commands",
    "agent_doc_lsp.features.agent_status",
    "agent_doc_lsp.features.prompts",
    "agent_doc_lsp.features.acp_agents",
    "agent_doc_lsp.features.acp_run",
    "agent_doc_lsp.features.share_sync",
    "agent_doc_lsp.features.served_save",
    "agent_doc_lsp.features.share_undo",
)
"""Feature modules, each with ``register(server: AgentDocLanguageServer)``.

Listed by name and imported by :func:`create_server`, so feature modules can
import :class:`AgentDocLanguageServer` at runtime (needed for command handlers)
without an import cycle.
"""


def create_server() -> AgentDocLanguageServer:
    """Build a server with every feature in :data:`FEATURES` registered."""
    server = AgentDocLanguageServer()
    for name in FEATURES:
        importlib.import_module(name).register(server)
    return server


def stamp_edit(server: AgentDocLanguageServer, uri: str) -> None:
    """Record that ``uri`` was just edited (used by ``didChange``)."""
    server.last_edit[uri] = time.time()
