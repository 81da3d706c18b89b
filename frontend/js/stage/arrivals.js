// A barrier's lesson on the stage (the run's display says so: `arrivals`): every rank arrives at its
// own time, waits, and all are released when the slowest arrives. Each rank's cell is its lane on one
// time axis for every card: a dot where it arrived, a bar of its time in the barrier growing step by
// step, and after the last step a line at the slowest's arrival, the release. The times are the ones
// the ranks recorded: a rank arrives as its first step starts (t0) and leaves as its last ends (t1).
// The cell's colours still say whose signal has reached it.

import { el } from "rs/core/dom.js";
import { seconds } from "rs/core/format.js";
import { fill, tr } from "rs/i18n/i18n.js";
import { MAX_VALUE, ROOM } from "rs/stage/grid.js";
import { reach, textWidth } from "rs/stage/measure.js";

/** A barrier run's times, from the steps every rank reported: {arrived: {rank: s}, left: {rank: s},
 * at: {rank: [s after each step]}, slowest, release: its arrival, end: the latest leaving}; null for
 * a run without them (no display's arrivals, no step, a rank not reported yet). */
export function arrivalsOf(run) {
  if (!run?.display?.arrivals || !run.steps.length) return null;
  const arrived = {}, left = {}, at = {};
  for (const rank of run.group) {
    const times = run.steps.map((s) => s.ranks?.[String(rank)]).filter(Boolean);
    if (!times.length) return null;
    arrived[rank] = times[0].t0;
    left[rank] = times.at(-1).t1;
    at[rank] = run.steps.map((s) => s.ranks?.[String(rank)]?.t1 ?? null);
  }
  const slowest = run.group.reduce((a, b) => (arrived[b] > arrived[a] ? b : a));
  const end = Math.max(...Object.values(left));
  return { arrived, left, at, slowest, release: arrived[slowest], end: end > 0 ? end : 1 };
}

/** What rank's lane says after `index` steps (0: before the first): its arrival, and once every
 * step is done how long it waited, or that it came last and released them all. */
export function laneWords(times, rank, index, steps) {
  const first = fill("arrived {v1}", { v1: seconds(times.arrived[rank]) });
  if (index < steps) return [first, ""];
  const second = rank === times.slowest ? tr("last to arrive: all released")
    : fill("waited {v1}", { v1: seconds(times.left[rank] - times.arrived[rank]) });
  return [first, second];
}

/** The lane's bar's height, and what its two lines of words and the bar need down the cell per unit of font. */
const barOf = (h) => Math.max(4, Math.min(14, h * 0.15));
const lines = () => 2 * (reach().ascent + reach().descent);

/** The widest of every lane's words per unit of font: the layout gives the cells this room. */
export function laneNeed(run, times) {
  const steps = run.steps.length;
  return Math.max(...run.group.flatMap((r) => laneWords(times, r, steps, steps).map((t) => textWidth(t, 1))));
}

/** The largest font, `most` at most, a lane's words fit at in a cell w x h, `need` wide per unit of font. */
export function laneFont(w, h, need, most = MAX_VALUE) {
  if (!(w > 0 && h > 0 && need > 0)) return 0;
  return Math.min(most, (w - ROOM) / need, (h - barOf(h) - 6) / lines());
}

/** Draw `rank`'s lane in its cell as it stands after `index` steps: its words at the largest font
 * that fits the cell (the stage's least at the smallest), its arrival, its bar, and the release. */
export function paintLane(stage, rank, index) {
  const times = stage.arrivals, cell = stage.cells[`${rank}:0`];
  if (!times || !cell || cell.unused) return;
  const steps = stage.run.steps.length, { w, h } = cell, bar = barOf(h), pad = 4;
  const words = laneWords(times, rank, index, steps);
  const wide = Math.max(...words.map((t) => textWidth(t, 1)));
  const font = Math.max(stage.valueLeast, laneFont(w, h, wide, stage.largest));
  const row = (reach().ascent + reach().descent) * font;
  cell.text.textContent = words[0];
  cell.text.setAttribute("font-size", font.toFixed(1));
  cell.text.setAttribute("y", 2 + row / 2);
  cell.note.textContent = "";
  cell.box = { x: cell.cx - (textWidth(words[0], font)) / 2, y: cell.cy - h / 2, w: textWidth(words[0], font), h: 2 * row };
  const g = (cell.lane ??= el("g", { class: "lane" }, cell.group));
  g.replaceChildren();
  const x = (t) => pad + (Math.max(0, t) / times.end) * (w - 2 * pad), y = h - bar - 3;
  const after = index > 0 ? times.at[rank][index - 1] : null;
  el("rect", { class: "lane-track", x: pad, y, width: w - 2 * pad, height: bar, rx: bar / 2 }, g);
  if (after != null) {
    el("rect", { class: "lane-wait", x: x(times.arrived[rank]), y, height: bar, rx: bar / 2,
      width: Math.max(0, x(after) - x(times.arrived[rank])) }, g);
  }
  el("circle", { class: "lane-arrival", cx: x(times.arrived[rank]), cy: y + bar / 2, r: bar * 0.9 }, g);
  const second = el("text", { class: "lane-said", x: w / 2, y: 2 + 1.5 * row, "font-size": font.toFixed(1) }, g);
  second.textContent = words[1];
  if (index >= steps) {
    el("line", { class: "release", "data-rank": rank, x1: x(times.release), x2: x(times.release), y1: 1,
      y2: h - 1 }, g);
  }
  cell.group.classList.add("lane-cell");
  cell.group.classList.toggle("slowest", rank === times.slowest);
  if (cell.title) {
    cell.title.textContent = fill("{r1} arrived at {v1} and left at {v2}, once the last, {r2}, had arrived",
      { r1: rank, v1: seconds(times.arrived[rank]), v2: seconds(times.left[rank]), r2: times.slowest });
  }
  const data = cell.group.dataset;
  Object.assign(data, { arrived: times.arrived[rank], left: times.left[rank], release: times.release,
    slowest: times.slowest });
}
