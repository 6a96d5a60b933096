"""``textDocument/codeLens`` on session documents: Submit, Claim, Commit, Diff.

The Submit title says what the next submit sends (``Submit · 3 changes (+12 −2
lines)``, from :mod:`agent_doc_lsp.features.unsent`) once a snapshot exists.

Each lens runs a command (implemented by ``features.commands``) with
``[{"uri": ...}]`` as arguments. Hidden when the ``codeLens`` setting is off.
"""

from __future__ import annotations

from lsprotocol import types

from agent_doc.editor import is_session_document
from agent_doc.editor.outline import is_session_head
from agent_doc_lsp.features.unsent import submit_title
from agent_doc_lsp.server import AgentDocLanguageServer

LENSES: tuple[tuple[str, str], ...] = (
    ("Submit", "agentDoc.route"),
    ("Claim", "agentDoc.claim"),
    ("Commit", "agentDoc.commit"),
    ("Diff", "agentDoc.diff"),
)
"""Lens title → command id, in display order."""


def is_session(ls: AgentDocLanguageServer, uri: str) -> bool:
    """Whether ``uri`` is a session document; an open buffer whose frontmatter
    says so is not read whole (a lens refresh follows every pause in typing)."""
    head = ls.buffers.head(uri)
    if head is not None and is_session_head(head.text):
        return True
    _doc, index = ls.document(uri)
    return is_session_document(index.text)


def session_lenses(
    ls: AgentDocLanguageServer, params: types.CodeLensParams
) -> list[types.CodeLens]:
    """The session lenses of a document (empty if not a session document)."""
    uri = ls.workspace.get_text_document(params.text_document.uri).uri
    if not ls.options.code_lens or not is_session(ls, uri):
        return []
    top = types.Range(
        start=types.Position(line=0, character=0),
        end=types.Position(line=0, character=0),
    )
    titles = {"agentDoc.route": submit_title(ls, uri)}
    return [
        types.CodeLens(
            range=top,
            command=types.Command(
                title=titles.get(command, title),
                command=command,
                arguments=[{"uri": uri}],
            ),
        )
        for title, command in LENSES
    ]


def register(server: AgentDocLanguageServer) -> None:
    """Register ``textDocument/codeLens`` (other modules may wrap it)."""

    @server.feature(
        types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False)
    )
    def code_lens(
        ls: AgentDocLanguageServer, params: types.CodeLensParams
    ) -> list[types.CodeLens]:
        return session_lenses(ls, params)
