import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { replay, stepComplete, describeTransfer } from "../../frontend/js/replay.js";

// A 3-rank ring all_reduce of the `index` pattern (count 3, chunks of one element), as the server stores it.
const run = JSON.parse(readFileSync(new URL("./ring3.json", import.meta.url)));

test("replaying a ring all_reduce ends with every rank holding every rank's contribution", () => {
  const frames = replay(run);
  assert.equal(frames.length, run.steps.length + 1);
  const last = frames.at(-1);
  for (const r of ["0", "1", "2"]) {
    assert.deepEqual(last.values[r].map((v) => v[0]), [9, 12, 15]);
    for (const origin of last.origins[r]) assert.deepEqual([...origin].sort(), [0, 1, 2]);
  }
  assert.deepEqual([...frames[0].origins["1"][0]], [1]);
});

test("a frame changes only what its step touched and never mutates earlier frames", () => {
  const frames = replay(run);
  assert.deepEqual(frames[0].values["0"].map((v) => v[0]), [0, 1, 2]);
  const first = run.steps[0].transfers;
  assert.equal(frames[1].changed.size, first.length);
  for (const [, dst, , into] of first) assert.ok(frames[1].changed.has(`${dst}:${into}`));
});

test("reduce transfers are described with their arithmetic", () => {
  const frames = replay(run);
  const t = run.steps[0].transfers[0];
  assert.match(describeTransfer(run, frames, 0, t), /rank \d → rank \d: chunk \d \[\d+\] \+ \[\d+\] = \[\d+\]/);
  assert.ok(stepComplete(run, 0));
  assert.ok(!stepComplete(run, 99));
});
