import * as assert from "node:assert/strict";
import { test } from "node:test";

import {
  SerialDebouncer,
  Timers,
  columnsOf,
  formatStatus,
  isSessionText,
  mapOffset,
  statusItems,
  syncArgs,
  syncKey,
  touchesAny,
} from "../logic";

const S = (uri: string, viewColumn: number | undefined, isSession = true) => ({ uri, viewColumn, isSession });

test("isSessionText needs agent_doc_session in the frontmatter", () => {
  assert.equal(isSessionText("---\nagent_doc_session: abc\n---\n# x"), true);
  assert.equal(isSessionText("\uFEFF---\r\nagent_doc_session: abc\r\n---\r\n"), true);
  assert.equal(isSessionText("---\ntitle: x\n---\nagent_doc_session: abc\n"), false);
  assert.equal(isSessionText("# no frontmatter\nagent_doc_session: abc"), false);
  assert.equal(isSessionText("---\nagent_doc_session:\n---\n"), false);
});

test("columnsOf groups by view column left to right, session docs once", () => {
  const columns = columnsOf([
    S("file:///c.md", 3),
    S("file:///a.md", 1),
    S("file:///notes.md", 2, false),
    S("file:///b.md", 3),
    S("file:///a.md", 3),
    S("file:///x.md", undefined),
  ]);
  assert.deepEqual(columns, [["file:///a.md"], ["file:///c.md", "file:///b.md"]]);
});

test("syncArgs focuses the active session doc, else the first", () => {
  const editors = [S("file:///a.md", 1), S("file:///b.md", 2)];
  assert.deepEqual(syncArgs(editors, "file:///b.md"), {
    uri: "file:///b.md",
    columns: [["file:///a.md"], ["file:///b.md"]],
    focus: "file:///b.md",
  });
  assert.equal(syncArgs(editors, "file:///other.md")?.focus, "file:///a.md");
  assert.equal(syncArgs(editors, undefined, "@3")?.window, "@3");
  assert.equal(syncArgs([S("file:///n.md", 1, false)], undefined), undefined);
});

test("syncKey changes with columns and focus only", () => {
  const a = syncArgs([S("file:///a.md", 1), S("file:///b.md", 2)], "file:///a.md")!;
  const b = syncArgs([S("file:///a.md", 1), S("file:///b.md", 2)], "file:///b.md")!;
  assert.notEqual(syncKey(a), syncKey(b));
  assert.equal(syncKey(a), syncKey({ ...a }));
});

test("statusItems accepts one status or a documents list", () => {
  assert.deepEqual(statusItems({ uri: "u", state: "running" }), [{ uri: "u", state: "running" }]);
  assert.equal(statusItems({ documents: [{ uri: "a", state: "stale" }, { nope: 1 }] }).length, 1);
  assert.deepEqual(statusItems(null), []);
  assert.deepEqual(statusItems("x"), []);
});

test("formatStatus labels states", () => {
  assert.equal(formatStatus(undefined).text, "");
  assert.equal(formatStatus({ uri: "u", state: null }).text, "");
  assert.equal(formatStatus({ uri: "u", state: "needs_input", pane: "%3" }).text, "$(bell) agent: needs input");
  assert.match(formatStatus({ uri: "u", state: "needs_input", pane: "%3" }).tooltip, /pane %3/);
  assert.equal(formatStatus({ uri: "u", state: "exited", exitCode: 2 }).text, "$(debug-stop) agent: exited (2)");
  assert.equal(formatStatus({ uri: "u", state: "none", detail: "run agentDoc.claim" }).text, "$(circle-slash) agent: no agent");
  assert.match(formatStatus({ uri: "u", state: "none", detail: "run agentDoc.claim" }).tooltip, /run agentDoc.claim/);
  assert.equal(formatStatus({ uri: "u", state: "weird_state" }).text, "$(circle-outline) agent: weird state");
});

/** Manual clock: timers fire only when `advance` passes their deadline. */
class FakeTimers implements Timers {
  now = 0;
  private next = 1;
  private pending = new Map<number, { at: number; fn: () => void }>();
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { at: this.now + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  advance(ms: number): void {
    this.now += ms;
    for (const [id, t] of [...this.pending]) {
      if (t.at <= this.now) {
        this.pending.delete(id);
        t.fn();
      }
    }
  }
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

test("SerialDebouncer runs once after the last trigger", async () => {
  const timers = new FakeTimers();
  let runs = 0;
  const d = new SerialDebouncer(async () => { runs++; }, 500, timers);
  d.trigger();
  timers.advance(300);
  d.trigger();
  timers.advance(300);
  assert.equal(runs, 0);
  timers.advance(200);
  await flush();
  assert.equal(runs, 1);
});

test("SerialDebouncer keeps one run in flight and reruns once after it", async () => {
  const timers = new FakeTimers();
  let running = 0;
  let maxRunning = 0;
  let runs = 0;
  const releases: Array<() => void> = [];
  const d = new SerialDebouncer(
    () =>
      new Promise<void>((resolve) => {
        running++;
        runs++;
        maxRunning = Math.max(maxRunning, running);
        releases.push(() => { running--; resolve(); });
      }),
    500,
    timers,
  );
  d.trigger();
  timers.advance(500);
  assert.equal(d.busy, true);
  d.trigger();
  timers.advance(500);
  d.trigger();
  timers.advance(500);
  assert.equal(runs, 1);
  releases.shift()!();
  await flush();
  assert.equal(runs, 2);
  releases.shift()!();
  await flush();
  assert.equal(runs, 2);
  assert.equal(maxRunning, 1);
  assert.equal(d.busy, false);
});

test("SerialDebouncer survives a failing task and dispose cancels", async () => {
  const timers = new FakeTimers();
  let runs = 0;
  const d = new SerialDebouncer(async () => { runs++; throw new Error("boom"); }, 10, timers);
  await d.fire();
  assert.equal(d.busy, false);
  d.trigger();
  d.dispose();
  timers.advance(100);
  await flush();
  assert.equal(runs, 1);
});

test("mapOffset keeps the cursor before text inserted at it and moves it with text above", () => {
  const insertAtCursor = [{ start: 10, end: 10, text: "\n\nanswer" }];
  assert.equal(mapOffset(10, insertAtCursor), 10);
  assert.equal(mapOffset(11, insertAtCursor), 19);
  const statusAbove = [{ start: 2, end: 6, text: "answering" }, { start: 20, end: 20, text: "x" }];
  assert.equal(mapOffset(12, statusAbove), 17);
  assert.equal(mapOffset(6, statusAbove), 11); // a replacement ending at the cursor
  assert.equal(mapOffset(4, statusAbove), 2); // inside a replaced range: its start
  assert.equal(mapOffset(25, statusAbove), 31);
});

test("touchesAny: only edits at or around a cursor need the cursor put back", () => {
  const answerAbove = [{ start: 2, end: 6, text: "answering" }, { start: 8, end: 8, text: "x" }];
  assert.equal(touchesAny([12, 20], answerAbove), false); // the person types below the answer
  assert.equal(touchesAny([0, 1], answerAbove), false);
  assert.equal(touchesAny([8], answerAbove), true); // inserted right at the cursor
  assert.equal(touchesAny([6], answerAbove), true); // a replacement ending at the cursor
  assert.equal(touchesAny([2], answerAbove), true);
  assert.equal(touchesAny([4], answerAbove), true); // inside a replaced range
  assert.equal(touchesAny([5], []), false);
});
