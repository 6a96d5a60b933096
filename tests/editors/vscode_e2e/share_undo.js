// extensionTestsPath module: Ctrl+Z in a shared document undoes the person's
// own text only (issue 29). VS Code's document is a peer of its room on a real
// `agent-doc serve`; the person types real key events in Chromium, the agent's
// answer comes from `agent-doc write --room` on a host that shares no files
// with VS Code; then Ctrl+Z (with the cursor moved away) and Ctrl+Shift+Z.
"use strict";
const vscode = require("vscode");
const fs = require("fs");
const { params, Checks, log, waitFor, run, probe, assert } = require("./lib");

const served = () => fs.readFileSync(params.servedDoc, "utf8");

exports.run = async function run_() {
  const checks = new Checks();
  try {
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(params.doc));
    const document = editor.document;
    const line = document.getText().split("\n").indexOf(params.promptLine);
    let typed = "";
    // joined once the server's status lens says so (typing before the join,
    // while the server still waits for its settings, is another matter)
    await waitFor(async () => {
      const lenses = (await vscode.commands.executeCommand("vscode.executeCodeLensProvider", document.uri)) || [];
      return lenses.some((l) => l.command && l.command.title.startsWith("shared"));
    }, "the document shared (its status lens)", 60000);
    await checks.check("typing_and_answer_reach_everyone", async () => {
      const end = new vscode.Position(line, params.promptLine.length);
      editor.selection = new vscode.Selection(end, end);
      await vscode.commands.executeCommand("workbench.action.focusActiveEditorGroup");
      await probe("type", { text: params.mine, delay: 80 });
      await waitFor(() => document.getText().includes(params.mine), `the words in the buffer: ${document.getText()}`, 10000);
      await waitFor(() => served().includes(params.mine), "the words in the room (its file)", 30000);
      const res = await run(params.agentDoc, ["write", "pair.md", "--room", params.room, "--token-file", params.tokenFile], {
        input: params.answer,
        cwd: params.agentHost,
      });
      assert(res.code === 0, `agent-doc write --room exited ${res.code}: ${res.stderr}`);
      await waitFor(() => document.getText().includes(params.answerMark), "the answer in the buffer", 30000);
      typed = document.getText();
      assert(typed.split(params.promptLine + params.mine).length === 2, `the words once: ${typed}`);
    });
    await checks.check("ctrl_z_undoes_only_the_persons_text", async () => {
      const top = new vscode.Position(0, 0);
      editor.selection = new vscode.Selection(top, top); // away from the words
      await probe("press", { key: "Control+z" });
      await waitFor(() => !document.getText().includes(params.mine), "the words undone", 20000);
      const undone = document.getText();
      assert(undone === typed.replace(params.mine, ""), `only the words went: ${undone}`);
      assert(undone.split(params.answerMark).length === 2, "the answer stays, once");
      // the selection reaches the extension host in its own message, after the text
      await waitFor(() => editor.selection.active.line === line,
        `the cursor where the words were (line ${editor.selection.active.line})`, 5000);
      const at = editor.selection.active;
      await waitFor(() => served() === undone, "the room (its file) undone", 20000);
      return { cursor: [at.line, at.character] };
    });
    await checks.check("ctrl_shift_z_redoes_it", async () => {
      await probe("press", { key: "Control+Shift+z" });
      await waitFor(() => document.getText().includes(params.mine), "the words redone", 20000);
      assert(document.getText() === typed, `redo gives back the same text: ${document.getText()}`);
      await waitFor(() => served() === typed, "the room (its file) redone", 20000);
    });
  } catch (error) {
    log(`aborted: ${error && error.stack}`);
    checks.results._aborted = { ok: false, detail: String(error && error.stack) };
  } finally {
    checks.finish();
  }
};
