/**
 * The agent's workspace edits, applied so that a typing person never notices.
 *
 * vscode-languageclient 9 has no middleware for `workspace/applyEdit`, so the
 * extension replaces the client's request handler (and re-installs it after
 * every restart). Compared with the default handler:
 *   - an edit pinned to a version the document has left is rejected
 *     (`applied: false`), and the server re-plans on the newer text;
 *   - the edits go through `TextEditor.edit` with undo stops before and after,
 *     so one Undo removes exactly the agent's write;
 *   - text inserted exactly at a cursor goes after it (VS Code would move
 *     the cursor to the end of the inserted answer): an editor whose
 *     selections an edit touches gets them back, mapped through the edits.
 *     Any other editor is left alone — VS Code moves its cursors with the
 *     text, atomically with the person's keystrokes, whereas putting saved
 *     selections back lands one round trip later and would drag the cursor
 *     behind a key typed in between (the next keys then went before it);
 *   - a streamed edit (label `agent-doc stream <id>`) records the text before
 *     its stream's first edit (`StreamStarts`, see `answerUndo.ts`); streamed
 *     edits with nothing else in between share one undo step (fewer steps to
 *     regroup), and edits wait (rejected, the server retries) while a landed
 *     answer is regrouped.
 */
import * as vscode from "vscode";
import {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditRequest,
  ApplyWorkspaceEditResult,
  LanguageClient,
  TextDocumentEdit,
  TextEdit,
} from "vscode-languageclient/node";

import { streamOf } from "./answerText";
import { StreamStarts } from "./answerUndo";
import { OffsetEdit, mapOffset, touchesAny } from "./logic";

interface DocumentEdits {
  uri: vscode.Uri;
  version: number | null | undefined;
  edits: TextEdit[];
}

function documentEdits(client: LanguageClient, params: ApplyWorkspaceEditParams): DocumentEdits[] | string {
  const p2c = client.protocol2CodeConverter;
  const out: DocumentEdits[] = [];
  for (const change of params.edit.documentChanges ?? []) {
    if (!TextDocumentEdit.is(change)) {
      return "agent-doc: resource operations are not supported";
    }
    const edits = change.edits.filter((e): e is TextEdit => !("snippet" in e));
    out.push({ uri: p2c.asUri(change.textDocument.uri), version: change.textDocument.version, edits });
  }
  for (const [uri, edits] of Object.entries(params.edit.changes ?? {})) {
    out.push({ uri: p2c.asUri(uri), version: undefined, edits });
  }
  return out;
}

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
}

/** Undo stops around one agent edit; `true`/`true` makes it its own undo step. */
interface UndoStops {
  undoStopBefore: boolean;
  undoStopAfter: boolean;
}

const OWN_STEP: UndoStops = { undoStopBefore: true, undoStopAfter: true };

async function applyToDocument(client: LanguageClient, item: DocumentEdits, stops: UndoStops): Promise<boolean> {
  const document = openDocument(item.uri);
  if (!document) {
    return false;
  }
  const replacements = item.edits.map((e) => ({ range: client.protocol2CodeConverter.asRange(e.range), text: e.newText }));
  const offsets: OffsetEdit[] = replacements.map((r) => ({
    start: document.offsetAt(r.range.start),
    end: document.offsetAt(r.range.end),
    text: r.text,
  }));
  const editors = vscode.window.visibleTextEditors.filter((e) => e.document === document);
  const saved = editors.map((e) =>
    e.selections.map((s) => [document.offsetAt(s.anchor), document.offsetAt(s.active)] as const),
  );
  let applied: boolean;
  if (editors.length > 0) {
    applied = await editors[0].edit(
      (builder) => replacements.forEach((r) => builder.replace(r.range, r.text)),
      stops,
    );
  } else {
    const edit = new vscode.WorkspaceEdit();
    replacements.forEach((r) => edit.replace(document.uri, r.range, r.text));
    applied = await vscode.workspace.applyEdit(edit);
  }
  if (applied) {
    editors.forEach((editor, i) => {
      if (!touchesAny(saved[i].flat(), offsets)) {
        return; // VS Code moved these cursors with the text already
      }
      editor.selections = saved[i].map(
        ([anchor, active]) =>
          new vscode.Selection(
            document.positionAt(mapOffset(anchor, offsets)),
            document.positionAt(mapOffset(active, offsets)),
          ),
      );
    });
  }
  return applied;
}

/** Handle one `workspace/applyEdit` from the agent-doc server. */
export async function applyAgentEdit(
  client: LanguageClient,
  params: ApplyWorkspaceEditParams,
  starts: StreamStarts,
): Promise<ApplyWorkspaceEditResult> {
  const items = documentEdits(client, params);
  if (typeof items === "string") {
    return { applied: false, failureReason: items };
  }
  for (const item of items) {
    const document = openDocument(item.uri);
    if (!document) {
      return { applied: false, failureReason: `${item.uri.toString()} is not open` };
    }
    if (item.version !== undefined && item.version !== null && document.version !== item.version) {
      return { applied: false, failureReason: `document is at version ${document.version}, the edit is for ${item.version}` };
    }
    if (starts.busy.has(document.uri.toString())) {
      return { applied: false, failureReason: "agent-doc is regrouping the undo steps of the last answer" };
    }
  }
  const stream = streamOf(params.label);
  for (const item of items) {
    const document = openDocument(item.uri);
    const before = document?.getText() ?? "";
    // Consecutive edits of one stream with nothing in between share one undo
    // step (left open: the person's next keystroke closes it).
    const stops =
      stream === undefined
        ? OWN_STEP
        : { undoStopBefore: !starts.continues(stream, item.uri, document?.version), undoStopAfter: false };
    starts.applying.add(item.uri.toString());
    let applied: boolean;
    try {
      applied = await applyToDocument(client, item, stops);
    } finally {
      starts.applying.delete(item.uri.toString());
    }
    if (!applied) {
      return { applied: false, failureReason: "the document changed while the edit was applied" };
    }
    if (stream !== undefined) {
      starts.applied(stream, item.uri, before, openDocument(item.uri)?.version);
    }
  }
  return { applied: true };
}

/** Install the handler now (the client must be running). */
export function installAgentEditHandler(client: LanguageClient, starts: StreamStarts): vscode.Disposable {
  return client.onRequest(ApplyWorkspaceEditRequest.type, (params) => applyAgentEdit(client, params, starts));
}
