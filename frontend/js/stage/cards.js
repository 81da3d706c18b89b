// A rank's card on the stage: its header (name and bytes so far), its buffer's cells coloured by
// where their data came from, with their values, and two bars of what it has sent and received.

import { el, stripes } from "rs/core/dom.js";
import { bytes, colour, exact } from "rs/core/format.js";
import { fill, rankName, tr } from "rs/i18n/i18n.js";
import { laneFont, paintLane } from "rs/stage/arrivals.js";
import { cellsIn, fitting, fontIn, formsOf, gridOf, line, partsOf, ROOM } from "rs/stage/grid.js";
import { reach, textWidth } from "rs/stage/measure.js";

const MAX_TITLE_VALUES = 256;
const LEAST_TERMS = 12; // px: a card's terms line at its smallest

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

/** The names a card may go by, longest first: "rank 3 (g1) · root" … "3". */
function namesOf(run, rank, isRoot) {
  const local = run.world_size > run.group.length ? ` (g${run.group.indexOf(rank)})` : ""; // in the group
  // a parameter server's: its role says more than "root"
  const role = (run.layout?.servers ?? []).includes(rank) ? "server" : isRoot ? "root" : "";
  const name = `${rankName(rank)}${local}`;
  return [role ? `${name} · ${tr(role)}` : name, name, `${rank}${local}`, `${rank}`];
}

/** A rank's bytes so far: "↑48 B ↓1.5 KiB", or `short`, one unit said once where both share
 * it: "↑48 ↓40 B". */
export function moved(sent, received, short = false) {
  const [up, down] = [bytes(sent), bytes(received)], unit = up.split(" ")[1];
  return short && unit === down.split(" ")[1] ? `↑${up.split(" ")[0]} ↓${down}` : `↑${up} ↓${down}`;
}

export const LEAST = 12; // px: a phone's smallest name, bytes or label

/** The header of cards of `card`'s size (`rank`'s alone, or any), in stage units: {band: its height,
 * name, bytes: their fonts, two: the bytes on a line of their own, short: their unit said once}. On
 * a projector (lecture mode: stage.least, for a back row) names and bytes are that large, in short,
 * without the colour swatch (the cells show the colour), and the bytes under the name where the
 * card is still too narrow, so that neither is dropped nor the root's mark. Else they scale with
 * the card (a phone's bytes LEAST px), and what does not fit gives way. Heights as measured. */
export function headOf(stage, card, rank = null) {
  const least = stage.least, phone = stage.column && !stage.colourOnly;
  const head = phone ? LEAST / 0.6 : Math.max(11, Math.min(30, card.h * 0.24));
  // on a projector exactly that: a larger name would take the values' room
  const name = least || head * 0.72, small = least || head * 0.6;
  const { run } = stage, root = run.layout?.root, n = reach("name"), b = reach("bytes");
  const wide = Math.max(...(rank == null ? run.group : [rank]).map((r) =>
    textWidth(namesOf(run, r, r === root)[0], name, "name")));
  const room = (short) => textWidth(moved(stage.most, stage.most, short), small, "bytes");
  const line = (n.ascent + n.descent) * name;
  if (!least) { // the root's or a server's mark kept: the unit said once, then no swatch, before it goes
    const fits = (short, swatch) => !stage.traffic || Math.min(8, card.w * 0.06) + wide + 10
      + room(short) <= card.w - (swatch && card.w >= 60 ? 20 : 4);
    const short = !fits(false, true) && fits(true, false), swatch = !short || fits(true, true);
    return { band: Math.max(head, line + 2), name, bytes: small, two: false, short, swatch };
  }
  const two = Math.min(8, card.w * 0.06) + wide + (stage.traffic ? 10 + room(true) : 0) > card.w - 8;
  const band = two ? line + (b.ascent + b.descent) * small + 5 : line + 3;
  return { band, name, bytes: small, two, short: true, swatch: false };
}

/** A card's header in the layer over the tokens: its name, as long as fits ("rank 3 (g1) · root"
 * … "3"), and with `traffic` its bytes so far right of it ("↑48 B ↓48 B"), or under it where the
 * header has two lines, returned: "rank 3" rather than no bytes, though not a bare number. The
 * whole band is kept clear of labels. */
function drawHead(stage, left, top, choices, cls = "name", traffic = false, header = stage.header) {
  const { w } = stage.card, { band, name: font, bytes: small, two, short, swatch } = header;
  const n = reach("name"), b = reach("bytes");
  const x = left + Math.min(8, w * 0.06);
  const y = top + (two ? 2 : (band - (n.ascent + n.descent) * font) / 2) + n.ascent * font;
  const wide = (t) => textWidth(t, font, "name");
  const right = w - (swatch && w >= 60 ? 20 : 4); // where the bytes end: left of the swatch
  const most = moved(stage.most, stage.most, short);
  const beside = traffic && !two ? x - left + 10 + textWidth(most, small, "bytes") : Infinity;
  const withBytes = two && traffic ? choices[0] : choices.slice(0, 2).find((t) => wide(t) + beside <= right);
  el("text", { class: cls, x, y, "font-size": font }, stage.names).textContent =
    withBytes ?? choices.find((t) => wide(t) <= w - (w >= 60 ? 22 : 6)) ?? choices.at(-1);
  stage.nameBoxes.push({ x: left, y: top - font * 0.2, w, h: band + font * 0.2 });
  if (!withBytes) return null;
  const under = two ? { y: top + band - 2 - b.descent * small } : { y };
  return el("text", { class: "bytes", x: left + right, ...under, "font-size": small }, stage.names);
}

/** The rank's terms (node, local and global rank) where they differ from its number alone:
 * several nodes, or local ranks that are not the global ones. */
function termsOf(run, rank) {
  const places = run.places ?? {}, at = places[String(rank)];
  const hosts = new Set(Object.values(places).map((p) => p.host));
  const plain = hosts.size < 2 && Object.entries(places).every(([r, p]) => p.local_rank === Number(r));
  return at && !plain ? at : null;
}

/** The terms' font under a header `head` high, and the height their line takes (0: none). */
function termsLine(stage, head) {
  const font = Math.max(LEAST_TERMS, head * 0.62), t = reach("terms");
  return { font, height: stage.run.group.some((r) => termsOf(stage.run, r)) ? (t.ascent + t.descent) * font + 2 : 0 };
}

/** The rank's terms under its name, as long as fits: "node-b · local 0 · global 2 of 4".
 * Returns the height it took (0: none). */
function drawTerms(stage, left, top, rank, head) {
  const { run, card: { w } } = stage, at = termsOf(run, rank);
  if (!at) return 0;
  const { font, height } = termsLine(stage, head), x = left + Math.min(8, w * 0.06);
  const { host, local_rank: local } = at, world = run.world_size;
  const terms = { s1: host, w1: host, n1: local, n2: rank, n3: world };
  const choices = [fill("node {s1} · local {n1} · global {n2} of {n3}", terms),
    fill("{w1} · local {n1} · global {n2}/{n3}", terms), `${host} · L${local} · G${rank}`, `L${local}`];
  const attrs = { class: "terms", "data-rank": rank, x, y: top + 1 + reach("terms").ascent * font, "font-size": font };
  const fits = choices.find((t) => textWidth(t, font, "terms") <= w - 12);
  el("text", attrs, stage.names).textContent = fits ?? choices.at(-1);
  stage.nameBoxes.push({ x: left, y: top, w, h: height });
  return height;
}

/** Where a card of `card`'s size (`rank`'s, or any) keeps its cells: {header, top: under the header
 * and terms, pad (the margin around them), barH, box: {w, h}}, the two bars of bytes under them. */
export function insideOf(stage, card, rank = null) {
  const header = headOf(stage, card, rank), top = header.band + termsLine(stage, header.band).height;
  const pad = Math.max(2, Math.min(4.5, card.w * 0.02));
  // bars that gave way to the values (stage.barless) are drawn 0 high: the header still says the bytes
  const barH = stage.traffic && !stage.barless ? Math.max(2.5, Math.min(4.5, card.h * 0.03)) : 0;
  const bars = barH ? 2 * barH + 4 : 0;
  return { header, top, pad, barH, box: { w: card.w - 2 * pad, h: card.h - top - pad - bars } };
}

/** The largest font every rank's values are written at in cards of `card`'s size, each card's
 * cells in the grid that writes them largest (stage.need: how wide the widest is per unit of font,
 * one for all, so that like buffers are cut alike). */
export function valueFont(stage, card) {
  const label = labelBand(stage);
  return Math.min(...stage.run.group.map((r) => {
    const { box } = insideOf(stage, card, r);
    // a barrier's lane: two lines and a bar
    if (stage.arrivals) return laneFont(box.w, box.h, stage.need, stage.largest);
    return box.w > 0 && box.h > 0
      ? gridOf(partsDrawn(stage, r), stage.need, box.w, box.h, label, stage.largest).font : 0;
  }));
}

/** A rank outside the run's group: greyed in place, no buffer. */
export function drawOutsider(stage, parent, rank) {
  const { x, y } = stage.positions[rank];
  const { w, h } = stage.card;
  const g = el("g", { class: "card outside", "data-rank": rank,
    transform: `translate(${x - w / 2},${y - h / 2})` }, parent);
  el("rect", { class: "frame", width: w, height: h, rx: Math.min(8, h / 6) }, g);
  el("title", {}, g).textContent = fill("{r1} is not in this run's group", { r1: rank });
  const names = [fill("{r1} · not in group", { r1: rank }), fill("{r1} · out", { r1: rank }), rankName(rank),
    `${rank}`];
  drawHead(stage, x - w / 2, y - h / 2, names, "name outside");
}

const drawn = new WeakMap(); // run -> {rank: its chunks drawn}: the layout asks again and again
const ASIDE = /\s*[(（][^()（）]*[)）]\s*$/; // a label's last words in parentheses: "(η = 1)", "（η = 1）"

/** Whether a part's label (English) has an aside that may give way to the values. */
export const hasAside = (label) => ASIDE.test(tr(label ?? "")) && !!tr(label).replace(ASIDE, "");

/** A part's label as drawn: in the page's language, without its aside where the stage is short of room
 * (stage.briefLabels). */
export function labelOf(stage, label) {
  const word = tr(label);
  return stage.briefLabels && hasAside(label) ? word.replace(ASIDE, "") : word;
}

/** A rank's buffer in parts as drawn: each part's label translated, with its width at the labels'
 * font (stage.labelFont). */
export function partsDrawn(stage, rank) {
  if (!drawn.has(stage.run)) drawn.set(stage.run, {});
  const known = drawn.get(stage.run), chunks = (known[rank] ??= drawnChunks(stage.run, rank));
  const parts = partsOf(chunks, stage.run.display?.regions);
  for (const p of parts) if (p.label) p.width = textWidth(labelOf(stage, p.label), stage.labelFont, "region");
  return parts;
}

/** The height a part's label takes over its cells. */
export const labelBand = (stage) => (reach("region").ascent + reach("region").descent) * stage.labelFont + 2;

export function drawCard(stage, parent, rank, isRoot) {
  const { run } = stage, { header, top: band, pad, barH, box } = insideOf(stage, stage.card, rank);
  const { x, y } = stage.positions[rank];
  const { w, h } = stage.card;
  const left = x - w / 2, top = y - h / 2;
  const g = el("g", { class: `card${isRoot ? " root" : ""}`, "data-rank": rank,
    transform: `translate(${left},${top})` }, parent);
  el("rect", { class: "frame", width: w, height: h, rx: Math.min(8, h / 6) }, g);
  const names = namesOf(run, rank, isRoot);
  const text = drawHead(stage, left, top, names, "name", !!stage.traffic, header);
  drawTerms(stage, left, top + header.band, rank, header.band); // the cells start under the terms, if any
  if (w >= 60 && header.swatch) {
    el("rect", { class: "swatch", x: w - 14, y: header.band / 2 - 4, width: 8, height: 8, rx: 2,
      fill: colour(rank) }, g);
  }
  const parts = partsDrawn(stage, rank), label = labelBand(stage);
  const chunks = parts.flatMap((p) => p.chunks);
  const mine = new Set([...(run.input_chunks?.[String(rank)] ?? []),
    ...(run.display?.output_chunks?.[String(rank)] ?? [])]);
  const { cols, side } = gridOf(parts, stage.need, box.w, box.h, label, stage.largest);
  // labels wider than any row (a card too narrow for every layout): over the values, as they fit
  const grid = cellsIn(parts, cols, box.w, box.h, label, side) ?? cellsIn(parts, cols, box.w, box.h, 0, side);
  const note = reach("note"), noteFont = stage.valueLeast;
  grid.cells.forEach((at, i) => {
    const { chunk: c, w: cw, h: ch } = at, x0 = pad + at.x, y0 = band + at.y;
    const scratch = run.display && !mine.has(c);
    const cell = el("g", { class: `cell${scratch ? " scratch" : ""}`, "data-rank": rank, "data-chunk": c,
      transform: `translate(${x0},${y0})` }, g);
    const fill = el("g", {}, cell);
    el("rect", { class: "spare-mark", width: cw, height: ch }, cell);
    el("rect", { class: "edge", width: cw, height: ch }, cell);
    const mid = at.top + (ch - at.top) / 2; // the value's middle, under its part's label
    const text = el("text", { class: "value", x: cw / 2, y: mid }, cell);
    // "not output" under the value where it stays clear of it (size says), else the hatching and
    // the hover say it
    const noteH = (note.ascent + note.descent) * noteFont;
    const spare = el("text", { class: "note", x: cw / 2, y: ch - 2 - note.descent * noteFont,
      "font-size": noteFont }, cell);
    stage.cells[`${rank}:${c}`] = { group: cell, stripes: fill, text, note: spare, w: cw, h: ch,
      noteRoom: (ch - at.top) / 2 - noteH - 2, maxFont: Math.min(stage.largest, grid.room / line()),
      cx: left + x0 + cw / 2, cy: top + y0 + mid };
    // A buffer in labelled parts (an input half and an output half): the label over each part's start,
    // over every cell and token (the names' layer), so no later cell paints over the word
    if (!at.label) return;
    const word = labelOf(stage, at.label), lx = left + x0;
    const font = Math.min(stage.labelFont, (box.w - ROOM) / textWidth(word, 1, "region"));
    if (i) { // between two parts: down the box where they sit side by side, else across it
      const down = at.x && (grid.side || grid.cells.every((c) => !c.y));
      const [x1, x2, y1, y2] = down ? [lx, lx, top + band - 2, top + band + box.h + 2]
        : [left + pad - 2, left + pad + box.w + 2, top + y0, top + y0];
      el("line", { class: "divider", x1, x2, y1, y2 }, stage.names);
    }
    const attrs = { class: "region", "data-rank": rank, x: lx + 3, y: top + y0 + 1 + reach("region").ascent * font,
      "font-size": font };
    el("text", attrs, stage.names).textContent = word;
    stage.nameBoxes.push({ x: lx + 3, y: top + y0, w: textWidth(word, font, "region"), h: label });
  });
  // Slots the rank's buffer does not really have stay in the page, undrawn: every chunk keeps its hook.
  for (let c = 0; c < (run.chunk_bounds.length || 1); c++) {
    if (chunks.includes(c)) continue;
    const cell = el("g", { class: "cell unused", "data-rank": rank, "data-chunk": c }, g);
    stage.cells[`${rank}:${c}`] = { group: cell, stripes: el("g", {}, cell),
      text: el("text", { class: "value" }, cell), note: el("text", {}, cell),
      w: 0, h: 0, maxFont: 0, cx: x, cy: y, unused: true };
  }
  if (stage.traffic) stage.bars[rank] = { ...drawBars(g, w, h, pad, barH), text };
}

/** Two thin bars under the cells: what the rank has sent and received so far, one scale for all. */
function drawBars(g, w, h, pad, barH) {
  const full = w - 2 * pad;
  const bar = (y, cls) => {
    el("rect", { class: "bar-track", x: pad, y, width: full, height: barH, rx: barH / 2 }, g);
    return el("rect", { class: `bar ${cls}`, x: pad, y, width: 0, height: barH, rx: barH / 2 }, g);
  };
  const sent = bar(h - pad - 2 * barH - 2, "sent"), received = bar(h - pad - barH, "received");
  const title = el("title", {}, g);
  return { sent, received, full, title };
}

/** Paint `rank`'s card as `frame` has it, its bars at step `index`; `outputs` (after the last
 * step): the chunks that are output, the others hatched. */
export function paintCard(stage, rank, frame, outputs, index) {
  const r = String(rank), chunks = stage.run.chunk_bounds.map((_, c) => c);
  const values = frame.values[r] ?? [], origins = frame.origins[r] ?? [], stats = frame.stats?.[r] ?? [];
  const out = outputs ? new Set(outputs[r] ?? []) : null;
  let font = Infinity;
  for (const c of chunks) {
    font = Math.min(font, paint(stage, rank, c, values[c], origins[c], stats[c], out && !out.has(c)));
  }
  const cells = chunks.map((c) => stage.cells[`${rank}:${c}`]).filter(Boolean);
  size(stage, cells, Number.isFinite(font) ? font : stage.valueLeast);
  if (stage.arrivals) paintLane(stage, rank, index); // a barrier's: when the rank arrived, waited, left
  showBars(stage, rank, index);
}

function showBars(stage, rank, index) {
  const bars = stage.bars[rank];
  if (!bars) return;
  const sent = stage.traffic.sent[rank][index], received = stage.traffic.received[rank][index];
  bars.sent.setAttribute("width", (bars.full * sent) / stage.most);
  bars.received.setAttribute("width", (bars.full * received) / stage.most);
  bars.title.textContent = fill("{r1} so far: sent {s1}, received {s2}",
    { r1: rank, s1: bytes(sent), s2: bytes(received) });
  if (bars.text) bars.text.textContent = moved(sent, received, stage.header.short);
  bars.sent.dataset.bytes = sent;
  bars.received.dataset.bytes = received;
}

/** One cell; returns the largest font its text fits at (Infinity: no text). */
function paint(stage, rank, chunk, values, origins, stats, spare = false) {
  const cell = stage.cells[`${rank}:${chunk}`];
  if (!cell) return Infinity;
  const from = [...(origins ?? [])].sort((a, b) => a - b);
  cell.group.dataset.origins = from.join(",");
  stripes(cell.stripes, from, cell.w, cell.h);
  cell.group.dataset.values = JSON.stringify(values ?? null);
  // The most exact text that fits at the least size the room reads (the layout gave every cell
  // room for its shortest), then the largest type that text fits at. A large chunk ships a
  // summary: its range. "origin" inputs (100·rank + block) of a run that only moves data say where
  // each came from ("r2c3").
  const whence = stage.run.spec?.pattern === "origin" && !stage.run.op && from.length > 0;
  const forms = stage.colourOnly || cell.unused ? [] : formsOf(values, stats, whence), room = cell.w - ROOM;
  const text = fitting(forms, room, stage.valueLeast)
    || (forms.length ? forms.reduce((a, b) => (textWidth(b, 1) < textWidth(a, 1) ? b : a)) : "");
  if (cell.text.textContent !== text) cell.text.textContent = text;
  cell.group.classList.toggle("empty", !from.length); // holds no rank's data yet: its zeros are dimmed
  cell.group.classList.toggle("spare", spare);
  cell.spare = spare;
  const all = (values ?? []).slice(0, MAX_TITLE_VALUES).map(exact).join(" ")
    + ((values?.length ?? 0) > MAX_TITLE_VALUES ? " …" : "");
  const whose = { r1: rank, n1: chunk, s1: from.join(", ") || tr("nobody") };
  const tip = spare ? fill("{r1} chunk {n1} from {s1} (not part of the output)", whose)
    : fill("{r1} chunk {n1} from {s1}", whose);
  const summary = stats ? fill("min {s1}, max {s2}, sum {s3}; first {s4}",
    { s1: exact(stats.min), s2: exact(stats.max), s3: exact(stats.sum), s4: all }) : all;
  (cell.title ??= el("title", {}, cell.group)).textContent = `${tip}: ${summary}`;
  return text ? fontIn(textWidth(text, 1), cell.w, Infinity, cell.maxFont) : Infinity;
}

/** One size for the values of a card, the largest that all of them fit at: sizes do not jump
 * from cell to cell. "not output" under a spare cell's value where it stays clear of it. */
function size(stage, cells, font) {
  const { ascent, descent } = reach();
  for (const cell of cells) {
    cell.text.setAttribute("font-size", font.toFixed(1));
    const tw = textWidth(cell.text.textContent, font);
    cell.box = tw ? { x: cell.cx - tw / 2, y: cell.cy - ((ascent + descent) / 2) * font, w: tw,
      h: (ascent + descent) * font } : null;
    const note = tr("not output"), clear = cell.noteRoom >= (line() / 2) * font
      && textWidth(note, stage.valueLeast, "note") <= cell.w - 4;
    cell.note.textContent = cell.spare && clear ? note : "";
  }
}
