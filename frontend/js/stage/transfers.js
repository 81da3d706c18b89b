// The animation of a step's transfers on the stage: an arrow from sender to receiver, the chunk
// (coloured by where its data came from, with its values) travelling along it, and for a
// reduction the arithmetic over the receiving cell: "3 + 4 = 7". A copy just lands.

import { el, stripes } from "rs/core/dom.js";
import { arithmetic, cellForms, division, formatValue, wrap } from "rs/core/format.js";
import { fitting, ROOM } from "rs/stage/grid.js";
import { place } from "rs/stage/labels.js";
import { BESIDE } from "rs/stage/layout.js";
import { reach, textWidth } from "rs/stage/measure.js";
import { opOf, reductions } from "rs/stage/replay.js";

const MAX_TOKENS = 512; // beyond this a step shows its arrows and result without flying every chunk
const MAX_SUMS = 16; // more reductions than this at once would bury the stage in arithmetic
const MAX_ARROWS = 256;

/** The control point that bends the path from a to b to its left, so a->b and b->a part. */
function bendOf(a, b, amount) {
  const d = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  return { x: (a.x + b.x) / 2 + ((b.y - a.y) / d) * amount, y: (a.y + b.y) / 2 - ((b.x - a.x) / d) * amount };
}

/** In a phone's column the cards hide any path between them: an arrow bows out to the right,
 * its middle past every card's edge, further the further it goes (and upward ones further
 * still, so a->b and b->a part). A curve's middle goes half as far as its control point. */
function aside(stage, a, b) {
  const right = Math.max(...Object.values(stage.positions).map((p) => p.x)) + stage.card.w / 2;
  const apex = right + 8 + 0.05 * Math.abs(b.y - a.y) + (b.y < a.y ? 14 : 0), y = (a.y + b.y) / 2;
  // where it leaves and enters
  const ends = edge(a, { x: apex, y }, stage.card).x + edge(b, { x: apex, y }, stage.card).x;
  return { x: Math.min(2 * apex - ends / 2, stage.width - 6), y };
}

/** Where the segment from a card's centre towards p leaves the card. */
function edge(centre, p, card) {
  const dx = p.x - centre.x, dy = p.y - centre.y;
  const t = Math.min(dx ? card.w / 2 / Math.abs(dx) : Infinity, dy ? card.h / 2 / Math.abs(dy) : Infinity, 1);
  return { x: centre.x + dx * t, y: centre.y + dy * t };
}

export function drawArrows(stage, step) {
  stage.arrows.replaceChildren();
  stage.arrowPoints = []; // along each arrow: a label had better not sit on one
  if (!step) return;
  const seen = new Set();
  for (const [src, dst] of step.transfers) {
    const key = `${src}>${dst}`;
    if (src === dst || seen.has(key) || seen.size >= MAX_ARROWS) continue;
    seen.add(key);
    const a = stage.positions[src], b = stage.positions[dst];
    const c = stage.column ? aside(stage, a, b) : bendOf(a, b, 0.12 * Math.hypot(b.x - a.x, b.y - a.y));
    const from = edge(a, c, stage.card), to = edge(b, c, stage.card);
    for (let t = 0.05; t < 1; t += 0.05) stage.arrowPoints.push({
      x: (1 - t) ** 2 * from.x + 2 * (1 - t) * t * c.x + t * t * to.x,
      y: (1 - t) ** 2 * from.y + 2 * (1 - t) * t * c.y + t * t * to.y, w: 0, h: 0 });
    el("path", { class: "arrow", d: `M${from.x},${from.y} Q${c.x},${c.y} ${to.x},${to.y}`,
      "marker-end": "url(#head)",
      "data-src": src, "data-dst": dst }, stage.arrows);
  }
}

/** A pooled token: made once, then recoloured and moved step after step. */
function token(stage, i) {
  if (!stage.pool[i]) {
    const g = el("g", { class: "token" }, stage.tokens);
    const fill = el("g", {}, g);
    const frame = el("rect", { class: "token-edge", rx: 4 }, g);
    const text = el("text", {}, g);
    stage.pool[i] = { g, fill, frame, text };
  }
  return stage.pool[i];
}

/** The tokens of step k, placed at their senders: [{token, a, b, c}] for moveTokens. */
export function flights(stage, k) {
  const step = stage.run.steps[k], before = stage.frames[k];
  const moves = [];
  for (const [src, dst, chunk, into] of step.transfers.slice(0, MAX_TOKENS)) {
    const a = stage.cells[`${src}:${chunk}`], b = stage.cells[`${dst}:${into}`];
    if (!a || !b) continue;
    const t = token(stage, moves.length);
    const w = Math.max(14, Math.min(a.w * 0.9, 130)), h = Math.max(14, Math.min(a.h * 0.75, 40));
    const origins = [...(before.origins[String(src)]?.[chunk] ?? [])].sort((x, y) => x - y);
    stripes(t.fill, origins, w, h);
    t.fill.setAttribute("transform", `translate(${-w / 2},${-h / 2})`);
    Object.entries({ x: -w / 2, y: -h / 2, width: w, height: h }).forEach(([n, v]) =>
      t.frame.setAttribute(n, v));
    const font = Math.min(h * 0.55, 20);
    t.text.setAttribute("font-size", font);
    t.text.textContent = h >= 18 ? fitting(cellForms(before.values[String(src)]?.[chunk]), w - ROOM, font) : "";
    t.g.style.display = "";
    const bend = src === dst ? Math.max(40, stage.card.h * 0.6) : 0.12 * Math.hypot(b.cx - a.cx, b.cy - a.cy);
    const c = bendOf({ x: a.cx, y: a.cy }, { x: b.cx, y: b.cy }, bend);
    moves.push({ token: t.g, a, b, c });
  }
  for (let i = moves.length; i < stage.pool.length; i++) stage.pool[i].g.style.display = "none";
  moveTokens(moves, 0);
  return moves;
}

/** Every token at fraction e of its way along its curve. */
export function moveTokens(moves, e) {
  const f = 1 - e;
  for (const { token, a, b, c } of moves) {
    token.setAttribute("transform", `translate(${f * f * a.cx + 2 * f * e * c.x + e * e * b.cx},`
      + `${f * f * a.cy + 2 * f * e * c.y + e * e * b.cy})`);
  }
}

export function hideTokens(stage) {
  for (const t of stage.pool) t.g.style.display = "none";
}

/** The boxes a label must never cover: values, cards' headers, what others write over the stage
 * (a straggler's mark); and those it had better not: the cards, the arrows. */
function obstacles(stage) {
  const hard = [...stage.nameBoxes];
  for (const cell of Object.values(stage.cells)) if (cell.box) hard.push(cell.box);
  for (const t of stage.svg.querySelectorAll(":scope > g text")) {
    const { x, y, width, height } = t.getBBox();
    hard.push({ x, y, w: width, h: height });
  }
  const cards = Object.values(stage.positions).map(({ x, y }) =>
    ({ x: x - stage.card.w / 2, y: y - stage.card.h / 2, w: stage.card.w, h: stage.card.h }));
  return { hard, cards, arrows: stage.arrowPoints ?? [] };
}

const MAX_LINES = 4; // one rank's cells in one label, as long as it stays a glance

/** One label per rank where a step writes several of its cells: [{keys, lines}], identical lines said
 * once. */
export function byRank(labels) {
  const groups = new Map();
  for (const { key, lines } of labels) {
    const rank = key.split(":")[0];
    const g = groups.get(rank);
    if (g && g.lines.length + lines.length <= MAX_LINES) {
      g.keys.push(key);
      for (const line of lines) if (!g.lines.includes(line)) g.lines.push(line);
    } else if (!g) groups.set(rank, { keys: [key], lines: [...lines] });
    else groups.set(`${rank}:${key}`, { keys: [key], lines: [...lines] });
  }
  return [...groups.values()];
}

/** Draw labels [{keys, lines}] beside the cells they explain, each tied to its cells by lines. */
function drawLabels(stage, labels) {
  const lineH = Math.max(1.25, reach("sum").ascent + reach("sum").descent + 0.05); // a line's height in ems
  const { hard, cards, arrows } = obstacles(stage);
  for (const key of labels.flatMap((l) => l.keys)) { // the cells explained stay in sight, their values or not
    const c = stage.cells[key];
    hard.push({ x: c.cx - c.w / 2, y: c.cy - c.h / 2, w: c.w, h: c.h });
  }
  const item = (keys, lines, font) => {
    const cells = keys.map((key) => stage.cells[key]);
    const ax = cells.reduce((t, c) => t + c.cx, 0) / cells.length,
      ay = cells.reduce((t, c) => t + c.cy, 0) / cells.length;
    return { w: Math.max(...lines.map((l) => textWidth(l, font, "sum"))) + 14,
      h: lines.length * font * lineH + 8, ax, ay };
  };
  // The size a back row reads, whatever the cards' size; a label with no room at it tries smaller,
  // then in lines as narrow as a phone's room beside its cards: smaller beside cards rather than on them.
  // On a projector 18 px at least, but for the last try.
  const large = Math.max(17, stage.least, Math.min(24, stage.card.h * 0.2)),
    second = Math.max(large * 0.8, stage.least),
    narrow = (font) => [font, (BESIDE * stage.width - 20) / textWidth("0", font, "sum")];
  const sizes = [[large, Infinity], [second, Infinity], narrow(second), narrow(Math.max(13, large * 0.65))];
  const boxes = [], fonts = [], texts = [];
  for (const avoid of [arrows.length && [...cards, ...arrows], cards, []].filter(Boolean))
    for (const [font, chars] of sizes) {
      const left = labels.map((_, i) => i).filter((i) => !boxes[i]);
      const lines = left.map((i) => labels[i].lines.flatMap((l) => wrap(l, chars)));
      const found = place(left.map((i, j) => item(labels[i].keys, lines[j], font)),
        [...hard, ...avoid, ...boxes.filter(Boolean)],
        { x: 2, y: 2, w: stage.width - 4, h: stage.height - 4 });
      left.forEach((i, j) => { boxes[i] = found[j]; fonts[i] = font; texts[i] = lines[j]; });
    }
  labels.forEach(({ keys }, i) => {
    const box = boxes[i], font = fonts[i], lines = texts[i];
    if (!box) return; // nowhere clear of the data: left out rather than drawn over it
    for (const key of keys) {
      const cell = stage.cells[key];
      const lx = Math.max(box.x, Math.min(box.x + box.w, cell.cx)),
        ly = Math.max(box.y, Math.min(box.y + box.h, cell.cy));
      el("line", { class: "leader", x1: lx, y1: ly, x2: cell.cx,
        y2: cell.cy > ly ? cell.cy - cell.h / 2 : cell.cy + cell.h / 2 }, stage.leaders);
    }
    const g = el("g", { class: "sum arith", "data-cell": keys[0], "data-cells": keys.join(" "),
      transform: `translate(${box.x},${box.y})` }, stage.sums);
    el("rect", { width: box.w, height: box.h, rx: 6 }, g);
    const text = el("text", { "font-size": font, x: box.w / 2 }, g);
    lines.forEach((line, j) => {
      el("tspan", { x: box.w / 2, y: 4 + font * lineH * (j + 0.5) }, text).textContent = line;
    });
  });
}

/** Over every cell that step k reduces into: what it had, what arrived, and what it holds now,
 * element by element where a cell holds one or two values. After the last step of a run that
 * averages: each output cell's sum divided by P. */
export function drawSums(stage, k) {
  stage.sums.replaceChildren();
  stage.leaders.replaceChildren();
  const before = stage.frames[k], after = stage.frames[k + 1];
  if (!before || !after) return;
  if (after.divisor) return drawDivision(stage, before, after);
  const step = stage.run?.steps[k];
  if (!step || stage.arrivals) return; // a barrier's tokens are its machinery; its lanes say its lesson
  const cells = reductions(step);
  if (cells.length > MAX_SUMS) return;
  const labels = [];
  for (const { dst, into, from } of cells) {
    const sent = from.map(([src, chunk]) => before.values[String(src)]?.[chunk]);
    const had = before.values[String(dst)]?.[into], now = after.values[String(dst)]?.[into];
    if (had == null || now == null || sent.some((v) => v == null)) continue; // nothing captured to show
    const key = `${dst}:${into}`;
    const update = stage.run.display?.update;
    const lines = update ? descent(sent, had, now) : arithmetic(opOf(stage.run), sent, had, now);
    if (stage.cells[key]) labels.push({ key, lines });
  }
  drawLabels(stage, byRank(labels));
}

/** AVG's last frame: "7 ÷ 4 = 1.75" over a cell it divided, once for each different division
 * (every rank of an all_reduce divides the same sums: one label says it for all of them). */
function drawDivision(stage, before, after) {
  const labels = [], said = new Set();
  for (const key of [...after.changed].filter((key) => stage.cells[key])) {
    const [r, c] = key.split(":");
    const sums = before.values[r]?.[c], averages = after.values[r]?.[c];
    const lines = sums && averages && division(sums, after.divisor, averages);
    if (!lines || said.has(lines.join("\n"))) continue;
    said.add(lines.join("\n"));
    labels.push({ key, lines });
    if (labels.length === MAX_SUMS) break;
  }
  drawLabels(stage, byRank(labels));
}

/** The parameter server's update as the seed writes it, "w ← 1 − (5 + 7) = −11": the workers
 * pushed −η·g (η = 1), so each g is a pushed value negated. Beyond two values a cell: the sum. */
function descent(sent, had, now) {
  if (now.length > 2 || had.length !== now.length) return arithmetic("SUM", sent, had, now);
  const num = (v) => formatValue(v).replace(/^-/, "−");
  const gs = (i) => sent.map((v) => num(-v[i])).join(" + ");
  const line = (i) => `w ← ${num(had[i])} − (${gs(i)}) = ${num(now[i])}`;
  return [...new Set(now.map((_, i) => line(i)))];
}
