// The stage: ranks as cards holding their buffers' chunks, coloured by the ranks their data came
// from. Nodes are made once per run (and again only when the stage is resized); a step repaints
// the cells and moves the tokens that transfers.js flies between them.

import { arrange } from "rs/layout.js";
import { brief, colour, fit, formatValue, range } from "rs/format.js";
import { el, stripes } from "rs/dom.js";
import { drawArrows, drawSums, flights, moveTokens, hideTokens } from "rs/transfers.js";

export const WIDTH = 1200; // the stage's own units across; its height follows the element's shape

export class Stage {
  constructor(svg) {
    this.svg = svg;
    this.width = WIDTH;
    this.height = 640;
    this.frames = [];
    this.cells = {}; // "rank:chunk" -> {group, stripes, text, w, h, font, cx, cy; its card's top, bottom, middle}
    this.shown = 0; // the frame on the stage
    this.marked = -1; // the step whose arrows and sums are drawn
    this.frameCount = 0; // requestAnimationFrame callbacks while animating (for the fps benchmark)
    this.pool = []; // tokens, made as needed and reused
    if (typeof ResizeObserver === "function") new ResizeObserver(() => this.fitToBox()).observe(svg);
  }

  /** The stage's height in its own units, from the element's shape on the page. */
  boxHeight() {
    const { width, height } = this.svg.getBoundingClientRect();
    return width > 0 && height > 0 ? Math.round(Math.min(1100, Math.max(420, (WIDTH * height) / width))) : this.height;
  }

  fitToBox() {
    const h = this.boxHeight();
    if (!this.run || Math.abs(h - this.height) < 0.02 * this.height) return;
    const { shown, marked } = this;
    this.stopAnimation();
    this.load(this.run, this.frames);
    this.show(shown);
    this.mark(marked);
  }

  load(run, frames) {
    this.stopAnimation();
    this.run = run;
    this.frames = frames;
    this.height = this.boxHeight();
    this.svg.setAttribute("viewBox", `0 0 ${WIDTH} ${this.height}`);
    this.svg.replaceChildren();
    this.cells = {};
    this.pool = [];
    this.shown = 0;
    this.marked = -1;
    const edges = run.steps.flatMap((s) => s.transfers.map(([src, dst]) => [src, dst]));
    const layout = run.layout ?? {}; // runs stored before the server gave layouts are drawn as rings
    const { card, positions } = arrange(layout, run.group, WIDTH, this.height, edges);
    this.card = card;
    this.positions = positions;
    const defs = el("defs", {}, this.svg);
    const head = el("marker", { id: "head", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse" }, defs);
    el("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }, head);
    this.arrows = el("g", { class: "arrows" }, this.svg);
    const cards = el("g", { class: "cards" }, this.svg);
    this.tokens = el("g", { class: "tokens" }, this.svg);
    this.sums = el("g", { class: "sums" }, this.svg);
    const chunks = run.chunk_bounds.length || 1;
    for (const rank of run.group) this.drawCard(cards, rank, chunks, rank === layout.root);
  }

  /** Newer data of the run on stage (its end, a reload): same cards, and frames that grow in place. */
  update(run, frames) {
    this.run = run;
    this.frames = frames;
  }

  drawCard(parent, rank, chunks, isRoot) {
    const { x, y } = this.positions[rank];
    const { w, h } = this.card;
    const left = x - w / 2, top = y - h / 2;
    const g = el("g", { class: `card${isRoot ? " root" : ""}`, "data-rank": rank, transform: `translate(${left},${top})` }, parent);
    el("rect", { class: "frame", width: w, height: h, rx: Math.min(8, h / 6) }, g);
    const head = Math.max(11, Math.min(30, h * 0.24));
    const font = head * 0.72;
    const fitsIn = (text) => text.length * font * 0.6 <= w - (w >= 60 ? 22 : 6);
    const label = [`rank ${rank}${isRoot ? " · root" : ""}`, `rank ${rank}`, `${rank}`].find(fitsIn) ?? `${rank}`;
    const name = el("text", { class: "name", x: Math.min(8, w * 0.06), y: head * 0.55, "font-size": font }, g);
    name.textContent = label;
    if (w >= 60) el("rect", { class: "swatch", x: w - 14, y: head / 2 - 4, width: 8, height: 8, rx: 2, fill: colour(rank) }, g);
    const pad = Math.max(2, Math.min(6, w * 0.02));
    const cw = (w - 2 * pad) / chunks, ch = h - head - pad;
    for (let c = 0; c < chunks; c++) {
      const cell = el("g", { class: "cell", "data-rank": rank, "data-chunk": c, transform: `translate(${pad + c * cw},${head})` }, g);
      const fill = el("g", {}, cell);
      el("rect", { class: "edge", width: cw, height: ch }, cell);
      const size = Math.min(ch * 0.42, 26, Math.max(cw / 3.2, 12)); // room for "0–7" where it can be read
      const text = el("text", { x: cw / 2, y: ch / 2, "font-size": size }, cell);
      this.cells[`${rank}:${c}`] = { group: cell, stripes: fill, text, w: cw, h: ch, font: size,
        cx: left + pad + c * cw + cw / 2, cy: top + head + ch / 2, top, bottom: top + h, middle: x };
    }
  }

  /** Paint every cell as frame `index` has it (0: the inputs). */
  show(index) {
    const frame = this.frames[index];
    if (!frame) return;
    this.shown = index;
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
    cell.group.dataset.origins = from.join(",");
    stripes(cell.stripes, from, cell.w, cell.h);
    cell.group.dataset.values = JSON.stringify(values ?? null);
    // Values only where they stay legible and clear of their neighbours.
    const chars = cell.font >= 8 ? Math.floor((cell.w - 4) / (cell.font * 0.62)) : 0;
    // A large chunk ships a summary: its range says more than a preview of its first values.
    const text = stats ? range(stats.min, stats.max, chars) : brief(values, chars, "");
    if (cell.text.textContent !== text) cell.text.textContent = text;
    cell.group.classList.toggle("empty", !from.length); // holds no rank's data yet: its zeros are dimmed
    const tip = stats ? `rank ${rank} chunk ${chunk} from ${from.join(", ") || "nobody"}: min ${formatValue(stats.min)}, max ${formatValue(stats.max)}, sum ${formatValue(stats.sum)}; first ${fit(values ?? [], 60)}`
      : `rank ${rank} chunk ${chunk} from ${from.join(", ") || "nobody"}: ${fit(values ?? [], 200)}`;
    (cell.title ??= el("title", {}, cell.group)).textContent = tip;
  }

  /** Draw step k's arrows and its reductions' arithmetic over the stage (k = -1: none). */
  mark(k) {
    this.marked = k;
    drawArrows(this, this.run?.steps[k]);
    drawSums(this, k);
    this.outline(k);
  }

  /** Outline the cells step k wrote (none for k = -1). */
  outline(k) {
    for (const cell of this.outlined ?? []) cell.group.classList.remove("written");
    this.outlined = [...(this.frames[k + 1]?.changed ?? [])].map((key) => this.cells[key]).filter(Boolean);
    if (k < 0) this.outlined = [];
    for (const cell of this.outlined) cell.group.classList.add("written");
  }

  /** Fly step k's chunks from sender to receiver over `ms`, then show its result. */
  animate(k, ms) {
    this.stopAnimation();
    if (!this.run?.steps[k]) return Promise.resolve();
    drawArrows(this, this.run.steps[k]);
    drawSums(this, -1);
    this.outline(-1);
    this.marked = k;
    const moves = flights(this, k);
    return new Promise((resolve) => {
      const start = performance.now();
      let summed = false;
      const tick = (now) => {
        this.frameCount++;
        const t = Math.min(1, (now - start) / ms);
        moveTokens(moves, t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2);
        if (!summed && t >= 0.7) { summed = true; drawSums(this, k); } // the sum shows as the chunk lands
        if (t < 1) this.raf = requestAnimationFrame(tick);
        else this.pending();
      };
      this.pending = () => { this.finish(k); resolve(); };
      this.raf = requestAnimationFrame(tick);
    });
  }

  finish(k) {
    if (this.raf) cancelAnimationFrame(this.raf);
    this.raf = null;
    this.pending = null;
    hideTokens(this);
    const frame = this.frames[k + 1];
    if (!frame) return; // another run took the stage meanwhile
    this.show(k + 1);
    drawSums(this, k);
    this.outline(k);
    for (const cell of this.outlined) cell.group.classList.add("flash");
    const flashed = this.outlined;
    setTimeout(() => { for (const cell of flashed) cell.group.classList.remove("flash"); }, 450);
  }

  /** End a running animation at once (its step shown as finished). */
  stopAnimation() {
    this.pending?.();
  }
}
