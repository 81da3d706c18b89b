// The strip over the stage (panels/strip.js): the run on the stage as it ran, or the pick.
import assert from "node:assert/strict";
import { test } from "node:test";
import "./rs.mjs";

const { PATTERN_WORDS, runParts, specParts } = await import("rs/panels/strip.js");

const ALL_REDUCE = { name: "all_reduce", reduces: true };
const BROADCAST = { name: "broadcast", rooted: true };
const said = (parts) => parts.filter(Boolean).join(" · ");

test("the strip names what R would run: the pick, with the world's ranks and the preset's inputs", () => {
  const pick = { collective: "broadcast", algorithm: "ring", count: 8, dtype: "int32", root: 0 };
  assert.equal(
    said(specParts(pick, { entry: BROADCAST, ranks: 8 })),
    "broadcast · ring · 8 ranks · 8 × int32 · root 0",
  );
  assert.equal(
    said(specParts({ ...pick, group: [0, 2] }, { entry: BROADCAST, ranks: 8, data: PATTERN_WORDS.digits })),
    "broadcast · ring · ranks 0,2 · 8 × int32 · root 0 · lecture data: a digit a block",
  );
});

test("a run on the stage is named as it ran, not as the pick stands", () => {
  // the strip read "broadcast · ring · 8 ranks" over an all_reduce
  const run = {
    spec: {
      collective: "all_reduce",
      algorithm: "tree",
      count: 4,
      dtype: "float32",
      op: "AVG",
      root: 0,
      group: null,
    },
    group: [0, 1, 2, 3],
    display: { itemsize: 4 },
  };
  assert.equal(said(runParts(run, ALL_REDUCE)), "all_reduce · tree · 4 ranks · 4 × float32 · AVG");
  const lecture = { ...run, spec: { ...run.spec, pattern: "digits", servers: null } };
  assert.match(said(runParts(lecture, ALL_REDUCE)), / · AVG · lecture data: a digit a block$/);
  // an op the collective does not take, a root it has none of: not said (the run's spec holds both)
  const gather = { ...run, spec: { ...run.spec, collective: "all_gather" } };
  assert.equal(said(runParts(gather, { name: "all_gather" })), "all_gather · tree · 4 ranks · 4 × float32");
});

test("a barrier's strip says its ranks' arrivals, not its data", () => {
  const barrier = { collective: "barrier", algorithm: "dissemination", count: 1, dtype: "int64", op: "BOR" };
  const entry = { name: "barrier", arrivals: true, reduces: true };
  assert.equal(
    said(specParts({ ...barrier, perturb: { stagger: { delay_s: 0.1 } } }, { entry, ranks: 4 })),
    "barrier · dissemination · 4 ranks · ranks arrive 100.00 ms apart: each waits for the last",
  );
  assert.equal(
    said(specParts(barrier, { entry, ranks: 4 })),
    "barrier · dissemination · 4 ranks · each rank waits for the last",
  );
});
