// extensionTestsPath module: typing like a person in VS Code while answers land
// (issue 12). For each trial from `params.trials`: reset the document, put the
// cursor at the end of the prompt line (Enter for a follow-up line), type real
// key events in Chromium at 10 characters a second, start a real
// `agent-doc write` while typing, then read back the buffer, the cursor, the
// time from the person's last keystroke to the answer, and what one Ctrl+Z does.
"use strict";
const vscode = require("vscode");
const fs = require("fs");
const path = require("path");
const { params, Checks, log, waitFor, run, probe, assert } = require("./lib");
const { symbolsOf } = require("./features");

/** The language server runs, has the document open and is registered. */
async function serverReady(uri) {
  const servers = path.join(params.project, ".agent-doc", "servers");
  await waitFor(
    async () => (await symbolsOf(uri)).length > 0 && fs.existsSync(servers) && fs.readdirSync(servers).length > 0,
    "the language server with the document open",
    60000,
  );
}

async function resetTo(editor, text) {
  const document = editor.document;
  const whole = new vscode.Range(0, 0, document.lineCount, 0);
  const ok = await editor.edit((b) => b.replace(whole, text), { undoStopBefore: true, undoStopAfter: true });
  assert(ok, "could not reset the document");
  await waitFor(() => document.getText() === text, "the reset text");
}

async function trial(editor, spec, changes) {
  const document = editor.document;
  await resetTo(editor, spec.base);
  const line = spec.base.split("\n").indexOf(spec.promptLine);
  const end = new vscode.Position(line, spec.promptLine.length);
  editor.selection = new vscode.Selection(end, end);
  await vscode.commands.executeCommand("workbench.action.focusActiveEditorGroup");
  if (spec.followUp) {
    await probe("press", { key: "Enter" });
  }
  await probe("type", { text: spec.typed.slice(0, spec.head), delay: 100 });
  const writing = run(params.agentDoc, ["write", params.doc, "--baseline-file", spec.baselinePath], {
    input: spec.response,
    cwd: params.project,
  });
  await probe("type", { text: spec.typed.slice(spec.head), delay: 100 });
  const res = await writing;
  assert(res.code === 0, `agent-doc write exited ${res.code}: ${res.stderr}`);
  assert(res.stderr.includes("(server"), `the write did not go to the editor: ${res.stderr}`);
  await waitFor(() => document.getText().includes(spec.answerMark), `the answer in the buffer (${res.stderr.trim()})`);
  const landedAt = changes.findIndex((c) => c.text.includes(spec.answerMark));
  const landed = changes[landedAt];
  const lastKey = changes.slice(0, landedAt).filter((c) => c.person).pop();
  const text = document.getText();
  // keys the person typed after the answer landed (a pause in their typing
  // let it in): Ctrl+Z then undoes those, not the answer
  const typedAfterAnswer = changes.slice(landedAt + 1).filter((c) => c.person).length;
  const cursor = editor.selection.active;
  await probe("press", { key: "Control+z" });
  // bounded, not fixed: a busy machine can take seconds to apply the undo
  await waitFor(() => document.getText() !== text, "one undo", 15000).catch(() => undefined);
  return {
    text,
    line: cursor.line,
    column: cursor.character,
    latencyMs: landed && lastKey ? Math.max(landed.at - lastKey.at, 0) : -1,
    undone: document.getText(),
    typedAfterAnswer,
  };
}

exports.run = async function run_() {
  const checks = new Checks();
  try {
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(params.doc));
    await serverReady(editor.document.uri);
    const changes = [];
    const listener = vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.document === editor.document && event.contentChanges.length) {
        const inserted = event.contentChanges.map((c) => c.text).join("");
        changes.push({ at: Date.now(), text: inserted, person: inserted.length <= 1 });
      }
    });
    for (const [n, spec] of params.trials.entries()) {
      changes.length = 0;
      await checks.check(`trial_${n}`, () => trial(editor, spec, changes));
    }
    listener.dispose();
  } catch (error) {
    log(`aborted: ${error && error.stack}`);
    checks.results._aborted = { ok: false, detail: String(error && error.stack) };
  } finally {
    checks.finish();
  }
};
