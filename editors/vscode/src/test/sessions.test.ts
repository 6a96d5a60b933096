import * as assert from "node:assert/strict";
import { test } from "node:test";

import { SessionRow, applyStatus, sessionDescription, sessionLabel, sessionRows } from "../sessionsLogic";

const ROW: SessionRow = {
  uri: "file:///w/plan.md",
  path: "/w/plan.md",
  name: "plan.md",
  state: "needs_input",
  pane: "%4",
  agent: "claude",
  detail: "",
  lastAnswer: "2026-11-25T13:02:41+00:00",
  unsent: true,
  unsentChanges: 2,
  open: true,
};

test("sessionRows keeps well-formed rows only", () => {
  assert.deepEqual(sessionRows({ sessions: [ROW, { name: 1 }] }), [ROW]);
  assert.deepEqual(sessionRows(undefined), []);
  assert.deepEqual(sessionRows({ sessions: "x" }), []);
});

test("label and description show state, pane, last answer and unsent changes", () => {
  assert.equal(sessionLabel(ROW), "◐ plan.md");
  assert.equal(sessionDescription(ROW), "needs input in %4 · answered 13:02 · 2 unsent");
  const quiet = { ...ROW, state: "none", pane: null, lastAnswer: null, unsent: false };
  assert.equal(sessionLabel(quiet), "○ plan.md");
  assert.equal(sessionDescription(quiet), "none");
  assert.equal(sessionDescription({ ...quiet, unsent: true, unsentChanges: null }), "none · not sent yet");
});

test("applyStatus updates the matching row and says whether it changed", () => {
  const rows = [{ ...ROW }];
  assert.equal(applyStatus(rows, { uri: ROW.uri, state: "running", pane: "%4", detail: "" }), true);
  assert.equal(rows[0].state, "running");
  assert.equal(applyStatus(rows, { uri: ROW.uri, state: "running", pane: "%4", detail: "" }), false);
  assert.equal(applyStatus(rows, { uri: "file:///other.md", state: "exited" }), false);
});
