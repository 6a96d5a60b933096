// extensionTestsPath module: every feature check, in the order a person meets them.
"use strict";
const vscode = require("vscode");
const { params, Checks, log } = require("./lib");
const features = require("./features");
const server = require("./features_server");
const { acp } = require("./features_acp");

exports.run = async function run() {
  const checks = new Checks();
  try {
    const ext = vscode.extensions.getExtension("agent-doc.agent-doc");
    const docUri = vscode.Uri.file(params.doc);
    await features.basics(checks, ext, docUri);
    await features.claimAndStatus(checks);
    await features.submit(checks, docUri);
    await features.write(checks, vscode.window.activeTextEditor);
    await features.prompt(checks);
    await server.commit(checks, docUri);
    await server.sync(checks, docUri);
    await server.settings(checks, docUri);
    await server.restart(checks, docUri);
    await acp(checks);
  } catch (error) {
    log(`aborted: ${error && error.stack}`);
    checks.results._aborted = { ok: false, detail: String(error && error.stack) };
  } finally {
    checks.finish();
  }
};
