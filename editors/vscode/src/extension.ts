/**
 * agent-doc for VS Code: a thin client of `agent-doc-lsp`.
 *
 * Starts the server for markdown, maps Run/Claim/Sync/Commit to the server's
 * `agentDoc.*` commands (one object argument with `uri`), mirrors the visible
 * editors' columns in tmux (`agentDoc.sync`, debounced, one in flight), shows
 * `agentDoc/status` in the status bar and refreshes git on `agentDoc/vcsRefresh`.
 * The agent's edits are applied by `agentEdits.ts` (cursor kept with the
 * person's text, one undo step, stale versions rejected). A crashed server is
 * restarted by vscode-languageclient (at most `maxRestartCount` times in three
 * minutes) and the open documents are re-sent. Permission prompts arrive as
 * `window/showMessageRequest`.
 *
 * ACP agents: Ask / Stop (`agentDoc.askAgent` / `agentDoc.stopAsking`: the
 * server's ids are taken by vscode-languageclient) map to the server's
 * `agentDoc.runAgent` / `agentDoc.stopAgent`; a streamed answer becomes one undo step on
 * `agentDoc/answerLanded` (`answerUndo.ts`). `activate` returns
 * `{ onAnswerLanded }`, an event telling what became of each landed answer.
 */
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from "vscode-languageclient/node";

import { installAgentEditHandler } from "./agentEdits";
import { AnswerLanded, LandedOutcome, StreamStarts, regroup } from "./answerUndo";

import {
  AgentStatus,
  SerialDebouncer,
  formatStatus,
  isSessionText,
  statusItems,
  syncArgs,
  syncKey,
} from "./logic";
import { PresenceView, ShareStatus, registerPresence } from "./presence";
import { registerOwnUndo } from "./shareUndo";
import { registerSessionsView } from "./sessionsView";

let client: LanguageClient | undefined;
const statuses = new Map<string, AgentStatus>();
let lastSyncKey: string | undefined;

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration("agentDoc");
}

function createClient(): LanguageClient {
  const command = config().get<string>("server.command", "agent-doc-lsp");
  const args = config().get<string[]>("server.args", []);
  const serverOptions: ServerOptions = { command, args };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "markdown" }],
    synchronize: { configurationSection: "agentDoc" },
    connectionOptions: { maxRestartCount: 4 },
  };
  return new LanguageClient("agentDoc", "agent-doc", serverOptions, clientOptions);
}

function protocolUri(document: vscode.TextDocument): string {
  return client ? client.code2ProtocolConverter.asUri(document.uri) : document.uri.toString();
}

async function execute(command: string, args: Record<string, unknown>): Promise<unknown> {
  if (!client) {
    void vscode.window.showWarningMessage("agent-doc: the language server is not running");
    return undefined;
  }
  try {
    return await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] });
  } catch (error) {
    void vscode.window.showErrorMessage(`agent-doc: ${command} failed: ${String(error)}`);
    return undefined;
  }
}

function activeMarkdown(): vscode.TextDocument | undefined {
  const document = vscode.window.activeTextEditor?.document;
  if (!document || document.languageId !== "markdown") {
    void vscode.window.showInformationMessage("agent-doc: open a markdown session document first");
    return undefined;
  }
  return document;
}

function documentCommand(serverCommand: string) {
  return async (): Promise<void> => {
    const document = activeMarkdown();
    if (document) {
      const result = await execute(serverCommand, { uri: protocolUri(document) });
      const message = (result as { message?: unknown } | undefined)?.message;
      if (typeof message === "string" && message !== "") {
        void vscode.window.setStatusBarMessage(`agent-doc: ${message}`, 5000);
      }
    }
  };
}

/** agent-doc: Ask the agent (ACP): the whole turn; the result says how it ended. */
async function askAgent(): Promise<unknown> {
  const document = activeMarkdown();
  if (!document) {
    return undefined;
  }
  const result = (await execute("agentDoc.runAgent", { uri: protocolUri(document) })) as
    | { agent?: string; interrupted?: boolean; noChanges?: boolean }
    | undefined;
  if (result) {
    const said = result.noChanges
      ? "no changes to send"
      : `${result.agent ?? "the agent"} ${result.interrupted ? "stopped (answer marked interrupted)" : "answered"}`;
    void vscode.window.setStatusBarMessage(`agent-doc: ${said}`, 5000);
  }
  return result;
}

async function claim(): Promise<void> {
  const document = activeMarkdown();
  if (!document) {
    return;
  }
  const picked = await vscode.window.showQuickPick(
    ["(server decides)", "left", "right", "top", "bottom"],
    { placeHolder: "Claim which tmux pane?" },
  );
  if (picked === undefined) {
    return;
  }
  const args: Record<string, unknown> = { uri: protocolUri(document) };
  if (picked !== "(server decides)") {
    args.position = picked;
  }
  await execute("agentDoc.claim", args);
}

async function sync(force: boolean): Promise<void> {
  const editors = vscode.window.visibleTextEditors.map((e) => ({
    uri: protocolUri(e.document),
    viewColumn: e.viewColumn,
    isSession:
      e.document.languageId === "markdown" &&
      e.document.uri.scheme === "file" &&
      isSessionText(e.document.getText(new vscode.Range(0, 0, 60, 0))),
  }));
  const active = vscode.window.activeTextEditor;
  const args = syncArgs(editors, active ? protocolUri(active.document) : undefined);
  if (!args) {
    return;
  }
  const key = syncKey(args);
  if (!force && key === lastSyncKey) {
    return;
  }
  const result = await execute("agentDoc.sync", { ...args });
  if (result !== undefined) {
    lastSyncKey = key;
  }
}

/** What `activate` returns to other extensions (and the tests). */
export interface AgentDocApi {
  /** Fires after each `agentDoc/answerLanded`: was the answer made one undo step? */
  onAnswerLanded: vscode.Event<LandedOutcome>;
  /** What the presence view shows now in shared documents (status text, others' cursors). */
  presence: () => PresenceView;
}

export async function activate(context: vscode.ExtensionContext): Promise<AgentDocApi> {
  const statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  context.subscriptions.push(statusItem);
  const showStatus = (): void => {
    const document = vscode.window.activeTextEditor?.document;
    const { text, tooltip } = formatStatus(document ? statuses.get(protocolUri(document)) : undefined);
    statusItem.text = text;
    statusItem.tooltip = tooltip;
    if (text) {
      statusItem.show();
    } else {
      statusItem.hide();
    }
  };

  const manualSync = new SerialDebouncer(() => sync(true), 0);
  const autoSync = new SerialDebouncer(() => sync(false), 500);
  context.subscriptions.push({ dispose: () => autoSync.dispose() });

  client = createClient();
  const sessions = registerSessionsView(context, execute);
  client.onNotification("agentDoc/status", (params: unknown) => {
    sessions.onStatus(params);
    for (const item of statusItems(params)) {
      if (item.state === null || item.state === undefined) {
        statuses.delete(item.uri);
      } else {
        statuses.set(item.uri, item);
      }
    }
    showStatus();
  });
  const presence = registerPresence(context, () => client, protocolUri);
  const onOwnUndo = registerOwnUndo(context, () => client, protocolUri);
  client.onNotification("agentDoc/shareStatus", (params: ShareStatus) => {
    presence.onStatus(params);
    onOwnUndo(params);
  });
  client.onNotification("agentDoc/vcsRefresh", () => {
    void vscode.commands.executeCommand("git.refresh").then(undefined, () => undefined);
  });
  const starts = new StreamStarts();
  const landed = new vscode.EventEmitter<LandedOutcome>();
  const landing = client;
  client.onNotification("agentDoc/answerLanded", async (params: AnswerLanded) => {
    landed.fire(await regroup(landing, starts, params));
  });

  context.subscriptions.push(
    vscode.commands.registerCommand("agentDoc.run", documentCommand("agentDoc.route")),
    vscode.commands.registerCommand("agentDoc.claimPane", claim),
    vscode.commands.registerCommand("agentDoc.syncLayout", () => manualSync.fire()),
    vscode.commands.registerCommand("agentDoc.commitDocument", documentCommand("agentDoc.commit")),
    vscode.commands.registerCommand("agentDoc.askAgent", askAgent),
    vscode.commands.registerCommand("agentDoc.stopAsking", documentCommand("agentDoc.stopAgent")),
    vscode.workspace.onDidCloseTextDocument((document) => starts.forget(document.uri)),
    vscode.workspace.onDidChangeTextDocument((event) => starts.noteChange(event)),
    landed,
    vscode.commands.registerCommand("agentDoc.restartServer", async () => {
      await client?.restart();
    }),
    vscode.window.onDidChangeVisibleTextEditors(() => {
      if (config().get<boolean>("autoSync", true)) {
        autoSync.trigger();
      }
    }),
    vscode.window.onDidChangeActiveTextEditor(showStatus),
  );
  const running = client;
  let handler: vscode.Disposable | undefined;
  context.subscriptions.push(
    running.onDidChangeState((event) => {
      if (event.newState === State.Running) {
        handler?.dispose();
        handler = installAgentEditHandler(running, starts); // again after a restart
      }
    }),
    { dispose: () => handler?.dispose() },
  );
  await running.start();
  if (running.state === State.Running) {
    handler?.dispose();
    handler = installAgentEditHandler(running, starts);
  }
  await sessions.refresh();
  return { onAnswerLanded: landed.event, presence: presence.view };
}

export async function deactivate(): Promise<void> {
  const running = client;
  client = undefined;
  await running?.stop();
}
