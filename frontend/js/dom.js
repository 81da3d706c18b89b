// Making page and SVG nodes, and the stripes that colour a chunk by the ranks its data came from.

import { colour } from "rs/format.js";

const NS = "http://www.w3.org/2000/svg";

export function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

/** An HTML element: html("li", {class: "x", onclick: f}, "text", child, [more]). */
export function html(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children.flat()) if (child != null) node.append(child);
  return node;
}

/** Vertical stripes, one per origin rank, repainted only when the origins change. */
export function stripes(group, origins, w, h) {
  const key = `${origins.join(",")}/${w}x${h}`;
  if (group.dataset.key === key) return;
  group.dataset.key = key;
  group.replaceChildren();
  const sw = w / Math.max(origins.length, 1);
  origins.forEach((r, i) => el("rect", { x: i * sw, width: sw + 0.4, height: h, fill: colour(r) }, group));
}
