import assert from "node:assert/strict";
import { test } from "node:test";
import { arrange, fits, GAP, treeOf } from "../../frontend/js/stage/layout.js";

const ranks = (n) => Array.from({ length: n }, (_, i) => i);
const heap = (n) =>
  ranks(n)
    .slice(1)
    .map((v) => [(v - 1) >> 1, v]); // parent (v-1)/2
const highest = (v) => 1 << (31 - Math.clz32(v));
const BOXES = [
  [1200, 640],
  [1200, 850],
  [1200, 500],
  [700, 900],
];
// The layout hints the server sends (catalog.layout_of), one per shape; a quarter of the ranks serve.
const hint = (shape, n = 4) => ({
  shape,
  root: ["tree", "star"].includes(shape) ? 0 : null,
  servers: shape === "servers" ? ranks(Math.ceil(n / 4)) : [],
});
const SHAPES = ["ring", "tree", "star", "grid", "servers"];

test("cards stay on the stage and never overlap, up to 64 ranks, in any box", () => {
  for (const shape of SHAPES) {
    for (const n of [1, 2, 3, 5, 8, 16, 33, 64]) {
      for (const [w, h] of BOXES) {
        const { card, positions } = arrange(hint(shape, n), ranks(n), w, h, heap(n));
        assert.equal(Object.keys(positions).length, n);
        assert.ok(fits(positions, card, w, h), `${shape} ${n} in ${w}x${h}`);
        const points = Object.values(positions);
        for (const p of points)
          assert.ok(
            p.x - card.w / 2 >= 0 && p.x + card.w / 2 <= w && p.y - card.h / 2 >= 0 && p.y + card.h / 2 <= h,
          );
        for (let i = 0; i < n; i++)
          for (let j = i + 1; j < n; j++)
            assert.ok(
              Math.abs(points[i].x - points[j].x) >= card.w + GAP - 1e-6 ||
                Math.abs(points[i].y - points[j].y) >= card.h + GAP - 1e-6,
              `${shape} ${n} in ${w}x${h}: cards ${i} and ${j} overlap`,
            );
      }
    }
  }
});

test("cards are as large as legibility needs: a name and a row of chunks", () => {
  const at = (shape, n) => arrange(hint(shape, n), ranks(n), 1200, 850, heap(n)).card;
  for (const shape of SHAPES) {
    assert.ok(at(shape, 4).h >= 140 && at(shape, 4).w >= 300, `${shape} 4: ${JSON.stringify(at(shape, 4))}`);
    assert.ok(
      at(shape, 16).w >= 120 && at(shape, 16).h >= 60,
      `${shape} 16: ${JSON.stringify(at(shape, 16))}`,
    );
    assert.ok(
      at(shape, 64).w >= 25 && at(shape, 64).h >= 20,
      `${shape} 64: ${JSON.stringify(at(shape, 64))}`,
    );
  }
  assert.ok(at("ring", 64).w >= 60, "a 64-rank ring keeps cards wide enough for their chunks");
});

test("a ring runs clockwise from the top in group order", () => {
  const { positions: pos } = arrange(hint("ring"), [5, 6, 7, 8], 1200, 850);
  assert.ok(pos[5].y < pos[6].y && pos[6].x > pos[5].x, "second rank right of and below the first");
  assert.ok(pos[7].y > pos[6].y && pos[8].x < pos[7].x);
  const angle = ({ x, y }) => Math.atan2(y - 425, x - 600);
  const big = arrange(hint("ring"), ranks(16), 1200, 850).positions;
  const turns = ranks(16).map((r) => (angle(big[r]) + 2.5 * Math.PI) % (2 * Math.PI));
  assert.deepEqual(
    [...turns].sort((a, b) => a - b),
    turns,
    "angles grow with the rank",
  );
});

test("a tree is read from its transfers: root on top, parents centred over their children", () => {
  // Binomial broadcast: rank v gets the data from v minus its highest bit.
  const edges = ranks(8)
    .slice(1)
    .map((v) => [v - highest(v), v]);
  const tree = treeOf(ranks(8), 0, edges);
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map((v) => tree.parent[v]),
    [0, 0, 1, 0, 1, 2, 3],
  );
  assert.deepEqual(
    ranks(8).map((v) => tree.depth[v]),
    [0, 1, 1, 2, 1, 2, 2, 3],
  );
  const { positions: pos } = arrange(hint("tree"), ranks(8), 1200, 850, edges);
  for (const v of ranks(8).slice(1))
    assert.ok(pos[v].y > pos[tree.parent[v]].y, `rank ${v} below its parent`);
  assert.ok(Math.abs(pos[3].x - pos[7].x) < 1e-6, "an only child sits under its parent");
  // A root other than 0, with the group's global ranks: the heap counts from the root.
  const group = [10, 11, 12, 13, 14];
  const real = (v) => group[(2 + v) % 5]; // virtual rank v counts from the root, group index 2
  const rooted = [1, 2, 3, 4].map((v) => [real((v - 1) >> 1), real(v)]);
  const p2 = arrange({ shape: "tree", root: 12, servers: [] }, group, 1200, 850, rooted).positions;
  assert.ok(
    group.every((r) => r === 12 || p2[r].y > p2[12].y),
    "the root is on top",
  );
  assert.equal(p2[13].y, p2[14].y, "the root's two children share a level");
  const stray = treeOf([0, 1, 2], 0, [[0, 1]]);
  assert.equal(stray.parent[2], 0, "a rank no transfer reaches hangs under the root");
});

test("a star puts the root in the middle", () => {
  const { positions: pos } = arrange({ shape: "star", root: 2, servers: [] }, ranks(5), 1000, 600);
  assert.deepEqual(pos[2], { x: 500, y: 300 });
  assert.ok([0, 1, 3, 4].every((r) => Math.hypot(pos[r].x - 500, pos[r].y - 300) > 100));
});

test("a grid fills rows in group order", () => {
  const { positions: pos } = arrange(hint("grid"), ranks(6), 1200, 850);
  const rows = [...new Set(Object.values(pos).map((p) => p.y))];
  assert.ok(rows.length >= 2 && rows.length <= 3);
  for (let r = 1; r < 6; r++)
    assert.ok(pos[r].y > pos[r - 1].y || (pos[r].y === pos[r - 1].y && pos[r].x > pos[r - 1].x));
});

test("servers sit in a row above, their workers in rows below, each in group order", () => {
  const { positions: pos, card } = arrange(
    { shape: "servers", root: null, servers: [6, 2] },
    ranks(8),
    1200,
    850,
  );
  const workers = [0, 1, 3, 4, 5, 7];
  assert.equal(pos[2].y, pos[6].y, "the servers share a row");
  assert.ok(pos[2].x < pos[6].x, "servers left to right in group order");
  assert.ok(
    workers.every((r) => pos[r].y >= pos[2].y + card.h + GAP),
    "every worker is below the servers",
  );
  for (let i = 1; i < workers.length; i++) {
    const [a, b] = [pos[workers[i - 1]], pos[workers[i]]];
    assert.ok(b.y > a.y || (b.y === a.y && b.x > a.x), `worker ${workers[i]} after worker ${workers[i - 1]}`);
  }
  const many = arrange({ shape: "servers", root: null, servers: [0, 1] }, ranks(34), 1200, 640).positions;
  assert.ok(
    new Set(
      ranks(34)
        .slice(2)
        .map((r) => many[r].y),
    ).size > 1,
    "32 workers wrap onto more than one row",
  );
  assert.ok(
    ranks(34)
      .slice(2)
      .every((r) => many[r].y > many[0].y),
  );
});

test("a shape the page does not know is drawn as a ring, and a run stored without a hint too", () => {
  const ring = arrange(hint("ring"), ranks(6), 1200, 850);
  assert.deepEqual(arrange({ shape: "hypercube", root: null, servers: [] }, ranks(6), 1200, 850), ring);
  assert.deepEqual(arrange({}, ranks(6), 1200, 850), ring);
});

test("a portrait box (a phone) stacks 2 to 8 ranks in a column, a tree as an outline", () => {
  const [w, h] = [378, 570];
  for (const shape of SHAPES) {
    for (let n = 2; n <= 8; n++) {
      const edges = heap(n),
        { card, positions: pos, column } = arrange(hint(shape, n), ranks(n), w, h, edges);
      assert.ok(column && fits(pos, card, w, h), `${shape} ${n}`);
      assert.equal(new Set(Object.values(pos).map((p) => p.y)).size, n, `${shape} ${n}: one rank a row`);
      assert.ok(card.w >= 0.55 * w && card.h >= 55, `${shape} ${n}: ${JSON.stringify(card)}`);
      assert.ok(
        Object.values(pos).every((p) => p.x + card.w / 2 <= 0.75 * w),
        "room right of the cards for the labels",
      );
      if (shape !== "tree" && shape !== "star")
        assert.ok(
          ranks(n).every((r) => r === 0 || pos[r].y > pos[r - 1].y),
          "group order",
        );
    }
  }
  const tree = treeOf(ranks(8), 0, heap(8)),
    { positions: pos } = arrange(hint("tree", 8), ranks(8), w, h, heap(8));
  for (const r of ranks(8).slice(1)) {
    assert.ok(
      pos[r].y > pos[tree.parent[r]].y && pos[r].x > pos[tree.parent[r]].x,
      `rank ${r} under its parent, indented`,
    );
    const between = ranks(8).filter((o) => pos[o].y > pos[tree.parent[r]].y && pos[o].y < pos[r].y);
    assert.ok(
      between.every((o) => tree.depth[o] > tree.depth[tree.parent[r]]),
      `rank ${r}: only its parent's subtree between them`,
    );
  }
  assert.ok(!arrange(hint("ring", 16), ranks(16), w, h).column, "16 ranks keep their shape");
  assert.ok(!arrange(hint("ring", 8), ranks(8), 1200, 640).column, "a landscape box keeps its shape");
});
