// Where each rank sits on the stage, chosen to fit the algorithm's shape:
// a circle for rings, levels for trees, a star for master/flat, a grid for all-to-all.

export function shapeOf(algorithm) {
  if (["tree", "binomial_tree"].includes(algorithm)) return "tree";
  if (["master_worker", "flat", "direct"].includes(algorithm)) return "star";
  if (["pairwise", "recursive_doubling", "recursive_halving", "rabenseifner"].includes(algorithm)) return "grid";
  return "circle";
}

function gridColumns(n, width, height) {
  return Math.min(n, Math.ceil(Math.sqrt(n * (width / height) / 2.5))); // cards are about 2.5 times wider than tall
}

/** Depth of virtual rank v (0 = root) in the tree the algorithm uses. */
function depth(algorithm, v) {
  if (algorithm === "binomial_tree") {
    let bits = 0;
    for (let x = v; x; x &= x - 1) bits++;
    return bits;
  }
  return Math.floor(Math.log2(v + 1)); // binary heap: parent (v-1)/2
}

/**
 * Centres in a width x height box, one per rank in `ranks` (global numbers, group order),
 * far enough from the edges that a card of `card` size fits: {rank: {x, y}}.
 */
export function layout(algorithm, ranks, root, width, height, card = { w: 0, h: 0 }) {
  const n = ranks.length;
  const pos = {};
  const shape = shapeOf(algorithm);
  const cx = width / 2, cy = height / 2;
  const rx = Math.max(0, (width - card.w) / 2 - 8), ry = Math.max(0, (height - card.h) / 2 - 8);
  if (n === 1) return { [ranks[0]]: { x: cx, y: cy } };
  if (shape === "tree") {
    const rootIndex = Math.max(0, ranks.indexOf(root));
    const levels = [];
    ranks.forEach((rank, i) => {
      const v = (i - rootIndex + n) % n;
      const d = depth(algorithm, v);
      (levels[d] ??= []).push([v, rank]);
    });
    levels.forEach((level, d) => {
      level.sort((a, b) => a[0] - b[0]);
      level.forEach(([, rank], j) => {
        pos[rank] = { x: cx - rx + (2 * rx * (j + 1)) / (level.length + 1), y: cy - ry + (2 * ry * d) / Math.max(1, levels.length - 1) };
      });
    });
    return pos;
  }
  if (shape === "star") {
    const center = ranks.includes(root) ? root : ranks[0];
    pos[center] = { x: cx, y: cy };
    const others = ranks.filter((r) => r !== center);
    others.forEach((rank, j) => {
      const a = -Math.PI / 2 + (2 * Math.PI * j) / others.length;
      pos[rank] = { x: cx + rx * Math.cos(a), y: cy + ry * Math.sin(a) };
    });
    return pos;
  }
  if (shape === "grid") {
    const cols = gridColumns(n, width, height);
    const rows = Math.ceil(n / cols);
    ranks.forEach((rank, i) => {
      pos[rank] = { x: cx - rx + (2 * rx * ((i % cols) + 0.5)) / cols, y: cy - ry + (2 * ry * (Math.floor(i / cols) + 0.5)) / rows };
    });
    return pos;
  }
  ranks.forEach((rank, i) => {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / n;
    pos[rank] = { x: cx + rx * Math.cos(a), y: cy + ry * Math.sin(a) };
  });
  return pos;
}

/** The largest card (w, h) that keeps n ranks' cards from overlapping in this box. */
export function cardSize(shape, n, width, height) {
  if (shape === "grid") {
    const cols = gridColumns(n, width, height), rows = Math.ceil(n / cols);
    const w = Math.min(380, (width / cols) * 0.92);
    return { w, h: Math.min(130, Math.max(34, w * 0.38), (height / rows) * 0.85) };
  }
  const perSide = shape === "circle" || shape === "star" ? Math.max(1, n / 3.2) : Math.ceil(Math.sqrt(n));
  const w = Math.min(380, (width / (perSide + 1)) * 0.95);
  return { w, h: Math.min(130, Math.max(34, w * 0.38)) };
}
