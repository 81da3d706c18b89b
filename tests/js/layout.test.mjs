import { test } from "node:test";
import assert from "node:assert/strict";
import { layout, shapeOf, cardSize } from "../../frontend/js/layout.js";

const ranks = (n) => Array.from({ length: n }, (_, i) => i);

test("each algorithm gets its shape", () => {
  assert.equal(shapeOf("ring"), "circle");
  assert.equal(shapeOf("tree"), "tree");
  assert.equal(shapeOf("master_worker"), "star");
  assert.equal(shapeOf("pairwise"), "grid");
});

test("positions stay inside the box and apart, up to 64 ranks", () => {
  for (const algorithm of ["ring", "tree", "binomial_tree", "master_worker", "pairwise"]) {
    for (const n of [1, 2, 5, 16, 64]) {
      const card = cardSize(shapeOf(algorithm), n, 1200, 700);
      const pos = layout(algorithm, ranks(n), 0, 1200, 700, card);
      assert.equal(Object.keys(pos).length, n);
      const points = Object.values(pos);
      for (const p of points) {
        assert.ok(p.x - card.w / 2 >= 0 && p.x + card.w / 2 <= 1200, `${algorithm} ${n}: card off the stage`);
        assert.ok(p.y - card.h / 2 >= 0 && p.y + card.h / 2 <= 700, `${algorithm} ${n}: card off the stage`);
      }
      const { w } = card;
      for (let i = 0; i < points.length; i++)
        for (let j = i + 1; j < points.length; j++)
          assert.ok(Math.hypot(points[i].x - points[j].x, points[i].y - points[j].y) > Math.min(20, w / 4), `${algorithm} ${n} overlap`);
    }
  }
});

test("a tree puts the root on top and children below their parents", () => {
  const pos = layout("tree", ranks(7), 3, 1000, 600);
  assert.ok(Object.values(pos).every((p) => p.y >= pos[3].y));
  assert.ok(pos[4].y > pos[3].y && pos[4].y === pos[5].y && pos[6].y > pos[4].y); // depths 0, 1, 1, 2
  const star = layout("master_worker", ranks(5), 2, 1000, 600);
  assert.deepEqual(star[2], { x: 500, y: 300 });
});
