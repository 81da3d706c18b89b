// The animation of a step's transfers on the stage: an arrow from sender to receiver, the chunk
// (coloured by where its data came from, with its values) travelling along it, and for a
// reduction the arithmetic over the receiving cell: "3 + 4 = 7". A copy just lands.

import { el, stripes } from "rs/dom.js";
import { brief, combination } from "rs/format.js";
import { opOf, reductions } from "rs/replay.js";

const MAX_TOKENS = 512; // beyond this a step shows its arrows and result without flying every chunk
const MAX_SUMS = 12; // more reductions than this at once would bury the stage in arithmetic
const MAX_ARROWS = 256;

/** The control point that bends the path from a to b to its left, so a->b and b->a part. */
function bendOf(a, b, amount) {
  const d = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  return { x: (a.x + b.x) / 2 + ((b.y - a.y) / d) * amount, y: (a.y + b.y) / 2 - ((b.x - a.x) / d) * amount };
}

/** Where the segment from a card's centre towards p leaves the card. */
function edge(centre, p, card) {
  const dx = p.x - centre.x, dy = p.y - centre.y;
  const t = Math.min(dx ? card.w / 2 / Math.abs(dx) : Infinity, dy ? card.h / 2 / Math.abs(dy) : Infinity, 1);
  return { x: centre.x + dx * t, y: centre.y + dy * t };
}

export function drawArrows(stage, step) {
  stage.arrows.replaceChildren();
  if (!step) return;
  const seen = new Set();
  for (const [src, dst] of step.transfers) {
    const key = `${src}>${dst}`;
    if (src === dst || seen.has(key) || seen.size >= MAX_ARROWS) continue;
    seen.add(key);
    const a = stage.positions[src], b = stage.positions[dst];
    const c = bendOf(a, b, 0.12 * Math.hypot(b.x - a.x, b.y - a.y));
    const from = edge(a, c, stage.card), to = edge(b, c, stage.card);
    el("path", { class: "arrow", d: `M${from.x},${from.y} Q${c.x},${c.y} ${to.x},${to.y}`, "marker-end": "url(#head)",
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
    Object.entries({ x: -w / 2, y: -h / 2, width: w, height: h }).forEach(([n, v]) => t.frame.setAttribute(n, v));
    const font = Math.min(h * 0.55, 20);
    t.text.setAttribute("font-size", font);
    t.text.textContent = h >= 18 ? brief(before.values[String(src)]?.[chunk], Math.floor((w - 4) / (font * 0.62)), "") : "";
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
    token.setAttribute("transform", `translate(${f * f * a.cx + 2 * f * e * c.x + e * e * b.cx},${f * f * a.cy + 2 * f * e * c.y + e * e * b.cy})`);
  }
}

export function hideTokens(stage) {
  for (const t of stage.pool) t.g.style.display = "none";
}

const overlap = (a, b) => Math.abs(a.x - b.x) * 2 < a.w + b.w && Math.abs(a.y - b.y) * 2 < a.h + b.h;

/** Where a w x h label for `cell` goes: just above its card, else just below (over the cell, else
 * over the card's middle), else over the cell itself: the first spot on the stage and clear of
 * cards and other labels. */
function spot(stage, cell, w, h, taken) {
  const onStage = (x) => Math.max(w / 2 + 2, Math.min(stage.width - w / 2 - 2, x));
  for (const y of [cell.top - h / 2 - 4, cell.bottom + h / 2 + 4]) {
    if (y - h / 2 < 0 || y + h / 2 > stage.height) continue;
    for (const x of [onStage(cell.cx), onStage(cell.middle)]) if (!taken.some((t) => overlap(t, { x, y, w, h }))) return { x, y };
  }
  return { x: onStage(cell.cx), y: cell.cy };
}

/** Over every cell that step k reduces into: what it had, what arrived, and what it holds now. */
export function drawSums(stage, k) {
  stage.sums.replaceChildren();
  const step = stage.run?.steps[k], before = stage.frames[k], after = stage.frames[k + 1];
  if (!step || !before || !after) return;
  const cells = reductions(step);
  if (cells.length > MAX_SUMS) return;
  const font = Math.max(13, Math.min(22, stage.card.h * 0.15));
  const taken = Object.values(stage.positions).map(({ x, y }) => ({ x, y, w: stage.card.w, h: stage.card.h }));
  for (const { dst, into, from } of cells) {
    const sent = from.map(([src, chunk]) => before.values[String(src)]?.[chunk]);
    const had = before.values[String(dst)]?.[into], now = after.values[String(dst)]?.[into];
    if (had == null || now == null || sent.some((v) => v == null)) continue; // nothing captured to show
    const chars = sent.length > 1 ? 7 : 9;
    const text = combination(opOf(stage.run), [...sent, had].map((v) => brief(v, chars)), brief(now, chars));
    const key = `${dst}:${into}`, cell = stage.cells[key];
    if (!cell) continue;
    const w = text.length * font * 0.6 + 14, h = font * 1.6;
    const { x, y } = spot(stage, cell, w, h, taken);
    taken.push({ x, y, w, h });
    const g = el("g", { class: "sum", "data-cell": key, transform: `translate(${x},${y})` }, stage.sums);
    el("rect", { x: -w / 2, y: -h / 2, width: w, height: h, rx: 6 }, g);
    el("text", { "font-size": font }, g).textContent = text;
  }
}
