// Replays a run: every rank's buffer after any step, and where each chunk's data came from.
// Pure functions over the Run JSON the server serves; no DOM, so node can test them.

/** The values a ChunkState shows: every value at capture `full`, else its preview. */
export function shown(state) {
  if (!state) return null;
  return state.values ?? state.preview ?? null;
}

/** min, max and sum of a chunk captured as a summary (no values shipped); null otherwise. */
function summaryOf(state) {
  return state.values == null && state.min != null ? { min: state.min, max: state.max, sum: state.sum } : null;
}

/**
 * frames[0] is the buffers before the first step; frames[k + 1] after step k.
 * A frame: { values: {rank: [chunkValues|null]}, stats: {rank: [{min, max, sum}|null]},
 * origins: {rank: [Set<rank>]}, changed: Set<"rank:chunk"> }.
 * Values come from the ranks' own reports (states); origins from replaying the transfers:
 * a copy takes the sender's origins, a reduce adds them to its own.
 */
export function replay(run) {
  const ranks = run.group.map(String);
  const chunks = run.chunk_bounds.length;
  const values = {}, origins = {}, stats = {};
  for (const r of ranks) {
    values[r] = new Array(chunks).fill(null);
    stats[r] = new Array(chunks).fill(null);
    origins[r] = Array.from({ length: chunks }, () => new Set());
    for (const state of run.inputs?.[r] ?? []) {
      values[r][state.chunk] = shown(state);
      stats[r][state.chunk] = summaryOf(state);
    }
    for (const c of run.input_chunks?.[r] ?? []) origins[r][c] = new Set([Number(r)]);
  }
  const frames = [{ values, origins, stats, changed: new Set() }];
  for (const step of run.steps) {
    const prev = frames[frames.length - 1];
    const next = { values: { ...prev.values }, origins: { ...prev.origins }, stats: { ...prev.stats }, changed: new Set() };
    const copied = { values: new Set(), origins: new Set(), stats: new Set() };
    const own = (table, r) => {  // copy a rank's row the first time this step changes it
      if (!copied[table].has(r)) {
        copied[table].add(r);
        next[table][r] = next[table][r].slice();
      }
      return next[table][r];
    };
    for (const [src, dst, chunk, into, reduce] of step.transfers) {
      const from = prev.origins[String(src)]?.[chunk] ?? new Set();
      const row = own("origins", String(dst));
      row[into] = reduce ? new Set([...prev.origins[String(dst)][into], ...from]) : new Set(from);
      next.changed.add(`${dst}:${into}`);
    }
    for (const [r, report] of Object.entries(step.ranks ?? {})) {
      for (const state of report.states ?? []) {
        own("values", r)[state.chunk] = shown(state);
        own("stats", r)[state.chunk] = summaryOf(state);
      }
    }
    frames.push(next);
  }
  return frames;
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

/** How a reduce combined values, for the transfer log: "3 + 4 = 7". */
export function describeTransfer(run, frames, stepIndex, [src, dst, chunk, into, reduce]) {
  const before = frames[stepIndex], after = frames[stepIndex + 1];
  const fmt = (v) => (v == null ? "?" : v.length > 3 ? `[${v.slice(0, 3).join(", ")}, …]` : `[${v.join(", ")}]`);
  const sent = fmt(before.values[String(src)]?.[chunk]);
  const result = fmt(after.values[String(dst)]?.[into]);
  if (!reduce) return `rank ${src} → rank ${dst}: chunk ${chunk} ${sent} copied into chunk ${into}`;
  const op = { SUM: "+", PRODUCT: "×", MIN: "min", MAX: "max", BAND: "&", BOR: "|", BXOR: "^", AVG: "+" }[run.spec.op] ?? "∘";
  const had = fmt(before.values[String(dst)]?.[into]);
  return `rank ${src} → rank ${dst}: chunk ${chunk} ${sent} ${op} ${had} = ${result}`;
}

/** Is step k complete: has every rank of the group reported it? */
export function stepComplete(run, k) {
  const step = run.steps[k];
  return !!step && run.group.every((r) => step.ranks?.[String(r)]);
}
