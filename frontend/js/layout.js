// Where each rank sits on the stage and how large its card is, chosen to fit the algorithm's
// shape: a circle for rings, a tree for trees, a star for master/flat, a grid for all-to-all.
// Pure functions (no DOM), so node tests them.

const MARGIN = 6; // between a card and the stage's edge
export const GAP = 10; // at least this much between two cards
const ASPECTS = [2.6, 1.8, 1.2, 0.8]; // card width / height, widest first: chunks sit side by side
const MAX = { w: 440, h: 170 };

export function shapeOf(algorithm) {
  if (["tree", "binomial_tree"].includes(algorithm)) return "tree";
  if (["master_worker", "flat", "direct"].includes(algorithm)) return "star";
  if (["pairwise", "recursive_doubling", "recursive_halving", "rabenseifner"].includes(algorithm)) return "grid";
  return "circle";
}

/**
 * The tree the transfers draw, walked breadth-first from the root: {parent: {rank: rank|null}, depth}.
 * The frontend knows no algorithm, so a tree's shape is read from who talks to whom.
 * Ranks the transfers never reach hang under the root.
 */
export function treeOf(ranks, root, edges) {
  const near = new Map(ranks.map((r) => [r, []]));
  for (const [a, b] of edges) {
    if (a === b || !near.has(a) || !near.has(b)) continue;
    near.get(a).push(b);
    near.get(b).push(a);
  }
  const top = ranks.includes(root) ? root : ranks[0];
  const parent = { [top]: null }, depth = { [top]: 0 };
  const queue = [top];
  for (let i = 0; i < queue.length; i++) {
    const r = queue[i];
    for (const n of near.get(r)) {
      if (n in parent) continue;
      parent[n] = r;
      depth[n] = depth[r] + 1;
      queue.push(n);
    }
  }
  for (const r of ranks) if (!(r in parent)) { parent[r] = top; depth[r] = 1; }
  return { parent, depth, root: top };
}

/** Leaves left to right in depth-first order, each parent centred over its children:
 * {x: {rank: x in [0, 1]}, leaves}. */
function tidy(ranks, tree) {
  const order = new Map(ranks.map((r, i) => [r, (i - ranks.indexOf(tree.root) + ranks.length) % ranks.length]));
  const children = new Map(ranks.map((r) => [r, []]));
  for (const r of ranks) if (tree.parent[r] != null) children.get(tree.parent[r]).push(r);
  for (const list of children.values()) list.sort((a, b) => order.get(a) - order.get(b));
  const x = {};
  let leaves = 0;
  const visit = (r) => {
    const kids = children.get(r);
    if (!kids.length) { x[r] = leaves++; return; }
    kids.forEach(visit);
    x[r] = (x[kids[0]] + x[kids.at(-1)]) / 2;
  };
  visit(tree.root);
  for (const r of ranks) x[r] = leaves > 1 ? x[r] / (leaves - 1) : 0.5;
  return { x, leaves };
}

/** Centres for cards of `card` size in a width x height box. */
function place(shape, ranks, root, width, height, card, extra) {
  const n = ranks.length;
  const cx = width / 2, cy = height / 2;
  const rx = Math.max(0, (width - card.w) / 2 - MARGIN), ry = Math.max(0, (height - card.h) / 2 - MARGIN);
  const pos = {};
  if (n === 1) return { [ranks[0]]: { x: cx, y: cy } };
  if (shape === "tree") {
    const { x, tree, leaves } = extra;
    const levels = Math.max(...ranks.map((r) => tree.depth[r])) + 1;
    const span = Math.min(2 * rx, (leaves - 1) * (card.w * 1.6 + GAP)); // no wider than its leaves need
    for (const r of ranks) pos[r] = { x: cx - span / 2 + span * x[r], y: levels > 1 ? cy - ry + (2 * ry * tree.depth[r]) / (levels - 1) : cy };
    return pos;
  }
  if (shape === "grid") {
    const cols = extra, rows = Math.ceil(n / cols);
    const cw = (width - 2 * MARGIN) / cols, rh = (height - 2 * MARGIN) / rows;
    ranks.forEach((r, i) => { pos[r] = { x: MARGIN + cw * ((i % cols) + 0.5), y: MARGIN + rh * (Math.floor(i / cols) + 0.5) }; });
    return pos;
  }
  let around = ranks;
  if (shape === "star") {
    const centre = ranks.includes(root) ? root : ranks[0];
    pos[centre] = { x: cx, y: cy };
    around = ranks.filter((r) => r !== centre);
  }
  loop(around.length, rx, ry, extra, card).forEach(([x, y], i) => { pos[around[i]] = { x: cx + x, y: cy + y }; });
  return pos;
}

/**
 * n points clockwise from the top around |x/rx|^q + |y/ry|^q = 1 (q = 2: an ellipse; larger q:
 * a rounded rectangle, which holds more cards), spaced so that neighbours are equally far
 * apart: as many card widths across or card heights down, whichever is more.
 */
function loop(n, rx, ry, q, card) {
  const samples = 720, path = [], along = [0];
  for (let i = 0; i <= samples; i++) {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / samples;
    const c = Math.cos(a), s = Math.sin(a);
    path.push([rx * Math.sign(c) * Math.abs(c) ** (2 / q), ry * Math.sign(s) * Math.abs(s) ** (2 / q)]);
    if (i) along.push(along[i - 1] + Math.max(Math.abs(path[i][0] - path[i - 1][0]) / (card.w + GAP), Math.abs(path[i][1] - path[i - 1][1]) / (card.h + GAP)));
  }
  const total = along[samples], out = [];
  for (let k = 0, i = 0; k < n; k++) {
    const want = (total * k) / n;
    while (along[i + 1] < want) i++;
    const f = (want - along[i]) / (along[i + 1] - along[i] || 1);
    out.push([path[i][0] + f * (path[i + 1][0] - path[i][0]), path[i][1] + f * (path[i + 1][1] - path[i][1])]);
  }
  return out;
}

/** Do cards of this size at these centres stay inside the box and `gap` apart (GAP, or more down)? */
export function fits(positions, card, width, height, gapY = GAP) {
  const points = Object.values(positions);
  const eps = 1e-6;
  for (const p of points) {
    if (p.x - card.w / 2 < MARGIN - eps || p.x + card.w / 2 > width - MARGIN + eps) return false;
    if (p.y - card.h / 2 < MARGIN - eps || p.y + card.h / 2 > height - MARGIN + eps) return false;
  }
  for (let i = 0; i < points.length; i++)
    for (let j = i + 1; j < points.length; j++)
      if (Math.abs(points[i].x - points[j].x) < card.w + GAP - eps && Math.abs(points[i].y - points[j].y) < card.h + gapY - eps) return false;
  return true;
}

/** The tallest card of this aspect that fits (binary search: a smaller card always fits better). */
function largest(shape, ranks, root, width, height, aspect, extra) {
  const size = (h) => ({ w: Math.min(MAX.w, h * aspect), h });
  let lo = 0, hi = Math.min(MAX.h, height);
  for (let i = 0; i < 22; i++) {
    const mid = (lo + hi) / 2;
    // A tree keeps room between its levels for the arrows that cross them.
    const gapY = shape === "tree" ? Math.max(GAP, 0.45 * mid) : GAP;
    if (fits(place(shape, ranks, root, width, height, size(mid), extra), size(mid), width, height, gapY)) lo = mid;
    else hi = mid;
  }
  return size(lo);
}

/**
 * Cards and their centres for `ranks` (global numbers, group order) in a width x height box:
 * { shape, card: {w, h}, positions: {rank: {x, y}} }, the largest cards that keep apart.
 * `edges` ([src, dst] pairs, e.g. every transfer) give a tree its shape.
 */
export function arrange(algorithm, ranks, root, width, height, edges = []) {
  const shape = shapeOf(algorithm);
  const options = [];
  if (shape === "grid") {
    // Cells of a grid are independent: the card is the cell less the gap, at any aspect.
    // More columns first, so that among equally large cards the squarer grid wins.
    for (let cols = ranks.length; cols >= 1; cols--) {
      const rows = Math.ceil(ranks.length / cols);
      const cw = (width - 2 * MARGIN) / cols - GAP, rh = (height - 2 * MARGIN) / rows - GAP;
      for (const aspect of ASPECTS) {
        const h = Math.min(MAX.h, rh, cw / aspect);
        if (h > 0) options.push({ extra: cols, card: { w: Math.min(MAX.w, h * aspect, cw), h } });
      }
    }
  } else if (shape === "tree") {
    const tree = treeOf(ranks, root, edges), extra = { tree, ...tidy(ranks, tree) };
    for (const aspect of ASPECTS) options.push({ extra, card: largest(shape, ranks, root, width, height, aspect, extra) });
  } else {
    // A round loop while the cards are large enough; a squarer one when it holds larger cards.
    for (const q of [2, 4, 10]) for (const aspect of ASPECTS) options.push({ extra: q, round: q === 2, card: largest(shape, ranks, root, width, height, aspect, q) });
  }
  // The largest area wins; wide cards (chunks side by side read best) and round loops win near-ties.
  const score = ({ card, round }) => card.w * card.h * (card.w >= 1.8 * card.h ? 1.2 : 1) * (round ? 1.3 : 1);
  const best = options.reduce((a, b) => (score(b) > score(a) ? b : a));
  return { shape, card: best.card, positions: place(shape, ranks, root, width, height, best.card, best.extra) };
}
