// Presence in shared documents (`agentDoc.sync`, docs/sharing.md).
//
// `agentDoc/shareStatus {uri, state, label, writing, presence}` is kept per
// document: the label ("shared · 2 peers · agent writing") is shown in the
// status bar, and each other peer's cursor is decorated with its name. The
// person's cursor goes out as `agentDoc/cursor {uri, position}` when the
// selection changes (at most every 100 ms), only for shared documents.
import * as vscode from "vscode";
import { LanguageClient, State } from "vscode-languageclient/node";

/** One other peer of a shared document. */
export interface SharePeer {
  id: number;
  name: string;
  kind: string;
  cursor: { line: number; character: number } | null;
  writing: boolean;
}

/** The `agentDoc/shareStatus` params. */
export interface ShareStatus {
  uri: string;
  state: string;
  label: string;
  writing?: boolean;
  presence?: SharePeer[];
  /** The server undoes this document's undo keys (see shareUndo.ts). */
  ownUndo?: boolean;
}

const CURSOR_THROTTLE_MS = 100;

/** What the presence view shows now (the extension's API, for tests and other extensions). */
export interface PresenceView {
  /** The status bar text for the active editor's document, or undefined when hidden. */
  label: string | undefined;
  /** Each other peer's cursor drawn in a visible editor. */
  cursors: { uri: string; name: string; line: number; character: number }[];
}

/** The presence view's handlers: `onStatus` takes `agentDoc/shareStatus`. */
export interface Presence {
  onStatus: (params: ShareStatus) => void;
  view: () => PresenceView;
}

/** Register the presence view; returns its `agentDoc/shareStatus` handler and its state. */
export function registerPresence(
  context: vscode.ExtensionContext,
  client: () => LanguageClient | undefined,
  protocolUri: (document: vscode.TextDocument) => string,
): Presence {
  const shares = new Map<string, ShareStatus>();
  const drawn = new Map<vscode.TextEditor, PresenceView["cursors"]>();
  const item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 49);
  const peerCursor = vscode.window.createTextEditorDecorationType({
    borderStyle: "solid",
    borderWidth: "0 0 0 2px",
    borderColor: new vscode.ThemeColor("editorCursor.foreground"),
    after: { color: new vscode.ThemeColor("editorCodeLens.foreground"), margin: "0 0 0 0.5em" },
  });
  let timer: NodeJS.Timeout | undefined;
  let lastSent = "";
  let shown = false;

  const draw = (editor: vscode.TextEditor): void => {
    const share = shares.get(protocolUri(editor.document));
    const marks: vscode.DecorationOptions[] = [];
    for (const peer of share?.state === "shared" ? share.presence ?? [] : []) {
      if (!peer.cursor) {
        continue;
      }
      const line = Math.min(peer.cursor.line, editor.document.lineCount - 1);
      const at = editor.document.validatePosition(new vscode.Position(line, peer.cursor.character));
      marks.push({
        range: new vscode.Range(at, at),
        hoverMessage: `${peer.name} (${peer.kind})`,
        renderOptions: { after: { contentText: peer.name } },
      });
    }
    editor.setDecorations(peerCursor, marks);
    const uri = editor.document.uri.toString();
    drawn.set(
      editor,
      marks.map((mark, i) => ({
        uri,
        name: String(mark.renderOptions?.after?.contentText ?? i),
        line: mark.range.start.line,
        character: mark.range.start.character,
      })),
    );
  };
  const showLabel = (): void => {
    const document = vscode.window.activeTextEditor?.document;
    const share = document ? shares.get(protocolUri(document)) : undefined;
    if (share) {
      item.text = `$(live-share) ${share.label}`;
      item.show();
    } else {
      item.hide();
    }
    shown = share !== undefined;
  };
  const sendCursor = (editor: vscode.TextEditor): void => {
    const running = client();
    const uri = protocolUri(editor.document);
    if (!running || running.state !== State.Running || !shares.has(uri)) {
      return;
    }
    const position = running.code2ProtocolConverter.asPosition(editor.selection.active);
    const key = `${uri}:${position.line}:${position.character}`;
    if (key !== lastSent) {
      lastSent = key;
      void running.sendNotification("agentDoc/cursor", { uri, position });
    }
  };

  context.subscriptions.push(
    item,
    peerCursor,
    { dispose: () => timer && clearTimeout(timer) },
    vscode.window.onDidChangeTextEditorSelection((event) => {
      if (timer) {
        return; // the trailing send picks up the latest position
      }
      sendCursor(event.textEditor);
      timer = setTimeout(() => {
        timer = undefined;
        const editor = vscode.window.activeTextEditor;
        if (editor) {
          sendCursor(editor);
        }
      }, CURSOR_THROTTLE_MS);
    }),
    vscode.window.onDidChangeActiveTextEditor(showLabel),
    vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach(draw)),
  );

  const onStatus = (params: ShareStatus): void => {
    if (!params || typeof params.uri !== "string") {
      return;
    }
    shares.set(params.uri, params);
    for (const editor of vscode.window.visibleTextEditors) {
      if (protocolUri(editor.document) === params.uri) {
        draw(editor);
      }
    }
    showLabel();
  };
  const view = (): PresenceView => {
    const visible = new Set(vscode.window.visibleTextEditors);
    const cursors = [...drawn].filter(([editor]) => visible.has(editor)).flatMap(([, marks]) => marks);
    return { label: item.text && shown ? item.text : undefined, cursors };
  };
  return { onStatus, view };
}
