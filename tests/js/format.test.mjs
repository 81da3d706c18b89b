import assert from "node:assert/strict";
import { test } from "node:test";
import {
  bandwidth,
  bytes,
  byteUnit,
  cellForms,
  colour,
  combination,
  dtypeOf,
  formatValue,
  numberForms,
  PALETTE,
  rangeForms,
  rounded,
  within,
} from "../../frontend/js/core/format.js";

test("values are written short", () => {
  assert.equal(formatValue(7), "7");
  assert.equal(formatValue(0.123456), "0.123");
  assert.equal(formatValue(1234567), "1.2e+6");
  assert.equal(formatValue(-0.99962), "-1");
});

test("a number's short forms round to two digits at least, with a suffix or an exponent, and a true minus", () => {
  assert.deepEqual(numberForms(1032), ["1032"], "1000 … 9999 as they are: 1.0k is no shorter");
  assert.deepEqual(numberForms(-123456), ["−123456", "−123k"], "never coarser than the suffix's unit");
  assert.deepEqual(numberForms(-0.0437), ["−0.0437", "−0.044"]);
  assert.deepEqual(numberForms(0.0025), ["2.5e-3"]);
  assert.deepEqual(numberForms(1 / 3), ["0.333", "0.33"]);
  assert.deepEqual(numberForms(123.456), ["123"], "floats below 1000 keep their units");
  assert.deepEqual(numberForms(-2147483648), ["−2.15G", "−2.1G"]);
  assert.deepEqual(numberForms("inf"), ["∞"]);
  assert.equal(rounded(-0.9669, 2, Math.floor), "−0.97");
  assert.equal(rounded(0.46, 2, Math.floor), "0.46", "0.46 / 0.01 is 45.99…, and stays 0.46");
});

test("a range reads as a range, its bounds rounded outward, one digit at last", () => {
  assert.deepEqual(rangeForms(-15, -8), ["−15 … −8", "−15…−8"], "never '-15 — -8'");
  assert.deepEqual(
    rangeForms(-0.0437, 0.023),
    ["−0.0437 … 0.023", "−0.044 … 0.023", "−0.044…0.023", "−0.05…0.03"],
    "never '-0.0437 – 0.023'",
  );
  assert.deepEqual(rangeForms(3584, 3647), ["3584 … 3647", "3584…3647", "3k…4k"]);
  assert.deepEqual(rangeForms(960, 1023), ["960 … 1023", "960…1023"], "no '0…2k': 0 would read as exact");
  assert.deepEqual(
    rangeForms(-986120192, -215968607).at(-1),
    "−1G…−2e8",
    "no '−200M': its zeros are no digits",
  );
  assert.deepEqual(rangeForms(128, 191), ["128 … 191", "128…191"], "no '1e2…2e2', which is no shorter");
  assert.deepEqual(rangeForms(7, 7), ["7"]);
});

test("a cell's values: one said once, a few side by side, else their range", () => {
  assert.deepEqual(cellForms([7, 7, 7]), ["7"]);
  assert.deepEqual(cellForms([3, 4]), ["3 4"]);
  assert.deepEqual(cellForms([1, 2, 3, 4]), ["1 2 3 4", "1 … 4", "1…4"]);
  assert.deepEqual(cellForms(Array.from({ length: 9 }, (_, i) => i)), ["0 … 8", "0…8"]);
  assert.deepEqual(cellForms(null), []);
  assert.equal(within(["0.333 1.67", "0.33 1.7"], 8), "0.33 1.7");
  assert.equal(within(["123456"], 3), "123456", "the shortest where none fits: never nothing");
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
