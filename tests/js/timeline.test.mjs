import "./rs.mjs";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const { timelineBars, rankTotals, median, phaseIndex } = await import("rs/panels/timeline.js");
const ring = JSON.parse(readFileSync(new URL("./ring3.json", import.meta.url)));

/** Two ranks, two steps; rank 1 is slow in step 0 and rank 0 waits for it in step 1. */
const run = {
  group: [3, 5],
  steps: [
    { step: 0, phase: "up", ranks: { 3: { t0: 0, t1: 0.001 }, 5: { t0: 0, t1: 0.004 } } },
    { step: 1, phase: "down", ranks: { 3: { t0: 0.001, t1: 0.005 }, 5: { t0: 0.004, t1: 0.0045 } } },
    { step: 2, phase: "down", ranks: { 3: { t0: 0.005, t1: 0.006 } } }, // rank 5 has not reported yet
  ],
  results: {
    3: { timings: { iterations: [3e-3, 1e-3, 2e-3] } },
    5: { timings: { iterations: [4e-3, 2e-3] } },
  },
  traffic: { sent: { 3: 100, 5: 200 }, received: { 3: 200, 5: 100 } },
};

test("a bar per rank per reported step, in µs, with the step's last finisher marked", () => {
  const bars = timelineBars(run);
  assert.equal(bars.length, 5);
  const [a, b, c, d] = bars;
  assert.deepEqual([a.rank, a.step, a.start, Math.round(a.length)], [3, 0, 0, 1000]);
  assert.deepEqual([b.rank, Math.round(b.length), b.last], [5, 4000, true]);
  assert.equal(a.last, false);
  assert.deepEqual([c.rank, c.last, d.rank, d.last], [3, true, 5, false]);
  assert.equal(bars[4].last, false, "a step only one rank has reported names no straggler");
  for (const bar of timelineBars(ring)) assert.ok(bar.length >= 0 && ring.group.includes(bar.rank));
});

test("per-rank totals: time in steps, median iteration, bytes, times last", () => {
  const [r3, r5] = rankTotals(run);
  assert.equal(r3.rank, 3);
  assert.equal(Math.round(r3.busy), 6000);
  assert.equal(Math.round(r3.span), 6000);
  assert.equal(r3.time, 2000);
  assert.equal(r5.time, 3000);
  assert.deepEqual([r3.last, r5.last], [1, 1]);
  assert.deepEqual([r5.sent, r5.received], [200, 100]);
  assert.equal(median([]), 0);
});

test("phases are numbered in order of appearance", () => {
  assert.deepEqual(phaseIndex(run), { up: 0, down: 1 });
  assert.deepEqual(phaseIndex(ring), { "reduce-scatter": 0, "all-gather": 1 });
});
