import assert from "node:assert/strict";
import { test } from "node:test";
import {
  bandwidth,
  brief,
  bytes,
  byteUnit,
  colour,
  combination,
  dtypeOf,
  fit,
  formatValue,
  PALETTE,
  range,
} from "../../frontend/js/core/format.js";

test("values are written short", () => {
  assert.equal(formatValue(7), "7");
  assert.equal(formatValue(0.123456), "0.123");
  assert.equal(formatValue(1234567), "1.2e+6");
  assert.equal(formatValue(-0.99962), "-1");
});

test("as many values as fit, then an ellipsis; a range or nothing when none fits", () => {
  assert.equal(fit([1, 2, 3], 5), "1 2 3");
  assert.equal(fit([1, 2, 3, 4], 5), "1 2…");
  assert.equal(fit([123456], 3), "");
  assert.equal(range(0, 7, 5), "0–7");
  assert.equal(range(-1, 1, 9), "-1 – 1");
  assert.equal(range(100, 999, 4), "", "never one bound alone: it reads as the value");
  assert.equal(range(-0.0721, 0.0688, 10), "-0.07…0.07", "both bounds, rounded to fit");
  assert.equal(brief([16, 17, 18, 19], 11), "16 17 18 19");
  assert.equal(brief([16, 17, 18, 19], 5), "16–19", "a range says more than the first value");
  assert.equal(brief([16, 17, 18, 19], 3), "16…");
  assert.equal(brief([16, 17, 18, 19], 2), "…");
  assert.equal(brief([16, 17, 18, 19], 2, ""), "");
  assert.equal(brief([1000, 2000], 3, ""), "");
  assert.equal(brief(null), "…");
});

test("reductions read as arithmetic", () => {
  assert.equal(combination("SUM", ["3", "4"], "7"), "3 + 4 = 7");
  assert.equal(combination("PRODUCT", ["3", "4"], "12"), "3 × 4 = 12");
  assert.equal(combination("MIN", ["3", "4"], "3"), "min(3, 4) = 3");
});

test("ranks get distinct colours from a colour-blind-safe palette", () => {
  assert.equal(new Set(Array.from({ length: 16 }, (_, r) => colour(r))).size, 16);
  assert.equal(colour(PALETTE.length), colour(0));
});

test("bandwidth picks its unit, three significant digits", () => {
  assert.equal(bandwidth(12.5e9), "12.5 GB/s");
  assert.equal(bandwidth(8.4e5), "840 kB/s");
  assert.equal(bandwidth(1234567), "1.23 MB/s");
  assert.equal(bandwidth(12), "12 B/s");
  assert.equal(bandwidth(null), "–");
});

test("byte counts take the binary unit that suits the largest", () => {
  assert.deepEqual(byteUnit(48), [1, "B"]);
  assert.deepEqual(byteUnit(1024), [1024, "KiB"]);
  assert.deepEqual(byteUnit(3 << 20), [1 << 20, "MiB"]);
  assert.deepEqual(byteUnit(5 * 2 ** 30), [2 ** 30, "GiB"]);
  assert.equal(bytes(48), "48 B");
  assert.equal(bytes(1536), "1.5 KiB");
  assert.equal(bytes(64 << 20), "64.0 MiB");
  assert.equal(bytes(null), "–");
});

test("a run's dtype is what its buffers hold: the barrier's int64 flags, whatever was asked", () => {
  const run = (dtype, itemsize, op = "SUM") => ({ spec: { dtype }, display: { itemsize }, op });
  assert.equal(dtypeOf(run("int32", 4)), "int32");
  assert.equal(dtypeOf(run("float32", 8, "BOR")), "int64");
  assert.equal(dtypeOf(run("int32", 8, "BOR")), "int64");
  assert.equal(dtypeOf(run("float16", 2)), "float16");
  assert.equal(dtypeOf({ spec: { dtype: "float32" }, op: null }), "float32"); // stored before item sizes
});
