// extensionTestsPath module of scripts/vscode_screenshot.py: open a session
// document, claim the agent's pane, let the agent write into the unsaved
// buffer and take a screenshot of the workbench (params.screenshotPath).
"use strict";
const vscode = require("vscode");
const { params, Checks, log } = require("./lib");
const features = require("./features");

exports.run = async function run() {
  const checks = new Checks();
  try {
    const ext = vscode.extensions.getExtension("agent-doc.agent-doc");
    await features.basics(checks, ext, vscode.Uri.file(params.doc));
    await features.claimAndStatus(checks);
    await features.write(checks, vscode.window.activeTextEditor);
  } catch (error) {
    log(`aborted: ${error && error.stack}`);
    checks.results._aborted = { ok: false, detail: String(error && error.stack) };
  } finally {
    checks.finish();
  }
};
