// The stage: ranks as cards holding their buffers' chunks, coloured by the ranks their data came
// from. Nodes are made once per run (and again only when the stage is resized); a step repaints
// the cells and moves the tokens that transfers.js flies between them. What differs by
// collective (which chunks are a rank's output, a buffer's labelled halves, AVG's division,
// the traffic formula) comes from the run's `display` data; the page names none.

import { arrange } from "rs/layout.js";
import { bytes, cellText, colour, exact, range } from "rs/format.js";
import { el, stripes } from "rs/dom.js";
import { drawArrows, drawSums, flights, moveTokens, hideTokens } from "rs/transfers.js";
import { textWidth } from "rs/labels.js";
import { showFormula } from "rs/formulas.js";

export const WIDTH = 1200; // the stage's own units across; its height follows the element's shape
const NARROW = 600; // CSS px: a stage narrower, and taller than wide (a phone), counts a unit a pixel
const LEAST = 12; // px: a phone's smallest name, bytes or label
export const COLOUR_ONLY = 16; // from this many ranks on, cells are colours only, their values on hover
const MIN_FONT = 9; // the smallest value text drawn, in stage units
const READABLE = 14; // a value rounded harder to be drawn at least this large is worth it
const MAX_TITLE_VALUES = 256;

/** The chunks of `rank`'s buffer worth drawing: its input and output, and any slot the
 * schedule uses there as scratch. A scatter's receiver draws one block, not P slots. All of
 * them for a run without display data. */
export function drawnChunks(run, rank) {
  const all = Array.from({ length: run.chunk_bounds.length || 1 }, (_, c) => c);
  const outputs = run.display?.output_chunks;
  if (!outputs) return all;
  const keep = new Set([...(run.input_chunks?.[String(rank)] ?? []), ...(outputs[String(rank)] ?? [])]);
  for (const step of run.steps) {
    for (const [src, dst, chunk, into] of step.transfers) {
      if (src === rank) keep.add(chunk);
      if (dst === rank) keep.add(into);
    }
  }
  return keep.size ? all.filter((c) => keep.has(c)) : all;
}

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

export class Stage {
  constructor(svg) {
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
    // Marks others lay over the stage (a straggler's) come after the labels: place those again, clear of them.
    if (typeof MutationObserver === "function")
      new MutationObserver(() => { if (!this.pending && svg.querySelector(":scope > g")) drawSums(this, this.marked); }).observe(svg, { childList: true });
  }

  /** The stage's size in its own units, [across, down], from the element's shape on the page. */
  box() {
    const { width, height } = this.svg.getBoundingClientRect();
    const inner = this.svg.clientWidth || width; // inside its border: a unit is exactly a pixel
    if (!(width > 0 && height > 0)) return [this.width, this.height];
    return width < NARROW && height > width ? [inner, Math.floor((height * inner) / width)] : [WIDTH, Math.round(Math.min(1100, Math.max(420, (WIDTH * height) / width)))];
  }

  fitToBox() {
    const [w, h] = this.box();
    if (!this.run || (w === this.width && Math.abs(h - this.height) < 0.02 * this.height)) return;
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
    [this.width, this.height] = this.box();
    this.svg.setAttribute("viewBox", `0 0 ${this.width} ${this.height}`);
    this.svg.replaceChildren();
    // One inner <svg> holds the scene, so the page's hooks read alike as "#stage g.cell" and "#stage svg g.cell".
    const scene = el("svg", { class: "scene", x: 0, y: 0, width: this.width, height: this.height, overflow: "visible" }, this.svg);
    this.cells = {};
    this.nameBoxes = [];
    this.bars = {};
    this.pool = [];
    this.shown = 0;
    this.marked = -1;
    this.colourOnly = run.group.length >= COLOUR_ONLY;
    const itemsize = run.display?.itemsize;
    this.traffic = itemsize ? trafficByFrame(run, itemsize) : null;
    this.most = this.traffic ? Math.max(1, ...run.group.flatMap((r) => [this.traffic.sent[r].at(-1), this.traffic.received[r].at(-1)])) : 1;
    const edges = run.steps.flatMap((s) => s.transfers.map(([src, dst]) => [src, dst]));
    const layout = run.layout ?? {}; // runs stored before the server gave layouts are drawn as rings
    // A group smaller than the world (new_group): every rank keeps its place, those outside greyed.
    const world = run.world_size > run.group.length ? Array.from({ length: run.world_size }, (_, r) => r) : run.group;
    const { card, positions, column } = arrange(layout, world, this.width, this.height, edges);
    this.column = column; // a phone's: marks over it read from the cards' left edge, at a phone's size
    this.card = card;
    this.positions = positions;
    // A card's header: its name 0.72 of it, its bytes 0.6; in a phone's column, the bytes LEAST px.
    this.head = column && !this.colourOnly ? LEAST / 0.6 : Math.max(11, Math.min(30, card.h * 0.24));
    const defs = el("defs", {}, scene);
    const head = el("marker", { id: "head", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse" }, defs);
    el("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }, head);
    const hatch = el("pattern", { id: "hatch", width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
    el("rect", { width: 8, height: 8, class: "hatch-back" }, hatch);
    el("line", { x1: 0, y1: 0, x2: 0, y2: 8, class: "hatch-line" }, hatch);
    this.arrows = el("g", { class: "arrows" }, scene);
    const cards = el("g", { class: "cards" }, scene);
    this.tokens = el("g", { class: "tokens" }, scene);
    this.names = el("g", { class: "names" }, scene); // over the tokens: a flying chunk never hides whose card it is
    this.leaders = el("g", { class: "leaders" }, scene);
    this.sums = el("g", { class: "sums" }, scene);
    for (const rank of world) {
      if (run.group.includes(rank)) this.drawCard(cards, rank, rank === layout.root);
      else this.drawOutsider(cards, rank);
    }
    showFormula(run);
  }

  /** Newer data of the run on stage (its end, a reload): same cards, and frames that grow in place. */
  update(run, frames) {
    this.run = run;
    this.frames = frames;
    showFormula(run);
  }

  /** A card's header in the layer over the tokens: its name, as long as fits ("rank 3 (g1) · root"
   * … "3"), and with `traffic` its bytes so far right of it ("↑48 B ↓48 B"), returned: "rank 3"
   * rather than no bytes, though not a bare number. The whole band is kept clear of labels. */
  drawHead(left, top, choices, cls = "name", traffic = false) {
    const { w } = this.card, { head } = this, font = head * 0.72, x = left + Math.min(8, w * 0.06), y = top + head * 0.55;
    const wide = (t) => textWidth(t, font) * 0.95;
    const beside = traffic ? x - left + 10 + textWidth(`↑${bytes(this.most)} ↓${bytes(this.most)}`, head * 0.6) : Infinity;
    const withBytes = choices.slice(0, 2).find((t) => wide(t) + beside <= w - (w >= 60 ? 20 : 4));
    el("text", { class: cls, x, y, "font-size": font }, this.names).textContent =
      withBytes ?? choices.find((t) => wide(t) <= w - (w >= 60 ? 22 : 6)) ?? choices.at(-1);
    this.nameBoxes.push({ x: left, y: top - head * 0.2, w, h: head * 1.2 }); // glyphs rise about 1 em over the baseline
    return withBytes ? el("text", { class: "bytes", x: left + w - (w >= 60 ? 20 : 4), y, "font-size": head * 0.6 }, this.names) : null;
  }

  /** A rank outside the run's group: greyed in place, no buffer. */
  drawOutsider(parent, rank) {
    const { x, y } = this.positions[rank];
    const { w, h } = this.card;
    const g = el("g", { class: "card outside", "data-rank": rank, transform: `translate(${x - w / 2},${y - h / 2})` }, parent);
    el("rect", { class: "frame", width: w, height: h, rx: Math.min(8, h / 6) }, g);
    el("title", {}, g).textContent = `rank ${rank} is not in this run's group`;
    this.drawHead(x - w / 2, y - h / 2, [`rank ${rank} · not in group`, `rank ${rank} · out`, `rank ${rank}`, `${rank}`], "name outside");
  }

  drawCard(parent, rank, isRoot) {
    const run = this.run;
    const { x, y } = this.positions[rank];
    const { w, h } = this.card;
    const left = x - w / 2, top = y - h / 2;
    const g = el("g", { class: `card${isRoot ? " root" : ""}`, "data-rank": rank, transform: `translate(${left},${top})` }, parent);
    el("rect", { class: "frame", width: w, height: h, rx: Math.min(8, h / 6) }, g);
    const { head } = this;
    const local = run.world_size > run.group.length ? ` (g${run.group.indexOf(rank)})` : ""; // its number inside the group
    const server = (run.layout?.servers ?? []).includes(rank); // a parameter server's: its role says more than "root"
    const root = server ? " · server" : isRoot ? " · root" : "";
    const text = this.drawHead(left, top, [`rank ${rank}${local}${root}`, `rank ${rank}${local}`, `${rank}${local}`, `${rank}`], "name", !!this.traffic);
    if (w >= 60) el("rect", { class: "swatch", x: w - 14, y: head / 2 - 4, width: 8, height: 8, rx: 2, fill: colour(rank) }, g);
    const pad = Math.max(2, Math.min(6, w * 0.02));
    const barH = this.traffic ? Math.max(2.5, Math.min(7, h * 0.045)) : 0;
    const barsRoom = this.traffic ? 2 * barH + 4 : 0;
    const chunks = drawnChunks(run, rank);
    const mine = new Set([...(run.input_chunks?.[String(rank)] ?? []), ...(run.display?.output_chunks?.[String(rank)] ?? [])]);
    const cw = (w - 2 * pad) / chunks.length, ch = h - head - pad - barsRoom;
    const regionOf = new Map((run.display?.regions ?? []).flatMap((reg) => reg.chunks.map((c) => [c, reg.label])));
    chunks.forEach((c, i) => {
      const cx0 = pad + i * cw;
      const scratch = run.display && !mine.has(c);
      const cell = el("g", { class: `cell${scratch ? " scratch" : ""}`, "data-rank": rank, "data-chunk": c, transform: `translate(${cx0},${head})` }, g);
      const fill = el("g", {}, cell);
      el("rect", { class: "spare-mark", width: cw, height: ch }, cell);
      el("rect", { class: "edge", width: cw, height: ch }, cell);
      const text = el("text", { class: "value", x: cw / 2, y: ch / 2 }, cell);
      const note = el("text", { class: "note", x: cw / 2, y: ch - Math.min(14, ch * 0.18) * 0.7, "font-size": Math.min(14, ch * 0.18) }, cell);
      this.cells[`${rank}:${c}`] = { group: cell, stripes: fill, text, note, w: cw, h: ch, maxFont: Math.min(ch * 0.55, 40),
        cx: left + cx0 + cw / 2, cy: top + head + ch / 2 };
      // A buffer in labelled parts (an input half and an output half): the label at each part's start.
      const label = regionOf.get(c);
      if (label && regionOf.get(chunks[i - 1]) !== label) {
        const font = Math.max(9, Math.min(14, ch * 0.2));
        // over every cell and token (the names' layer), so no later cell paints over the word
        if (i) el("line", { class: "divider", x1: left + cx0, x2: left + cx0, y1: top + head - 2, y2: top + head + ch + 2 }, this.names);
        el("text", { class: "region", "data-rank": rank, x: left + cx0 + 3, y: top + head + font * 0.85, "font-size": font }, this.names).textContent = label;
        this.nameBoxes.push({ x: left + cx0 + 3, y: top + head - font * 0.2, w: textWidth(label, font), h: font * 1.3 });
      }
    });
    // Slots the rank's buffer does not really have stay in the page, undrawn: every chunk keeps its hook.
    for (let c = 0; c < (run.chunk_bounds.length || 1); c++) {
      if (chunks.includes(c)) continue;
      const cell = el("g", { class: "cell unused", "data-rank": rank, "data-chunk": c }, g);
      this.cells[`${rank}:${c}`] = { group: cell, stripes: el("g", {}, cell), text: el("text", { class: "value" }, cell), note: el("text", {}, cell),
        w: 0, h: 0, maxFont: 0, cx: x, cy: y, unused: true };
    }
    if (this.traffic) this.bars[rank] = { ...this.drawBars(g, w, h, pad, barH), text };
  }

  /** Two thin bars under the cells: what the rank has sent and received so far, on one scale for all. */
  drawBars(g, w, h, pad, barH) {
    const full = w - 2 * pad;
    const bar = (y, cls) => {
      el("rect", { class: "bar-track", x: pad, y, width: full, height: barH, rx: barH / 2 }, g);
      return el("rect", { class: `bar ${cls}`, x: pad, y, width: 0, height: barH, rx: barH / 2 }, g);
    };
    const sent = bar(h - pad - 2 * barH - 2, "sent"), received = bar(h - pad - barH, "received");
    const title = el("title", {}, g);
    return { sent, received, full, title };
  }

  /** Paint every cell as frame `index` has it (0: the inputs). */
  show(index) {
    const frame = this.frames[index];
    if (!frame) return;
    this.shown = index;
    // After the last step, slots that are no rank's output are hatched: leftovers, not results.
    const outputs = index >= this.run.steps.length && this.run.results && Object.keys(this.run.results).length ? this.run.display?.output_chunks : null;
    for (const rank of this.run.group) {
      const r = String(rank);
      const values = frame.values[r] ?? [], origins = frame.origins[r] ?? [], stats = frame.stats?.[r] ?? [];
      const out = outputs ? new Set(outputs[r] ?? []) : null;
      let font = Infinity;
      for (let c = 0; c < this.run.chunk_bounds.length; c++) font = Math.min(font, this.paint(rank, c, values[c], origins[c], stats[c], out && !out.has(c)) ?? Infinity);
      this.size(this.run.chunk_bounds.map((_, c) => this.cells[`${rank}:${c}`]).filter(Boolean), Number.isFinite(font) ? font : MIN_FONT);
      this.showBars(rank, Math.min(index, this.run.steps.length));
    }
  }

  showBars(rank, index) {
    const bars = this.bars[rank];
    if (!bars) return;
    const sent = this.traffic.sent[rank][index], received = this.traffic.received[rank][index];
    bars.sent.setAttribute("width", (bars.full * sent) / this.most);
    bars.received.setAttribute("width", (bars.full * received) / this.most);
    bars.title.textContent = `rank ${rank} so far: sent ${bytes(sent)}, received ${bytes(received)}`;
    if (bars.text) bars.text.textContent = `↑${bytes(sent)} ↓${bytes(received)}`;
    bars.sent.dataset.bytes = sent;
    bars.received.dataset.bytes = received;
  }

  paint(rank, chunk, values, origins, stats, spare = false) {
    const cell = this.cells[`${rank}:${chunk}`];
    if (!cell) return;
    const from = [...(origins ?? [])].sort((a, b) => a - b);
    cell.group.dataset.origins = from.join(",");
    stripes(cell.stripes, from, cell.w, cell.h);
    cell.group.dataset.values = JSON.stringify(values ?? null);
    // Values rounded to what fits at a size a back row reads (else at the smallest), then the
    // largest type that text fits at. A large chunk ships a summary: its range says more.
    const chars = (font) => Math.floor((cell.w - 6) / (font * 0.62));
    const write = (font, least) => (stats ? range(stats.min, stats.max, chars(font)) : cellText(values, chars(font), least));
    const text = this.colourOnly || cell.unused ? "" : write(Math.min(READABLE, cell.maxFont), 2) || write(MIN_FONT, 1);
    if (cell.text.textContent !== text) cell.text.textContent = text;
    cell.group.classList.toggle("empty", !from.length); // holds no rank's data yet: its zeros are dimmed
    cell.group.classList.toggle("spare", spare);
    const note = "not output"; // said where it fits under the value; the hatching and the hover say it everywhere
    cell.note.textContent = spare && cell.h >= 40 && textWidth(note, Math.min(14, cell.h * 0.18)) <= cell.w - 4 ? note : "";
    const all = (values ?? []).slice(0, MAX_TITLE_VALUES).map(exact).join(" ") + ((values?.length ?? 0) > MAX_TITLE_VALUES ? " …" : "");
    const summary = stats ? `min ${exact(stats.min)}, max ${exact(stats.max)}, sum ${exact(stats.sum)}; first ` : "";
    const tip = `rank ${rank} chunk ${chunk} from ${from.join(", ") || "nobody"}${spare ? " (not part of the output)" : ""}: ${summary}${all}`;
    (cell.title ??= el("title", {}, cell.group)).textContent = tip;
    return text ? Math.max(MIN_FONT, Math.min(cell.maxFont, (cell.w - 6) / (text.length * 0.62))) : Infinity;
  }

  /** One size for the values of a card, the largest that all of them fit at: sizes do not jump from cell to cell. */
  size(cells, font) {
    for (const cell of cells) {
      cell.text.setAttribute("font-size", font.toFixed(1));
      const tw = textWidth(cell.text.textContent, font);
      cell.box = tw ? { x: cell.cx - tw / 2, y: cell.cy - font * 0.6, w: tw, h: font * 1.2 } : null;
    }
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
      return new Promise((resolve) => {
        const timer = setTimeout(() => this.pending?.(), ms * 0.4);
        this.pending = () => { clearTimeout(timer); this.finish(k); resolve(); };
      });
    }
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
