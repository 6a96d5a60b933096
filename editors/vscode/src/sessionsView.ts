/**
 * The "agent-doc Sessions" tree view (Explorer): every session document of the
 * workspace with its agent state, pane, last answer time and unsent changes,
 * from `agentDoc.sessions`; kept current by `agentDoc/status` notifications
 * and refreshed when a document is saved or the view's refresh button is used.
 * Clicking a row opens the document.
 */
import * as vscode from "vscode";

import { SessionRow, applyStatus, sessionDescription, sessionLabel, sessionRows } from "./sessionsLogic";

type Execute = (command: string, args: Record<string, unknown>) => Promise<unknown>;

export class SessionsProvider implements vscode.TreeDataProvider<SessionRow> {
  private rows: SessionRow[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly execute: Execute) {}

  /** Ask the server again. */
  async refresh(): Promise<void> {
    this.rows = sessionRows(await this.execute("agentDoc.sessions", {}));
    this.changed.fire();
  }

  /** Apply an `agentDoc/status` notification. */
  onStatus(params: unknown): void {
    if (applyStatus(this.rows, params)) {
      this.changed.fire();
    }
  }

  getChildren(element?: SessionRow): SessionRow[] {
    return element ? [] : this.rows;
  }

  getTreeItem(row: SessionRow): vscode.TreeItem {
    const item = new vscode.TreeItem(sessionLabel(row), vscode.TreeItemCollapsibleState.None);
    item.description = sessionDescription(row);
    item.tooltip = `${row.path}\n${row.agent}${row.detail ? ` — ${row.detail}` : ""}`;
    item.resourceUri = vscode.Uri.file(row.path);
    item.command = { command: "vscode.open", title: "Open", arguments: [vscode.Uri.file(row.path)] };
    item.contextValue = "agentDocSession";
    return item;
  }
}

/** Register the view and its refresh command; returns the provider. */
export function registerSessionsView(context: vscode.ExtensionContext, execute: Execute): SessionsProvider {
  const provider = new SessionsProvider(execute);
  context.subscriptions.push(
    vscode.window.registerTreeDataProvider("agentDoc.sessionsView", provider),
    vscode.commands.registerCommand("agentDoc.refreshSessions", () => provider.refresh()),
    vscode.workspace.onDidSaveTextDocument((document) => {
      if (document.languageId === "markdown") {
        void provider.refresh();
      }
    }),
  );
  return provider;
}
