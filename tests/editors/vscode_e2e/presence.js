// extensionTestsPath module: presence in a shared document, in real VS Code.
//
// The pytest side (test_vscode_presence.py) runs a real `agent-doc serve` on
// the project and sets `agentDoc.sync`. Here: the document opens and joins its
// room; a second peer, "bob" (tests/share/peer_process.py, its own process),
// joins and puts its cursor somewhere — VS Code draws it there with bob's name
// and counts him in the status bar; VS Code's own cursor reaches bob; bob is
// killed with SIGKILL — his cursor and count go within seconds (the server
// clears a dead socket's presence). Everything is read from the extension's
// own view (`activate`'s `presence()`: what the status item and the
// decorations hold) and from bob's reports, never from the server's logs.
"use strict";
const vscode = require("vscode");
const cp = require("child_process");
const { params, Checks, log, waitFor } = require("./lib");

/** Bob's peer process and the statuses it reports (one JSON line each). */
function startBob() {
  const child = cp.spawn(
    params.python,
    ["-m", "tests.share.peer_process", params.room, params.token, "bob"],
    { cwd: params.repo, stdio: ["pipe", "pipe", "pipe"] },
  );
  const bob = { child, reports: [], stderr: "" };
  let partial = "";
  child.stdout.on("data", (data) => {
    partial += data;
    const lines = partial.split("\n");
    partial = lines.pop();
    for (const line of lines.filter(Boolean)) {
      bob.reports.push(JSON.parse(line));
    }
  });
  child.stderr.on("data", (data) => (bob.stderr += data));
  return bob;
}

exports.run = async function run() {
  const checks = new Checks();
  let bob;
  try {
    const ext = vscode.extensions.getExtension("agent-doc.agent-doc");
    const uri = vscode.Uri.file(params.doc);
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    await waitFor(() => ext.isActive, "extension active", 60000);
    const view = () => ext.exports.presence();

    await checks.check("document_joins_its_room", async () => {
      const label = await waitFor(() => (view().label || "").includes("shared") && view().label, "status bar: shared", 30000);
      return label;
    });

    bob = startBob();
    await checks.check("other_peer_cursor_drawn_with_name", async () => {
      await waitFor(() => bob.reports.some((r) => r.label.startsWith("shared")), "bob in the room", 20000);
      bob.child.stdin.write("2 3\n");
      const mark = await waitFor(
        () => view().cursors.find((c) => c.name === "bob" && c.line === 2 && c.character === 3),
        "bob's cursor drawn at 2:3",
        20000,
      );
      const label = await waitFor(() => /1 peer/.test(view().label || "") && view().label, "status bar counts bob", 10000);
      return { mark, label };
    });

    await checks.check("own_cursor_reaches_other_peer", async () => {
      const at = new vscode.Position(1, 4);
      editor.selection = new vscode.Selection(at, at);
      const seen = await waitFor(
        () => {
          const last = bob.reports[bob.reports.length - 1];
          return last && last.presence.find((p) => p.kind === "editor" && p.cursor && p.cursor.line === 1 && p.cursor.character === 4);
        },
        "VS Code's cursor at 1:4 in bob's view",
        20000,
      );
      return seen;
    });

    await checks.check("killed_peer_disappears", async () => {
      const killed = Date.now();
      bob.child.kill("SIGKILL");
      await waitFor(() => view().cursors.length === 0 && !/1 peer/.test(view().label || ""), "bob gone", 10000);
      const ms = Date.now() - killed;
      if (ms > 2000) {
        throw new Error(`bob's cursor stayed ${ms} ms after kill -9 (goal: gone within 2 s)`);
      }
      return { ms, label: view().label };
    });
  } catch (error) {
    log(`aborted: ${error && error.stack}`);
    checks.results._aborted = { ok: false, detail: String(error && error.stack) };
  } finally {
    if (bob && bob.child.exitCode === null) {
      bob.child.kill("SIGKILL");
    }
    if (bob && bob.stderr) {
      log(`bob stderr: ${bob.stderr}`);
    }
    checks.finish();
  }
};
