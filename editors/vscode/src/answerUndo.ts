/**
 * One undo step for an ACP answer streamed into the buffer.
 *
 * Every streamed edit of one answer arrives as `workspace/applyEdit` labelled
 * `agent-doc stream <id>` (`agentEdits.ts` applies it and calls
 * `StreamStarts.applied`, which remembers the text S0 right before the first
 * one). When the answer is final the server sends `agentDoc/answerLanded
 * {uri, version, stream, withoutAnswer}`. If the document is still at
 * `version` (T) and in the active editor, `regroup` waits until the person
 * has not typed for `QUIET_MS` (a key typed meanwhile: nothing is regrouped,
 * the answer stays a few undo steps), then:
 *   1. runs `undo` until the text is S0 (bounded; when S0 is never reached it
 *      runs `redo` back to T and gives up, leaving the text as it was);
 *   2. applies S0 → T without the answer (the person's typing during the
 *      stream) as one edit with undo stops; puts every visible editor's
 *      selections back (mapped onto that text); applies the answer as one
 *      more edit, which VS Code's own cursor tracking moves the cursors past
 *      (they are set again only where the answer went in right at one);
 *   3. restores every visible editor's scroll position.
 * Ctrl+Z then removes exactly the answer (and its `resume` line); a second
 * Ctrl+Z removes what the person typed during the stream.
 * If the person types in the middle anyway, their keystrokes are carried over
 * onto the final text (`carryOver`), so nothing typed is ever lost.
 * `undo`/`redo` act on the focused text input: with the focus in another
 * input (find widget, terminal) they change nothing here and `regroup` gives
 * up after 300 ms (that input may have undone one step of its own).
 */
import * as vscode from "vscode";
import { LanguageClient, TextEdit } from "vscode-languageclient/node";

import { SeenChange, applyOffsetEdits, carryOver, inverseEdits, mapThrough, minimalEdit } from "./answerText";
import { OffsetEdit, mapOffset, touchesAny } from "./logic";

/** `agentDoc/answerLanded` parameters. */
export interface AnswerLanded {
  uri: string;
  version: number;
  stream: string;
  withoutAnswer: TextEdit[];
}

/** What `regroup` did: `grouped` true when the answer is now one undo step. */
export interface LandedOutcome {
  uri: string;
  stream: string;
  grouped: boolean;
  reason: string;
  /** `undo`/`redo` commands run. */
  steps: number;
  /** Time the regrouping took, in ms. */
  ms: number;
}

interface StreamStart {
  uri: string;
  text: string;
  edits: number;
  /** The document's version right after the stream's latest edit. */
  version: number | undefined;
}

const MAX_STREAMS = 32;

/**
 * Regroup only after this long without the person's typing: `undo` moves the
 * cursor, so a key pressed while the history is rewritten would land where
 * the undo put it. Someone still typing when the answer lands keeps typing
 * into the document instead, and the answer stays a few undo steps.
 */
export const QUIET_MS = 1000;

/** The text before each stream's first edit, and documents being regrouped. */
export class StreamStarts {
  private readonly starts = new Map<string, StreamStart>();
  /** URIs whose undo history is being rewritten: agent edits wait. */
  readonly busy = new Set<string>();
  /** URIs an agent edit is being applied to (their changes are not typing). */
  readonly applying = new Set<string>();
  /** When the person last changed each document (`Date.now()`). */
  private readonly typedAt = new Map<string, number>();

  /** Note a change of a document: the person's, unless an agent edit or a regrouping is under way. */
  noteChange(event: vscode.TextDocumentChangeEvent): void {
    const uri = event.document.uri.toString();
    if (event.contentChanges.length > 0 && !this.applying.has(uri) && !this.busy.has(uri)) {
      this.typedAt.set(uri, Date.now());
    }
  }

  /** Milliseconds since the person last changed `uri` (Infinity: never). */
  sinceTyping(uri: string): number {
    const at = this.typedAt.get(uri);
    return at === undefined ? Infinity : Date.now() - at;
  }

  /** True when the document is still at the version `stream`'s latest edit left. */
  continues(stream: string, uri: vscode.Uri, version: number | undefined): boolean {
    const start = this.starts.get(stream);
    return start !== undefined && start.uri === uri.toString() && version !== undefined && start.version === version;
  }

  /** A streamed edit of `stream` landed on `uri`, whose text was `before`; it is now at `version`. */
  applied(stream: string, uri: vscode.Uri, before: string, version: number | undefined): void {
    const start = this.starts.get(stream);
    if (start) {
      start.edits += 1;
      start.version = version;
      return;
    }
    this.starts.set(stream, { uri: uri.toString(), text: before, edits: 1, version });
    if (this.starts.size > MAX_STREAMS) {
      this.starts.delete(this.starts.keys().next().value as string);
    }
  }

  /** Forget `stream` and return where it started. */
  take(stream: string): StreamStart | undefined {
    const start = this.starts.get(stream);
    this.starts.delete(stream);
    return start;
  }

  /** Forget every stream of a closed document. */
  forget(uri: vscode.Uri): void {
    this.typedAt.delete(uri.toString());
    for (const [stream, start] of this.starts) {
      if (start.uri === uri.toString()) {
        this.starts.delete(stream);
      }
    }
  }
}

/** Records the document's changes while regrouping; `ours` tells ours from the person's. */
class ChangeLog {
  readonly foreign: SeenChange[] = [];
  private text: string;
  private readonly listener: vscode.Disposable;
  /** Texts our own plain edits produce (anything else without an undo/redo reason is typing). */
  expected = new Set<string>();
  /** `undo`/`redo` commands run so far. */
  steps = 0;

  constructor(private readonly document: vscode.TextDocument) {
    this.text = document.getText();
    this.listener = vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.document !== document || event.contentChanges.length === 0) {
        return;
      }
      const after = document.getText();
      const undoRedo =
        event.reason === vscode.TextDocumentChangeReason.Undo ||
        event.reason === vscode.TextDocumentChangeReason.Redo;
      if (!undoRedo && !this.expected.has(after)) {
        this.foreign.push({ before: this.text, after });
      }
      this.text = after;
    });
  }

  dispose(): void {
    this.listener.dispose();
  }
}

/** Resolves true at the document's next change, false after `ms`. */
function nextChange(document: vscode.TextDocument, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(false), ms);
    const listener = vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.document === document) {
        done(true);
      }
    });
    function done(result: boolean): void {
      clearTimeout(timer);
      listener.dispose();
      resolve(result);
    }
  });
}

/** Run `undo`/`redo` until the text is `goal`; false when it stops changing or after `limit` steps. */
async function stepTo(
  command: "undo" | "redo",
  document: vscode.TextDocument,
  goal: string,
  limit: number,
  log: ChangeLog,
): Promise<boolean> {
  for (let step = 0; step < limit && log.foreign.length === 0; step += 1) {
    if (document.getText() === goal) {
      return true;
    }
    const version = document.version;
    const change = nextChange(document, 300);
    log.steps += 1;
    await vscode.commands.executeCommand(command);
    if (document.version === version && !(await change)) {
      return false; // the command did nothing here (the focus is in another input)
    }
  }
  return document.getText() === goal && log.foreign.length === 0;
}

/** Apply `edits` to the text `base` (one undo step), giving `result`; false when the text moved. */
async function replaceWith(
  editor: vscode.TextEditor,
  edits: OffsetEdit[],
  base: string,
  result: string,
  log: ChangeLog,
): Promise<boolean> {
  const document = editor.document;
  if (log.foreign.length > 0 || document.getText() !== base) {
    return false;
  }
  if (edits.length === 0) {
    return true;
  }
  const ranges = edits.map((e) => new vscode.Range(document.positionAt(e.start), document.positionAt(e.end)));
  log.expected.add(result);
  return editor.edit(
    (builder) => edits.forEach((e, i) => builder.replace(ranges[i], e.text)),
    { undoStopBefore: true, undoStopAfter: true },
  );
}

interface View {
  editor: vscode.TextEditor;
  selections: (readonly [number, number])[];
  visible: vscode.Range | undefined;
}

function saveViews(document: vscode.TextDocument): View[] {
  return vscode.window.visibleTextEditors
    .filter((e) => e.document === document)
    .map((editor) => ({
      editor,
      selections: editor.selections.map((s) => [document.offsetAt(s.anchor), document.offsetAt(s.active)] as const),
      visible: editor.visibleRanges[0],
    }));
}

/** Put back each view's selections, mapped by `map`, and (with `reveal`) its scroll position. */
function restoreViews(views: View[], map: (offset: number) => number, reveal = true): void {
  for (const { editor, selections, visible } of views) {
    const document = editor.document;
    editor.selections = selections.map(
      ([anchor, active]) => new vscode.Selection(document.positionAt(map(anchor)), document.positionAt(map(active))),
    );
    if (visible && reveal) {
      editor.revealRange(visible, vscode.TextEditorRevealType.AtTop);
    }
  }
}

/** Put back each view's scroll position. */
function revealViews(views: View[]): void {
  for (const { editor, visible } of views) {
    if (visible) {
      editor.revealRange(visible, vscode.TextEditorRevealType.AtTop);
    }
  }
}

/** True when an edit of `edits` (offsets of the text without the answer) touches a saved selection. */
function touched(views: View[], removal: OffsetEdit[], edits: OffsetEdit[]): boolean {
  const offsets = views.flatMap((view) => view.selections.flat().map((offset) => mapOffset(offset, removal)));
  return touchesAny(offsets, edits);
}

/** Make a landed answer one undo step (see the module docstring). */
export async function regroup(
  client: LanguageClient,
  starts: StreamStarts,
  params: AnswerLanded,
): Promise<LandedOutcome> {
  const uri = client.protocol2CodeConverter.asUri(params.uri);
  const began = Date.now();
  let log: ChangeLog | undefined;
  const outcome = (grouped: boolean, reason: string): LandedOutcome => ({
    uri: params.uri,
    stream: params.stream,
    grouped,
    reason,
    steps: log?.steps ?? 0,
    ms: Date.now() - began,
  });
  const start = starts.take(params.stream);
  const editor = vscode.window.activeTextEditor;
  const document = editor?.document;
  if (!start || !editor || !document || document.uri.toString() !== uri.toString()) {
    return outcome(false, start ? "not in the active editor" : "no streamed edit of this answer was seen");
  }
  const pause = QUIET_MS - starts.sinceTyping(start.uri);
  if (pause > 0 && document.version === params.version && (await nextChange(document, pause))) {
    return outcome(false, `the person kept typing (no pause of ${QUIET_MS} ms after the answer landed)`);
  }
  if (document.version !== params.version || starts.busy.has(start.uri)) {
    return outcome(false, `the document moved on (version ${document.version}, the answer landed at ${params.version})`);
  }
  if (vscode.window.activeTextEditor !== editor) {
    return outcome(false, "not in the active editor");
  }
  const final = document.getText();
  const removal = params.withoutAnswer.map((e) => ({
    start: document.offsetAt(client.protocol2CodeConverter.asPosition(e.range.start)),
    end: document.offsetAt(client.protocol2CodeConverter.asPosition(e.range.end)),
    text: e.newText,
  }));
  const withoutAnswer = applyOffsetEdits(final, removal);
  if (withoutAnswer === final) {
    return outcome(false, "the answer is empty");
  }
  starts.busy.add(start.uri);
  const views = saveViews(document);
  log = new ChangeLog(document);
  try {
    return await rewrite(editor, start, final, withoutAnswer, removal, log, views, outcome);
  } finally {
    log.dispose();
    starts.busy.delete(start.uri);
  }
}

async function rewrite(
  editor: vscode.TextEditor,
  start: StreamStart,
  final: string,
  withoutAnswer: string,
  removal: OffsetEdit[],
  log: ChangeLog,
  views: View[],
  outcome: (grouped: boolean, reason: string) => LandedOutcome,
): Promise<LandedOutcome> {
  const answer = inverseEdits(final, removal);
  if (applyOffsetEdits(withoutAnswer, answer) !== final) {
    return outcome(false, "the edits without the answer do not invert");
  }
  const limit = 4 * start.edits + 50;
  if (!(await stepTo("undo", editor.document, start.text, limit, log))) {
    return giveUp(editor, final, log, views, outcome, "the text before the stream is not in the undo history");
  }
  const typing = minimalEdit(start.text, withoutAnswer);
  // The cursors go back (as offsets of the text without the answer) before
  // the answer's edit: that edit is version-checked, so a key typed after the
  // cursors were put back makes it fail (and `giveUp` carries the key over)
  // instead of being dragged along when the cursors move after the answer.
  if (!(await replaceWith(editor, typing ? [typing] : [], start.text, withoutAnswer, log))) {
    return giveUp(editor, final, log, views, outcome, "the person typed while the undo steps were regrouped");
  }
  restoreViews(views, (offset) => mapOffset(offset, removal), false);
  if (!(await replaceWith(editor, answer, withoutAnswer, final, log))) {
    return giveUp(editor, final, log, views, outcome, "the person typed while the undo steps were regrouped");
  }
  if (touched(views, removal, answer)) {
    restoreViews(views, (offset) => offset); // the answer went in right at a cursor
  } else {
    revealViews(views);
  }
  return outcome(true, typing ? "answer and typing: one undo step each" : "answer: one undo step");
}

/** Leave the text as it was (plus anything typed meanwhile): redo, else one edit. */
async function giveUp(
  editor: vscode.TextEditor,
  final: string,
  log: ChangeLog,
  views: View[],
  outcome: (grouped: boolean, reason: string) => LandedOutcome,
  reason: string,
): Promise<LandedOutcome> {
  const document = editor.document;
  if (log.foreign.length === 0) {
    await stepTo("redo", document, final, 1000, log);
  }
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const target = carryOver(final, log.foreign);
    const rest = minimalEdit(document.getText(), target);
    if (!rest || (await putBack(editor, rest, target, log))) {
      break;
    }
  }
  const moved = minimalEdit(final, document.getText());
  restoreViews(views, (offset) => mapThrough(offset, moved));
  return outcome(false, reason);
}

/** One edit `rest` (version-checked: false when the person typed first). */
async function putBack(editor: vscode.TextEditor, rest: OffsetEdit, target: string, log: ChangeLog): Promise<boolean> {
  const document = editor.document;
  const range = new vscode.Range(document.positionAt(rest.start), document.positionAt(rest.end));
  log.expected.add(target);
  try {
    return await editor.edit((builder) => builder.replace(range, rest.text), { undoStopBefore: true, undoStopAfter: true });
  } catch {
    const edit = new vscode.WorkspaceEdit(); // the editor was closed meanwhile
    edit.replace(document.uri, range, rest.text);
    return vscode.workspace.applyEdit(edit);
  }
}
