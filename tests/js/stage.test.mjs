import "./rs.mjs";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const { arithmetic, division, exact, wrap } = await import("rs/core/format.js");
const { cellsIn, formsOf, GAP, gridOf, needs, partsOf } = await import("rs/stage/grid.js");
const { overlaps, place } = await import("rs/stage/labels.js");
const { divisionFrame, replay, extend, firstFrame } = await import("rs/stage/replay.js");
const { trafficByFrame } = await import("rs/stage/stage.js");
const { drawnChunks } = await import("rs/stage/cards.js");
const { formulaText } = await import("rs/stage/formulas.js");
const { byRank } = await import("rs/stage/transfers.js");
const ring = JSON.parse(readFileSync(new URL("./ring3.json", import.meta.url)));

test("a cell writes its values, a summary's range, or where an origin run's data came from", () => {
  assert.deepEqual(formsOf([40, 41, 42, 43, 44, 45], null, false).slice(-2), ["40 … 45", "40…45"]);
  assert.deepEqual(formsOf(null, { min: -1, max: 2, sum: 3 }, false), ["−1 … 2", "−1…2"]);
  assert.deepEqual(formsOf([203, 203], null, true), ["r2c3", "203"]);
  assert.equal(exact(0.1 + 0.2), "0.30000000000000004", "the hover has every digit");
});

test("a card's cells take the grid that writes its values largest: a second row, parts one under another", () => {
  const one = partsOf([0, 1, 2, 3]);
  assert.deepEqual(
    gridOf(one, 4, 400, 30),
    { cols: 4, side: false, font: (100 - 4) / (4 + GAP) },
    "wide: one row",
  );
  assert.equal(gridOf(one, 2, 100, 200).cols, 1, "narrow and tall: a column");
  const halves = partsOf(
    [0, 1, 2, 3],
    [
      { label: "input", chunks: [0, 1] },
      { label: "output", chunks: [2, 3] },
    ],
  );
  const grid = cellsIn(halves, 1, 100, 200, 20);
  assert.equal(grid.room, (200 - 2 * 20) / 4, "each part's label takes a band over its first row");
  assert.deepEqual(
    grid.cells.map((c) => [c.chunk, c.y, c.h, c.top, c.label]),
    [
      [0, 0, 60, 20, "input"],
      [1, 60, 40, 0, null],
      [2, 100, 60, 20, "output"],
      [3, 160, 40, 0, null],
    ],
  );
  const side = cellsIn(halves, 2, 200, 100, 20, true);
  assert.deepEqual(
    side.cells.map((c) => c.x),
    [0, 50, 100, 150],
    "side by side: a part each half",
  );
  halves[1].width = 300;
  assert.equal(cellsIn(halves, 2, 200, 100, 20, true), null, "a label wider than its part: not that grid");
  // with no band for labels (they go over the values, cards.js), any grid is one: a card never lacks its cells
  assert.equal(
    cellsIn(halves, 2, 200, 100, 0, true).cells.length,
    4,
    "no band: the grid, whatever its labels",
  );
});

test("what the values need is the widest of their shortest texts, over every frame", () => {
  const run = { group: [0, 1], spec: {}, op: "SUM" };
  const frames = [{ values: { 0: [[1]], 1: [[22]] } }, { values: { 0: [[1000]], 1: [[22]] } }];
  assert.ok(needs(run, frames, () => [0]) > needs(run, frames.slice(0, 1), () => [0]), "a sum that grows");
});

test("reductions element by element: '3 + 4 = 7', one line per element, said once when alike", () => {
  assert.deepEqual(arithmetic("SUM", [[3]], [4], [7]), ["3 + 4 = 7"]);
  assert.deepEqual(arithmetic("MAX", [[3, 9]], [4, 2], [4, 9]), ["max(3, 4) = 4", "max(9, 2) = 9"]);
  assert.deepEqual(
    arithmetic(
      "SUM",
      [
        [1, 1],
        [2, 2],
      ],
      [3, 3],
      [6, 6],
    ),
    ["1 + 2 + 3 = 6"],
  );
  assert.deepEqual(arithmetic("AVG", [[1 / 3]], [1], [4 / 3]), ["0.333 + 1 ≈ 1.33"], "rounded: it says so");
  assert.deepEqual(arithmetic("BXOR", [[6]], [3], [5]), ["6 ^ 3 = 5"]);
  assert.deepEqual(
    arithmetic(
      "MAX",
      [
        [4, 4, 4, 4],
        [3, 3, 3, 3],
      ],
      [1, 1, 1, 1],
      [4, 4, 4, 4],
    ),
    ["max(4, 3, 1) = 4"],
    "a digit a block: every element alike, said once",
  );
  assert.deepEqual(arithmetic("SUM", [[0.5]], [0.25], [0.75]), ["0.5 + 0.25 = 0.75"], "exact floats: =");
  const eight = (k) => Array.from({ length: 8 }, (_, i) => i + k);
  assert.deepEqual(
    arithmetic(
      "SUM",
      [eight(0)],
      eight(10),
      eight(10).map((v, i) => v + i),
    ),
    ["[0 … 7] + [10 … 17] = [10 … 24]"],
    "many values: ranges",
  );
  assert.deepEqual(division([10, 6], 4, [2.5, 1.5]), ["10 ÷ 4 = 2.5", "6 ÷ 4 = 1.5"]);
  assert.deepEqual(
    division([1.005], 4, [0.25125]),
    ["1.005 ÷ 4 ≈ 0.251"],
    "the issue's '1 ÷ 4 = 0.251' (sum 1.005)",
  );
});

test("labels are placed clear of every value, name and other label", () => {
  // A row of cards whose cells' values are the hard boxes; twelve labels all wanting the same cell.
  const values = Array.from({ length: 16 }, (_, i) => ({ x: 20 + i * 70, y: 100, w: 30, h: 20 }));
  const cards = [{ x: 10, y: 80, w: 1180, h: 60 }];
  const labels = Array.from({ length: 12 }, () => ({ w: 140, h: 50, ax: 600, ay: 110 }));
  const boxes = place(labels, [...values, ...cards], { x: 0, y: 0, w: 1200, h: 500 });
  assert.ok(boxes.every(Boolean), "there is room for every label");
  for (const [i, a] of boxes.entries()) {
    assert.ok(
      values.every((v) => !overlaps(a, v)),
      `label ${i} covers a value`,
    );
    assert.ok(!overlaps(a, cards[0]), `label ${i} covers a card it was kept off`);
    for (const b of boxes.slice(i + 1)) assert.ok(!overlaps(a, b), "two labels overlap");
  }
  const nearest = boxes[0];
  assert.ok(Math.abs(nearest.x + nearest.w / 2 - 600) < 80, "the first label sits by its cell");
  // With no room at all, a label is left out, never drawn over a value.
  assert.deepEqual(
    place([{ w: 100, h: 40, ax: 50, ay: 50 }], [{ x: 0, y: 0, w: 100, h: 100 }], {
      x: 0,
      y: 0,
      w: 100,
      h: 100,
    }),
    [null],
  );
});

/** A two-rank run that averages: one step adds rank 1's chunk into rank 0's and back. */
function averaged() {
  return {
    id: "avg",
    group: [0, 1],
    world_size: 2,
    chunk_bounds: [[0, 1]],
    op: "AVG",
    spec: { op: "AVG" },
    display: { divisor: 2, itemsize: 4, output_chunks: { 0: [0], 1: [0] }, regions: [] },
    inputs: { 0: [{ chunk: 0, values: [1] }], 1: [{ chunk: 0, values: [4] }] },
    input_chunks: { 0: [0], 1: [0] },
    steps: [
      {
        transfers: [
          [0, 1, 0, 0, 1],
          [1, 0, 0, 0, 1],
        ],
        ranks: { 0: { states: [{ chunk: 0, values: [5] }] }, 1: { states: [{ chunk: 0, values: [5] }] } },
      },
    ],
    results: { 0: { output: [{ chunk: 0, values: [2.5] }] }, 1: { output: [{ chunk: 0, values: [2.5] }] } },
  };
}

test("AVG: the sums after the last step, then a frame where each output is divided by P", () => {
  const run = averaged();
  const frames = replay(run);
  assert.equal(frames.length, 3);
  assert.deepEqual(frames[1].values["0"][0], [5], "the steps add");
  assert.deepEqual(frames[2].values["0"][0], [2.5], "then the ranks divide");
  assert.equal(frames[2].divisor, 2);
  assert.deepEqual([...frames[2].changed].sort(), ["0:0", "1:0"]);
  const live = [firstFrame(run)];
  assert.equal(extend(live, { ...run, results: {} }), 1, "no division before the ranks report their outputs");
  assert.equal(extend(live, run), 1, "and it comes with the run's end");
  assert.equal(
    divisionFrame({ ...run, display: { ...run.display, divisor: null } }, frames[1]),
    null,
    "a sum has none",
  );
  assert.equal(replay(ring).at(-1).divisor, undefined);
});

test("a rank draws the chunks its buffer has: input, output and scratch the schedule uses there", () => {
  const run = {
    chunk_bounds: [
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ],
    input_chunks: { 0: [0, 1, 2, 3], 1: [], 2: [], 3: [] },
    display: { output_chunks: { 0: [0], 1: [1], 2: [2], 3: [3] } },
    steps: [
      {
        transfers: [
          [0, 2, 2, 2, 0],
          [0, 2, 3, 3, 0],
        ],
      },
      {
        transfers: [
          [0, 1, 1, 1, 0],
          [2, 3, 3, 3, 0],
        ],
      },
    ],
  };
  assert.deepEqual(drawnChunks(run, 0), [0, 1, 2, 3]);
  assert.deepEqual(drawnChunks(run, 1), [1], "a scatter's receiver: one block");
  assert.deepEqual(drawnChunks(run, 2), [2, 3], "its own block, and one it forwards");
  assert.deepEqual(drawnChunks({ ...run, display: null }, 1), [0, 1, 2, 3], "no display data: every slot");
});

test("bytes sent and received so far, frame by frame, local copies not counted", () => {
  const run = {
    group: [0, 1],
    chunk_bounds: [
      [0, 2],
      [2, 4],
    ],
    steps: [
      {
        transfers: [
          [0, 1, 0, 0, 1],
          [1, 1, 1, 1, 0],
        ],
      },
      { transfers: [[1, 0, 1, 1, 0]] },
    ],
  };
  const t = trafficByFrame(run, 4);
  assert.deepEqual(t.sent, { 0: [0, 8, 8], 1: [0, 0, 8] });
  assert.deepEqual(t.received, { 0: [0, 0, 8], 1: [0, 8, 8] });
});

test("the formula is said with its value, and beside it what was measured", () => {
  const f = {
    formula: "2·(N/P)·(P-1)",
    what: "sent by every rank",
    unit: "N",
    unit_bytes: 32,
    value: 48,
    measured: 48,
  };
  assert.deepEqual(formulaText(f, 4), [
    "2·(N/P)·(P-1) = 48 B sent by every rank",
    "(N = 32 B, P = 4) · measured 48 B",
    "✓",
  ]);
  assert.equal(formulaText({ ...f, measured: 40 }, 4)[2], "≠");
  assert.equal(formulaText({ ...f, measured: null }, 4)[2], "");
});

test("a step's labels for one rank's cells come as one label, each line once, a glance long", () => {
  const labels = [
    { key: "1:0", lines: ["1 + 2 = 3"] },
    { key: "2:0", lines: ["4 + 5 = 9"] },
    { key: "1:1", lines: ["1 + 2 = 3", "6 + 7 = 13"] },
    ...[2, 3, 4].map((c) => ({ key: `1:${c}`, lines: [`${c} + 0 = ${c}`] })),
  ];
  const groups = byRank(labels);
  assert.deepEqual(groups[0], {
    keys: ["1:0", "1:1", "1:2", "1:3"],
    lines: ["1 + 2 = 3", "6 + 7 = 13", "2 + 0 = 2", "3 + 0 = 3"],
  });
  assert.deepEqual(groups[1], { keys: ["2:0"], lines: ["4 + 5 = 9"] });
  assert.deepEqual(groups[2], { keys: ["1:4"], lines: ["4 + 0 = 4"] }, "past four lines: a label of its own");
});

test("a long label wraps before its operators, to the width a phone leaves", () => {
  assert.deepEqual(wrap("2 + 3 + 4 + 5 + 6 + 7 + 8 + 1 = 36", 15), [
    "2 + 3 + 4 + 5",
    "+ 6 + 7 + 8 + 1",
    "= 36",
  ]);
  assert.deepEqual(wrap("10 ÷ 4 = 2.5", 8), ["10 ÷ 4", "= 2.5"]);
  assert.deepEqual(wrap("max(1, 2, 3, 4) = 4", 12), ["max(1, 2, 3,", "4) = 4"]);
  assert.deepEqual(wrap("3 + 4 = 7", Infinity), ["3 + 4 = 7"], "a line that fits stays whole");
  assert.deepEqual(wrap("123456789", 4), ["123456789"], "a word longer than the width stays whole");
});
