// ACP agents in the real VS Code (issue 19): a stand-in ACP agent
// (tests/data/acp_agent.py, configured as `agent: standin`, transport "acp")
// answers `acp.md`. The person asks with agent-doc: Ask the agent (ACP), keeps
// typing real key events at the end of the document while the answer streams
// into the exchange, and one Ctrl+Z removes exactly the answer (and its
// `resume` line). Then Stop, the server's errors as notifications, and the
// agent's permission question answered from a notification.
"use strict";
const vscode = require("vscode");
const fs = require("fs");
const { params, waitFor, probe, sleep, assert } = require("./lib");
const { symbolsOf } = require("./features");

// ~480 characters in chunks of 6 every 80 ms: the agent streams for about 6.5 s
const REPLY = "### Re: sum\n\n" + Array.from({ length: 70 }, (_, i) => `word${i}`).join(" ") + "\n\nIt is 4.";
// typed while it streams (about 4.5 s); the person is idle when the answer lands
const WORDS = ["my", "own", "note,"];
const CLOSE = "<!-- /agent:exchange -->";
const PAUSE_MS = 1200; // a person's pause after each word: streamed edits land in pauses

/** What the stand-in agent does on its next turn (it reads this file when started). */
function agentWill(settings) {
  fs.writeFileSync(params.acpSettings, JSON.stringify(settings));
}

/** acp.md in the active editor, with the keyboard focus; returns its (current) editor. */
async function focusAcp() {
  const editor = await vscode.window.showTextDocument(vscode.Uri.file(params.acpDoc), { preview: false });
  await vscode.commands.executeCommand("workbench.action.focusActiveEditorGroup");
  return editor;
}

/** acp.md focused, the cursor at its end (set while opening: the editor restores its view state). */
async function atEnd() {
  const document = await vscode.workspace.openTextDocument(vscode.Uri.file(params.acpDoc));
  const end = document.positionAt(document.getText().length);
  const editor = await vscode.window.showTextDocument(document, { preview: false, selection: new vscode.Range(end, end) });
  await vscode.commands.executeCommand("workbench.action.focusActiveEditorGroup");
  await waitFor(() => editor.selection.active.isEqual(end), "the cursor at the end of acp.md", 5000, 20);
  return editor;
}

async function notification(needle, what) {
  return waitFor(async () => (await probe("dom")).notifications.find((n) => n.includes(needle)), what, 30000);
}

/** Press a key in the editor and wait until the text changes (bounded). */
async function pressAndWait(key) {
  const { document } = await focusAcp();
  const before = document.getText();
  await probe("press", { key });
  await waitFor(() => document.getText() !== before, `a text change after ${key}`, 5000, 20);
  return document.getText();
}

async function streamWhileTyping(landed) {
  agentWill({ ACP_AGENT_REPLY: REPLY, ACP_AGENT_CHUNK: "6", ACP_AGENT_DELAY: "0.08" });
  const editor = await atEnd();
  const document = editor.document;
  const original = document.getText();
  assert(original === fs.readFileSync(params.acpDoc, "utf8"), "acp.md differs from the file before the turn");
  const asking = Promise.resolve(vscode.commands.executeCommand("agentDoc.askAgent"));
  let settled = false;
  asking.then(() => (settled = true), () => (settled = true));
  await waitFor(() => document.getText().includes("### Re: sum"), "the first streamed chunk", 60000, 20);
  const began = Date.now();
  let typed = "";
  const seen = new Set();
  const timeline = [];
  for (const word of WORDS) {
    if (settled) {
      break;
    }
    const text = (typed ? " " : "") + word;
    await probe("type", { text, delay: 40 });
    typed += text;
    timeline.push(`typed ${JSON.stringify(text)} by ${Date.now() - began} ms`);
    seen.add(document.getText().split("word").length);
    await sleep(PAUSE_MS);
  }
  const result = await asking;
  timeline.push(`runAgent answered at ${Date.now() - began} ms`);
  assert(result && result.target === "server" && !result.interrupted, `runAgent: ${JSON.stringify(result)}`);
  const outcome = await waitFor(() => landed.find((o) => o.uri.endsWith("/acp.md")), "agentDoc/answerLanded handled");
  const text = document.getText();
  // the selection reaches the extension host in its own message, after the text
  await waitFor(() => document.offsetAt(editor.selection.active) === text.length, "the cursor at the end", 5000, 20).catch(() => undefined);
  const cursor = document.offsetAt(editor.selection.active);
  assert(outcome.grouped, `not one undo step: ${JSON.stringify(outcome)}; ${timeline}`);
  assert(typed.length > 2 && text.endsWith(`Notes:\n${typed}`), `typed ${JSON.stringify(typed)}, buffer ends ${JSON.stringify(text.slice(-80))}`);
  assert(text.split(REPLY).length === 2, `the answer is not in the buffer once: ${text}`);
  assert(text.indexOf("What is 2 + 2?") < text.indexOf(REPLY) && text.indexOf(REPLY) < text.indexOf(CLOSE), text);
  assert(text.includes(`resume: ${result.sessionId}`), `no resume line: ${text.slice(0, 200)}`);
  assert(cursor === text.length, `cursor at ${cursor}, the person's text ends at ${text.length}`);
  assert(seen.size >= 2 && result.edits >= 2, `the answer did not grow while typing (${[...seen]}, ${result.edits} edits)`);
  assert(fs.readFileSync(params.acpDoc, "utf8") === original, "the file on disk changed");
  // one Ctrl+Z: exactly the answer and its resume line go, the typing stays
  const undone = await pressAndWait("Control+z");
  assert(undone === original + typed, `after one undo: ${JSON.stringify(undone)}`);
  // a second Ctrl+Z: the typing during the stream
  const second = await pressAndWait("Control+z");
  assert(second === original, `after two undos: ${JSON.stringify(second)}`);
  await pressAndWait("Control+Shift+z");
  const redone = await pressAndWait("Control+Shift+z");
  assert(redone === text, "redo did not bring the answer back");
  return { typed, edits: result.edits, outcome, answerSizesSeen: [...seen], timeline };
}

/**
 * The person types without pausing (25 keys a second) through the whole
 * stream and on past the moment the answer lands: every key stays in order
 * at the end of their own text, the cursor after it, and the answer arrives
 * once. (Whether the answer is one undo step is not checked: the extension
 * regroups only after a pause in typing.)
 */
async function streamWhileTypingFast(landed) {
  agentWill({ ACP_AGENT_REPLY: REPLY, ACP_AGENT_CHUNK: "6", ACP_AGENT_DELAY: "0.08" });
  const editor = await atEnd();
  const document = editor.document;
  const original = document.getText();
  const tail = original.slice(original.lastIndexOf(CLOSE));
  const count = landed.length;
  const asking = Promise.resolve(vscode.commands.executeCommand("agentDoc.askAgent"));
  let settled = false;
  asking.then(() => (settled = true), () => (settled = true));
  await waitFor(() => document.getText().split("### Re: sum").length > original.split("### Re: sum").length, "the first streamed chunk", 60000, 20);
  let typed = "";
  let after = 0; // words typed after the answer landed
  for (let n = 0; n < 200 && after < 4; n += 1) {
    const word = ` fast${n}`;
    await probe("type", { text: word, delay: 40 });
    typed += word;
    after += settled ? 1 : 0;
  }
  const result = await asking;
  assert(result && !result.interrupted && result.edits >= 2, `runAgent: ${JSON.stringify(result)}`);
  const outcome = await waitFor(() => landed.length > count && landed[landed.length - 1], "agentDoc/answerLanded handled");
  const text = await waitFor(() => document.getText().endsWith(typed.slice(-6)) && document.getText(), "the last key in the buffer", 5000, 20).catch(() => document.getText());
  assert(text.endsWith(tail + typed), `typed ${JSON.stringify(typed)}, buffer ends ${JSON.stringify(text.slice(-typed.length - 40))}`);
  assert(text.split(REPLY).length === original.split(REPLY).length + 1, `the answer is not in the buffer once more: ${text.slice(-1500)}`);
  await waitFor(() => document.offsetAt(editor.selection.active) === text.length, "the cursor at the end", 5000, 20).catch(() => undefined);
  const cursor = document.offsetAt(editor.selection.active);
  assert(cursor === text.length, `cursor at ${cursor}, the person's text ends at ${text.length}`);
  return { typedChars: typed.length, edits: result.edits, outcome };
}

async function askAndStop(landed) {
  const errors = {};
  // Stop with no agent answering: the server's error as a notification.
  await vscode.commands.executeCommand("agentDoc.stopAsking");
  errors.stop = await notification("no agent is answering this document", "the Stop error");
  // A tmux agent's document (with changes to send): Ask says it is not an ACP agent.
  await vscode.window.showTextDocument(vscode.Uri.file(params.right), { preview: false });
  await vscode.commands.executeCommand("agentDoc.askAgent");
  errors.notAcp = await notification("is not an ACP agent", "the runAgent error on a tmux document");
  // A new question, asked with Ctrl+Shift+Alt+Enter, stopped with Ctrl+Shift+Alt+X.
  const slow = "### Re: slow\n\n" + Array.from({ length: 200 }, (_, i) => `slow${i}`).join(" ");
  agentWill({ ACP_AGENT_REPLY: slow, ACP_AGENT_CHUNK: "5", ACP_AGENT_DELAY: "0.1" });
  const { document } = await atEnd();
  await probe("type", { text: "\nAnd 3 + 3?", delay: 20 });
  await waitFor(() => document.getText().endsWith("And 3 + 3?"), "the new question", 5000).catch((error) => {
    throw new Error(`${error.message}; buffer ends ${JSON.stringify(document.getText().slice(-80))}`);
  });
  const count = landed.length;
  await probe("press", { key: "Control+Shift+Alt+Enter" });
  await waitFor(() => document.getText().includes("slow3 "), "the slow answer streaming", 60000, 20);
  await probe("press", { key: "Control+Shift+Alt+X" });
  const outcome = await waitFor(() => landed.length > count && landed[landed.length - 1], "the stopped answer landing", 30000);
  const text = document.getText();
  assert(text.includes(params.interruptedNote), `not marked interrupted: ${text.slice(-300)}`);
  assert(!text.includes("slow199"), "the whole slow answer arrived: the stop did nothing");
  assert(text.indexOf("### Re: slow") < text.indexOf(params.interruptedNote), text);
  assert(text.endsWith("And 3 + 3?"), `the question moved: ${JSON.stringify(text.slice(-60))}`);
  const status = await waitFor(async () => (await probe("dom")).statusbar.find((s) => s.includes("stopped (answer marked interrupted)")), "the status bar message");
  return { errors, outcome, status };
}

async function permission() {
  agentWill({ ACP_AGENT_ASK: "1", ACP_AGENT_REPLY: "Done." });
  const { document } = await atEnd();
  await probe("type", { text: "\nMay you write notes?", delay: 20 });
  await waitFor(() => document.getText().endsWith("notes?"), "the question typed");
  const asking = Promise.resolve(vscode.commands.executeCommand("agentDoc.askAgent"));
  const toast = await notification("asks permission", "the agent's permission question");
  assert(toast.includes("Write notes.txt") && toast.includes("Allow once") && toast.includes("Reject"), toast);
  await probe("click", { text: "asks permission", label: "Allow once" });
  const result = await asking;
  assert(result && !result.interrupted, JSON.stringify(result));
  const text = document.getText();
  assert(text.includes("permission: allow") && text.includes("Done."), text.slice(-300));
  return { toast };
}

/** The ACP checks, on `params.acpDoc`. */
async function acp(checks) {
  const ext = vscode.extensions.getExtension("agent-doc.agent-doc");
  const landed = [];
  const subscription = ext.exports.onAnswerLanded((outcome) => landed.push(outcome));
  try {
    const { document } = await focusAcp();
    await waitFor(async () => (await symbolsOf(document.uri)).some((s) => s.name === "exchange"), "the server has acp.md");
    await checks.check("acp_answer_streams_while_typing_one_undo", () => streamWhileTyping(landed));
    await checks.check("acp_answer_streams_while_typing_fast", () => streamWhileTypingFast(landed));
    await checks.check("acp_ask_and_stop_commands", () => askAndStop(landed));
    await checks.check("acp_permission_question_in_notification", () => permission());
  } finally {
    subscription.dispose();
  }
}

module.exports = { acp };
