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

/** A value in at most `chars` characters, rounded to what fits ("0.333", "0.33", "0.3"), to
 * no fewer than `least` significant digits; "" when none fits. */
export function compact(v, chars, least = 1) {
  const full = formatValue(v);
  if (typeof v !== "number" || full.length <= chars) return full.length <= chars ? full : "";
  const tries = Number.isInteger(v) ? []
    : [2, 1].filter((d) => d >= least).map((d) => String(+v.toPrecision(d)));
  tries.push(v.toExponential(1));
  if (least < 2) tries.push(v.toExponential(0));
  return tries.find((t) => t.length <= chars && t !== "0" && t !== "-0") ?? "";
}

/** A cell's one or two values each rounded to fit its share of `chars` ("3 4", "0.33 1.7"),
 * to at least `least` significant digits;
 * more values: as many as fit, or their range (brief). "" when nothing fits. */
export function cellText(values, chars, least = 1) {
  if (values == null || !values.length) return "";
  if (values.length <= 2) {
    const each = Math.floor((chars - (values.length - 1)) / values.length);
    const parts = values.map((v) => compact(v, each, least));
    return parts.every((t) => t) ? parts.join(" ") : "";
  }
  return brief(values, chars, "");
}

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

/** As many of the values as fit in `chars` characters, with an ellipsis for the rest ("" if none fits). */
export function fit(values, chars) {
  let text = "";
  for (let i = 0; i < values.length; i++) {
    const next = (i ? " " : "") + formatValue(values[i]);
    if (text.length + next.length + (i < values.length - 1 ? 1 : 0) > chars) return text ? `${text}…` : "";
    text += next;
  }
  return text;
}

/** "3–9" ("-1 – 1" when a bound is negative) if it fits in `chars`, else both bounds rounded to
 * fit ("-0.07…0.07"), else "": never one bound alone, which a back row reads as the value. */
export function range(min, max, chars) {
  const dash = min < 0 || max < 0 ? " – " : "–";
  const whole = min === max ? formatValue(min) : `${formatValue(min)}${dash}${formatValue(max)}`;
  if (whole.length <= chars) return whole;
  if (min === max) return compact(min, chars);
  const rounded = [3, 2, 1].map((d) => `${+min.toPrecision(d)}…${+max.toPrecision(d)}`);
  return rounded.find((t) => t.length <= chars) ?? "";
}

/** A chunk's values in at most `chars` characters (`none` if nothing fits): all of them if they
 * fit, else their range ("0–7"), else as many as fit ("0 1…"). */
export function brief(values, chars = 12, none = "…") {
  if (values == null || !values.length) return none;
  const some = fit(values, chars);
  if (some && !some.endsWith("…")) return some;
  return range(Math.min(...values), Math.max(...values), chars).replace(/^.*…$/, "") || some || none;
}

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
  const texts = values.map((v) => compact(v, chars) || formatValue(v));
  return [texts, values.some((v, i) => typeof v === "number" && Number(texts[i]) !== v)];
}

/** Chunks as a label writes them (their values or range): [texts, whether any is not exact]. */
function briefly(chunks, chars) {
  const inexact = chunks.flat().some((v) => typeof v === "number" && !Number.isInteger(v));
  return [chunks.map((v) => brief(v, chars)), inexact];
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

/** A sum divided into its average, one line per element where a cell holds one or two; "≈"
 * where a number is rounded ("1 ÷ 4 ≈ 0.251" for a sum of 1.005, never "= 0.251"). */
export function division(sums, divisor, averages, chars = 6) {
  if (sums.length === averages.length) {
    const lines = averages.map((a, i) => {
      const [[sum, average], rounded] = written([sums[i], a], chars);
      return `${sum} ÷ ${divisor} ${rounded ? "≈" : "="} ${average}`;
    });
    if (averages.length <= 2 || once(lines).length === 1) return once(lines);
  }
  const [[sum, average], inexact] = briefly([sums, averages], 9);
  return [`${sum} ÷ ${divisor} ${inexact ? "≈" : "="} ${average}`];
}

/** The dtype a run's buffers hold: the spec's, unless its collective keeps its own, which the
 * item size tells (barrier: int64 flags ORed, whatever the run asked). */
export function dtypeOf(run) {
  const asked = run.spec.dtype, size = run.display?.itemsize, bits = Number(asked.match(/\d+$/)?.[0]);
  if (!size || !bits || size * 8 === bits) return asked;
  const integer = asked.includes("int") || ["BAND", "BOR", "BXOR"].includes(run.op);
  return `${integer ? "int" : "float"}${size * 8}`;
}
