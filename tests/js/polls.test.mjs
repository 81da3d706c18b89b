import "./rs.mjs";
import assert from "node:assert/strict";
import { test } from "node:test";

const { keptBallot, firstAsk, moveAsk } = await import("rs/lecture/polls.js");
const { shares } = await import("rs/lecture/poll-card.js");

const store = () => {
  const m = new Map();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => m.set(k, String(v)) };
};

test("a page's ballot is the one the server handed it, kept for a reload, and only such a one", () => {
  const s = store();
  assert.equal(keptBallot(s), null, "none until the server hands one");
  const ballot = "AAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBB";
  s.setItem("ringside-ballot", ballot);
  assert.equal(keptBallot(s), ballot, "kept");
  s.setItem("ringside-ballot", "made-up-by-a-page");
  assert.equal(keptBallot(s), null, "not one the server would take");
});

test("the holds question starts after step 1, on the group's second rank", () => {
  assert.deepEqual(firstAsk([0, 1, 2, 3]), {
    group: [0, 1, 2, 3],
    rank: 1,
    step: 0,
    seconds: null,
    numeric: false,
  });
  assert.equal(firstAsk([5]).rank, 5, "a group of one");
});

test("↑ ↓ go round the group, ← → move the step (never before the first), T the timer, N numbers", () => {
  const a = firstAsk([0, 2, 4, 6]);
  assert.equal(moveAsk(a, "ArrowDown").rank, 4);
  assert.equal(moveAsk({ ...a, rank: 0 }, "ArrowUp").rank, 6);
  assert.equal(moveAsk(a, "ArrowLeft").step, 0, "no step before the first");
  assert.equal(
    moveAsk(moveAsk(a, "ArrowRight"), "ArrowRight").step,
    2,
    "the server knows how many there are",
  );
  let timed = a;
  const seconds = [1, 2, 3, 4].map(() => (timed = moveAsk(timed, "t")).seconds);
  assert.deepEqual(seconds, [20, 30, 60, null], "off, 20, 30, 60 s, off");
  assert.equal(moveAsk(moveAsk(a, "N"), "n").numeric, false, "N turns typed numbers on and off");
  assert.equal(moveAsk(a, "Enter"), null);
});

test("each choice's share of the votes", () => {
  assert.deepEqual(shares([2, 1, 0, 1]), [50, 25, 0, 25]);
  assert.deepEqual(shares([0, 0]), [0, 0], "no votes, no bars");
});

test("the reveal says what a wrong choice got wrong, and nothing for the right one", async () => {
  const { mistakeWords } = await import("rs/lecture/poll-card.js");
  assert.equal(mistakeWords({ kind: "early", step: 1 }), "one step early: after step 2");
  assert.equal(mistakeWords({ kind: "op", op: "MAX", run_op: "SUM" }), "MAX instead of SUM");
  assert.equal(mistakeWords(null), null);
});

test("the presenter is told of runs every page saw that answer the question, held or not, and of a seed drawn", async () => {
  const { seenWords } = await import("rs/lecture/poll-card.js");
  const { translate } = await import("rs/i18n/i18n.js");
  const said = seenWords({
    answered_by: ["r-000001"],
    rehearsals: ["r-000002", "r-000003"],
    fresh_seed: 1234567,
  });
  assert.deepEqual(said, [
    "Every page has seen r-000001: it answers this already",
    "Every page has seen r-000002, r-000003, which answers this: held from the room until the reveal",
    "Seed 1234567 drawn: every page has seen a run of the seed asked, which answers this",
  ]);
  assert.deepEqual(seenWords({ answered_by: [], rehearsals: [], fresh_seed: null }), [], "nothing to tell");
  for (const lang of ["ko", "zh"]) {
    const table = (await import(`rs/i18n/${lang}.js`)).default;
    const done = said.map((words) => translate(words, table));
    for (const [i, words] of done.entries()) {
      assert.ok(
        words && !/[A-Za-z]{2,}/.test(words.replace(/r-\d+/g, "")),
        `${lang}: ${said[i]} -> ${words}`,
      );
    }
    assert.ok(
      done[1].includes("r-000002, r-000003") && done[2].includes("1234567"),
      "the runs and seed named",
    );
  }
});
