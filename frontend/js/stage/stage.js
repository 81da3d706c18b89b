// The stage: ranks as cards holding their buffers' chunks, coloured by the ranks their data came
// from. Nodes are made once per run (and again only when the stage is resized); a step repaints
// the cells and moves the tokens that transfers.js flies between them. What differs by
// collective (which chunks are a rank's output, a buffer's labelled halves, AVG's division,
// the traffic formula) comes from the run's `display` data; the page names none. It dispatches
// "load" once it has made its nodes, for the marks others lay over them.

import { el } from "rs/core/dom.js";
import { onLanguage, tr } from "rs/i18n/i18n.js";
import { arrivalsOf, laneNeed } from "rs/stage/arrivals.js";
import { drawCard, drawnChunks, drawOutsider, insideOf, paintCard, valueFont } from "rs/stage/cards.js";
import { showFormula } from "rs/stage/formulas.js";
import { needs } from "rs/stage/grid.js";
import { textWidth } from "rs/stage/measure.js";
import { placeRun } from "rs/stage/placement.js";
import { drawArrows, drawSums, flights, hideTokens, moveTokens } from "rs/stage/transfers.js";

export const WIDTH = 1200; // the stage's own units across; its height follows the element's shape
// the reader's system asks for less motion: a step's chunks land without flying
const STILL = globalThis.matchMedia?.("(prefers-reduced-motion: reduce)"); // none in Node
const NARROW = 600; // CSS px: a stage narrower, and taller than wide (a phone), counts a unit a pixel
export const COLOUR_ONLY = 16; // from this many ranks on, cells are colours only, their values on hover

/** Bytes each rank has sent and received by every frame: {sent: {rank: [per frame]}, received}. */
export function trafficByFrame(run, itemsize) {
  const size = run.chunk_bounds.map(([a, b]) => (b - a) * itemsize);
  const sent = {}, received = {};
  for (const r of run.group) { sent[r] = [0]; received[r] = [0]; }
  for (const step of run.steps) {
    for (const r of run.group) { sent[r].push(sent[r].at(-1)); received[r].push(received[r].at(-1)); }
    for (const [src, dst, chunk, into] of step.transfers) {
      if (src === dst) continue;
      if (sent[src]) sent[src][sent[src].length - 1] += size[chunk];
      if (received[dst]) received[dst][received[dst].length - 1] += size[into];
    }
  }
  return { sent, received };
}

export class Stage extends EventTarget {
  constructor(svg) {
    super();
    this.svg = svg;
    this.width = WIDTH;
    this.height = 640;
    this.frames = [];
    this.cells = {}; // "rank:chunk" -> {group, stripes, text, w, h, maxFont, cx, cy, box}
    this.nameBoxes = []; // what labels must not cover besides values: names, a buffer's part labels
    this.shown = 0; // the frame on the stage
    this.marked = -1; // the step whose arrows and sums are drawn
    this.frameCount = 0; // requestAnimationFrame callbacks while animating (for the fps benchmark)
    this.pool = []; // tokens, made as needed and reused
    if (typeof ResizeObserver === "function") new ResizeObserver(() => this.fitToBox()).observe(svg);
    onLanguage(() => this.fitToBox(true)); // its words (names, a buffer's parts, hovers) in the new language
  }

  /** The stage's size in its own units, [across, down], from the element's shape on the page. */
  box() {
    const { width, height } = this.svg.getBoundingClientRect();
    const inner = this.svg.clientWidth || width; // inside its border: a unit is exactly a pixel
    if (!(width > 0 && height > 0)) return [this.width, this.height];
    return width < NARROW && height > width ? [inner, Math.floor((height * inner) / width)]
      : [WIDTH, Math.round(Math.min(1100, Math.max(360, (WIDTH * height) / width)))];
  }

  /** CSS px a stage unit takes on screen. */
  scale() {
    const { width, height } = this.svg.getBoundingClientRect();
    // the viewBox's "meet": the smaller of the two
    return width > 0 && height > 0 ? Math.min(width / this.width, height / this.height) : 1;
  }

  /** Draw the run again where the box has changed shape (or `anyway`: lecture mode came or went). */
  fitToBox(anyway = false) {
    const [w, h] = this.box(), scale = this.scale();
    // the scale too: a box at its least height (360 units) shrinks its units, and a projector's names
    const same = w === this.width && Math.abs(h - this.height) < 0.02 * this.height
      && Math.abs(scale - this.drawnAt) < 0.02 * this.drawnAt;
    if (!this.run || (!anyway && same)) return;
    this.stopAnimation(); // first: a step mid-flight lands, and that is the step to show again
    const { shown, marked } = this;
    this.load(this.run, this.frames);
    this.show(shown);
    this.mark(marked);
  }

  load(run, frames) {
    this.stopAnimation();
    this.run = run;
    this.frames = frames;
    this.svg.style.height = ""; // a phone's stage grown for the last run: its own height first
    this.cells = {};
    this.nameBoxes = [];
    this.bars = {};
    this.pool = [];
    this.shown = 0;
    this.marked = -1;
    this.colourOnly = run.group.length >= COLOUR_ONLY;
    const itemsize = run.display?.itemsize;
    this.traffic = itemsize ? trafficByFrame(run, itemsize) : null;
    this.most = this.traffic ? Math.max(1, ...run.group.flatMap((r) => [this.traffic.sent[r].at(-1),
      this.traffic.received[r].at(-1)])) : 1;
    this.arrivals = arrivalsOf(run);
    this.need = this.needOf(frames);
    showFormula(run); // first: whether its line is there to give the stage its room
    const placed = placeRun(this, run);
    const { card, positions, height } = placed;
    if (height > this.height) this.grow(height);
    // no value is dropped, but where none reaches the size that reads the stage says so
    this.underFloor = !this.colourOnly && placed.font < this.valueLeast - 1e-6;
    this.svg.toggleAttribute("data-under-floor", this.underFloor);
    this.card = card;
    this.positions = positions;
    this.inside = insideOf(this, card);
    this.header = this.inside.header;
    this.head = this.header.band;
    this.svg.setAttribute("viewBox", `0 0 ${this.width} ${this.height}`);
    this.svg.replaceChildren();
    // One inner <svg> holds the scene, so the page's hooks read alike as
    // "#stage g.cell" and "#stage svg g.cell".
    const scene = el("svg", { class: "scene", x: 0, y: 0, width: this.width, height: this.height,
      overflow: "visible" }, this.svg);
    const defs = el("defs", {}, scene);
    const head = el("marker", { id: "head", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 5,
      markerHeight: 5, orient: "auto-start-reverse" }, defs);
    el("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }, head);
    const hatch = el("pattern", { id: "hatch", width: 8, height: 8, patternUnits: "userSpaceOnUse",
      patternTransform: "rotate(45)" }, defs);
    el("rect", { width: 8, height: 8, class: "hatch-back" }, hatch);
    el("line", { x1: 0, y1: 0, x2: 0, y2: 8, class: "hatch-line" }, hatch);
    this.arrows = el("g", { class: "arrows" }, scene);
    const cards = el("g", { class: "cards" }, scene);
    this.tokens = el("g", { class: "tokens" }, scene);
    // over the tokens: a flying chunk never hides whose card it is
    this.names = el("g", { class: "names" }, scene);
    this.leaders = el("g", { class: "leaders" }, scene);
    this.sums = el("g", { class: "sums" }, scene);
    const root = run.layout?.root;
    for (const rank of this.world()) {
      if (run.group.includes(rank)) drawCard(this, cards, rank, rank === root);
      else drawOutsider(this, cards, rank);
    }
    if (this.underFloor) this.drawUnderFloor(scene);
    this.dispatchEvent(new Event("load"));
  }

  /** Every rank of the world: a group smaller than it (new_group) keeps every rank in its place,
   * those outside greyed. */
  world() {
    const { run } = this;
    return run.world_size > run.group.length ? Array.from({ length: run.world_size }, (_, r) => r) : run.group;
  }

  /** A note on the stage where no layout writes the values at the size that reads: as wide as the
   * stage at most (a narrow one: a lesson and a poll's card beside it). */
  drawUnderFloor(scene) {
    const words = tr("values smaller than reads from the back: fewer ranks or a larger screen");
    const font = Math.min(Math.max(this.least, 14 / this.scale()), (this.width - 8) / textWidth(words, 1, "floor"));
    el("text", { class: "under-floor", x: this.width / 2, y: this.height - font * 0.4, "font-size": font },
      scene).textContent = words;
  }

  /** A phone's stage made `height` units tall (a unit is a pixel there): the page scrolls to it. */
  grow(height) {
    const { svg } = this, border = svg.getBoundingClientRect().height - svg.clientHeight;
    svg.style.height = `${Math.ceil((height * svg.clientWidth) / this.width + border)}px`;
    this.height = height;
  }

  /** Newer data of the run on stage (its end, a reload): same cards, and frames that grow in place.
   * Values that have outgrown their cells' room (a sum longer than its inputs) are drawn again. */
  update(run, frames) {
    this.run = run;
    this.frames = frames;
    this.arrivals = arrivalsOf(run);
    showFormula(run);
    this.outgrown();
  }

  /** How wide the widest value is per unit of font (grid.js); none where cells are colours only. */
  needOf(frames) {
    const { run } = this, chunks = run.group.map((r) => drawnChunks(run, r));
    if (this.arrivals && !this.colourOnly) return laneNeed(run, this.arrivals); // a lane's words, not values
    return this.colourOnly ? 0 : needs(run, frames, (r) => chunks[run.group.indexOf(r)]);
  }

  /** Draw the run again where its frames' values no longer fit the cells at the least size that reads. */
  outgrown() {
    const need = this.needOf(this.frames);
    if (need <= this.need + 1e-9) return;
    this.need = need;
    if (valueFont(this, this.card) < this.valueLeast - 1e-6) this.fitToBox(true);
  }

  /** Paint every cell as frame `index` has it (0: the inputs). */
  show(index) {
    const frame = this.frames[index];
    if (!frame) return;
    this.shown = index;
    // After the last step, slots that are no rank's output are hatched: leftovers, not results.
    const { steps, results, display } = this.run;
    const over = index >= steps.length && results && Object.keys(results).length;
    const outputs = over ? display?.output_chunks : null;
    for (const rank of this.run.group) paintCard(this, rank, frame, outputs, Math.min(index, steps.length));
  }

  /** Marks others lay over the stage (a straggler's) came after the labels: place those again,
   * clear of them. */
  overlaid() {
    if (!this.pending) drawSums(this, this.marked);
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

  /** Fly step k's chunks from sender to receiver over `ms`, then show its result. A frame
   * past the last step (AVG's division) has nothing to fly: it lands after a pause. */
  animate(k, ms) {
    this.stopAnimation();
    if (!this.run?.steps[k]) {
      if (!this.frames[k + 1]) return Promise.resolve();
      this.marked = k;
      return this.hold(k, ms * 0.4);
    }
    drawArrows(this, this.run.steps[k]);
    drawSums(this, -1);
    this.outline(-1);
    this.marked = k;
    if (STILL?.matches) return this.hold(k, ms);
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

  /** Step k landed after `ms` with nothing flying: a frame with no transfers, or a reader who asked
   * for less motion (a step keeps the pace a class follows). */
  hold(k, ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.pending?.(), ms);
      this.pending = () => { clearTimeout(timer); this.finish(k); resolve(); };
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
