// A watched job's lanes, x in seconds since the job began. A job of few ranks has a lane a rank; a
// larger one, a lane a node (its ranks folded, with their count), and where even those are too many,
// a lane for a run of nodes; the late ranks' nodes are drawn rank by rank, the late ones beside their
// peers. So there are never more than MAX_LANES lanes, each tall enough to read, whatever the rank
// count. A collective is a path of ticks (a lane's first issue of it) and one of bars (its durations,
// where the backend times them); during a hang, a line joins each lane's last issue: the wavefront,
// which falls back at the late ones. A cursor, moved by the pointer or the keys, names a collective.

import { $, el, html, say } from "rs/core/dom.js";
import { colour, PALETTE, seconds } from "rs/core/format.js";

const HUES = PALETTE.filter((_, i) => i !== 3 && i !== 5); // no yellow, no hang's vermilion
export const MAX_LANES = 20; // at most, so that each is one line of text (CSS --lane) on one screen
const MAX_WHOLE = 16; // of them, ranks drawn one a lane in a job that folds the rest

/** An op's colour, the same on every page. */
export const opColour = (op) =>
  HUES[[...op].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 113) % HUES.length];

const first = (c) => Math.min(...Object.values(c.issued));

/** Ranks by host, in rank order: [[host, [rank...]]]. */
export function byHost(rs) {
  const hosts = new Map();
  for (const r of [...rs].sort((a, b) => a.rank - b.rank)) {
    if (!hosts.has(r.host)) hosts.set(r.host, []);
    hosts.get(r.host).push(r);
  }
  return [...hosts];
}

/** Where key `e` moves among `n` from `i` (-1: none): ↑ ← back, ↓ → on, Home, End; else null. */
export function moved(e, i, n) {
  const to = { ArrowDown: i + 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowLeft: i < 0 ? n - 1 : i - 1,
    Home: 0, End: n - 1 }[e.key];
  if (to == null || !n) return null;
  e.preventDefault();
  e.stopPropagation(); // not the player's
  return Math.max(0, Math.min(n - 1, to));
}

const whole = (r, late) => ({ ranks: [r], label: `rank ${r}`, rank: r, late: late.has(r) });

/** The lanes of a job of `world` ranks (`ranks`: those that said hello, with their hosts), in rank
 * order, each {ranks, label, late, rank (a rank's own lane) or hosts (a folded one)}: every rank its
 * own while there are at most MAX_LANES; else a lane a node, but the nodes of the `late` ranks (up to
 * MAX_WHOLE ranks in all) rank by rank; and runs of folded nodes merged till MAX_LANES are left. */
export function lanesOf(ranks, world, late = []) {
  const lateSet = new Set(late);
  if (world <= MAX_LANES) return Array.from({ length: world }, (_, r) => whole(r, lateSet));
  const items = [];
  let room = MAX_WHOLE;
  for (const [host, infos] of byHost(ranks)) {
    const rs = infos.map((i) => i.rank), isLate = rs.some((r) => lateSet.has(r));
    if (isLate && rs.length <= room) {
      room -= rs.length;
      items.push(...rs.map((r) => whole(r, lateSet)));
    } else items.push({ ranks: rs, hosts: [host], late: isLate });
  }
  return folded(items);
}

/** `items` with runs of folded nodes merged (never across a rank's own lane, nor a late node with a
 * healthy one) until at most MAX_LANES are left, and each folded lane labelled. */
function folded(items) {
  const own = items.filter((i) => i.hosts == null).length, nodes = items.length - own;
  const per = Math.ceil(nodes / Math.max(1, MAX_LANES - own - 2)); // 2: runs broken by the own lanes
  const out = [];
  for (const item of items) {
    const last = out.at(-1);
    if (per > 1 && item.hosts && last?.hosts && last.late === item.late && last.hosts.length < per)
      out.push({ ...out.pop(), ranks: [...last.ranks, ...item.ranks], hosts: [...last.hosts, ...item.hosts] });
    else out.push(item);
  }
  for (const lane of out)
    if (lane.hosts) {
      const [a, z] = [lane.hosts[0], lane.hosts.at(-1)];
      lane.label = `${a === z ? `node ${a}` : `nodes ${a} – ${z}`} · ${lane.ranks.length} ranks`;
    }
  return out;
}

export class Lanes {
  marks = new Map(); // index: its paths
  ticks = new Map(); // index: each lane's first issue of it (NaN: none)
  lanes = []; // lanesOf's
  laneOf = new Int32Array(0); // rank: its lane (-1: none yet)
  front = []; // each lane's last issue (s)
  layout = ""; // what the lanes were made from: made again when it changes
  at = null; // the collective under the cursor
  t1 = 0; // the right edge (s)
  span = null; // [t0, width] (s)
  shown = null; // the job's detail (watched-jobs.js holds it)

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
    this.ticks.clear();
    this.layout = "";
    this.t1 = 0;
    this.at = null;
    say("job-mark", "");
  }

  /** The lanes for the job's ranks and its `late` ones, made again (and every mark redrawn) only when
   * those change. */
  arrange(late) {
    const { job: { world_size: n }, ranks } = this.shown;
    const layout = `${n}/${ranks.length}/${late}`;
    if (layout === this.layout) return false;
    this.layout = layout;
    this.lanes = lanesOf(ranks, n, late);
    this.laneOf = new Int32Array(n).fill(-1);
    this.lanes.forEach((lane, i) => { for (const r of lane.ranks) this.laneOf[r] = i; });
    this.front = this.lanes.map(() => -Infinity);
    this.ticks.clear();
    for (const c of this.shown.collectives) this.draw(c);
    return true;
  }

  /** A collective's marks: a path of ticks (a lane's first issue), one of bars (its durations). */
  draw(c) {
    this.marks.get(c.index)?.forEach((p) => p.remove());
    const at = new Float64Array(this.lanes.length).fill(NaN), ends = new Float64Array(this.lanes.length);
    for (const [r, t] of Object.entries(c.issued)) {
      const lane = this.laneOf[r] ?? -1;
      if (lane < 0) continue;
      if (!(at[lane] <= t)) at[lane] = t;
      ends[lane] = Math.max(ends[lane], t + (c.durations[r] ?? 0));
    }
    const ticks = [], bars = [];
    at.forEach((t, lane) => {
      if (Number.isNaN(t)) return;
      ticks.push(`M${t} ${lane + 0.15}V${lane + 0.85}`);
      if (ends[lane] > t) bars.push(`M${t} ${lane + 0.5}H${ends[lane]}`);
      this.front[lane] = Math.max(this.front[lane], t);
      this.t1 = Math.max(this.t1, ends[lane]);
    });
    this.ticks.set(c.index, at);
    const stroke = opColour(c.op), ranks = Object.keys(c.issued).join();
    this.marks.set(c.index, [ticks, bars].filter((d) => d.length).map((d, i) =>
      el("path", { d: d.join(""), stroke, "data-ranks": ranks, ...(i && { class: "span" }) }, this.g)));
  }

  /** The lanes' extent, names, legend; marks no longer kept go; the `late` ranks' lanes marked, and
   * during a hang the wavefront drawn. */
  update(late) {
    const { collectives: kept } = this.shown, names = $("job-names");
    const again = this.arrange(late);
    for (const [i, ps] of this.marks)
      if (i < (kept[0]?.index ?? Infinity)) {
        ps.forEach((p) => p.remove());
        this.marks.delete(i);
        this.ticks.delete(i);
      }
    const t0 = kept[0]?.index > 0 ? first(kept[0]) : 0,
      // on to the last report: a stall shows
      t1 = Math.max(this.t1, t0 + 1e-3, ...this.shown.ranks.map((r) => r.seen_s)) * 1.02;
    this.svg.setAttribute("viewBox", `${t0} 0 ${t1 - t0} ${this.lanes.length}`);
    $("job-timeline").style.setProperty("--lanes", this.lanes.length);
    this.span = [t0, t1 - t0];
    if (again || names.childElementCount !== this.lanes.length)
      names.replaceChildren(...this.lanes.map((lane) => html("span", {
        style: `border-color: ${lane.rank != null ? colour(lane.rank) : "var(--muted)"}`,
        title: lane.hosts ? `ranks ${lane.ranks.join(", ")}`.slice(0, 2000) : lane.label,
        "data-ranks": lane.ranks.length, ...(lane.hosts && { "data-folded": "" }),
        ...(lane.late && { class: "late" }) }, lane.label)));
    const lanes = this.lanes.map((lane, i) => [lane, i]).filter(([lane]) => lane.late);
    this.svg.querySelector(".late")
      .replaceChildren(...lanes.map(([, i]) => el("rect", { x: t0, width: t1 - t0, y: i, height: 1 })));
    this.svg.querySelector(".front").setAttribute("d", late.length ? this.wavefront() : "");
    say("job-t0", `${+t0.toPrecision(3)} s`);
    say("job-t1", `${+t1.toPrecision(3)} s`);
    $("job-legend").replaceChildren(...[...new Set(kept.map((c) => c.op))]
      .map((op) => html("span", { style: `border-color: ${opColour(op)}` }, op)));
    if (this.at) this.cursor(this.at);
  }

  /** A line down the lanes through each one's last issue. */
  wavefront() {
    return this.front.map((t, i) => (Number.isFinite(t) ? `${i && this.front[i - 1] > -Infinity ? "L" : "M"}${t} ${i}`
      + `V${i + 1}` : "")).join("");
  }

  /** Under the pointer: its lane's collective issued nearest in time. */
  point(e) {
    if (!this.span) return;
    const box = this.svg.getBoundingClientRect(),
      lane = Math.floor(((e.clientY - box.top) / box.height) * this.lanes.length);
    const t = this.span[0] + ((e.clientX - box.left) / box.width) * this.span[1];
    let best = null, gap = Infinity;
    for (const c of this.shown.collectives) {
      const at = this.ticks.get(c.index)?.[lane];
      if (at != null && !Number.isNaN(at) && Math.abs(at - t) < gap) [best, gap] = [c, Math.abs(at - t)];
    }
    if (best) this.cursor(best, lane);
  }

  /** The cursor on `c` (at `lane`'s first issue), and `c` in words. */
  cursor(c, lane) {
    this.at = c;
    const t = this.ticks.get(c.index)?.[lane] || first(c), line = this.svg.querySelector(".cursor");
    for (const [k, v] of [["x1", t], ["x2", t], ["y2", this.lanes.length]]) line.setAttribute(k, v);
    const issued = Object.entries(c.issued);
    say("job-mark", `${this.describe(c)} · issued ${issued.length > 16 ? `by ${issued.length} ranks`
      : issued.map(([r, s]) => `${r}: ${seconds(s)}`).join(", ")}`);
  }
}
