// How the page writes values, ranks' colours and reductions. Pure functions (node tests them).

// Okabe-Ito, then Paul Tol's muted set: colour-blind-safe for the first 16 ranks.
export const PALETTE = [
  "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999",
  "#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499"];
export const colour = (rank) => PALETTE[rank % PALETTE.length];

const NON_FINITE = { inf: "∞", "-inf": "−∞", nan: "NaN" }; // how the protocol spells what JSON cannot

export function formatValue(v) {
  if (v == null) return "";
  if (typeof v !== "number") return NON_FINITE[v] ?? String(v);
  if (Number.isInteger(v)) return Math.abs(v) >= 1e6 ? v.toExponential(1) : String(v);
  return Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-2 && v !== 0) ? v.toExponential(1)
    : String(+v.toPrecision(3));
}

/** Every digit of a value, for a hover: what the cell holds, unrounded. */
export const exact = (v) => (typeof v === "number" ? String(v) : formatValue(v));

const MINUS = "\u2212"; // a number's sign as type sets it: "-3" reads as a dash from the back row
const signed = (text) => text.replace(/^-/, MINUS);
// [from, scale, suffix]: 1000 … 9999 as they are ("1.0k" is no shorter)
const SI = [[1e12, 1e12, "T"], [1e9, 1e9, "G"], [1e6, 1e6, "M"], [1e4, 1e3, "k"]];

/** The place `v` rounds at to `digits` significant digits, never finer than its units below 10000
 * or than its suffix's above (a power of ten). */
function placeOf(v, digits) {
  const a = Math.abs(v);
  const [, cap] = SI.find(([s]) => a >= s) ?? [1, 1];
  return Math.min(10 ** (Math.floor(Math.log10(a)) - digits + 1), a >= 1e15 ? Infinity : cap);
}

/** `v` rounded at `unit` (a place: a power of ten), in at most `digits` significant digits, written
 * as `rounded` writes it; `round` as there. */
function atPlace(v, unit, digits, round = Math.round) {
  const q = v / unit, near = Math.round(q), e = Math.round(Math.log10(unit));
  const r = (Math.abs(q - near) < 1e-9 ? near : round(q)) * unit; // 0.46 / 0.01 is 45.99…
  const lead = (x) => Math.floor(Math.log10(Math.abs(x)) + 1e-9); // the place of the first digit
  if (!r) return "0";
  if (Math.abs(r) >= 1e15 || Math.abs(r) < 1e-2) {
    const shown = Math.max(1, Math.min(digits, lead(r) - e + 1));
    return signed(r.toExponential(shown - 1).replace(/\.?0+e/, "e").replace("e+", "e"));
  }
  const [, scale, suffix] = SI.find(([s]) => Math.abs(r) >= s) ?? [1, 1, ""], m = r / scale;
  const places = Math.max(0, Math.min(lead(scale) - e, digits - 1 - lead(m)));
  return signed(suffix ? m.toFixed(places) + suffix : String(+m.toFixed(places)));
}

/** `v` to `digits` significant digits, never coarser than its units below 10000 or than its
 * suffix's above: "0.46", "4.4e-3", "−12k", "123k"; `round`: Math.round, or floor and ceil for a
 * range's bounds, which round outward so that the range still holds every value. */
export const rounded = (v, digits, round = Math.round) =>
  (v ? atPlace(v, placeOf(v, digits), digits, round) : "0");

/** A range's bounds to the one digit of the larger one, outward: "−1…0.9", "−0.5…0.1", "3k…4k",
 * "−1e9…−2e8" (never "200M", whose zeros would read as digits). */
function roughly(lo, hi) {
  const k = Math.floor(Math.log10(Math.max(Math.abs(lo), Math.abs(hi)))), u = 10 ** k;
  const write = (m) => { // m·u, m a digit or ±10
    if (!m) return "0";
    const [d, e] = Math.abs(m) === 10 ? [Math.sign(m), k + 1] : [m, k], suffix = SUFFIX[e];
    return signed(e < 1 ? String(+(d * 10 ** e).toFixed(-e)) : suffix ? `${d}${suffix}` : `${d}e${e}`);
  };
  const [a, b] = [Math.floor(lo / u + 1e-9), Math.ceil(hi / u - 1e-9)];
  // a bound of 1 or more written "0" ("0…2k" for 960 … 1023) would read as exact: none
  return [[a, lo], [b, hi]].some(([m, v]) => !m && Math.abs(v) >= 1) ? "" : `${write(a)}…${write(b)}`;
}
const SUFFIX = { 3: "k", 6: "M", 9: "G", 12: "T" };

/** A number as a cell may write it, most exact first: every digit where that is short ("1032",
 * "0.5"), then three and two significant digits ("−0.461", "−0.46", "1.0k", "2.5e-3"). */
export function numberForms(v) {
  if (typeof v !== "number") return [formatValue(v)];
  const whole = Number.isInteger(v) && Math.abs(v) < 1e7 ? [signed(String(v))]
    : String(v).length <= 5 ? [signed(String(v))] : [];
  return [...new Set([...whole, rounded(v, 3), rounded(v, 2)])];
}

/** A range as a cell may write it, its bounds rounded outward: "−15 … −8", "−0.99 … 0.97", "448…511",
 * at last to one digit, "−1…0.9", "3k…4k": still bounds that hold every value. */
export function rangeForms(lo, hi) {
  if (lo === hi) return numberForms(lo);
  const whole = Number.isInteger(lo) && Number.isInteger(hi) && Math.max(-lo, hi) < 1e4;
  const bound = (digits) => (whole ? [signed(String(lo)), signed(String(hi))]
    : [rounded(lo, digits, Math.floor), rounded(hi, digits, Math.ceil)]);
  const [a, b] = bound(3), [c, d] = bound(2), rough = roughly(lo, hi), short = `${c}…${d}`.length;
  // one digit: a last resort, where it is shorter (an exponent, "1e2…2e2", where much shorter)
  const last = rough && rough.length + (rough.includes("e") ? 2 : 1) <= short ? [rough] : [];
  return [...new Set([`${a} … ${b}`, `${c} … ${d}`, `${c}…${d}`, ...last])];
}

/** What a cell holding `values` may write, most exact first: one value (said once where a chunk
 * holds only it), two or a few side by side, else their range; [] for none. */
export function cellForms(values) {
  if (values == null || !values.length) return [];
  if (values.every((v) => v === values[0])) return numberForms(values[0]);
  if (!values.every((v) => typeof v === "number")) return [values.map(formatValue).join(" ")];
  const forms = values.map(numberForms), listed = values.length > 8 ? []
    : [0, 1, 2].map((i) => forms.map((f) => f[Math.min(i, f.length - 1)]).join(" "));
  const spread = values.length > 2 ? rangeForms(Math.min(...values), Math.max(...values)) : [];
  return [...new Set([...listed, ...spread])];
}

/** The first of `forms` no longer than `chars` characters; the last (the shortest) if none is. */
export const within = (forms, chars) => forms.find((t) => t.length <= chars) ?? forms.at(-1) ?? "";

/** The binary unit that suits byte counts up to `max`: [bytes in one, its name]. */
export const byteUnit = (max) =>
  [[1 << 30, "GiB"], [1 << 20, "MiB"], [1024, "KiB"]].find(([s]) => max >= s) ?? [1, "B"];
export function bytes(n) {
  if (n == null) return "–";
  const [scale, unit] = byteUnit(n);
  return scale === 1 ? `${n} B` : `${(n / scale).toFixed(1)} ${unit}`;
}
/** Bytes per second in decimal units, as nccl-tests and link speeds are quoted: "12.5 GB/s", "840 kB/s". */
export function bandwidth(bps) {
  if (bps == null) return "–";
  const [scale, unit] = [[1e9, "GB/s"], [1e6, "MB/s"], [1e3, "kB/s"]].find(([s]) => bps >= s) ?? [1, "B/s"];
  return `${+(bps / scale).toPrecision(3)} ${unit}`;
}
export const seconds = (s) => (s == null ? "–"
  : s >= 1 ? `${s.toFixed(2)} s`
  : s >= 1e-3 ? `${(s * 1e3).toFixed(2)} ms`
  : `${(s * 1e6).toFixed(1)} µs`);

const INFIX = { SUM: "+", AVG: "+", PRODUCT: "×", BAND: "&", BOR: "|", BXOR: "^" };

/** The arithmetic of a reduction in words: "3 + 4 = 7", "max(3, 4) = 4", "0.1 + 0.2 ≈ 0.3"
 * (`approx`: some number is rounded, so the words do not add up exactly). */
export function combination(op, operands, result, approx = false) {
  const lhs = INFIX[op] ? operands.join(` ${INFIX[op]} `)
    : `${(op ?? "op").toLowerCase()}(${operands.join(", ")})`;
  return `${lhs} ${approx ? "≈" : "="} ${result}`;
}

/** Two elements with the same arithmetic say it once. */
const once = (lines) => (lines.every((l) => l === lines[0]) ? lines.slice(0, 1) : lines);

/** Values as a label writes them, in at most `chars` each: [texts, whether any is rounded]. */
function written(values, chars) {
  const texts = values.map((v) => within(numberForms(v), chars));
  return [texts, values.some((v, i) => typeof v === "number" && Number(texts[i].replace(MINUS, "-")) !== v)];
}

/** Chunks as a label writes them (their values, or their range in brackets): [texts, whether any is
 * not exact]. */
function briefly(chunks, chars) {
  const inexact = chunks.flat().some((v) => typeof v === "number" && !Number.isInteger(v));
  return [chunks.map((v) => within(cellForms(v), chars).replace(/^.*….*$/, "[$&]")), inexact];
}

/** A reduction element by element, one line per element where a cell holds one or two
 * ("3 + 4 = 7", "max(3, 4) = 4"); ranges in one line beyond that ("0–7 + 8–15 = 8–22").
 * `sent`: each sender's values; `had`, `now`: the receiving cell's before and after. A line whose
 * numbers are rounded says "≈": rounded figures never read as wrong arithmetic. */
export function arithmetic(op, sent, had, now, chars = 6) {
  if (sent.every((v) => v.length === now.length) && had.length === now.length) {
    const lines = now.map((_, i) => {
      const [texts, rounded] = written([...sent.map((v) => v[i]), had[i], now[i]], chars);
      return combination(op, texts.slice(0, -1), texts.at(-1), rounded);
    });
    // every element alike (a digit a block): said once, however many
    if (now.length <= 2 || once(lines).length === 1) return once(lines);
  }
  const [texts, inexact] = briefly([...sent, had, now], sent.length > 1 ? 7 : 9);
  return [combination(op, texts.slice(0, -1), texts.at(-1), inexact)];
}

/** `line` in lines of at most `chars` where it can, broken before an operator: "1 + 2", "+ 3 = 6". */
export function wrap(line, chars) {
  const out = [];
  for (const word of line.replace(/ ([^\w\s]) /g, " $1\u00a0").split(" ")) {
    if (out.length && out.at(-1).length + word.length < chars) out[out.length - 1] += ` ${word}`;
    else out.push(word);
  }
  return out.map((l) => l.replaceAll("\u00a0", " "));
}

/** A sum divided into its average, one line per element where a cell holds one or two; a range
 * in brackets beyond that. One rule for the two numbers: where the sum is written exactly, the
 * average as a cell writes it ("1.005 ÷ 4 ≈ 0.251", "7 ÷ 3 ≈ 2.33"); where the sum is rounded,
 * the average to the same place ("1 ÷ 4 ≈ 0.25" for a sum of 1.0049…, "123k ÷ 4 ≈ 31k"), so that
 * the division can be worked again from what is written. "=" only where both are exact. */
export function division(sums, divisor, averages, chars = 6) {
  if (sums.length === averages.length) {
    const lines = averages.map((a, i) => quotient([sums[i]], divisor, [a], chars));
    if (averages.length <= 2 || once(lines).length === 1) return once(lines);
  }
  return [quotient(sums, divisor, averages, 9)];
}

/** Every digit of `v` where a cell may write them all ("1.005", "1e20"), else null. */
function exactly(v) {
  const text = numberForms(v)[0];
  return Number(text.replace(MINUS, "-")) === v ? text : null;
}

/** One line of AVG's division of `sums` (one value, or several: their range) into `averages`, each
 * number, or range, in at most `chars` where it can be. */
function quotient(sums, divisor, averages, chars) {
  const line = (sum, exact, average) => `${sum} ÷ ${divisor} ${exact ? "=" : "≈"} ${average}`;
  if (![...sums, ...averages].every((v) => typeof v === "number")) { // ∞, NaN: as a cell writes them
    const [[sum, average]] = briefly([sums, averages], chars);
    return line(sum, true, average);
  }
  const bounds = (v) => [...new Set([Math.min(...v), Math.max(...v)])]; // a value, or a range's two
  const [s, a] = [sums, averages].map(bounds);
  const [said, found] = [s, a].map((bounds) => bounds.map(exactly));
  if (![...said, ...found].includes(null)) return line(span(said, chars), true, span(found, chars));
  const exactSum = !said.includes(null), widest = (b) => Math.max(...b.map(Math.abs));
  for (const digits of [3, 2]) {
    const unit = placeOf(widest(exactSum ? a : s), digits);
    const write = ([lo, hi]) => (hi == null ? [atPlace(lo, unit, digits)]
      : [atPlace(lo, unit, digits, Math.floor), atPlace(hi, unit, digits, Math.ceil)]);
    const sum = exactSum ? said : write(s);
    // an average below the sum's place (a large P) still says its first digit
    const average = a.length === 1 && write(a)[0] === "0" ? [rounded(a[0], 1)] : write(a);
    if (digits === 2 || [...(exactSum ? [] : [sum]), average].every((b) => b.join("…").length <= chars))
      return line(span(sum, chars), false, span(average, chars));
  }
}

/** A value, or a range's bounds in brackets: "0.25", "[0.25 … 0.75]", "[−0.25…0.75]" in `chars`. */
function span([lo, hi], chars) {
  if (hi == null) return lo;
  const spaced = `${lo} … ${hi}`;
  return `[${spaced.length <= chars ? spaced : `${lo}…${hi}`}]`;
}

/** The dtype a run's buffers hold: the spec's, unless its collective keeps its own, which the
 * item size tells (barrier: int64 flags ORed, whatever the run asked). */
export function dtypeOf(run) {
  const asked = run.spec.dtype, size = run.display?.itemsize, bits = Number(asked.match(/\d+$/)?.[0]);
  if (!size || !bits || size * 8 === bits) return asked;
  const integer = asked.includes("int") || ["BAND", "BOR", "BXOR"].includes(run.op);
  return `${integer ? "int" : "float"}${size * 8}`;
}
