// The history's run list, kept from what the feed tells a page (stage/runs.js): it never asks.
import "./rs.mjs";
import assert from "node:assert/strict";
import { test } from "node:test";

const { relisted } = await import("rs/stage/runs.js");

const line = (n, extra = {}) => ({
  id: `r-${String(n).padStart(6, "0")}`,
  created_at: n,
  state: "done",
  ...extra,
});
const ids = (lines) => lines.map((r) => r.id);

test("the snapshot's lines are the list, newest first", () => {
  assert.deepEqual(ids(relisted([line(1)], { type: "snapshot", recent: [line(3), line(2)] })), [
    "r-000003",
    "r-000002",
  ]);
  assert.deepEqual(
    ids(relisted([line(1)], { type: "snapshot" })),
    ["r-000001"],
    "a snapshot without them leaves it",
  );
});

test("a run's line takes its place as it is queued, starts and ends", () => {
  const whole = (n, state) => ({
    ...line(n),
    state,
    spec: { collective: "all_reduce", algorithm: "ring", purpose: "show" },
  });
  let lines = [line(2), line(1)];
  lines = relisted(lines, { type: "run", run: line(3, { state: "queued" }) });
  assert.deepEqual(ids(lines), ["r-000003", "r-000002", "r-000001"], "a new run on top");
  lines = relisted(lines, { type: "run_started", run: whole(3, "running") });
  assert.deepEqual(
    lines[0],
    {
      id: "r-000003",
      state: "running",
      created_at: 3,
      collective: "all_reduce",
      algorithm: "ring",
      purpose: "show",
    },
    "made of the whole run",
  );
  lines = relisted(lines, { type: "run_ended", run: whole(3, "done") });
  lines = relisted(lines, { type: "run", run: line(1, { state: "cancelled" }) });
  assert.deepEqual(ids(lines), ["r-000003", "r-000002", "r-000001"], "each where it stands");
  assert.deepEqual(
    lines.map((r) => r.state),
    ["done", "done", "cancelled"],
  );
});

test("the list keeps the newest thirty", () => {
  let lines = [];
  for (let n = 1; n <= 40; n++) lines = relisted(lines, { type: "run", run: line(n) });
  assert.equal(lines.length, 30);
  assert.deepEqual(ids(lines).slice(0, 2), ["r-000040", "r-000039"]);
  assert.equal(lines.at(-1).id, "r-000011");
});

test("a poll's change replaces the list with what the room may read", () => {
  const held = line(2, { time: null });
  assert.deepEqual(relisted([line(2, { time: 0.5 }), line(1)], { type: "runs", runs: [held, line(1)] }), [
    held,
    line(1),
  ]);
  const mine = [line(1)];
  assert.equal(relisted(mine, { type: "step", run_id: "r-000001" }), mine, "no other message touches it");
});
