import "./rs.mjs";
import assert from "node:assert/strict";
import { test } from "node:test";

const { voterId, firstAsk, moveAsk, shares } = await import("rs/lecture/polls.js");

const store = () => {
  const m = new Map();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => m.set(k, String(v)) };
};
// three steps of four ranks: step 0 writes rank 1 first, step 1 rank 3, step 2 nothing
const run = {
  group: [0, 1, 2, 3],
  steps: [
    {
      transfers: [
        [0, 1, 0, 0, 1],
        [1, 2, 1, 1, 1],
      ],
    },
    { transfers: [[2, 3, 2, 2, 1]] },
    { transfers: [] },
  ],
};

test("a page's voter id is random, as the server takes it, and the same after a reload", () => {
  const s = store(),
    id = voterId(s);
  assert.match(id, /^[A-Za-z0-9_-]{8,64}$/);
  assert.equal(voterId(s), id, "kept");
  assert.notEqual(voterId(store()), id, "another page, another id");
  const bad = store();
  bad.setItem("ringside-voter", "no spaces allowed");
  assert.match(voterId(bad), /^[0-9a-f]{24}$/, "a kept id the server would refuse is made again");
});

test("the holds question starts at the next step, on a rank that step writes to", () => {
  assert.deepEqual(firstAsk(run, -1), { rank: 1, step: 0, from: 0 });
  assert.deepEqual(firstAsk(run, 0), { rank: 3, step: 1, from: 1 });
  assert.deepEqual(
    firstAsk(run, 1),
    { rank: 0, step: 2, from: 2 },
    "a step that writes nothing: the group's first",
  );
  assert.deepEqual(firstAsk(run, 2), { rank: 0, step: 2, from: 2 }, "at the end: the last step");
});

test("↑ ↓ go round the group, ← → move the step but never back onto one shown, other keys move nothing", () => {
  const a = firstAsk(run, 0);
  assert.equal(moveAsk(a, "ArrowDown", run).rank, 0);
  assert.equal(moveAsk({ ...a, rank: 0 }, "ArrowUp", run).rank, 3);
  assert.equal(moveAsk(a, "ArrowLeft", run).step, 1, "step 0 was shown already");
  assert.equal(moveAsk(moveAsk(a, "ArrowRight", run), "ArrowRight", run).step, 2, "no step past the last");
  assert.equal(moveAsk(a, "Enter", run), null);
});

test("each choice's share of the votes", () => {
  assert.deepEqual(shares([2, 1, 0, 1]), [50, 25, 0, 25]);
  assert.deepEqual(shares([0, 0]), [0, 0], "no votes, no bars");
});
