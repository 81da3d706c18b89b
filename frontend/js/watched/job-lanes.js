// A watched job's lanes: a lane (1 unit) a rank, x in seconds since the job began. A collective is a
// path of ticks (each rank's issue) and one of bars (its durations, where the backend times them);
// a cursor, moved by the pointer or the keys, names one.

import { $, el, html, say } from "rs/core/dom.js";
import { colour, PALETTE, seconds } from "rs/core/format.js";

const HUES = PALETTE.filter((_, i) => i !== 3 && i !== 5); // no yellow, no hang's vermilion

/** An op's colour, the same on every page. */
export const opColour = (op) =>
  HUES[[...op].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 113) % HUES.length];

const first = (c) => Math.min(...Object.values(c.issued));

/** Where key `e` moves among `n` from `i` (-1: none): ↑ ← back, ↓ → on, Home, End; else null. */
export function moved(e, i, n) {
  const to = { ArrowDown: i + 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowLeft: i < 0 ? n - 1 : i - 1,
    Home: 0, End: n - 1 }[e.key];
  if (to == null || !n) return null;
  e.preventDefault();
  e.stopPropagation(); // not the player's
  return Math.max(0, Math.min(n - 1, to));
}

export class Lanes {
  marks = new Map(); // index: its paths
  at = null; // the collective under the cursor
  t1 = 0; // the right edge (s)
  span = null; // [t0, width] (s)
  shown = null; // the job's detail (jobs.js holds it)

  /** `describe(c)`: a collective in words, under the lanes when the cursor is on it. */
  constructor(describe) {
    Object.assign(this, { describe, svg: $("job-lanes") });
    this.g = this.svg.querySelector(".marks");
    this.svg.onpointermove = (e) => this.point(e);
    this.svg.onkeydown = (e) => {
      const kept = this.shown?.collectives ?? [], to = moved(e, kept.indexOf(this.at), kept.length);
      if (to != null) this.cursor(kept[to]);
    };
  }

  /** Another job (or the same one read again): its marks from nothing. */
  clear(shown) {
    this.shown = shown;
    this.g.replaceChildren();
    this.marks.clear();
    this.t1 = 0;
    this.at = null;
    say("job-mark", "");
  }

  /** A collective's marks: a path of ticks (a rank's issue), one of bars (durations). */
  draw(c) {
    this.marks.get(c.index)?.forEach((p) => p.remove());
    const ticks = [], bars = [];
    for (const [r, t] of Object.entries(c.issued)) {
      const d = c.durations[r];
      ticks.push(`M${t} ${+r + 0.15}V${+r + 0.85}`);
      if (d) bars.push(`M${t} ${+r + 0.5}H${t + d}`);
      this.t1 = Math.max(this.t1, t + (d ?? 0));
    }
    const stroke = opColour(c.op), ranks = Object.keys(c.issued).join();
    this.marks.set(c.index, [ticks, bars].filter((d) => d.length).map((d, i) =>
      el("path", { d: d.join(""), stroke, "data-ranks": ranks, ...(i && { class: "span" }) }, this.g)));
  }

  /** The lanes' extent, names, legend; marks no longer kept go; the `late` ranks' lanes marked. */
  update(late) {
    const { job: { world_size: n }, collectives: kept } = this.shown, names = $("job-names");
    for (const [i, ps] of this.marks)
      if (i < (kept[0]?.index ?? Infinity)) { ps.forEach((p) => p.remove()); this.marks.delete(i); }
    const t0 = kept[0]?.index > 0 ? first(kept[0]) : 0,
      // on to the last report: a stall shows
      t1 = Math.max(this.t1, t0 + 1e-3, ...this.shown.ranks.map((r) => r.seen_s)) * 1.02;
    this.svg.setAttribute("viewBox", `${t0} 0 ${t1 - t0} ${n}`);
    $("job-timeline").style.setProperty("--lanes", n);
    this.span = [t0, t1 - t0];
    if (names.childElementCount !== n || names.dataset.late !== String(late)) {
      names.dataset.late = late;
      names.replaceChildren(...Array.from({ length: n }, (_, r) =>
        html("span", { style: `border-color: ${colour(r)}`, ...(late.includes(r) && { class: "late" }) },
          `rank ${r}`)));
    }
    this.svg.querySelector(".late")
      .replaceChildren(...late.map((r) => el("rect", { x: t0, width: t1 - t0, y: r, height: 1 })));
    say("job-t0", `${+t0.toPrecision(3)} s`);
    say("job-t1", `${+t1.toPrecision(3)} s`);
    $("job-legend").replaceChildren(...[...new Set(kept.map((c) => c.op))]
      .map((op) => html("span", { style: `border-color: ${opColour(op)}` }, op)));
    if (this.at) this.cursor(this.at);
  }

  /** Under the pointer: its lane's collective issued nearest in time. */
  point(e) {
    if (!this.span) return;
    const box = this.svg.getBoundingClientRect(),
      rank = Math.floor(((e.clientY - box.top) / box.height) * this.shown.job.world_size);
    const t = this.span[0] + ((e.clientX - box.left) / box.width) * this.span[1];
    let best = null, gap = Infinity;
    for (const c of this.shown.collectives) {
      const at = c.issued[rank];
      if (at != null && Math.abs(at - t) < gap) [best, gap] = [c, Math.abs(at - t)];
    }
    if (best) this.cursor(best, rank);
  }

  /** The cursor on `c` (at `rank`'s issue), and `c` in words. */
  cursor(c, rank) {
    this.at = c;
    const t = c.issued[rank] ?? first(c), line = this.svg.querySelector(".cursor");
    for (const [k, v] of [["x1", t], ["x2", t], ["y2", this.shown.job.world_size]]) line.setAttribute(k, v);
    say("job-mark", `${this.describe(c)} · issued `
      + `${Object.entries(c.issued).map(([r, s]) => `${r}: ${seconds(s)}`).join(", ")}`);
  }
}
