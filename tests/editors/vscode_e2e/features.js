// Every feature of the installed agent-doc extension, in the real extension
// host: one named check per feature (see tests/editors/test_vscode_e2e.py for
// the setup: a git project with two session documents, a private tmux server
// whose pane runs the stand-in agent, the server started through a wrapper
// that logs each start).
"use strict";
const vscode = require("vscode");
const fs = require("fs");
const { params, Checks, waitFor, run, tmux, probe, assert, log } = require("./lib");

const EXTENSION_ID = "agent-doc.agent-doc";
const RESPONSE = "<!-- patch:exchange -->\nThe agent answers.\n<!-- /patch:exchange -->\n";
const CLOSE = "<!-- /agent:exchange -->";

function serverStarts() {
  if (!fs.existsSync(params.serverLog)) {
    return [];
  }
  return fs.readFileSync(params.serverLog, "utf8").trim().split("\n").filter(Boolean);
}

function flatten(symbols) {
  return symbols.flatMap((s) => [s, ...flatten(s.children ?? [])]);
}

async function symbolsOf(uri) {
  return flatten((await vscode.commands.executeCommand("vscode.executeDocumentSymbolProvider", uri)) ?? []);
}

async function lensTitles(uri) {
  const lenses = (await vscode.commands.executeCommand("vscode.executeCodeLensProvider", uri, 10)) ?? [];
  return lenses.filter((l) => l.command).map((l) => l.command.title);
}

function count(text, needle) {
  return text.split(needle).length - 1;
}

async function agentReceived(times) {
  return waitFor(async () => {
    const screen = await tmux.capture(params.agentPane);
    return count(screen, "done: ") >= times && screen;
  }, `${times} submission(s) handled by the agent`, 20000);
}

/** Real key events with the focus in the active (markdown) editor. */
async function pressInEditor(key) {
  await vscode.commands.executeCommand("workbench.action.focusActiveEditorGroup");
  await probe("press", { key });
}

async function statusBar() {
  return (await probe("dom")).statusbar.filter((s) => s.includes("agent:"));
}

async function basics(checks, ext, docUri) {
  await checks.check("vsix_is_the_installed_extension", async () => {
    assert(ext, `${EXTENSION_ID} is not installed`);
    assert(ext.extensionPath.startsWith(params.extensionsDir), `loaded from ${ext.extensionPath}`);
    assert(!ext.isActive, "active before any markdown document was opened");
    return { path: ext.extensionPath, version: ext.packageJSON.version };
  });
  await checks.check("activates_on_session_document", async () => {
    const document = await vscode.workspace.openTextDocument(docUri);
    await vscode.window.showTextDocument(document, { preview: false });
    await waitFor(() => ext.isActive, "extension activation", 60000);
    return { languageId: document.languageId };
  });
  await checks.check("server_starts_from_setting", async () => {
    const setting = vscode.workspace.getConfiguration("agentDoc").get("server.command");
    assert(setting === params.serverCommand, `agentDoc.server.command is ${setting}`);
    await waitFor(() => serverStarts().length === 1, "one server start logged by the wrapper");
    const args = params.serverArgs.join(" ");
    assert(serverStarts()[0].endsWith(` started ${args}`), `started as ${serverStarts()[0]}, args ${args}`);
    const logFile = params.serverArgs[1];
    await waitFor(() => fs.existsSync(logFile), "the file of the server's --log-file argument");
    return { command: setting, starts: serverStarts() };
  });
  await checks.check("document_symbols", async () => {
    const symbols = await waitFor(async () => {
      const found = await symbolsOf(docUri);
      return found.some((s) => s.name === "exchange") && found;
    }, "the exchange component in the outline");
    const exchange = symbols.find((s) => s.name === "exchange");
    assert(exchange.detail === "append", `exchange detail: ${exchange.detail}`);
    assert(symbols.some((s) => s.name === "frontmatter"), "no frontmatter symbol");
    return symbols.map((s) => s.name);
  });
  await checks.check("folding_ranges", async () => {
    const ranges = (await vscode.commands.executeCommand("vscode.executeFoldingRangeProvider", docUri)) ?? [];
    const spans = ranges.map((r) => [r.start, r.end]);
    assert(spans.some(([s, e]) => s === params.exchangeOpenLine && e >= params.exchangeOpenLine + 1), `no component fold in ${JSON.stringify(spans)}`);
    assert(spans.some(([s, e]) => s === 0 && e === 3), `no frontmatter fold in ${JSON.stringify(spans)}`);
    return spans;
  });
  await checks.check("code_lenses", async () => {
    const titles = await waitFor(async () => {
      const found = await lensTitles(docUri);
      return ["Submit", "Claim", "Commit", "Diff"].every((t) => found.some((f) => f === t || f.startsWith(`${t} · `))) && found;
    }, "Submit, Claim, Commit and Diff lenses");
    return titles;
  });
}

async function claimAndStatus(checks) {
  await checks.check("claim_pane_command", async () => {
    await pressInEditor("Control+Shift+Alt+C"); // agent-doc: Claim tmux pane
    await waitFor(async () => (await probe("dom")).quickInput.includes("(server decides)"), "the claim quick pick");
    await probe("press", { key: "Enter" });
    const claims = `${params.project}/.agent-doc/claims.log`;
    const logged = await waitFor(() => fs.existsSync(claims) && fs.readFileSync(claims, "utf8"), "claims.log");
    assert(logged.includes(params.agentPane), `claims.log: ${logged}`);
    return logged.trim();
  });
  await checks.check("status_bar_shows_agent_state", async () => {
    const items = await waitFor(async () => {
      const found = await statusBar();
      return found.some((s) => /agent: (idle|starting|running)/.test(s)) && found;
    }, "the agent state in the status bar");
    return items;
  });
  await checks.check("lens_row_shows_agent_pane", async () => {
    const rows = await waitFor(async () => {
      const found = (await probe("dom")).codeLenses;
      return found.some((r) => r.includes("Submit") && r.includes(params.agentPane)) && found;
    }, `the lens row naming pane ${params.agentPane}`);
    return rows;
  });
}

async function submit(checks, docUri) {
  await checks.check("run_command_reaches_agent", async () => {
    await vscode.commands.executeCommand("agentDoc.run");
    const screen = await agentReceived(1);
    assert(screen.includes("received: /agent-doc") && screen.includes("doc.md"), screen);
    return screen.trim().split("\n").slice(-3);
  });
  await checks.check("code_lens_command_runs", async () => {
    // A person clicks "Submit" in the lens row above the document.
    await probe("click_text", { selector: ".codelens-decoration a", label: "Submit" });
    const screen = await agentReceived(2);
    return { received: count(screen, "received: /agent-doc") };
  });
  await checks.check("keybinding_runs_submit", async () => {
    await vscode.window.showTextDocument(docUri, { preview: false });
    await pressInEditor("Control+Shift+Alt+A");
    const screen = await agentReceived(3);
    return { received: count(screen, "received: /agent-doc") };
  });
}

async function write(checks, editor) {
  await checks.check("write_lands_in_unsaved_buffer", async () => {
    const document = editor.document;
    const onDisk = fs.readFileSync(params.doc, "utf8");
    const line = document.getText().split("\n").indexOf(CLOSE);
    // A person types the follow-up: real key events in Chromium, 40 ms apart.
    editor.selection = new vscode.Selection(line, 0, line, 0);
    await vscode.commands.executeCommand("workbench.action.focusActiveEditorGroup");
    await probe("type", { text: "Unsaved follow-up.", delay: 40 });
    await probe("press", { key: "Enter" });
    await waitFor(() => document.getText().includes("Unsaved follow-up.\n" + CLOSE), "the typed line");
    assert(document.isDirty, "typing did not make the buffer dirty");
    await symbolsOf(document.uri); // a request: the client sends the pending didChange first
    const res = await run(params.agentDoc, ["write", "doc.md", "--origin", "test"], { input: RESPONSE, cwd: params.project });
    assert(res.code === 0, `agent-doc write exited ${res.code}: ${res.stderr}`);
    await waitFor(() => document.getText().includes("The agent answers."), "the answer in the buffer");
    const text = document.getText();
    assert(text.indexOf("Unsaved follow-up.") < text.indexOf("The agent answers."), text);
    assert(document.isDirty, "the buffer is not dirty any more");
    assert(fs.readFileSync(params.doc, "utf8") === onDisk, "the file on disk changed");
    const tab = (await probe("dom")).tabs.find((t) => t.label.startsWith("doc.md"));
    assert(tab && tab.dirty, `doc.md tab: ${JSON.stringify(tab)}`);
    if (params.screenshotPath) {
      await probe("screenshot", { path: params.screenshotPath });
    }
    return { tab };
  });
}

async function prompt(checks) {
  await checks.check("permission_prompt_answered_from_notification", async () => {
    await tmux.run("send-keys", "-t", params.agentPane, "ask", "Enter");
    const dom = await waitFor(async () => {
      const state = await probe("dom");
      return state.notifications.some((n) => n.includes("Do you want to proceed?")) && state;
    }, "the permission prompt as a notification", 20000);
    const toast = dom.notifications.find((n) => n.includes("Do you want to proceed?"));
    assert(toast.includes(params.agentPane), `toast without the pane: ${toast}`);
    const waiting = await waitFor(async () => {
      const items = await statusBar();
      return items.some((s) => s.includes("agent: needs input")) && items;
    }, "'needs input' in the status bar");
    await probe("click", { text: "Do you want to proceed?", label: "No" });
    const screen = await waitFor(async () => {
      const s = await tmux.capture(params.agentPane);
      return s.includes("answered:") && s;
    }, "the answer in the agent pane");
    assert(screen.includes("answered: 3 No"), screen);
    return { toast, statusWhileWaiting: waiting };
  });
}

module.exports = { pressInEditor, basics, claimAndStatus, submit, write, prompt, serverStarts, symbolsOf, lensTitles, log };
