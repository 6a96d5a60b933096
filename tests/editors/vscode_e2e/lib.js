// Helpers for test modules run inside the real VS Code extension host
// (extensionTestsPath). A module exports `run()`; it records named checks
// with `checks.check(name, fn)` and ends with `checks.finish()`, which writes
// the result JSON the pytest side (tests/editors/vscode_harness.py) waits for.
// Plain JavaScript on purpose: no build step between editing a test and running it.
"use strict";
const fs = require("fs");
const path = require("path");
const cp = require("child_process");

const params = JSON.parse(fs.readFileSync(process.env.AGENT_DOC_E2E_PARAMS, "utf8"));

function log(line) {
  fs.appendFileSync(params.logPath, `${new Date().toISOString()} ${line}\n`);
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Poll `fn` (sync or async) until it returns a truthy value; bounded. */
async function waitFor(fn, what, timeoutMs = 20000, intervalMs = 100) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) {
        return last;
      }
    } catch (error) {
      last = error;
    }
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${String(last)})`);
}

/** Run a program asynchronously (never block the extension host). */
function run(command, args, { input, cwd, timeoutMs = 30000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = cp.spawn(command, args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} ${args.join(" ")} timed out`));
    }, timeoutMs);
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input ?? "");
  });
}

/** Commands against the test's private tmux server. */
const tmux = {
  async run(...args) {
    const res = await run("tmux", ["-L", params.tmuxSocket, "-f", "/dev/null", ...args]);
    if (res.code !== 0) {
      throw new Error(`tmux ${args[0]} failed: ${res.stderr}`);
    }
    return res.stdout;
  },
  capture(pane) {
    return this.run("capture-pane", "-p", "-J", "-S", "-200", "-t", pane);
  },
  async livePanes() {
    const out = await this.run("list-panes", "-a", "-F", "#{pane_id} #{window_id} #{pane_left} #{pane_top} #{pane_dead}");
    return out.trim().split("\n").filter(Boolean).map((l) => {
      const [pane, window, left, top, dead] = l.split(" ");
      return { pane, window, left, top, dead: dead === "1" };
    }).filter((p) => !p.dead);
  },
};

let probeCounter = 0;

/** Ask the browser side for something (see tests/editors/vscode_probes.py). */
async function probe(kind, args = {}, timeoutMs = 30000) {
  probeCounter += 1;
  const base = path.join(params.probeDir, `${String(probeCounter).padStart(4, "0")}`);
  const tmp = `${base}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ kind, ...args }));
  fs.renameSync(tmp, `${base}.request.json`);
  const response = `${base}.response.json`;
  await waitFor(() => fs.existsSync(response), `probe ${kind}`, timeoutMs, 50);
  const answer = JSON.parse(fs.readFileSync(response, "utf8"));
  if (!answer.ok) {
    throw new Error(`probe ${kind} failed: ${answer.error}`);
  }
  return answer.value;
}

/** Named checks, each recorded separately (pytest reports each as one test). */
class Checks {
  constructor() {
    this.results = {};
  }

  async check(name, fn) {
    const started = Date.now();
    log(`check ${name} ...`);
    try {
      const detail = await fn();
      this.results[name] = { ok: true, detail: detail ?? null, ms: Date.now() - started };
    } catch (error) {
      this.results[name] = { ok: false, detail: String(error && error.stack ? error.stack : error), ms: Date.now() - started };
    }
    log(`check ${name}: ${this.results[name].ok ? "ok" : this.results[name].detail}`);
    return this.results[name].ok;
  }

  finish(extra = {}) {
    const tmp = `${params.resultPath}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ checks: this.results, ...extra }, null, 2));
    fs.renameSync(tmp, params.resultPath);
  }
}

function assert(condition, message) {
  if (!condition) {
    throw new Error(message);
  }
}

module.exports = { params, log, sleep, waitFor, run, tmux, probe, Checks, assert };
