// The run's timings as plain data for the charts: one bar per rank per step, and per-rank totals.
// Pure functions (node tests them); charts.js draws them with plotly.

import { phasesOf } from "rs/replay.js";

/**
 * Bars of the per-rank timeline: [{rank, step, phase, start, length, last}] in µs since the
 * aligned start, where `last` marks the rank that finished the step last (the straggler the
 * others wait for). Steps a rank has not reported yet have no bar.
 */
export function timelineBars(run) {
  const bars = [];
  for (const step of run.steps) {
    const reports = run.group.filter((r) => step.ranks?.[String(r)]).map((r) => [r, step.ranks[String(r)]]);
    const end = Math.max(...reports.map(([, t]) => t.t1));
    for (const [rank, t] of reports)
      bars.push({ rank, step: step.step, phase: step.phase, start: t.t0 * 1e6, length: (t.t1 - t.t0) * 1e6, last: reports.length > 1 && t.t1 === end });
  }
  return bars;
}

/** Per rank: µs spent inside steps, µs from the first step's start to the last step's end, and how often it was last. */
export function rankTotals(run) {
  const bars = timelineBars(run);
  return run.group.map((rank) => {
    const mine = bars.filter((b) => b.rank === rank);
    return {
      rank,
      busy: mine.reduce((s, b) => s + b.length, 0),
      span: mine.length ? Math.max(...mine.map((b) => b.start + b.length)) - Math.min(...mine.map((b) => b.start)) : 0,
      last: mine.filter((b) => b.last).length,
      time: median(run.results?.[String(rank)]?.timings?.iterations ?? []) * 1e6,
      sent: run.traffic?.sent?.[String(rank)] ?? run.results?.[String(rank)]?.bytes_sent ?? 0,
      received: run.traffic?.received?.[String(rank)] ?? run.results?.[String(rank)]?.bytes_received ?? 0,
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
