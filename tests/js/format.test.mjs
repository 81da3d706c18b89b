import assert from "node:assert/strict";
import { test } from "node:test";
import {
  bandwidth,
  bytes,
  byteUnit,
  cellForms,
  colour,
  combination,
  division,
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

/** A written number's value, and the place of its last digit ("1500": its zeros may be rounded). */
function read(text) {
  const [, mantissa, suffix = "", exponent = "0"] = text
    .replace("−", "-")
    .match(/^(-?[\d.]+)([kMGT]?)(?:e(-?\d+))?$/);
  const scale = 10 ** ({ k: 3, M: 6, G: 9, T: 12 }[suffix] ?? 0) * 10 ** Number(exponent);
  const decimals = mantissa.split(".")[1]?.length ?? -mantissa.match(/0*$/)[0].length;
  return [Number(mantissa) * scale, scale * 10 ** -decimals];
}

test("AVG's division is written by one rule: the average to the sum's place, = only where exact", () => {
  const f32 = Math.fround,
    avg = (sum, p) => [[sum], p, [f32(sum / p)]];
  // the boxes, "1 ÷ 4 ≈ 0.251" and "0.18 ÷ 4 ≈ 0.0449": sums of float32 values, rounded
  assert.deepEqual(division(...avg(f32(1.005), 4)), ["1 ÷ 4 ≈ 0.25"]);
  assert.deepEqual(division(...avg(f32(0.1797), 4)), ["0.18 ÷ 4 ≈ 0.045"]);
  assert.deepEqual(division(...avg(f32(-1.005), 4)), ["−1 ÷ 4 ≈ −0.25"], "a true minus, the same rule");
  // a sum written with every digit: the average as a cell writes it
  assert.deepEqual(division([1.005], 4, [0.25125]), ["1.005 ÷ 4 ≈ 0.251"]);
  assert.deepEqual(division(...avg(7, 3)), ["7 ÷ 3 ≈ 2.33"]);
  assert.deepEqual(division([7, -7], 4, [1.75, -1.75]), ["7 ÷ 4 = 1.75", "−7 ÷ 4 = −1.75"], "both exact: =");
  assert.deepEqual(division([1e20], 4, [2.5e19]), ["1e20 ÷ 4 = 2.5e19"]);
  assert.deepEqual(division(...avg(123456.7, 4)), ["123k ÷ 4 ≈ 31k"], "large: the sum's suffix, its place");
  assert.deepEqual(division(["inf"], 4, ["inf"]), ["∞ ÷ 4 = ∞"]);
  // many values a cell: ranges, their bounds outward at one place
  assert.deepEqual(division([1, 2, 3], 4, [0.25, 0.5, 0.75]), ["[1 … 3] ÷ 4 = [0.25…0.75]"]);
  const thirds = [0.1, 0.2, 0.35].map(f32);
  assert.deepEqual(
    division(
      thirds,
      3,
      thirds.map((v) => f32(v / 3)),
    ),
    ["[0.1…0.35] ÷ 3 ≈ [0.03…0.12]"],
  );
  // and whatever the values: worked again from what is written, the division lands within less than
  // one unit of the average's last digit ("1 ÷ 4 ≈ 0.251" is 0.001 off, a whole unit)
  let seed = 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < 3000; i++) {
    const sum = f32((random() - 0.5) * 10 ** Math.floor(random() * 16 - 6)),
      p = 2 + Math.floor(random() * 15);
    const [line] = division(...avg(sum, p));
    const [, s, sign, a] = line.match(/^(\S+) ÷ \d+ ([=≈]) (\S+)$/);
    const [[written], [average, unit]] = [read(s), read(a)];
    assert.ok(Math.abs(written / p - average) < unit * (1 - 1e-9), `${line} (sum ${sum})`);
    assert.equal(sign === "=", written === sum && average === f32(sum / p), line);
  }
});
