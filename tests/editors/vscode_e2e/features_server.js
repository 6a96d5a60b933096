// Checks of the server round trips that change the workbench or the server:
// commit + agentDoc/vcsRefresh, layout sync, settings, restart.
"use strict";
const vscode = require("vscode");
const { params, waitFor, run, tmux, assert } = require("./lib");
const { serverStarts, symbolsOf, lensTitles, pressInEditor } = require("./features");

async function gitHead() {
  const res = await run("git", ["-C", params.project, "rev-parse", "HEAD"]);
  return res.stdout.trim();
}

async function commit(checks, docUri) {
  await checks.check("commit_command_and_vcs_refresh", async () => {
    const git = vscode.extensions.getExtension("vscode.git");
    assert(git, "the built-in git extension is missing");
    const api = (await git.activate()).getAPI(1);
    const repo = await waitFor(() => api.repositories[0], "the git repository in the SCM view");
    await waitFor(() => repo.state.HEAD && repo.state.HEAD.commit, "the SCM view's HEAD");
    const before = await gitHead();
    assert(repo.state.HEAD.commit === before, `SCM HEAD ${repo.state.HEAD.commit} != ${before}`);
    await vscode.window.showTextDocument(docUri, { preview: false });
    await pressInEditor("Control+Shift+Alt+M"); // agent-doc: Commit document
    const after = await waitFor(async () => {
      const head = await gitHead();
      return head !== before && head;
    }, "a new commit");
    // git.autorefresh is off: only git.refresh (sent on agentDoc/vcsRefresh) updates the view.
    await waitFor(() => repo.state.HEAD.commit === after, "the SCM view to show the new commit");
    return { before, after };
  });
}

function sideBySide(panes, n = 2) {
  const byWindow = {};
  for (const p of panes) {
    (byWindow[p.window] ??= []).push(p);
  }
  return Object.values(byWindow).some((ps) =>
    ps.length === n && new Set(ps.map((p) => p.left)).size === n && new Set(ps.map((p) => p.top)).size === 1);
}

async function sync(checks, docUri) {
  await checks.check("sync_layout_command", async () => {
    const before = await tmux.livePanes();
    assert(!sideBySide(before), `already side by side: ${JSON.stringify(before)}`);
    const right = await vscode.workspace.openTextDocument(params.right);
    await vscode.window.showTextDocument(right, { viewColumn: vscode.ViewColumn.Two, preview: false });
    await vscode.window.showTextDocument(docUri, { viewColumn: vscode.ViewColumn.One, preview: false });
    await pressInEditor("Control+Shift+Alt+L"); // agent-doc: Sync tmux layout
    const panes = await waitFor(async () => {
      const now = await tmux.livePanes();
      return sideBySide(now) && now;
    }, "two agent panes side by side", 30000);
    return panes;
  });
  await checks.check("auto_sync_on_visible_editors", async () => {
    await vscode.workspace.getConfiguration("agentDoc").update("autoSync", true, vscode.ConfigurationTarget.Global);
    const third = await vscode.workspace.openTextDocument(params.third);
    await vscode.window.showTextDocument(third, { viewColumn: vscode.ViewColumn.Three, preview: false });
    const panes = await waitFor(async () => {
      const now = await tmux.livePanes();
      return sideBySide(now, 3) && now;
    }, "three agent panes side by side after opening a third column", 30000);
    return panes;
  });
}

async function settings(checks, docUri) {
  await checks.check("settings_reach_server", async () => {
    const config = () => vscode.workspace.getConfiguration("agentDoc");
    await config().update("codeLens", false, vscode.ConfigurationTarget.Global);
    const off = await waitFor(async () => {
      const titles = await lensTitles(docUri);
      return !titles.some((t) => t.startsWith("Submit")) && titles;
    }, "the lenses gone after agentDoc.codeLens = false");
    await config().update("codeLens", true, vscode.ConfigurationTarget.Global);
    const on = await waitFor(async () => {
      const titles = await lensTitles(docUri);
      return titles.some((t) => t.startsWith("Submit")) && titles;
    }, "the lenses back after agentDoc.codeLens = true");
    return { off, on };
  });
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function restart(checks, docUri) {
  await checks.check("restart_language_server", async () => {
    const starts = serverStarts();
    const oldPid = Number(starts[starts.length - 1].split(" ")[0]);
    assert(alive(oldPid), `server ${oldPid} is not running before the restart`);
    await vscode.commands.executeCommand("agentDoc.restartServer");
    await waitFor(() => serverStarts().length === starts.length + 1, "a new server start");
    await waitFor(() => !alive(oldPid), `the old server ${oldPid} to exit`);
    const symbols = await waitFor(async () => {
      const found = await symbolsOf(docUri);
      return found.some((s) => s.name === "exchange") && found;
    }, "symbols from the new server");
    return { oldPid, starts: serverStarts(), symbols: symbols.length };
  });
}

module.exports = { commit, sync, settings, restart };
