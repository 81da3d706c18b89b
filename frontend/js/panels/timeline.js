// The run's timings as plain data for the charts (pure: node tests them).

import { phasesOf } from "rs/stage/replay.js";

/** The per-rank timeline's bars: [{rank, step, phase, start, length, last}] in µs since the
 * aligned start, `last` on the rank that finished the step last (the straggler). A step a rank
 * has not reported has no bar. */
export function timelineBars(run) {
  const bars = [];
  for (const step of run.steps) {
    const reports = run.group.filter((r) => step.ranks?.[String(r)]).map((r) => [r, step.ranks[String(r)]]);
    const end = Math.max(...reports.map(([, t]) => t.t1));
    for (const [rank, t] of reports)
      bars.push({ rank, step: step.step, phase: step.phase, start: t.t0 * 1e6, length: (t.t1 - t.t0) * 1e6,
        last: reports.length > 1 && t.t1 === end });
  }
  return bars;
}

/** Per rank: µs inside steps, µs from the first step's start to the last's end, times last. */
export function rankTotals(run) {
  const bars = timelineBars(run);
  return run.group.map((rank) => {
    const mine = bars.filter((b) => b.rank === rank), result = run.results?.[rank];
    return {
      rank,
      busy: mine.reduce((s, b) => s + b.length, 0),
      span: mine.length ? Math.max(...mine.map((b) => b.start + b.length)) - Math.min(...mine.map(
        (b) => b.start)) : 0,
      last: mine.filter((b) => b.last).length,
      time: median(result?.timings?.iterations ?? []) * 1e6,
      sent: run.traffic?.sent?.[rank] ?? result?.bytes_sent ?? 0,
      received: run.traffic?.received?.[rank] ?? result?.bytes_received ?? 0,
    };
  });
}

export function median(xs) {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The phase of every step, numbered in order of appearance: {phase: index}. */
export function phaseIndex(run) {
  return Object.fromEntries(phasesOf(run.steps).map((p, i) => [p.phase, i]).reverse());
}

/** Who waited for whom at every step with two ranks or more exchanging: [{step, last, late, waits:
 * [{rank, waitedFor, seconds}]}]. A rank waits for the latest of its peers in the step, if it began
 * later (every t0 counts from the barrier-aligned start). */
export function arrivals(run) {
  const out = [];
  for (const step of run.steps) {
    const t0 = (r) => step.ranks?.[String(r)]?.t0;
    const peers = new Map();
    const meet = (a, b) => peers.set(a, [...(peers.get(a) ?? []), b]);
    for (const [src, dst] of step.transfers ?? []) if (src !== dst) { meet(src, dst); meet(dst, src); }
    const ranks = [...peers.keys()].filter((r) => t0(r) !== undefined).sort((a, b) => a - b);
    if (ranks.length < 2) continue;
    const latest = (rs) => rs.reduce((a, b) => (t0(b) > t0(a) ? b : a));
    const last = latest(ranks);
    const waits = [];
    for (const r of ranks) {
      const reported = peers.get(r).filter((q) => t0(q) !== undefined);
      const q = reported.length ? latest(reported) : undefined;
      if (q !== undefined && t0(q) > t0(r)) waits.push({ rank: r, waitedFor: q, seconds: t0(q) - t0(r) });
    }
    out.push({ step: step.step, last, late: t0(last) - Math.min(...ranks.map(t0)), waits });
  }
  return out;
}

/** Per rank, at how many of the steps `arrivals` lists it began last: {rank: count}. */
export function lastArrivals(run) {
  const counts = Object.fromEntries(run.group.map((r) => [r, 0]));
  for (const a of arrivals(run)) counts[a.last] += 1;
  return counts;
}
