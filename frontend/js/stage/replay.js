// Replays a run: every rank's buffer after any step, and where each chunk's data came from.
// Pure functions over the Run JSON (no DOM: node tests them).

import { combination, formatValue } from "rs/core/format.js";

/** The values a ChunkState shows: every value at capture `full`, else its preview. */
export const shown = (state) => state?.values ?? state?.preview ?? null;

/** min, max and sum of a chunk captured as a summary (no values shipped); null otherwise. */
const summaryOf = (state) => (state.values == null && state.min != null
  ? { min: state.min, max: state.max, sum: state.sum } : null);

/** A frame: every rank's buffer before the first step (frames[0]) or after step k (frames[k + 1]):
 * { values: {rank: [chunkValues|null]}, stats: {rank: [{min, max, sum}|null]}, origins: {rank:
 * [Set<rank>]}, changed: Set<"rank:chunk"> }. Values are the ranks' reports; origins replay the
 * transfers (a copy takes the sender's, a reduce adds them). */
export function firstFrame(run) {
  const chunks = run.chunk_bounds.length;
  const values = {}, origins = {}, stats = {};
  for (const r of run.group.map(String)) {
    values[r] = new Array(chunks).fill(null);
    stats[r] = new Array(chunks).fill(null);
    origins[r] = Array.from({ length: chunks }, () => new Set());
    for (const state of run.inputs?.[r] ?? []) {
      values[r][state.chunk] = shown(state);
      stats[r][state.chunk] = summaryOf(state);
    }
    for (const c of run.input_chunks?.[r] ?? []) origins[r][c] = new Set([Number(r)]);
  }
  return { values, origins, stats, changed: new Set() };
}

/** A frame to make from `prev`, and `own(table, rank)`, which copies a rank's row the first time
 * it is changed: earlier frames are shared, never changed, so a step costs what it touches. */
function successor(prev, mark = {}) {
  const next = { values: { ...prev.values }, origins: { ...prev.origins }, stats: { ...prev.stats },
    changed: new Set(), ...mark };
  const copied = new Set();
  const own = (table, r) => {
    if (!copied.has(`${table}/${r}`)) {
      copied.add(`${table}/${r}`);
      next[table][r] = next[table][r].slice();
    }
    return next[table][r];
  };
  /** A chunk's reported state into rank r's buffer. */
  const report = (r, state) => {
    own("values", r)[state.chunk] = shown(state);
    own("stats", r)[state.chunk] = summaryOf(state);
  };
  return { next, own, report };
}

/** The frame after `step`, given the frame before it. */
export function nextFrame(prev, step) {
  const { next, own, report } = successor(prev);
  for (const [src, dst, chunk, into, reduce] of step.transfers) {
    const from = prev.origins[String(src)]?.[chunk] ?? new Set();
    const row = own("origins", String(dst));
    // Sends read the buffers as they were before the step; several reduces into one cell add up.
    row[into] = reduce ? new Set([...row[into], ...from]) : new Set(from);
    next.changed.add(`${dst}:${into}`);
  }
  for (const [r, { states }] of Object.entries(step.ranks ?? {}))
    for (const state of states ?? []) report(r, state);
  return next;
}

/** The frame after the last step of a run that averages (display.divisor: P), marked {divisor}:
 * the schedule only added, then every rank divided its output by P in place, so the cells hold
 * the ranks' reported outputs. Null until every rank has reported its end. */
export function divisionFrame(run, prev) {
  const divisor = run.display?.divisor;
  if (!divisor || !run.group.every((r) => run.results?.[String(r)])) return null;
  const { next, report } = successor(prev, { divisor });
  for (const r of run.group.map(String)) {
    for (const state of run.results[r].output ?? []) {
      report(r, state);
      next.changed.add(`${r}:${state.chunk}`);
    }
  }
  return next;
}

/** Every frame of a stored run, each step as stored (and AVG's division after them). */
export function replay(run) {
  const frames = [firstFrame(run)];
  for (const step of run.steps) frames.push(nextFrame(frames.at(-1), step));
  const last = divisionFrame(run, frames.at(-1));
  return last ? [...frames, last] : frames;
}

/** A live run's frames grow: one for each next step every rank has now reported, and the
 * division once a run that averages has ended. Returns how many were added. */
export function extend(frames, run) {
  const before = frames.length;
  while (stepComplete(run, frames.length - 1))
    frames.push(nextFrame(frames.at(-1), run.steps[frames.length - 1]));
  if (frames.length - 1 === run.steps.length && !frames.at(-1).divisor) {
    const last = divisionFrame(run, frames.at(-1));
    if (last) frames.push(last);
  }
  return frames.length - before;
}

/** Per-rank outputs and verdicts, for the before/after table. */
export function outcomes(run) {
  return run.group.map((rank) => {
    const result = run.results?.[String(rank)];
    return {
      rank,
      inputs: (run.inputs?.[String(rank)] ?? []).map(shown),
      outputs: (result?.output ?? []).map(shown),
      verified: result?.verified ?? null,
      maxDiff: result?.max_diff ?? null,
      mismatches: result?.mismatches ?? [],
    };
  });
}

/** The op a run's reductions apply (a barrier's is its own); runs stored before
 * the server said, their spec's. */
export const opOf = (run) => run.op ?? run.spec.op;

/** A step's reductions by the cell they combine into (several ranks may reduce into one), in
 * order of appearance: [{dst, into, from: [[src, chunk], ...]}]. */
export function reductions(step) {
  const cells = new Map();
  for (const [src, dst, chunk, into, reduce] of step?.transfers ?? []) {
    if (!reduce) continue;
    const key = `${dst}:${into}`;
    if (!cells.has(key)) cells.set(key, { dst, into, from: [] });
    cells.get(key).from.push([src, chunk]);
  }
  return [...cells.values()];
}

/** Step k in words, at most `limit` lines, one per copy and per cell reduced into:
 * "rank 0 → rank 1: chunk 3 [6, 7] + [14, 15] = [20, 22]". */
export function describeStep(run, frames, k, limit = Infinity) {
  const step = run.steps[k], before = frames[k], after = frames[k + 1];
  const fmt = (v) => (v == null ? "?"
    : `[${v.slice(0, 3).map(formatValue).join(", ")}${v.length > 3 ? ", …" : ""}]`);
  const value = (frame, rank, chunk) => fmt(frame.values[String(rank)]?.[chunk]);
  const grouped = new Map(reductions(step).map((g) => [`${g.dst}:${g.into}`, g]));
  const lines = [];
  for (const [src, dst, chunk, into, reduce] of step.transfers) {
    if (lines.length >= limit) break;
    if (!reduce) {
      lines.push(`rank ${src} → rank ${dst}: chunk ${chunk} ${value(before, src, chunk)} `
        + `copied into chunk ${into}`);
      continue;
    }
    const g = grouped.get(`${dst}:${into}`);
    if (!g) continue; // already described with the first transfer into its cell
    grouped.delete(`${dst}:${into}`);
    const senders = g.from.map(([s]) => `rank ${s}`).join(", ");
    const sent = g.from.map(([s, c]) => value(before, s, c));
    const sum = combination(opOf(run), [...sent, value(before, dst, into)], value(after, dst, into));
    lines.push(`${senders} → rank ${dst}: chunk ${g.from.length > 1 ? into : chunk} ${sum}`);
  }
  return lines;
}

/** Consecutive steps of one phase as one stretch: [{phase, first, last}]. */
export function phasesOf(steps) {
  const out = [];
  steps.forEach((s, i) => {
    const last = out.at(-1);
    if (last && last.phase === s.phase) last.last = i;
    else out.push({ phase: s.phase, first: i, last: i });
  });
  return out;
}

/** Has every rank of the group reported step k? */
export function stepComplete(run, k) {
  const step = run.steps[k];
  return !!step && run.group.every((r) => step.ranks?.[String(r)]);
}
