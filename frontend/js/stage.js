// The stage: ranks as cards holding their buffers' chunks, and transfers as chunks travelling
// between them. Nodes are made once per run; a step only moves tokens and repaints the cells
// it changed, so a 64-rank ring stays smooth.

import { layout, shapeOf, cardSize } from "rs/layout.js";

const NS = "http://www.w3.org/2000/svg";
// Okabe-Ito, then Paul Tol's muted set: colour-blind-safe for the first 17 ranks.
export const PALETTE = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999",
  "#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499"];
export const colour = (rank) => PALETTE[rank % PALETTE.length];
const MAX_TOKENS = 512; // beyond this a step flashes instead of flying every chunk

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

export function formatValue(v) {
  if (v == null) return "";
  if (typeof v !== "number") return String(v);
  if (Number.isInteger(v)) return Math.abs(v) >= 1e6 ? v.toExponential(1) : String(v);
  return Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-2 && v !== 0) ? v.toExponential(1) : String(+v.toPrecision(3));
}

/** As many of the values as fit in `chars` characters, with an ellipsis for the rest. */
export function fit(values, chars) {
  let text = "";
  for (let i = 0; i < values.length; i++) {
    const next = (i ? " " : "") + formatValue(values[i]);
    if (text.length + next.length + (i < values.length - 1 ? 1 : 0) > chars) return text ? `${text}…` : "";
    text += next;
  }
  return text;
}

export class Stage {
  constructor(svg) {
    this.svg = svg;
    this.width = 1200;
    this.height = 640;
    this.frames = [];
    this.cells = {}; // "rank:chunk" -> {group, stripes, text, x, y, w, h}
    this.frameCount = 0; // requestAnimationFrame callbacks while animating (for the fps benchmark)
  }

  load(run, frames) {
    this.run = run;
    this.frames = frames;
    this.svg.replaceChildren();
    this.cells = {};
    const ranks = run.group;
    const root = run.spec.root;
    const shape = shapeOf(run.spec.algorithm);
    this.card = cardSize(shape, ranks.length, this.width, this.height);
    this.positions = layout(run.spec.algorithm, ranks, root, this.width, this.height, this.card);
    this.arrows = el("g", { class: "arrows" }, this.svg);
    const cards = el("g", { class: "cards" }, this.svg);
    this.tokens = el("g", { class: "tokens" }, this.svg);
    const chunks = run.chunk_bounds.length || 1;
    for (const rank of ranks) this.drawCard(cards, rank, chunks, rank === root && shape !== "circle" && shape !== "grid");
  }

  /** Newer data of the run on stage (a live run's later steps): same cards, new frames. */
  update(run, frames) {
    this.run = run;
    this.frames = frames;
  }

  drawCard(parent, rank, chunks, isRoot) {
    const { x, y } = this.positions[rank];
    const { w, h } = this.card;
    const g = el("g", { class: "card", "data-rank": rank, transform: `translate(${x - w / 2},${y - h / 2})` }, parent);
    el("rect", { class: "frame", width: w, height: h, rx: 8 }, g);
    const name = el("text", { class: "name", x: 8, y: 15 }, g);
    name.textContent = `rank ${rank}${isRoot ? " · root" : ""}`;
    name.setAttribute("font-size", Math.max(12, Math.min(18, h * 0.16)));
    el("rect", { x: w - 14, y: 6, width: 8, height: 8, rx: 2, fill: colour(rank) }, g);
    const pad = 6, top = Math.max(20, Math.min(30, h * 0.24));
    const cw = (w - 2 * pad) / chunks, ch = h - top - pad;
    for (let c = 0; c < chunks; c++) {
      const cell = el("g", { class: "cell", "data-rank": rank, "data-chunk": c, transform: `translate(${pad + c * cw},${top})` }, g);
      const stripes = el("g", {}, cell);
      el("rect", { class: "edge", width: cw, height: ch }, cell);
      const font = Math.max(9, Math.min(ch * 0.42, 24));
      const text = el("text", { x: cw / 2, y: ch / 2, "font-size": font }, cell);
      this.cells[`${rank}:${c}`] = { group: cell, stripes, text, w: cw, h: ch, font,
        cx: x - w / 2 + pad + c * cw + cw / 2, cy: y - h / 2 + top + ch / 2 };
    }
  }

  /** Paint every cell as frame `index` has it (0: the inputs). */
  show(index) {
    const frame = this.frames[index];
    if (!frame) return;
    for (const rank of this.run.group) {
      const r = String(rank);
      const values = frame.values[r] ?? [], origins = frame.origins[r] ?? [], stats = frame.stats?.[r] ?? [];
      for (let c = 0; c < this.run.chunk_bounds.length; c++) this.paint(rank, c, values[c], origins[c], stats[c]);
    }
  }

  paint(rank, chunk, values, origins, stats) {
    const cell = this.cells[`${rank}:${chunk}`];
    if (!cell) return;
    const from = [...(origins ?? [])].sort((a, b) => a - b);
    const key = from.join(",");
    if (cell.group.dataset.origins !== key) {
      cell.group.dataset.origins = key;
      cell.stripes.replaceChildren();
      const sw = cell.w / Math.max(from.length, 1);
      if (!from.length) el("rect", { width: cell.w, height: cell.h, fill: "transparent" }, cell.stripes);
      from.forEach((r, i) => el("rect", { x: i * sw, width: sw + 0.5, height: cell.h, fill: colour(r) }, cell.stripes));
    }
    cell.group.dataset.values = JSON.stringify(values ?? null);
    const chars = cell.w / (cell.font * 0.62);
    // A large chunk ships a summary: its range says more than a preview of its first values.
    const range = stats && `${formatValue(stats.min)}–${formatValue(stats.max)}`;
    const text = range && range.length <= chars ? range : values == null ? "" : fit(values, chars);
    if (cell.text.textContent !== text) cell.text.textContent = text;
    const tip = stats ? `rank ${rank} chunk ${chunk}: min ${formatValue(stats.min)}, max ${formatValue(stats.max)}, sum ${formatValue(stats.sum)}; first ${fit(values ?? [], 60)}`
      : `rank ${rank} chunk ${chunk}: ${fit(values ?? [], 200)}`;
    (cell.title ??= el("title", {}, cell.group)).textContent = tip;
  }

  /** Fly step k's chunks from sender to receiver over `ms`, then show its result. */
  animate(k, ms) {
    const step = this.run.steps[k];
    this.stopAnimation();
    if (!step) return Promise.resolve();
    this.drawArrows(step);
    const moves = step.transfers.slice(0, MAX_TOKENS).map(([src, dst, chunk, into]) => {
      const a = this.cells[`${src}:${chunk}`], b = this.cells[`${dst}:${into}`];
      if (!a || !b) return null;
      const origins = [...(this.frames[k].origins[String(src)]?.[chunk] ?? [])];
      const token = el("g", { class: "token" }, this.tokens);
      el("rect", { x: -7, y: -7, width: 14, height: 14, rx: 3, fill: origins.length ? colour(Math.min(...origins)) : "#888" }, token);
      const bend = src === dst ? 40 : 0.15 * Math.hypot(b.cx - a.cx, b.cy - a.cy);
      return { token, a, b, bend };
    }).filter(Boolean);
    return new Promise((resolve) => {
      const start = performance.now();
      const tick = (now) => {
        this.frameCount++;
        const t = Math.min(1, (now - start) / ms);
        const e = t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
        for (const { token, a, b, bend } of moves) {
          const mx = (a.cx + b.cx) / 2 + ((b.cy - a.cy) / (Math.hypot(b.cx - a.cx, b.cy - a.cy) || 1)) * bend;
          const my = (a.cy + b.cy) / 2 - ((b.cx - a.cx) / (Math.hypot(b.cx - a.cx, b.cy - a.cy) || 1)) * bend;
          const x = (1 - e) ** 2 * a.cx + 2 * (1 - e) * e * mx + e * e * b.cx;
          const y = (1 - e) ** 2 * a.cy + 2 * (1 - e) * e * my + e * e * b.cy;
          token.setAttribute("transform", `translate(${x},${y})`);
        }
        if (t < 1) {
          this.raf = requestAnimationFrame(tick);
        } else {
          this.finish(k);
          resolve();
        }
      };
      this.raf = requestAnimationFrame(tick);
      this.pending = () => { this.finish(k); resolve(); };
    });
  }

  finish(k) {
    this.raf = null;
    this.pending = null;
    this.tokens.replaceChildren();
    const frame = this.frames[k + 1];
    if (!frame) return; // another run took the stage meanwhile
    this.show(k + 1);
    const cells = [...frame.changed].map((key) => this.cells[key]).filter(Boolean);
    for (const cell of cells) cell.group.classList.add("flash");
    setTimeout(() => { for (const cell of cells) cell.group.classList.remove("flash"); }, 450);
  }

  /** End a running animation at once (its step shown as finished). */
  stopAnimation() {
    if (this.raf) cancelAnimationFrame(this.raf);
    const pending = this.pending;
    if (pending) pending();
  }

  drawArrows(step) {
    this.arrows.replaceChildren();
    if (!step) return;
    const seen = new Set();
    for (const [src, dst] of step.transfers) {
      if (src === dst || seen.has(`${src}>${dst}`) || seen.size > 256) continue;
      seen.add(`${src}>${dst}`);
      const a = this.positions[src], b = this.positions[dst];
      el("line", { class: "arrow", x1: a.x, y1: a.y, x2: b.x, y2: b.y, "marker-end": "" }, this.arrows);
    }
  }
}
