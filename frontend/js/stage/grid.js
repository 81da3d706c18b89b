// How a card's cells sit, so that every value is written at a size that reads: what each cell may
// write and how wide the shortest of it is (measure.js), then the grid of a card's cells that
// writes them largest. Pure but for the measuring.

import { cellForms, rangeForms } from "rs/core/format.js";
import { reach, textWidth } from "rs/stage/measure.js";

export const ROOM = 4; // stage units a value keeps clear of its cell's edges, across
// ems a value keeps clear across besides, so that two cells' values read apart from the back row:
// "36 34", never "3634" (the cells' edges are lost in their colours)
export const GAP = 0.3;
export const MAX_VALUE = 40; // the largest a value is drawn, where its least is less (stage.largest)
/** A row of values' height in ems: as high as its font's glyphs reach, and a little room. */
export const line = () => reach().ascent + reach().descent + 0.04;

/** "r2c3" for 203 (rank 2's chunk 3), each value once. */
export const whereFrom = (values) =>
  [...new Set(values ?? [])].map((v) => `r${Math.floor(v / 100)}c${v % 100}`).join(" ");

/** What a cell may write, most exact first: a summary's range, an origin run's "r2c3", its values. */
export function formsOf(values, stats, whence) {
  if (stats) return rangeForms(stats.min, stats.max);
  const forms = cellForms(values);
  return whence && values?.length ? [whereFrom(values), ...forms] : forms;
}

/** The first of `forms` that fits `room` across at `font`; "" if none does. */
export const fitting = (forms, room, font) =>
  forms.find((t) => textWidth(t, font) + GAP * font <= room) ?? "";

const needed = new WeakMap(); // a cell's values or summary (the frames that leave it share it) -> width

/** The widest shortest text of any cell in `frames`, per unit of font (0: none). A cell's values
 * that several frames share are measured once. */
export function needs(run, frames, chunksOf) {
  const whence = run.spec?.pattern === "origin" && !run.op;
  let most = 0;
  for (const rank of run.group) {
    const r = String(rank), chunks = chunksOf(rank);
    for (const frame of frames) {
      for (const c of chunks) {
        const values = frame.values[r]?.[c], stats = frame.stats?.[r]?.[c], key = stats ?? values;
        if (!key) continue;
        if (!needed.has(key))
          needed.set(key, Math.min(...formsOf(values, stats, whence).map((t) => textWidth(t, 1))));
        if (Number.isFinite(needed.get(key))) most = Math.max(most, needed.get(key));
      }
    }
  }
  return most;
}

/** The chunks in parts, as the buffer's labelled regions cut them (one part without regions). */
export function partsOf(chunks, regions = []) {
  const label = new Map(regions.flatMap((reg) => reg.chunks.map((c) => [c, reg.label])));
  const parts = [];
  chunks.forEach((c, i) => {
    if (i && label.get(c) === label.get(chunks[i - 1])) parts.at(-1).chunks.push(c);
    else parts.push({ label: label.get(c), chunks: [c] });
  });
  return parts;
}

/** The cells of `parts` in a box w x h, `cols` across: all in one row where they fit across, else
 * each part starting a row of its own; or (`side`) the parts side by side, `cols` each. A part's
 * label (`label` high) takes a band over its first row. {cells: [{chunk, x, y, w, h, top: where the
 * value's room begins, label}], cw, room: a value's height, side}; null where a label is wider than
 * its part (part.width). */
export function cellsIn(parts, cols, w, h, label = 0, side = false) {
  const n = parts.reduce((t, p) => t + p.chunks.length, 0), one = !side && cols >= n;
  const band = label && parts.some((p) => p.label) ? label : 0;
  const cw = side ? w / (cols * parts.length) : w / Math.min(cols, n);
  const rows = side ? Math.max(...parts.map((p) => Math.ceil(p.chunks.length / cols)))
    : one ? 1 : parts.reduce((t, p) => t + Math.ceil(p.chunks.length / cols), 0);
  const heads = side || one ? 1 : parts.filter((p) => p.label).length; // bands over rows
  const room = (h - heads * band) / rows, cells = [];
  let x = 0, y = 0;
  for (const [k, part] of parts.entries()) {
    const across = side ? cols * cw : one ? part.chunks.length * cw : w; // a label's room
    if (band && (part.width ?? 0) + ROOM > across) return null; // its label would not fit over it
    const over = side || one || part.label ? band : 0;
    part.chunks.forEach((chunk, i) => {
      const row = one ? 0 : Math.floor(i / cols), first = row ? 0 : over;
      const at = side ? { x: (k * cols + (i % cols)) * cw, y: row ? over + row * room : 0 }
        : one ? { x: x + i * cw, y: 0 } : { x: (i % cols) * cw, y: y + (row ? over + row * room : 0) };
      cells.push({ chunk, ...at, w: cw, h: room + first, top: first, label: i ? null : part.label });
    });
    if (one) x += part.chunks.length * cw;
    else if (!side) y += over + Math.ceil(part.chunks.length / cols) * room;
  }
  return { cells, cw, room, side };
}

/** The largest font, `most` at most, a value `need` wide per unit of font fits at in a cell cw across,
 * room high. */
export const fontIn = (need, cw, room, most = MAX_VALUE) =>
  Math.min(most, room / line(), need ? (cw - ROOM) / (need + GAP) : Infinity);

/** The grid of `parts` in a box w x h that writes values `need` wide largest (`largest` at most): {cols,
 * side, font}. More across wins a tie, then parts one under another: a buffer reads left to right. */
export function gridOf(parts, need, w, h, label = 0, largest = MAX_VALUE) {
  const n = parts.reduce((t, p) => t + p.chunks.length, 0);
  const most = Math.max(...parts.map((p) => p.chunks.length));
  const tries = [...Array.from({ length: n }, (_, i) => [n - i, false]),
    ...(parts.length > 1 ? Array.from({ length: most }, (_, i) => [most - i, true]) : [])];
  let best = { cols: n, side: false, font: -Infinity };
  for (const [cols, side] of tries) {
    const grid = cellsIn(parts, cols, w, h, label, side);
    const font = grid ? fontIn(need, grid.cw, grid.room, largest) : -Infinity;
    if (font > best.font + 1e-9) best = { cols, side, font };
  }
  return best;
}
