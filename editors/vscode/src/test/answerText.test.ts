import * as assert from "node:assert/strict";
import { test } from "node:test";

import { applyOffsetEdits, carryOver, inverseEdits, mapThrough, minimalEdit, streamOf } from "../answerText";

const FINAL = "---\nresume: s1\n---\nQ?\nANSWER\nNotes:\nmy note";
// withoutAnswer: the resume line and the answer go, the person's note stays
const REMOVAL = [
  { start: 4, end: 15, text: "" },
  { start: 22, end: 29, text: "" },
];

test("applyOffsetEdits applies disjoint edits in any order", () => {
  assert.equal(applyOffsetEdits(FINAL, [...REMOVAL].reverse()), "---\n---\nQ?\nNotes:\nmy note");
  assert.equal(applyOffsetEdits("abc", []), "abc");
  assert.equal(applyOffsetEdits("abc", [{ start: 1, end: 1, text: "X" }]), "aXbc");
});

test("inverseEdits puts exactly the removed text back", () => {
  const without = applyOffsetEdits(FINAL, REMOVAL);
  const back = inverseEdits(FINAL, REMOVAL);
  assert.deepEqual(back, [
    { start: 4, end: 4, text: "resume: s1\n" },
    { start: 11, end: 11, text: "ANSWER\n" },
  ]);
  assert.equal(applyOffsetEdits(without, back), FINAL);
  const replaced = [{ start: 1, end: 2, text: "XYZ" }];
  assert.equal(applyOffsetEdits(applyOffsetEdits("abc", replaced), inverseEdits("abc", replaced)), "abc");
});

test("minimalEdit keeps the common prefix and suffix", () => {
  assert.equal(minimalEdit("same", "same"), undefined);
  assert.deepEqual(minimalEdit("Notes:\n", "Notes:\nmy note"), { start: 7, end: 7, text: "my note" });
  assert.deepEqual(minimalEdit("aXa", "aa"), { start: 1, end: 2, text: "" });
  assert.deepEqual(minimalEdit("aaa", "aaaa"), { start: 3, end: 3, text: "a" });
  const edit = minimalEdit("abcabc", "abXc")!;
  assert.equal(applyOffsetEdits("abcabc", [edit]), "abXc");
});

test("carryOver keeps keystrokes typed on an intermediate text", () => {
  // the person typed "!" at the end while the answer was undone
  const middle = "---\n---\nQ?\nNotes:\nmy note";
  assert.equal(carryOver(FINAL, [{ before: middle, after: middle + "!" }]), FINAL + "!");
  // typed before the note on the text without the answer
  const typedAt = middle.indexOf("my");
  const after = middle.slice(0, typedAt) + ">" + middle.slice(typedAt);
  assert.equal(carryOver(FINAL, [{ before: middle, after }]), FINAL.replace("my note", ">my note"));
  assert.equal(carryOver(FINAL, []), FINAL);
  // an undo took the space back, the next key went where the undo left the cursor
  assert.equal(
    carryOver(FINAL, [
      { before: FINAL, after: FINAL + " " },
      { before: FINAL, after: FINAL + "n" },
    ]),
    FINAL + " n",
  );
});

test("mapThrough keeps a cursor after text put back exactly at it", () => {
  assert.equal(mapThrough(5, undefined), 5);
  assert.equal(mapThrough(3, { start: 5, end: 5, text: "abc" }), 3);
  assert.equal(mapThrough(5, { start: 5, end: 5, text: "abc" }), 8);
  assert.equal(mapThrough(9, { start: 5, end: 7, text: "x" }), 8);
  assert.equal(mapThrough(6, { start: 5, end: 7, text: "xyz" }), 8);
});

test("streamOf reads the stream id of a streamed edit's label", () => {
  assert.equal(streamOf("agent-doc stream 0123abcd"), "0123abcd");
  assert.equal(streamOf("agent-doc resume"), undefined);
  assert.equal(streamOf(undefined), undefined);
});
