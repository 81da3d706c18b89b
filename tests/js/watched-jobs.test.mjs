import "./rs.mjs";
import assert from "node:assert/strict";
import { test } from "node:test";

const { merge, hangLine, describe, byHost, groupName } = await import("rs/watched/watched-jobs.js");
const { opColour, moved, lanesOf, MAX_LANES } = await import("rs/watched/watched-lanes.js");
const { translate } = await import("rs/i18n/i18n.js");
const ko = (await import("rs/i18n/ko.js")).default;
const zh = (await import("rs/i18n/zh.js")).default;

const c = (index, extra = {}) => ({
  index,
  group: "0",
  seq: index + 1,
  op: "x",
  dtype: "float32",
  count: 4,
  bytes: 16,
  issued: { 0: index },
  durations: {},
  last_rank: null,
  lag_s: null,
  bucket: null,
  complete: false,
  ...extra,
});

test("collectives merge by index: an update replaces, the order is the index's, only the last `keep` stay", () => {
  const kept = merge([c(0), c(1)], [c(3), c(1, { complete: true, last_rank: 1 }), c(2)]);
  assert.deepEqual(
    kept.map((x) => x.index),
    [0, 1, 2, 3],
  );
  assert.equal(kept[1].complete, true);
  assert.deepEqual(
    merge(kept, [c(4)], 3).map((x) => x.index),
    [2, 3, 4],
  );
  assert.deepEqual(merge([], []), []);
});

test("an op has one colour on every page, and the common ops have different ones", () => {
  const ops = [
    "all_reduce",
    "broadcast",
    "all_gather",
    "reduce_scatter",
    "barrier",
    "send",
    "recv",
    "all_to_all",
  ];
  assert.equal(new Set(ops.map(opColour)).size, ops.length);
  assert.equal(opColour("all_reduce"), opColour("all_reduce"));
  assert.ok(!ops.map(opColour).includes("#D55E00"), "the hang's vermilion is no op's");
});

test("a hang names the late rank, the waiting ones, the collective and its seq; a silence, who stopped", () => {
  const line = hangLine({
    kind: "wait",
    group: "0",
    seq: 412,
    op: "all_reduce",
    dtype: "float32",
    count: 1314570,
    waiting: [0, 2, 3],
    late: [1],
    since_s: 1.8,
    where: { 1: "train.py:87" },
  });
  assert.equal(line, "rank 1 late: ranks 0, 2, 3 wait in all_reduce #412 (group 0, 1,314,570 × float32)");
  assert.match(
    hangLine({
      group: "1",
      seq: 3,
      op: "barrier",
      dtype: "uint8",
      count: 1,
      waiting: [0],
      late: [1, 2],
      where: {},
    }),
    /^ranks 1, 2 late: rank 0 waits in barrier #3 /,
  );
  assert.equal(
    hangLine({
      kind: "silent",
      group: "",
      seq: -1,
      op: "",
      dtype: "",
      count: 0,
      waiting: [0],
      late: [1],
      where: {},
    }),
    "rank 1 silent: rank 0 goes on",
  );
  assert.equal(
    hangLine({
      kind: "mismatch",
      group: "0",
      seq: 21,
      op: "broadcast",
      dtype: "float32",
      count: 1000,
      waiting: [0, 1],
      late: [0, 1],
      where: {},
    }),
    "mismatch on #21 of group 0: ranks 0, 1",
  );
});

test("a deadlock names its cycle; a wait in sends and receives, the stage waited for; a group, torch's name", () => {
  const cycle = {
    kind: "deadlock",
    group: "",
    seq: -1,
    op: "recv",
    dtype: "float32",
    count: 1024,
    waiting: [],
    late: [0, 1, 2, 3],
    where: {},
  };
  assert.equal(hangLine(cycle), "ranks 0, 1, 2, 3 deadlocked");
  const stage = {
    kind: "wait",
    group: "",
    seq: -1,
    op: "recv",
    dtype: "float32",
    count: 512,
    waiting: [0, 1, 3],
    late: [2],
    where: {},
  };
  assert.equal(hangLine(stage), "rank 2 late: ranks 0, 1, 3 wait in recv (512 × float32)");
  assert.equal(translate(hangLine(stage), zh), "rank 2 迟到：rank 0, 1, 3 在 recv 中等待（512 × float32）");
  assert.equal(translate(hangLine(cycle), ko), "랭크 0, 1, 2, 3 교착 상태(deadlock)");
  const names = { 0: "default_pg", 3: "mesh_dp", 5: "undefined" };
  assert.deepEqual(
    ["0", "3", "5", "7"].map((g) => groupName(g, names)),
    ["0", "mesh_dp", "5", "7"],
  );
  const inMesh = {
    kind: "mismatch",
    group: "3",
    seq: 4,
    op: "all_reduce",
    dtype: "float32",
    count: 8,
    waiting: [0, 2],
    late: [2],
    where: {},
  };
  assert.equal(hangLine(inMesh, names), "mismatch on #4 of group mesh_dp: rank 2");
  assert.match(describe(c(0, { group: "3" }), names), /^x #1 \(group mesh_dp\) /);
});

test("a collective in words: op #seq, size, its last rank and lag or that it waits, its bucket", () => {
  const done = c(7, {
    op: "all_reduce",
    seq: 8,
    count: 1314570,
    bytes: 5258280,
    last_rank: 1,
    lag_s: 0.026,
    complete: true,
    bucket: { index: 3, numel: 1314570, params: ["fc1.weight", "fc1.bias"] },
  });
  assert.equal(
    describe(done),
    "all_reduce #8 (group 0) · 1,314,570 × float32 · 5.0 MiB · last rank 1, lag 26.00 ms · bucket 3: fc1.weight, fc1.bias",
  );
  assert.equal(describe(c(0)), "x #1 (group 0) · 4 × float32 · 16 B · in flight");
});

test("a large job's lanes: nodes folded, runs of them merged, the late one's node rank by rank", () => {
  const world = 4096,
    ranks = Array.from({ length: world }, (_, r) => ({ rank: r, host: `n${r >> 3}` }));
  const lanes = lanesOf(ranks, world, [515]);
  assert.ok(lanes.length <= MAX_LANES, `${lanes.length} lanes`);
  assert.deepEqual(
    lanes.flatMap((l) => l.ranks),
    [...Array(world).keys()],
    "every rank once, in order",
  );
  const own = lanes.filter((l) => l.rank != null);
  assert.deepEqual(
    own.map((l) => l.label),
    [...Array(8).keys()].map((i) => `rank ${512 + i}`),
  );
  assert.deepEqual(
    lanes.filter((l) => l.late).map((l) => l.label),
    ["rank 515"],
  );
  assert.match(lanes[0].label, /^nodes n0 – n\d+ · \d+ ranks$/);
  assert.ok(
    lanes.every((l) => l.rank != null || l.ranks.length % 8 === 0),
    "folded lanes hold whole nodes",
  );
  // a small job: a lane a rank; a node of the late ones, not its neighbours, unfolded
  assert.deepEqual(
    lanesOf(ranks.slice(0, 4), 4, [2]).map((l) => [l.label, l.late]),
    [
      ["rank 0", false],
      ["rank 1", false],
      ["rank 2", true],
      ["rank 3", false],
    ],
  );
  const few = lanesOf(ranks.slice(0, 64), 64, []);
  assert.ok(few.every((l) => l.hosts?.length === 1) && few[1].label === "node n1 · 8 ranks");
});

test("ranks by node, in rank order", () => {
  const rs = [
    { rank: 3, host: "b" },
    { rank: 0, host: "a" },
    { rank: 2, host: "b" },
    { rank: 1, host: "a" },
  ];
  assert.deepEqual(
    byHost(rs).map(([h, mine]) => [h, mine.map((r) => r.rank)]),
    [
      ["a", [0, 1]],
      ["b", [2, 3]],
    ],
  );
});

test("keys move through a list and stop at its ends; other keys are not the list's", () => {
  const key = (k) => ({ key: k, preventDefault() {}, stopPropagation() {} });
  assert.equal(moved(key("ArrowDown"), 0, 3), 1);
  assert.equal(moved(key("ArrowRight"), 2, 3), 2);
  assert.equal(moved(key("ArrowUp"), 0, 3), 0);
  assert.equal(moved(key("ArrowLeft"), -1, 3), 2, "from nothing, back is the newest");
  assert.equal(moved(key("End"), 0, 3), 2);
  assert.equal(moved(key("Home"), 2, 3), 0);
  assert.equal(moved(key("x"), 0, 3), null);
  assert.equal(moved(key("End"), -1, 0), null);
});
