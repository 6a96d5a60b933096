// Issue 20 in the real extension host: "will be sent" hints and the Submit
// count, the per-turn lenses (Diff this turn opens the diff, Revert this turn
// removes the answer in one undoable edit) and the Sessions tree view.
// Setup (tests/editors/test_vscode_conversation_state.py): doc.md has one agent
// turn written and committed by the real CLI before VS Code starts.
"use strict";
const vscode = require("vscode");
const { params, Checks, waitFor, probe, assert, log } = require("./lib");

const CLOSE = "<!-- /agent:exchange -->";
const ANSWER_LINE = "Ship it on Friday.";

async function lenses(uri) {
  return ((await vscode.commands.executeCommand("vscode.executeCodeLensProvider", uri, 20)) ?? []).filter(
    (l) => l.command,
  );
}

function hints(uri, code) {
  return vscode.languages
    .getDiagnostics(uri)
    .filter((d) => d.severity === vscode.DiagnosticSeverity.Hint && String(d.code) === code);
}

async function typeLineBeforeClose(editor, text) {
  const line = editor.document.getText().split("\n").indexOf(CLOSE);
  const at = new vscode.Range(line, 0, line, 0);
  const shown = await vscode.window.showTextDocument(editor.document, { preview: false, selection: at });
  await vscode.commands.executeCommand("workbench.action.focusActiveEditorGroup");
  await waitFor(() => shown.selection.active.line === line, "the cursor above the close marker");
  await probe("type", { text, delay: 40 }); // real key events, human pace
  const lines = () => editor.document.getText().split("\n");
  await waitFor(() => lines().includes(text + CLOSE), "the typed text before the close marker");
  // A suggestion list that opened while typing would take the Enter (on a busy
  // machine it can still be open): a person sees it and dismisses it first.
  await vscode.commands.executeCommand("hideSuggestWidget");
  await probe("press", { key: "Enter" });
  await waitFor(() => lines().includes(text) && lines().includes(CLOSE), "Enter splitting the line").catch(
    (error) => {
      throw new Error(`${error.message}; line ${JSON.stringify(lines()[line])}`);
    },
  );
}

exports.run = async function run() {
  const checks = new Checks();
  try {
    const docUri = vscode.Uri.file(params.doc);
    const editor = await vscode.window.showTextDocument(docUri, { preview: false });
    const ext = vscode.extensions.getExtension("agent-doc.agent-doc");
    await waitFor(() => ext.isActive, "extension activation", 60000);
    await checks.check("unsent_hint_and_submit_count", async () => {
      await waitFor(async () => (await lenses(docUri)).length > 0, "the lenses", 60000);
      await typeLineBeforeClose(editor, "And the budget?");
      const [hint] = await waitFor(() => {
        const found = hints(docUri, "unsent");
        return found.length === 1 && found;
      }, "one unsent hint");
      const typed = editor.document.getText().split("\n").indexOf("And the budget?");
      assert(hint.range.start.line === typed, `hint on line ${hint.range.start.line}, typed ${typed}`);
      assert(hint.source === "agent-doc" && hint.message === "will be sent", JSON.stringify(hint));
      const title = "Submit · 1 change (+1 −0 lines)";
      await waitFor(async () => (await lenses(docUri)).some((l) => l.command.title === title), title);
      const shown = await waitFor(async () => {
        const rows = (await probe("dom")).codeLenses;
        return rows.some((r) => r.includes(title)) && rows;
      }, "the Submit count drawn above line 1");
      return { hint: hint.message, line: typed, lensRows: shown };
    });
    await checks.check("comment_is_private", async () => {
      await typeLineBeforeClose(editor, "<!-- ask about Q3 later -->");
      const [note] = await waitFor(() => {
        const found = hints(docUri, "private");
        return found.length === 1 && found;
      }, "a private hint");
      assert(note.message === "private, not sent", note.message);
      const titles = (await lenses(docUri)).map((l) => l.command.title);
      assert(titles.includes("Submit · 1 change (+1 −0 lines)"), titles.join(", "));
      return { message: note.message };
    });
    await checks.check("sessions_tree_view", async () => {
      await vscode.commands.executeCommand("agentDoc.sessionsView.focus");
      await vscode.commands.executeCommand("agentDoc.refreshSessions");
      let seen = {};
      const rows = await waitFor(async () => {
        seen = await probe("tree");
        const found = seen.rows;
        return found.some((r) => r.includes("doc.md")) && found.some((r) => r.includes("right.md")) && found;
      }, "the sessions in the tree view").catch((error) => {
        throw new Error(`${error.message}; seen ${JSON.stringify(seen)}`);
      });
      const doc = rows.find((r) => r.includes("doc.md"));
      assert(doc.includes("answered"), doc);
      assert(doc.includes("unsent"), doc);
      if (params.screenshot) {
        await probe("screenshot", { path: params.screenshot });
      }
      await vscode.window.showTextDocument(editor.document, { preview: false });
      return { rows };
    });
    await checks.check("diff_this_turn_opens_the_commit_diff", async () => {
      const lens = await waitFor(async () => (await lenses(docUri)).find((l) => l.command.title === "Diff this turn"),
        "the Diff this turn lens");
      const heading = editor.document.lineAt(lens.range.start.line).text;
      assert(heading === "### Re: the plan", heading);
      await vscode.commands.executeCommand(lens.command.command, ...(lens.command.arguments ?? []));
      const diff = await waitFor(() => vscode.window.visibleTextEditors.find((e) => e.document.fileName.endsWith(".diff")),
        "the diff document shown");
      const text = diff.document.getText();
      assert(text.includes("+### Re: the plan (HEAD)") && text.includes(`+${ANSWER_LINE}`), text);
      return { file: diff.document.fileName };
    });
    await checks.check("revert_this_turn_is_one_undoable_edit", async () => {
      const shown = await vscode.window.showTextDocument(editor.document, { preview: false });
      const lens = (await lenses(docUri)).find((l) => l.command.title === "Revert this turn");
      assert(lens, "no Revert this turn lens");
      await vscode.commands.executeCommand(lens.command.command, ...(lens.command.arguments ?? []));
      await waitFor(() => !shown.document.getText().includes(ANSWER_LINE), "the answer removed");
      const after = shown.document.getText();
      assert(after.includes("And the budget?"), "typed text lost");
      await vscode.commands.executeCommand("undo");
      await waitFor(() => shown.document.getText().includes(ANSWER_LINE), "undo brings the answer back");
      assert(shown.document.getText().includes("And the budget?"), "typed text lost by undo");
      return { dirty: shown.document.isDirty };
    });
  } catch (error) {
    log(`aborted: ${error && error.stack}`);
    checks.results._aborted = { ok: false, detail: String(error && error.stack) };
  } finally {
    checks.finish();
  }
};
