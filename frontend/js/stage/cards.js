// A rank's card on the stage: its header (name and bytes so far), its buffer's cells coloured by
// where their data came from, with their values, and two bars of what it has sent and received.

import { el, stripes } from "rs/core/dom.js";
import { bytes, cellText, colour, exact, range } from "rs/core/format.js";
import { fill, rankName, tr } from "rs/i18n/i18n.js";
import { textWidth } from "rs/stage/labels.js";

const MIN_FONT = 9; // the smallest value text drawn, in stage units
const READABLE = 14; // a value rounded harder to be drawn at least this large is worth it
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

/** The cards' header, in stage units: {band: its height, name, bytes: their fonts, two: the bytes
 * on a line of their own, short: their unit said once}. `least`: the smallest a name or byte count
 * may be (lecture mode, for a back row): both at least that, in short, without the colour swatch
 * (the cells show the colour), and the bytes under the name where the card is still too narrow,
 * so that neither is dropped nor the root's mark. Else they scale with the card, and what does
 * not fit gives way. */
export function headOf(stage, head, least) {
  const name = Math.max(head * 0.72, least), small = Math.max(head * 0.6, least);
  const { run, card } = stage, root = run.layout?.root;
  const wide = Math.max(...run.group.map((r) => textWidth(namesOf(run, r, r === root)[0], name) * 0.95));
  if (!least) { // the root's or a server's mark kept: the unit said once, then no swatch, before it goes
    const fits = (short, swatch) => !stage.traffic || Math.min(8, card.w * 0.06) + wide + 10
      + textWidth(moved(stage.most, stage.most, short), small) <= card.w - (swatch && card.w >= 60 ? 20 : 4);
    const short = !fits(false, true) && fits(true, false), swatch = !short || fits(true, true);
    return { band: head, name, bytes: small, two: false, short, swatch };
  }
  const beside = stage.traffic ? 10 + textWidth(moved(stage.most, stage.most, true), small) : 0;
  const two = Math.min(8, card.w * 0.06) + wide + beside > card.w - 8;
  const band = two ? (name + small) * 1.25 : Math.max(head, name * 1.35);
  return { band, name, bytes: small, two, short: true, swatch: false };
}

/** A card's header in the layer over the tokens: its name, as long as fits ("rank 3 (g1) · root"
 * … "3"), and with `traffic` its bytes so far right of it ("↑48 B ↓48 B"), or under it where the
 * header has two lines, returned: "rank 3" rather than no bytes, though not a bare number. The
 * whole band is kept clear of labels. */
function drawHead(stage, left, top, choices, cls = "name", traffic = false) {
  const { w } = stage.card, { band, name: font, bytes: small, two, short, swatch } = stage.header;
  const x = left + Math.min(8, w * 0.06), y = top + (two ? font * 1.05 : band * 0.5 + font * 0.36);
  const wide = (t) => textWidth(t, font) * 0.95;
  const right = w - (swatch && w >= 60 ? 20 : 4); // where the bytes end: left of the swatch
  const most = moved(stage.most, stage.most, short);
  const beside = traffic && !two ? x - left + 10 + textWidth(most, small) : Infinity;
  const withBytes = two && traffic ? choices[0] : choices.slice(0, 2).find((t) => wide(t) + beside <= right);
  el("text", { class: cls, x, y, "font-size": font }, stage.names).textContent =
    withBytes ?? choices.find((t) => wide(t) <= w - (w >= 60 ? 22 : 6)) ?? choices.at(-1);
  // glyphs rise about 1 em over the baseline
  stage.nameBoxes.push({ x: left, y: top - font * 0.2, w, h: band + font * 0.2 });
  if (!withBytes) return null;
  const under = two ? { y: top + band - small * 0.3 } : { y };
  return el("text", { class: "bytes", x: left + right, ...under, "font-size": small }, stage.names);
}

/** The rank's terms where they differ from its number alone (several nodes, or local ranks that
 * are not the global ones): "node-b · local 0 · global 2 of 4", as long as fits, under its name.
 * Returns the height it took (0: none). */
function drawTerms(stage, left, top, rank) {
  const { run, card: { w }, head } = stage, places = run.places ?? {}, at = places[String(rank)];
  const hosts = new Set(Object.values(places).map((p) => p.host));
  const plain = hosts.size < 2 && Object.entries(places).every(([r, p]) => p.local_rank === Number(r));
  if (!at || plain) return 0;
  const font = Math.max(LEAST_TERMS, head * 0.62), x = left + Math.min(8, w * 0.06);
  const { host, local_rank: local } = at, world = run.world_size;
  const terms = { s1: host, w1: host, n1: local, n2: rank, n3: world };
  const choices = [fill("node {s1} · local {n1} · global {n2} of {n3}", terms),
    fill("{w1} · local {n1} · global {n2}/{n3}", terms), `${host} · L${local} · G${rank}`, `L${local}`];
  const attrs = { class: "terms", "data-rank": rank, x, y: top + font * 0.85, "font-size": font };
  const fits = choices.find((t) => textWidth(t, font) <= w - 12);
  el("text", attrs, stage.names).textContent = fits ?? choices.at(-1);
  stage.nameBoxes.push({ x: left, y: top - font * 0.1, w, h: font * 1.2 });
  return font * 1.15;
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

export function drawCard(stage, parent, rank, isRoot) {
  const { run } = stage, head = stage.header.band;
  const { x, y } = stage.positions[rank];
  const { w, h } = stage.card;
  const left = x - w / 2, top = y - h / 2;
  const g = el("g", { class: `card${isRoot ? " root" : ""}`, "data-rank": rank,
    transform: `translate(${left},${top})` }, parent);
  el("rect", { class: "frame", width: w, height: h, rx: Math.min(8, h / 6) }, g);
  const names = namesOf(run, rank, isRoot);
  const text = drawHead(stage, left, top, names, "name", !!stage.traffic);
  const band = head + drawTerms(stage, left, top + head, rank); // the cells start under the terms, if any
  if (w >= 60 && stage.header.swatch) {
    el("rect", { class: "swatch", x: w - 14, y: head / 2 - 4, width: 8, height: 8, rx: 2,
      fill: colour(rank) }, g);
  }
  const pad = Math.max(2, Math.min(6, w * 0.02));
  const barH = stage.traffic ? Math.max(2.5, Math.min(7, h * 0.045)) : 0;
  const barsRoom = stage.traffic ? 2 * barH + 4 : 0;
  const chunks = drawnChunks(run, rank);
  const mine = new Set([...(run.input_chunks?.[String(rank)] ?? []),
    ...(run.display?.output_chunks?.[String(rank)] ?? [])]);
  const cw = (w - 2 * pad) / chunks.length, ch = h - band - pad - barsRoom;
  const regions = run.display?.regions ?? [];
  const regionOf = new Map(regions.flatMap((reg) => reg.chunks.map((c) => [c, reg.label])));
  chunks.forEach((c, i) => {
    const cx0 = pad + i * cw;
    const scratch = run.display && !mine.has(c);
    const cell = el("g", { class: `cell${scratch ? " scratch" : ""}`, "data-rank": rank, "data-chunk": c,
      transform: `translate(${cx0},${band})` }, g);
    const fill = el("g", {}, cell);
    el("rect", { class: "spare-mark", width: cw, height: ch }, cell);
    el("rect", { class: "edge", width: cw, height: ch }, cell);
    const text = el("text", { class: "value", x: cw / 2, y: ch / 2 }, cell);
    // "not output": on a projector at 18 px where it stays clear under the value, else not written
    // (the hatching and the hover say it); elsewhere at 14 px at most
    const least = stage.least, maxFont = Math.min(ch * 0.55, 40);
    const small = least && ch * 0.5 - 1.45 * least > 0.36 * maxFont ? least : Math.min(14, ch * 0.18);
    const note = el("text", { class: "note", x: cw / 2, y: ch - small * 0.7, "font-size": small }, cell);
    stage.cells[`${rank}:${c}`] = { group: cell, stripes: fill, text, note, w: cw, h: ch,
      noteFonts: small >= least ? [small] : [],
      maxFont, cx: left + cx0 + cw / 2, cy: top + band + ch / 2 };
    // A buffer in labelled parts (an input half and an output half): the label at each part's start.
    const part = regionOf.get(c), label = part && tr(part);
    if (part && regionOf.get(chunks[i - 1]) !== part) {
      // on a projector at 18 px where the part is wide enough (weights w, −η·g)
      const end = chunks.findIndex((d, j) => j > i && regionOf.get(d) !== part);
      const room = ((end < 0 ? chunks.length : end) - i) * cw - 6;
      const usual = Math.max(9, Math.min(14, ch * 0.2));
      const clear = least && ch * 0.5 - 0.36 * maxFont > 1.1 * least && textWidth(label, least) <= room;
      const font = clear ? Math.max(usual, least) : usual;
      const at = left + cx0;
      // over every cell and token (the names' layer), so no later cell paints over the word
      const y1 = top + band - 2, y2 = top + band + ch + 2;
      if (i) el("line", { class: "divider", x1: at, x2: at, y1, y2 }, stage.names);
      const y = top + band + font * 0.85;
      const attrs = { class: "region", "data-rank": rank, x: at + 3, y, "font-size": font };
      el("text", attrs, stage.names).textContent = label;
      const box = { x: at + 3, y: top + band - font * 0.2, w: textWidth(label, font), h: font * 1.3 };
      stage.nameBoxes.push(box);
    }
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
  size(cells, Number.isFinite(font) ? font : MIN_FONT);
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
  // Values rounded to what fits at a size a back row reads (else at the smallest), then the
  // largest type that text fits at. A large chunk ships a summary: its range says more.
  const chars = (font) => Math.floor((cell.w - 6) / (font * 0.62));
  // "origin" inputs (100·rank + block) of a run that only moves data say where each came from
  const whence = stage.run.spec?.pattern === "origin" && !stage.run.op;
  const write = (font, least) => (stats ? range(stats.min, stats.max, chars(font))
    : whence ? whereFrom(from.length ? values : [], chars(font)) : cellText(values, chars(font), least));
  const text = stage.colourOnly || cell.unused ? ""
    : write(Math.min(READABLE, cell.maxFont), 2) || write(MIN_FONT, 1);
  if (cell.text.textContent !== text) cell.text.textContent = text;
  cell.group.classList.toggle("empty", !from.length); // holds no rank's data yet: its zeros are dimmed
  cell.group.classList.toggle("spare", spare);
  // said where it fits under the value; the hatching and the hover say it everywhere
  const note = tr("not output"), font = cell.noteFonts?.find((f) => textWidth(note, f) <= cell.w - 4);
  if (font) { cell.note.setAttribute("font-size", font); cell.note.setAttribute("y", cell.h - font * 0.7); }
  cell.note.textContent = spare && cell.h >= 40 && font ? note : "";
  const all = (values ?? []).slice(0, MAX_TITLE_VALUES).map(exact).join(" ")
    + ((values?.length ?? 0) > MAX_TITLE_VALUES ? " …" : "");
  const whose = { r1: rank, n1: chunk, s1: from.join(", ") || tr("nobody") };
  const tip = spare ? fill("{r1} chunk {n1} from {s1} (not part of the output)", whose)
    : fill("{r1} chunk {n1} from {s1}", whose);
  const summary = stats ? fill("min {s1}, max {s2}, sum {s3}; first {s4}",
    { s1: exact(stats.min), s2: exact(stats.max), s3: exact(stats.sum), s4: all }) : all;
  (cell.title ??= el("title", {}, cell.group)).textContent = `${tip}: ${summary}`;
  return text ? Math.max(MIN_FONT, Math.min(cell.maxFont, (cell.w - 6) / (text.length * 0.62))) : Infinity;
}

/** One size for the values of a card, the largest that all of them fit at: sizes do not jump
 * from cell to cell. */
function size(cells, font) {
  for (const cell of cells) {
    cell.text.setAttribute("font-size", font.toFixed(1));
    const tw = textWidth(cell.text.textContent, font);
    cell.box = tw ? { x: cell.cx - tw / 2, y: cell.cy - font * 0.6, w: tw, h: font * 1.2 } : null;
  }
}

/** "r2c3" for 203 (rank 2's chunk 3), each value once, if it fits in `chars`; else "". */
function whereFrom(values, chars) {
  const text = [...new Set(values ?? [])].map((v) => `r${Math.floor(v / 100)}c${v % 100}`).join(" ");
  return text.length <= chars ? text : "";
}
