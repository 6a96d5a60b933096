/**
 * Pure text arithmetic behind "one undo step for a streamed answer" (no
 * `vscode` import, unit-tested by `npm test`): applying and inverting offset
 * edits, the minimal edit between two texts, and carrying a person's
 * keystrokes over onto the final text when they typed in the middle of the
 * regrouping (see `answerUndo.ts`).
 */
import { OffsetEdit } from "./logic";

/** `text` with `edits` (disjoint, any order; offsets into `text`) applied. */
export function applyOffsetEdits(text: string, edits: OffsetEdit[]): string {
  let out = "";
  let at = 0;
  for (const edit of [...edits].sort((a, b) => a.start - b.start)) {
    out += text.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + text.slice(at);
}

/**
 * The edits that turn `applyOffsetEdits(text, edits)` back into `text`,
 * each as small as the edit it undoes (offsets into the edited text).
 */
export function inverseEdits(text: string, edits: OffsetEdit[]): OffsetEdit[] {
  let shift = 0;
  return [...edits]
    .sort((a, b) => a.start - b.start)
    .map((edit) => {
      const start = edit.start + shift;
      shift += edit.text.length - (edit.end - edit.start);
      return { start, end: start + edit.text.length, text: text.slice(edit.start, edit.end) };
    });
}

/** The one edit (common prefix and suffix kept) turning `from` into `to`; none when equal. */
export function minimalEdit(from: string, to: string): OffsetEdit | undefined {
  if (from === to) {
    return undefined;
  }
  let prefix = 0;
  const shorter = Math.min(from.length, to.length);
  while (prefix < shorter && from.charCodeAt(prefix) === to.charCodeAt(prefix)) {
    prefix += 1;
  }
  let suffix = 0;
  while (
    suffix < shorter - prefix &&
    from.charCodeAt(from.length - 1 - suffix) === to.charCodeAt(to.length - 1 - suffix)
  ) {
    suffix += 1;
  }
  return { start: prefix, end: from.length - suffix, text: to.slice(prefix, to.length - suffix) };
}

/**
 * Where `offset` goes when `edit` is applied: unchanged before it, shifted
 * after it; text inserted exactly at `offset` ends up before it (a cursor or a
 * keystroke there stays after what was put back); inside a replaced range: the
 * end of the replacement.
 */
export function mapThrough(offset: number, edit: OffsetEdit | undefined): number {
  if (!edit || offset < edit.start) {
    return offset;
  }
  const after = edit.start + edit.text.length;
  return offset >= edit.end ? offset + after - edit.end : after;
}

/** One change of the document seen while regrouping: the text before and after it. */
export interface SeenChange {
  before: string;
  after: string;
}

/**
 * `target` with the person's `changes` (made on intermediate texts) carried
 * over: each change is moved from the text it was made on onto the target
 * (through the minimal edit between the two), so nothing typed is lost.
 */
export function carryOver(target: string, changes: SeenChange[]): string {
  let result = target;
  for (const change of changes) {
    const typed = minimalEdit(change.before, change.after);
    if (!typed) {
      continue;
    }
    const moved = minimalEdit(change.before, result);
    const start = mapThrough(typed.start, moved);
    const end = Math.max(start, mapThrough(typed.end, moved));
    result = result.slice(0, start) + typed.text + result.slice(end);
  }
  return result;
}

/** The stream id of an `agent-doc stream <id>` edit label, else undefined. */
export function streamOf(label: string | undefined): string | undefined {
  const match = /^agent-doc stream (\S+)$/.exec(label ?? "");
  return match ? match[1] : undefined;
}
