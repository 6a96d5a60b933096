/**
 * Pure logic of the extension (no `vscode` import, unit-tested with `node --test`):
 * editor columns → `agentDoc.sync` arguments, agent status formatting, and a
 * debounced, serialized runner (one command in flight at a time).
 */

/** A visible editor, reduced to what layout sync needs. */
export interface VisibleEditor {
  /** Protocol URI of the document (as the server knows it). */
  uri: string;
  /** VS Code view column (1 = leftmost); undefined for non-column editors. */
  viewColumn: number | undefined;
  /** Whether the document is a markdown session document. */
  isSession: boolean;
}

/** The single argument of `agentDoc.sync`. */
export interface SyncArgs {
  uri: string;
  columns: string[][];
  focus: string;
  window?: string;
}

/** Whether `text` starts with frontmatter holding `agent_doc_session:`. */
export function isSessionText(text: string): boolean {
  const lines = text.split(/\r?\n/, 60);
  if (lines[0]?.replace(/^\uFEFF/, "") !== "---") {
    return false;
  }
  for (const line of lines.slice(1)) {
    if (line === "---" || line === "...") {
      return false;
    }
    if (/^agent_doc_session:\s*\S/.test(line)) {
      return true;
    }
  }
  return false;
}

/**
 * Group visible session editors into columns, left → right by view column,
 * editors of one column in the given order; each URI once; empty columns dropped.
 */
export function columnsOf(editors: VisibleEditor[]): string[][] {
  const byColumn = new Map<number, string[]>();
  const seen = new Set<string>();
  for (const editor of editors) {
    if (!editor.isSession || editor.viewColumn === undefined || seen.has(editor.uri)) {
      continue;
    }
    seen.add(editor.uri);
    const column = byColumn.get(editor.viewColumn) ?? [];
    column.push(editor.uri);
    byColumn.set(editor.viewColumn, column);
  }
  return [...byColumn.keys()].sort((a, b) => a - b).map((k) => byColumn.get(k)!);
}

/** Build the `agentDoc.sync` argument; `undefined` when no session document is visible. */
export function syncArgs(
  editors: VisibleEditor[],
  active: string | undefined,
  window?: string,
): SyncArgs | undefined {
  const columns = columnsOf(editors);
  if (columns.length === 0) {
    return undefined;
  }
  const all = columns.flat();
  const focus = active !== undefined && all.includes(active) ? active : all[0];
  const args: SyncArgs = { uri: focus, columns, focus };
  if (window) {
    args.window = window;
  }
  return args;
}

/** A stable key of a sync argument (to skip re-sending an unchanged layout). */
export function syncKey(args: SyncArgs): string {
  return JSON.stringify([args.columns, args.focus, args.window ?? null]);
}

/** One document's agent state from an `agentDoc/status` notification. */
export interface AgentStatus {
  uri: string;
  state: string | null;
  pane?: string;
  exitCode?: number | null;
  message?: string;
  detail?: string;
}

const LABELS: Record<string, [string, string]> = {
  starting: ["$(loading~spin)", "starting"],
  running: ["$(sync~spin)", "running"],
  needs_input: ["$(bell)", "needs input"],
  stale: ["$(watch)", "stale"],
  exited: ["$(debug-stop)", "exited"],
  idle: ["$(check)", "idle"],
  none: ["$(circle-slash)", "no agent"],
};

/** Normalize `agentDoc/status` params: `{uri, state…}` or `{documents: […]}`. */
export function statusItems(params: unknown): AgentStatus[] {
  if (typeof params !== "object" || params === null) {
    return [];
  }
  const record = params as { documents?: unknown };
  const items = Array.isArray(record.documents) ? record.documents : [params];
  return items.filter(
    (i): i is AgentStatus =>
      typeof i === "object" && i !== null && typeof (i as AgentStatus).uri === "string",
  );
}

/** Status bar text and tooltip for one document's state ("" = hide). */
export function formatStatus(status: AgentStatus | undefined): { text: string; tooltip: string } {
  if (!status || status.state === null || status.state === undefined) {
    return { text: "", tooltip: "" };
  }
  const [icon, label] = LABELS[status.state] ?? ["$(circle-outline)", status.state.replace(/_/g, " ")];
  let text = `${icon} agent: ${label}`;
  if (status.state === "exited" && typeof status.exitCode === "number") {
    text += ` (${status.exitCode})`;
  }
  const tooltip = [`agent-doc: ${label}`, status.pane ? `pane ${status.pane}` : "", status.detail ?? status.message ?? ""]
    .filter((s) => s !== "")
    .join(" · ");
  return { text, tooltip };
}

/** Timer functions, injectable for tests. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/**
 * Runs `task` `delayMs` after the last `trigger()`, never two at once: a trigger
 * while a run is in flight schedules exactly one more run after it finishes.
 */
export class SerialDebouncer {
  private timer: unknown = undefined;
  private running = false;
  private again = false;

  constructor(
    private readonly task: () => Promise<void>,
    private readonly delayMs: number,
    private readonly timers: Timers = realTimers,
  ) {}

  /** Whether a run is in flight. */
  get busy(): boolean {
    return this.running;
  }

  /** (Re)start the debounce delay. */
  trigger(): void {
    if (this.timer !== undefined) {
      this.timers.clearTimeout(this.timer);
    }
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      void this.fire();
    }, this.delayMs);
  }

  /** Run now (or right after the run in flight). */
  async fire(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      await this.task();
    } catch {
      // the task reports its own errors
    } finally {
      this.running = false;
    }
    if (this.again) {
      this.again = false;
      await this.fire();
    }
  }

  /** Cancel a pending run. */
  dispose(): void {
    if (this.timer !== undefined) {
      this.timers.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }
}

/** One replacement in a document, as UTF-16 offsets of the text before it. */
export interface OffsetEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * Where a cursor at `offset` belongs after `edits` (disjoint, any order) are
 * applied: it moves with the text around it, and text inserted exactly at the
 * cursor goes AFTER it — the person's cursor stays at the end of their own
 * text when the agent's answer lands right there. A cursor inside a replaced
 * range goes to the start of the replacement.
 */
export function mapOffset(offset: number, edits: OffsetEdit[]): number {
  let shift = 0;
  for (const edit of [...edits].sort((a, b) => a.start - b.start)) {
    const before = edit.end < offset || (edit.end === offset && edit.start < offset);
    if (before) {
      shift += edit.text.length - (edit.end - edit.start);
    } else if (edit.start < offset && offset < edit.end) {
      return edit.start + shift;
    } else {
      break;
    }
  }
  return offset + shift;
}

/**
 * True when an edit starts or ends at one of `offsets`, or covers one: only
 * there can VS Code put a cursor somewhere else than `mapOffset` does (it
 * moves a cursor past text inserted right at it). Elsewhere the editor moves
 * cursors with the text itself, atomically with the person's keystrokes.
 */
export function touchesAny(offsets: number[], edits: OffsetEdit[]): boolean {
  return edits.some((edit) => offsets.some((offset) => edit.start <= offset && offset <= edit.end));
}
