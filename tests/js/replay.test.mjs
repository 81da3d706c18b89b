import "./rs.mjs";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const { replay, extend, firstFrame, stepComplete, describeStep, reductions, opOf } = await import(
  "rs/stage/replay.js"
);

// A 3-rank ring all_reduce of the `index` pattern (count 3, chunks of one element), as the server stores it.
const ring = JSON.parse(readFileSync(new URL("./ring3.json", import.meta.url)));

/** Every rank's buffer after step k straight from the run's data: inputs, then each step's states. */
function expected(run, k) {
  const values = Object.fromEntries(
    Object.entries(run.inputs).map(([r, states]) => [r, states.map((s) => s.values)]),
  );
  for (const step of run.steps.slice(0, k + 1))
    for (const [r, report] of Object.entries(step.ranks))
      for (const s of report.states) values[r][s.chunk] = s.values;
  return values;
}

test("replay gives every rank's buffer after every step as the run's data says", () => {
  const frames = replay(ring);
  assert.equal(frames.length, ring.steps.length + 1);
  for (let k = -1; k < ring.steps.length; k++)
    assert.deepEqual(frames[k + 1].values, expected(ring, k), `after step ${k}`);
  for (const r of ["0", "1", "2"])
    assert.deepEqual(
      frames.at(-1).values[r].map((v) => v[0]),
      [9, 12, 15],
    );
});

test("provenance: inputs hold their own rank, a copy takes the sender's, a reduce adds the sender's", () => {
  const frames = replay(ring);
  assert.deepEqual([...frames[0].origins["1"][0]], [1]);
  // step 0: rank 0 reduces its chunk 2 into rank 1's chunk 2
  assert.deepEqual([...frames[1].origins["1"][2]].sort(), [0, 1]);
  assert.deepEqual([...frames[1].origins["1"][0]], [1], "an untouched chunk keeps its origins");
  for (const r of ["0", "1", "2"])
    for (const origin of frames.at(-1).origins[r]) assert.deepEqual([...origin].sort(), [0, 1, 2]);
  const copy = {
    ...ring,
    steps: [{ step: 0, phase: "x", caption: "", transfers: [[2, 0, 1, 0, 0]], ranks: {} }],
  };
  assert.deepEqual([...replay(copy)[1].origins["0"][0]], [2], "a copy replaces what the cell held");
});

test("a frame changes only what its step touched and never mutates earlier frames", () => {
  const frames = replay(ring);
  const first = ring.steps[0].transfers;
  assert.equal(frames[1].changed.size, first.length);
  for (const [, dst, , into] of first) assert.ok(frames[1].changed.has(`${dst}:${into}`));
  assert.deepEqual(
    frames[0].values["0"].map((v) => v[0]),
    [0, 1, 2],
  );
  assert.deepEqual([...frames[0].origins["1"][2]], [1]);
});

test("summary capture: values are the preview, with min, max and sum kept per chunk", () => {
  const run = structuredClone(ring);
  run.inputs["0"][0] = { chunk: 0, values: null, preview: [0], min: -2, max: 5, sum: 7 };
  const [first] = replay(run);
  assert.deepEqual(first.values["0"][0], [0]);
  assert.deepEqual(first.stats["0"][0], { min: -2, max: 5, sum: 7 });
  assert.equal(first.stats["0"][1], null, "full values need no summary");
});

test("a live run's steps are complete once every rank reported them", () => {
  assert.ok(stepComplete(ring, 0));
  assert.ok(!stepComplete(ring, 99));
  const live = structuredClone(ring);
  delete live.steps[1].ranks["2"];
  assert.ok(!stepComplete(live, 1));
});

test("the transfer log writes each reduction's arithmetic", () => {
  const frames = replay(ring);
  const lines = describeStep(ring, frames, 0);
  assert.equal(lines.length, 3);
  assert.equal(lines[0], "rank 0 → rank 1: chunk 2 [2] + [5] = [7]");
});

test("several ranks reducing into one cell at once are one line with every operand", () => {
  // flat reduce onto rank 0: ranks 1 and 2 both add into its chunk 0
  const run = {
    spec: { op: "MAX" },
    group: [0, 1, 2],
    chunk_bounds: [[0, 1]],
    inputs: {
      0: [{ chunk: 0, values: [5] }],
      1: [{ chunk: 0, values: [9] }],
      2: [{ chunk: 0, values: [7] }],
    },
    input_chunks: { 0: [0], 1: [0], 2: [0] },
    steps: [
      {
        step: 0,
        phase: "reduce",
        caption: "",
        transfers: [
          [1, 0, 0, 0, 1],
          [2, 0, 0, 0, 1],
        ],
        ranks: { 0: { states: [{ chunk: 0, values: [9] }] }, 1: { states: [] }, 2: { states: [] } },
      },
    ],
  };
  assert.deepEqual(reductions(run.steps[0]), [
    {
      dst: 0,
      into: 0,
      from: [
        [1, 0],
        [2, 0],
      ],
    },
  ]);
  const frames = replay(run);
  assert.deepEqual(describeStep(run, frames, 0), [
    "rank 1, rank 2 → rank 0: chunk 0 max([9], [7], [5]) = [9]",
  ]);
  assert.deepEqual([...frames[1].origins["0"][0]].sort(), [0, 1, 2]);
});

/** The run as run_started brings it: every step planned, none reported yet. */
function skeleton(run) {
  const live = structuredClone(run);
  for (const step of live.steps) step.ranks = {};
  return live;
}

test("a live run's frames grow a step at a time as its ranks report, the same as a whole replay", () => {
  const live = skeleton(ring),
    whole = replay(ring);
  const frames = [firstFrame(live)];
  ring.steps.forEach((step, k) => {
    const earlier = frames.slice();
    for (const [i, r] of ring.group.entries()) {
      live.steps[k].ranks[r] = step.ranks[r];
      assert.equal(extend(frames, live), i === ring.group.length - 1 ? 1 : 0, `step ${k} after rank ${r}`);
    }
    assert.deepEqual(frames, whole.slice(0, k + 2));
    earlier.forEach((frame, i) => assert.equal(frames[i], frame, "earlier frames are kept, not rebuilt"));
  });
});

test("growing by a step reads that step only, never the earlier ones", () => {
  const live = skeleton(ring);
  const frames = [firstFrame(live)];
  for (const k of [0, 1]) {
    live.steps[k].ranks = ring.steps[k].ranks;
    extend(frames, live);
  }
  for (const k of [0, 1])
    for (const field of ["transfers", "ranks"])
      Object.defineProperty(live.steps[k], field, {
        get() {
          throw new Error(`step ${k} read again`);
        },
      });
  live.steps[2].ranks = ring.steps[2].ranks;
  assert.equal(extend(frames, live), 1);
  assert.deepEqual(frames.at(-1), replay(ring)[3]);
});

test("a step reported ahead of an earlier one waits for it", () => {
  const live = skeleton(ring);
  const frames = [firstFrame(live)];
  live.steps[1].ranks = ring.steps[1].ranks;
  live.steps[0].ranks = { 0: ring.steps[0].ranks[0] };
  assert.equal(extend(frames, live), 0);
  Object.assign(live.steps[0].ranks, ring.steps[0].ranks);
  assert.equal(extend(frames, live), 2, "step 0 and the waiting step 1 at once");
  assert.equal(extend(frames, live), 0);
});

test("the op of a run's reductions is the run's own (a barrier's BOR), else its spec's", () => {
  assert.equal(opOf({ op: "BOR", spec: { op: "SUM" } }), "BOR");
  assert.equal(opOf({ spec: { op: "MAX" } }), "MAX", "a run stored before the server gave its op");
});
