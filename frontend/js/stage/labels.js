// Where the stage's labels go (a reduction's arithmetic, AVG's division): near the cell they
// explain, never over a value, a rank's name or another label. Pure functions over boxes
// {x, y, w, h} (top-left corner, stage units), so node tests them.

/** Do two boxes overlap, or come closer than `pad`? */
export const overlaps = (a, b, pad = 0) =>
  a.x < b.x + b.w + pad && b.x < a.x + a.w + pad && a.y < b.y + b.h + pad && b.y < a.y + a.h + pad;

/** Top-left corners on a grid over `bounds` where a w x h box fits, nearest to (ax, ay) first. */
function spots(w, h, ax, ay, bounds, step) {
  const out = [];
  for (let y = bounds.y; y + h <= bounds.y + bounds.h; y += step)
    for (let x = bounds.x; x + w <= bounds.x + bounds.w; x += step) {
      const dx = x + w / 2 - ax, dy = y + h / 2 - ay;
      // a little wider than tall: labels sit beside rows more than across them
      out.push({ x, y, w, h, d: dx * dx + dy * dy * 1.5 });
    }
  return out.sort((a, b) => a.d - b.d);
}

/**
 * Place every label {w, h, ax, ay} (its size, and the point it explains) in `bounds`, in order:
 * each at the spot nearest its point that overlaps none of `avoid` (values, names, whatever
 * the caller keeps it off) nor a label placed before it. Returns a box per label, or null
 * for one that fits nowhere (it is left out rather than drawn over data).
 */
export function place(labels, avoid, bounds, { step = 6, pad = 3 } = {}) {
  const against = [...avoid];
  return labels.map(({ w, h, ax, ay }) => {
    const found = spots(w, h, ax, ay, bounds, step).find((c) => !against.some((o) => overlaps(c, o, pad)));
    if (found) against.push(found);
    return found ? { x: found.x, y: found.y, w, h } : null;
  });
}
