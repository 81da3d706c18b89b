// Where each rank sits on the stage and how large its card is. The shape is the run's layout
// hint, which the server takes from the schedule ({shape, root, servers}): a loop for a ring,
// a tree, a star around the root, a grid, or servers in a row above their workers. The page
// knows no algorithm. Pure functions (no DOM), so node tests them.

const MARGIN = 6; // between a card and the stage's edge
export const GAP = 10; // at least this much between two cards
// Cards' width / height, widest first (chunks side by side, a name beside its bytes), the largest
// card, the room between a tree's levels (card heights) and the band that sets a row apart (rows);
// values that need the room (ROOMY) may have larger and taller cards, closer together.
const USUAL = { aspects: [3.6, 2.6, 1.8, 1.2, 0.8], max: { w: 440, h: 170 }, levels: 0.45, band: 0.5 };
const ROOMY = { aspects: [4.5, 3.6, 2.6, 1.8, 1.2, 0.8, 0.55, 0.38], max: { w: Infinity, h: Infinity },
  levels: 0.15, band: 0.25, roomy: true };
const COLUMN = 8; // up to this many ranks, a portrait box (a phone) stacks them in a column
export const BESIDE = 0.38; // of a column's width, kept right of the cards for the labels
const INDENT = 14; // a tree's level in a column (three levels' worth at most)

/** The root if it is one of the ranks, else the first rank. */
const rootOf = (ranks, root) => (ranks.includes(root) ? root : ranks[0]);

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
  const top = rootOf(ranks, root);
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
 * {x: {rank: x in [0, 1]}, leaves, pre: the ranks depth-first}. */
function tidy(ranks, tree) {
  const order = new Map(ranks.map((r, i) =>
    [r, (i - ranks.indexOf(tree.root) + ranks.length) % ranks.length]));
  const children = new Map(ranks.map((r) => [r, []]));
  for (const r of ranks) if (tree.parent[r] != null) children.get(tree.parent[r]).push(r);
  for (const list of children.values()) list.sort((a, b) => order.get(a) - order.get(b));
  const x = {}, pre = [];
  let leaves = 0;
  const visit = (r) => {
    pre.push(r);
    const kids = children.get(r);
    if (!kids.length) { x[r] = leaves++; return; }
    kids.forEach(visit);
    x[r] = (x[kids[0]] + x[kids.at(-1)]) / 2;
  };
  visit(tree.root);
  for (const r of ranks) x[r] = leaves > 1 ? x[r] / (leaves - 1) : 0.5;
  return { x, leaves, pre };
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
    if (i) along.push(along[i - 1] + Math.max(Math.abs(path[i][0] - path[i - 1][0]) / (card.w + GAP),
      Math.abs(path[i][1] - path[i - 1][1]) / (card.h + GAP)));
  }
  const total = along[samples], out = [];
  for (let k = 0, i = 0; k < n; k++) {
    const want = (total * k) / n;
    while (along[i + 1] < want) i++;
    const f = (want - along[i]) / (along[i + 1] - along[i] || 1);
    out.push([path[i][0] + f * (path[i + 1][0] - path[i][0]),
      path[i][1] + f * (path[i + 1][1] - path[i][1])]);
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
      if (Math.abs(points[i].x - points[j].x) < card.w + GAP - eps
        && Math.abs(points[i].y - points[j].y) < card.h + gapY - eps) return false;
  return true;
}

/** How far from the centre a card's centre may go, across and down. */
const radii = (width, height, card) =>
  [Math.max(0, (width - card.w) / 2 - MARGIN), Math.max(0, (height - card.h) / 2 - MARGIN)];

/** The tallest card of this aspect, no larger than `max`, that `place` fits in the box (binary
 * search: a smaller card always fits better); `gapY(h)`: the room kept between rows of cards h high. */
function largest(place, width, height, aspect, max, gapY = () => GAP) {
  const size = (h) => ({ w: Math.min(max.w, h * aspect), h });
  let lo = 0, hi = Math.min(max.h, height);
  for (let i = 0; i < 22; i++) {
    const mid = (lo + hi) / 2;
    if (fits(place(size(mid)), size(mid), width, height, gapY(mid))) lo = mid;
    else hi = mid;
  }
  return size(lo);
}

/** `around` on a loop about the middle, and `centre` (if any) in it. A round loop while the
 * cards are large enough; a squarer one (larger q) when it holds larger cards. */
function loops(around, centre, width, height, { aspects, max }) {
  const place = (q) => (card) => {
    const pos = centre == null ? {} : { [centre]: { x: width / 2, y: height / 2 } };
    const [rx, ry] = radii(width, height, card);
    loop(around.length, rx, ry, q, card).forEach(([x, y], i) => {
      pos[around[i]] = { x: width / 2 + x, y: height / 2 + y };
    });
    return pos;
  };
  return [2, 4, 10].flatMap((q) => aspects.map((aspect) =>
    ({ place: place(q), round: q === 2, card: largest(place(q), width, height, aspect, max) })));
}

/** Ranks in rows of cells filling the box, each card its cell less the gap, at any aspect;
 * `top` (if any) is a row of its own above them, set apart by a band of rows (sizes.band) so that
 * the arrows between the two (a fan-out, a fan-in) read at a glance. More columns first, so
 * that among equally large cards the squarer grid wins. */
function rows(ranks, top, width, height, { aspects, max, roomy, band: apart }, only = null) {
  const options = [];
  const band = top.length ? apart : 0;
  for (let cols = only ?? Math.max(ranks.length, 1); cols >= (only ?? 1); cols--) {
    const lines = Math.ceil(ranks.length / cols) + (top.length ? 1 : 0) + band;
    const cw = (width - 2 * MARGIN) / Math.max(cols, top.length), rh = (height - 2 * MARGIN) / lines;
    const cell = (i, across, line) => ({ x: MARGIN + ((width - 2 * MARGIN) / across) * (i + 0.5),
      y: MARGIN + rh * (line + 0.5 + (line ? band : 0)) });
    const place = () => {
      const pos = {};
      top.forEach((r, i) => { pos[r] = cell(i, top.length, 0); });
      ranks.forEach((r, i) => {
        if (r != null) pos[r] = cell(i % cols, cols, Math.floor(i / cols) + (top.length ? 1 : 0));
      });
      return pos;
    };
    for (const aspect of aspects) {
      const h = Math.min(max.h, rh - GAP, (cw - GAP) / aspect);
      if (h > 0) options.push({ place, card: { w: Math.min(max.w, h * aspect, cw - GAP), h } });
    }
    // values that need the room: cards as large as their places
    if (roomy && rh > GAP && cw > GAP) options.push({ place, card: { w: cw - GAP, h: rh - GAP } });
  }
  return options;
}

/** A tree read from the transfers, root on top, each parent over its children; it keeps room
 * between its levels for the arrows that cross them. */
function tree(ranks, root, width, height, edges, { aspects, max, levels: gap }) {
  const t = treeOf(ranks, root, edges), { x, leaves } = tidy(ranks, t);
  const levels = Math.max(...ranks.map((r) => t.depth[r])) + 1;
  const place = (card) => {
    const [rx, ry] = radii(width, height, card);
    const span = Math.min(2 * rx, (leaves - 1) * (card.w * 1.6 + GAP)); // no wider than its leaves need
    const y = (r) => (levels > 1 ? height / 2 - ry + (2 * ry * t.depth[r]) / (levels - 1) : height / 2);
    return Object.fromEntries(ranks.map((r) => [r, { x: width / 2 - span / 2 + span * x[r], y: y(r) }]));
  };
  return aspects.map((aspect) =>
    ({ place, card: largest(place, width, height, aspect, max, (h) => Math.max(GAP, gap * h)) }));
}

/** A ring through a grid of two columns (down the first, back up the second) or two rows (along
 * the top, back along the bottom): neighbours sit side by side, each card as wide or tall as half
 * the box. Empty places are null. */
function snake(ranks, cols) {
  const n = ranks.length, across = cols === 2 ? 2 : Math.ceil(n / 2), down = Math.ceil(n / across);
  const order = new Array(across * down).fill(null);
  ranks.forEach((r, k) => {
    if (cols === 2) order[k < down ? 2 * k : 2 * (n - 1 - k) + 1] = r;
    else order[k < across ? k : across + (n - 1 - k)] = r;
  });
  return order;
}

/** Each shape's candidate cards, each with the placement it was sized for: [{card, place, round}]. */
// Where values need more room than a shape's usual figure leaves (sizes.roomy), a ring may also be
// a loop through two rows or columns, and a star or a tree its root in a row over the others.
const SHAPES = {
  ring: (ranks, _layout, width, height, _edges, sizes) => [...loops(ranks, null, width, height, sizes),
    ...(sizes.roomy && ranks.length > 3 ? [2, 0].flatMap((cols) => {
      const order = snake(ranks, cols);
      return rows(order, [], width, height, sizes, cols || Math.ceil(ranks.length / 2));
    }) : [])],
  star: (ranks, layout, width, height, _edges, sizes) => {
    const centre = rootOf(ranks, layout.root), others = ranks.filter((r) => r !== centre);
    return [...loops(others, centre, width, height, sizes),
      ...(sizes.roomy ? rows(others, [centre], width, height, sizes) : [])];
  },
  tree: (ranks, layout, width, height, edges, sizes) => {
    const root = rootOf(ranks, layout.root);
    return [...tree(ranks, root, width, height, edges, sizes),
      ...(sizes.roomy ? rows(ranks.filter((r) => r !== root), [root], width, height, sizes) : [])];
  },
  grid: (ranks, _layout, width, height, _edges, sizes) => rows(ranks, [], width, height, sizes),
  servers: (ranks, layout, width, height, _edges, sizes) => {
    const servers = ranks.filter((r) => layout.servers?.includes(r));
    return rows(ranks.filter((r) => !servers.includes(r)), servers, width, height, sizes);
  },
};

const OUTLINED = { tree: 1, star: 1 }; // shapes a column draws as an outline of their tree

/** Ranks one under another (an outline: each under its parent, indented), centred down the box; as
 * tall as `fit` asks for its values, the box growing to hold them ({height}: the box's new height). */
function column(layout, ranks, width, height, edges, fit) {
  const tree = treeOf(ranks, layout.root, edges), outline = OUTLINED[layout.shape];
  const depth = (r) => (outline ? tree.depth[r] : 0), deepest = Math.max(...ranks.map(depth)),
    n = ranks.length;
  const w = Math.min(USUAL.max.w, (width - 2 * MARGIN) * (1 - BESIDE));
  const card = { w, h: Math.min(USUAL.max.h, (height - 2 * MARGIN - (n - 1) * GAP) / n) };
  if (fit && fit.font(card) < fit.want) { // taller cards, as little taller as holds the values
    const want = Math.min(fit.want, fit.font({ w, h: 4 * height }));
    let lo = card.h, hi = 4 * height;
    for (let i = 0; i < 22; i++) {
      const mid = (lo + hi) / 2;
      if (fit.font({ w, h: mid }) >= want) hi = mid;
      else lo = mid;
    }
    card.h = hi;
  }
  const grown = Math.max(height, 2 * MARGIN + n * card.h + (n - 1) * GAP);
  const indent = deepest && Math.min(INDENT, (3 * INDENT) / deepest),
    top = (grown - n * card.h - (n - 1) * GAP) / 2;
  const at = (r, i) => [r, { x: MARGIN + indent * depth(r) + card.w / 2,
    y: top + i * (card.h + GAP) + card.h / 2 }];
  return { card, positions: Object.fromEntries((outline ? tidy(ranks, tree).pre : ranks).map(at)),
    column: true, height: grown, font: fit ? fit.font(card) : Infinity };
}

/** Whether a box stacks these ranks in a column: a portrait box (a phone) and a few ranks, whose
 * height holds them at a width that reads, where a figure would shrink them to fit across. */
export const stacks = (ranks, width, height) => height > width && ranks.length > 1 && ranks.length <= COLUMN;

/**
 * Cards and their centres for `ranks` (global numbers, group order) in a width x height box,
 * placed by the run's layout hint {shape, root, servers}: { card: {w, h}, positions: {rank: {x, y}},
 * height }, the largest cards that keep apart. `edges` ([src, dst] pairs, e.g. every transfer) give a
 * tree its shape. A shape this page does not know is drawn as a ring; a lone rank sits in the middle.
 * A phone's box stacks a few ranks in a column (column: true), as tall as they need.
 * `fit` {want, font(card)}: the font the cards' values take in a card, and the least that reads:
 * of the cards that write them at least that large the largest wins; where none does, the cards
 * may be larger than usual and of other shapes, and those that write them largest win.
 */
export function arrange(layout, ranks, width, height, edges = [], fit = null) {
  if (stacks(ranks, width, height)) return column(layout, ranks, width, height, edges, fit);
  const shape = ranks.length === 1 ? SHAPES.star : SHAPES[layout.shape] ?? SHAPES.ring;
  // The largest area wins; wide cards (chunks side by side read best) and round loops win near-ties.
  const score = ({ card, round }) => card.w * card.h * (card.w >= 1.8 * card.h ? 1.2 : 1) * (round ? 1.3 : 1);
  const choose = (sizes) => {
    const options = shape(ranks, layout, width, height, edges, sizes);
    for (const o of options) o.font = fit ? fit.font(o.card) : Infinity;
    const read = options.filter((o) => o.font >= fit?.want);
    return fit && !read.length ? options.reduce((a, b) => (b.font > a.font ? b : a))
      : (fit ? read : options).reduce((a, b) => (score(b) > score(a) ? b : a));
  };
  let best = choose(USUAL);
  if (fit && best.font < fit.want) {
    const roomy = choose(ROOMY);
    if (roomy.font > best.font) best = roomy;
  }
  return { card: best.card, positions: best.place(best.card), height, font: best.font };
}
