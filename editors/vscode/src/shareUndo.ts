// Shared documents: Ctrl+Z / Ctrl+Shift+Z (Cmd on macOS) undo and redo the
// person's own changes only (docs/sharing.md).
//
// VS Code's undo stack also holds the text other peers and the agent wrote
// into a shared document (it arrived as workspace edits): its Ctrl+Z would
// remove it. `agentDoc/shareStatus` says `ownUndo` for a document once it is
// shared; the context key `agentDoc.ownUndo` is then true while its editor is
// active, and the keybindings run `agentDoc.sharedUndo` / `agentDoc.sharedRedo`:
// the server undoes the person's last change in the room's document (their text
// only) and brings the buffer to the result. When the server answers
// `{shared: false}` (no room, or not synced yet) the context key is cleared
// and VS Code's own undo runs.
import * as vscode from "vscode";
import { ExecuteCommandRequest, LanguageClient, State } from "vscode-languageclient/node";

/** The context key of the keybindings' `when` clause. */
export const OWN_UNDO_CONTEXT = "agentDoc.ownUndo";

/** The part of `agentDoc/shareStatus` this module reads. */
export interface OwnUndoStatus {
  uri: string;
  ownUndo?: boolean;
}

interface UndoResult {
  shared?: boolean;
  done?: boolean;
  /** Where the undone change was: the cursor goes there, as after VS Code's undo. */
  position?: { line: number; character: number };
}

/** Register the undo/redo commands; returns the `agentDoc/shareStatus` handler. */
export function registerOwnUndo(
  context: vscode.ExtensionContext,
  client: () => LanguageClient | undefined,
  protocolUri: (document: vscode.TextDocument) => string,
): (params: OwnUndoStatus) => void {
  const own = new Set<string>();

  const updateContext = (): void => {
    const document = vscode.window.activeTextEditor?.document;
    const on = document !== undefined && own.has(protocolUri(document));
    void vscode.commands.executeCommand("setContext", OWN_UNDO_CONTEXT, on);
  };

  const run = (redo: boolean) => async (): Promise<void> => {
    const native = (): Thenable<unknown> => vscode.commands.executeCommand(redo ? "redo" : "undo");
    const document = vscode.window.activeTextEditor?.document;
    const running = client();
    if (!document || !running || running.state !== State.Running) {
      await native();
      return;
    }
    const command = redo ? "agentDoc.redo" : "agentDoc.undo";
    let result: UndoResult | undefined;
    try {
      // the client sends the document's pending changes before the request
      result = (await running.sendRequest(ExecuteCommandRequest.type, {
        command,
        arguments: [{ uri: protocolUri(document) }],
      })) as UndoResult | undefined;
    } catch (error) {
      void vscode.window.showErrorMessage(`agent-doc: ${command} failed: ${String(error)}`);
      return;
    }
    if (result?.shared === false) {
      own.delete(protocolUri(document)); // not shared (any more): the keys are VS Code's again
      updateContext();
      await native();
    } else if (result?.done === false) {
      const what = redo ? "redo" : "undo";
      vscode.window.setStatusBarMessage(`agent-doc: nothing of yours to ${what}`, 3000);
    } else if (result?.position) {
      const editor = vscode.window.activeTextEditor;
      if (editor && editor.document === document) {
        const at = running.protocol2CodeConverter.asPosition(result.position);
        editor.selection = new vscode.Selection(at, at);
        editor.revealRange(new vscode.Range(at, at));
      }
    }
  };

  context.subscriptions.push(
    vscode.commands.registerCommand("agentDoc.sharedUndo", run(false)),
    vscode.commands.registerCommand("agentDoc.sharedRedo", run(true)),
    vscode.window.onDidChangeActiveTextEditor(updateContext),
  );

  return (params: OwnUndoStatus): void => {
    if (!params || typeof params.uri !== "string") {
      return;
    }
    if (params.ownUndo === true) {
      own.add(params.uri);
    } else {
      own.delete(params.uri);
    }
    updateContext();
  };
}
