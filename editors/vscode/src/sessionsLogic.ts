/**
 * Pure logic of the Sessions view (no `vscode` import, unit-tested with
 * `node --test`): rows of `agentDoc.sessions`, updated by `agentDoc/status`,
 * and how each row is labelled.
 */

/** One row of `agentDoc.sessions` (camelCase, as the server sends it). */
export interface SessionRow {
  uri: string;
  path: string;
  name: string;
  state: string;
  pane: string | null;
  agent: string;
  detail: string;
  lastAnswer: string | null;
  unsent: boolean;
  /** null: never sent (the whole document goes with the first submit). */
  unsentChanges: number | null;
  open: boolean;
}

const ICONS: Record<string, string> = {
  starting: "◌",
  running: "●",
  needs_input: "◐",
  stale: "◔",
  exited: "■",
  none: "○",
};

/** The rows of an `agentDoc.sessions` result (anything else: none). */
export function sessionRows(result: unknown): SessionRow[] {
  const rows = (result as { sessions?: unknown } | undefined)?.sessions;
  return Array.isArray(rows)
    ? rows.filter((r): r is SessionRow => typeof r?.uri === "string" && typeof r?.name === "string")
    : [];
}

/** Apply one `agentDoc/status` payload to the rows; true when a row changed. */
export function applyStatus(rows: SessionRow[], status: unknown): boolean {
  const item = status as { uri?: unknown; state?: unknown; pane?: unknown; detail?: unknown };
  let changed = false;
  for (const row of rows) {
    if (row.uri === item?.uri && typeof item.state === "string") {
      changed ||= row.state !== item.state || row.pane !== (item.pane ?? null);
      row.state = item.state;
      row.pane = typeof item.pane === "string" ? item.pane : null;
      row.detail = typeof item.detail === "string" ? item.detail : "";
    }
  }
  return changed;
}

/** Tree item label: state icon and file name, e.g. `◐ plan.md`. */
export function sessionLabel(row: SessionRow): string {
  return `${ICONS[row.state] ?? "●"} ${row.name}`;
}

/** Tree item description, e.g. `needs input in %4 · answered 13:02 · 2 unsent`. */
export function sessionDescription(row: SessionRow): string {
  let text = row.state.replace(/_/g, " ");
  if (row.pane) {
    text += ` in ${row.pane}`;
  }
  if (row.lastAnswer) {
    text += ` · answered ${row.lastAnswer.slice(11, 16)}`;
  }
  if (row.unsent) {
    text += row.unsentChanges === null ? " · not sent yet" : ` · ${row.unsentChanges} unsent`;
  }
  return text;
}
