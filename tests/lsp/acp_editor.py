"""The editor side of the ACP tests: a pytest-lsp client with progress,
message requests, ``agentDoc/status`` and ``agentDoc/answerLanded`` recorded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.acp_standin import SESSION_DOC as DOC
from tests.acp_standin import configure_standin
from tests.lsp.editor_client import Editor
from tests.lsp.editor_client import capabilities
from tests.lsp.editor_client import offset_of
from tests.lsp.editor_client import start_editor


class Session:
    """An editor with progress, message requests and the agent's settings."""

    def __init__(self, editor: Editor, root: Path, settings: Path) -> None:
        self.editor = editor
        self.root = root
        self.settings = settings
        self.requests: list[types.ShowMessageRequestParams] = []
        self.landed: list[Any] = []
        """``agentDoc/answerLanded`` notifications, in order."""
        self.statuses: list[dict[str, Any]] = []
        """``agentDoc/status`` notifications, in order."""
        self.on_question: list[Any] = []
        """Called (no arguments) when a permission question arrives."""
        self.pick: str | None = None

    def open_document(self, name: str = "plan.md") -> tuple[Path, str]:
        """Write the session document as ``name`` and open it: its path and URI."""
        doc = self.root / name
        doc.write_text(DOC)
        self.editor.open(doc.as_uri(), DOC)
        return doc, doc.as_uri()

    def configure(self, **settings: str) -> None:
        self.settings.write_text(json.dumps(settings))

    async def run(self, uri: str) -> Any:
        return await self.editor.client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="agentDoc.runAgent", arguments=[{"uri": uri}]
            )
        )

    def messages(self) -> list[str]:
        """Every ``$/progress`` report message (pytest-lsp records them)."""
        reports = self.editor.client.progress_reports.values()
        return [
            getattr(value, "message", None) or ""
            for values in reports
            for value in values
            if getattr(value, "kind", "") == "report"
        ]


async def start(
    client: LanguageClient, tmp_path: Path, *, trusted: bool = False, **options: Any
) -> Session:
    root = tmp_path / "ws"
    (root / ".agent-doc").mkdir(parents=True)
    settings = configure_standin(tmp_path, {})
    caps = capabilities(configuration=False)
    caps.window = types.WindowClientCapabilities(
        work_done_progress=True,
        show_message=types.ShowMessageRequestClientCapabilities(
            message_action_item=types.ClientShowMessageActionItemOptions(
                additional_properties_support=False
            )
        ),
    )
    holder: list[Session] = []

    def on_request(
        _ls: LanguageClient, params: types.ShowMessageRequestParams
    ) -> types.MessageActionItem | None:
        holder[0].requests.append(params)
        for hook in holder[0].on_question:
            hook()
        pick = holder[0].pick
        return types.MessageActionItem(title=pick) if pick else None

    client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)(on_request)

    def on_landed(_ls: LanguageClient, params: Any) -> None:
        holder[0].landed.append(params)

    client.feature("agentDoc/answerLanded")(on_landed)

    def on_status(_ls: LanguageClient, params: Any) -> None:
        fields = ("uri", "state", "agent", "detail")
        holder[0].statuses.append({k: field_of(params, k) for k in fields})

    client.feature("agentDoc/status")(on_status)
    editor = await start_editor(
        client,
        root=root,
        client_caps=caps,
        initialization_options={"trustWorkspace": trusted, **options},
    )
    holder.append(Session(editor, root, settings))
    return holder[0]


def field_of(value: Any, name: str) -> Any:
    """``value[name]`` or ``value.name`` (pygls gives custom params as objects)."""
    return value[name] if isinstance(value, dict) else getattr(value, name)


def without_answer(text: str, landed: Any) -> str:
    """``text`` with the ``withoutAnswer`` edits of an ``answerLanded`` applied."""
    edits = []
    for edit in field_of(landed, "withoutAnswer"):
        rng = field_of(edit, "range")
        start, end = (
            types.Position(
                line=field_of(field_of(rng, k), "line"),
                character=field_of(field_of(rng, k), "character"),
            )
            for k in ("start", "end")
        )
        edits.append((offset_of(text, start), offset_of(text, end), edit))
    for start_at, end_at, edit in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[:start_at] + field_of(edit, "newText") + text[end_at:]
    return text


def streamed_edits(editor: Editor) -> list[types.TextEdit]:
    edits: list[types.TextEdit] = []
    for params in editor.applied:
        for change in params.edit.document_changes or []:
            if isinstance(change, types.TextDocumentEdit):
                edits += [e for e in change.edits if isinstance(e, types.TextEdit)]
    return edits
