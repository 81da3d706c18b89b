import { test } from "node:test";
import assert from "node:assert/strict";
import { arrange, fits, shapeOf, treeOf, GAP } from "../../frontend/js/layout.js";

const ranks = (n) => Array.from({ length: n }, (_, i) => i);
const heap = (n) => ranks(n).slice(1).map((v) => [(v - 1) >> 1, v]); // parent (v-1)/2
const highest = (v) => 1 << (31 - Math.clz32(v));
const BOXES = [[1200, 640], [1200, 850], [1200, 500], [700, 900]];

test("each algorithm gets its shape", () => {
  assert.equal(shapeOf("ring"), "circle");
  assert.equal(shapeOf("dissemination"), "circle");
  assert.equal(shapeOf("tree"), "tree");
  assert.equal(shapeOf("binomial_tree"), "tree");
  assert.equal(shapeOf("master_worker"), "star");
  assert.equal(shapeOf("flat"), "star");
  assert.equal(shapeOf("pairwise"), "grid");
});

test("cards stay on the stage and never overlap, up to 64 ranks, in any box", () => {
  for (const algorithm of ["ring", "tree", "binomial_tree", "master_worker", "pairwise"]) {
    for (const n of [1, 2, 3, 5, 8, 16, 33, 64]) {
      for (const [w, h] of BOXES) {
        const { card, positions } = arrange(algorithm, ranks(n), 0, w, h, heap(n));
        assert.equal(Object.keys(positions).length, n);
        assert.ok(fits(positions, card, w, h), `${algorithm} ${n} in ${w}x${h}`);
        const points = Object.values(positions);
        for (const p of points) assert.ok(p.x - card.w / 2 >= 0 && p.x + card.w / 2 <= w && p.y - card.h / 2 >= 0 && p.y + card.h / 2 <= h);
        for (let i = 0; i < n; i++)
          for (let j = i + 1; j < n; j++)
            assert.ok(Math.abs(points[i].x - points[j].x) >= card.w + GAP - 1e-6 || Math.abs(points[i].y - points[j].y) >= card.h + GAP - 1e-6,
              `${algorithm} ${n} in ${w}x${h}: cards ${i} and ${j} overlap`);
      }
    }
  }
});

test("cards are as large as legibility needs: a name and a row of chunks", () => {
  const at = (algorithm, n) => arrange(algorithm, ranks(n), 0, 1200, 850, heap(n)).card;
  for (const algorithm of ["ring", "master_worker", "pairwise", "tree"]) {
    assert.ok(at(algorithm, 4).h >= 140 && at(algorithm, 4).w >= 300, `${algorithm} 4: ${JSON.stringify(at(algorithm, 4))}`);
    assert.ok(at(algorithm, 16).w >= 120 && at(algorithm, 16).h >= 60, `${algorithm} 16: ${JSON.stringify(at(algorithm, 16))}`);
    assert.ok(at(algorithm, 64).w >= 25 && at(algorithm, 64).h >= 20, `${algorithm} 64: ${JSON.stringify(at(algorithm, 64))}`);
  }
  assert.ok(at("ring", 64).w >= 60, "a 64-rank ring keeps cards wide enough for their chunks");
});

test("a ring runs clockwise from the top in group order", () => {
  const { positions: pos } = arrange("ring", [5, 6, 7, 8], 5, 1200, 850);
  assert.ok(pos[5].y < pos[6].y && pos[6].x > pos[5].x, "second rank right of and below the first");
  assert.ok(pos[7].y > pos[6].y && pos[8].x < pos[7].x);
  const angle = ({ x, y }) => Math.atan2(y - 425, x - 600);
  const big = arrange("ring", ranks(16), 0, 1200, 850).positions;
  const turns = ranks(16).map((r) => (angle(big[r]) + 2.5 * Math.PI) % (2 * Math.PI));
  assert.deepEqual([...turns].sort((a, b) => a - b), turns, "angles grow with the rank");
});

test("a tree is read from its transfers: root on top, parents centred over their children", () => {
  // Binomial broadcast: rank v gets the data from v minus its highest bit.
  const edges = ranks(8).slice(1).map((v) => [v - highest(v), v]);
  const tree = treeOf(ranks(8), 0, edges);
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map((v) => tree.parent[v]), [0, 0, 1, 0, 1, 2, 3]);
  assert.deepEqual(ranks(8).map((v) => tree.depth[v]), [0, 1, 1, 2, 1, 2, 2, 3]);
  const { positions: pos } = arrange("binomial_tree", ranks(8), 0, 1200, 850, edges);
  for (const v of ranks(8).slice(1)) assert.ok(pos[v].y > pos[tree.parent[v]].y, `rank ${v} below its parent`);
  assert.ok(Math.abs(pos[3].x - pos[7].x) < 1e-6, "an only child sits under its parent");
  // A root other than 0, with the group's global ranks: the heap counts from the root.
  const group = [10, 11, 12, 13, 14];
  const real = (v) => group[(2 + v) % 5]; // virtual rank v counts from the root, group index 2
  const rooted = [1, 2, 3, 4].map((v) => [real((v - 1) >> 1), real(v)]);
  const p2 = arrange("tree", group, 12, 1200, 850, rooted).positions;
  assert.ok(group.every((r) => r === 12 || p2[r].y > p2[12].y), "the root is on top");
  assert.equal(p2[13].y, p2[14].y, "the root's two children share a level");
  const stray = treeOf([0, 1, 2], 0, [[0, 1]]);
  assert.equal(stray.parent[2], 0, "a rank no transfer reaches hangs under the root");
});

test("a star puts the root in the middle", () => {
  const { positions: pos } = arrange("master_worker", ranks(5), 2, 1000, 600);
  assert.deepEqual(pos[2], { x: 500, y: 300 });
  assert.ok([0, 1, 3, 4].every((r) => Math.hypot(pos[r].x - 500, pos[r].y - 300) > 100));
});

test("a grid fills rows in group order", () => {
  const { positions: pos } = arrange("pairwise", ranks(6), 0, 1200, 850);
  const rows = [...new Set(Object.values(pos).map((p) => p.y))];
  assert.ok(rows.length >= 2 && rows.length <= 3);
  for (let r = 1; r < 6; r++) assert.ok(pos[r].y > pos[r - 1].y || (pos[r].y === pos[r - 1].y && pos[r].x > pos[r - 1].x));
});
