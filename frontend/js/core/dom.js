// Page and SVG nodes, the stripes that colour a chunk by the ranks its data came from, and what
// the page's modules share: ids, text, keys, fullscreen.

import { explain } from "rs/core/api.js";
import { colour } from "rs/core/format.js";

const NS = "http://www.w3.org/2000/svg";

export const $ = (id) => document.getElementById(id);
export const say = (id, text) => { $(id).textContent = text; };
/** `parts` (texts, nulls left out) as one line, " · " between: each its own text, which another language
 * says alone ("4 ranks", "root 0"), whatever goes beside it, and a line breaks between them, never inside
 * one ("4 ×" / "int32", "r-" / "000001"). */
export const sayEach = (id, parts) =>
  $(id).replaceChildren(...parts.filter((p) => p != null).flatMap((p, i) => {
    const part = html("span", { class: "part" }, p);
    return i ? [" · ", part] : [part];
  }));

// The keys a focused control that is typed into by none uses itself; the others are the page's, so
// that a checkbox or the slider reached with Tab does not take R, A or the digits from a lecturer.
const OWN_KEYS = {
  checkbox: [" "], radio: [" ", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"],
  range: ["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown"],
};

/** A key typed into a field, one a focused checkbox or slider uses, or with a modifier: none of the
 * page's shortcuts. */
export const notAShortcut = (e) => e.ctrlKey || e.metaKey || e.altKey || controlsOwn(e.target, e.key);

function controlsOwn(target, key) {
  const field = target.closest?.("input, select, textarea");
  const own = field?.tagName === "INPUT" ? OWN_KEYS[field.type] : null;
  return own ? own.includes(key) : !!field;
}

/** F: fullscreen, or out of it. */
export function toggleFullscreen() {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen?.().catch(() => {});
}

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

/** Why `err` happened, as the server says it (or "no answer from the server"), marked with the field
 * it names: another language says why by that field where no template knows the words (i18n.js). */
export const reason = (err) =>
  html("span", { "data-refused": String(err.field ?? "").split(".")[0] }, err.reason ?? explain(err));

/** A refusal from the server beside the field it names (by its first part: "schedule.steps.3"
 * beside the schedule) in the slot whose `attr` is that name, else in `fallback`. */
export function refused(err, attr, fallback) {
  const field = String(err.field ?? "").split(".")[0];
  (document.querySelector(`[${attr}="${field}"]`) ?? $(fallback)).replaceChildren(reason(err));
}

/** A refusal in `box` where no field is beside it: "field: why". */
export const refusal = (box, err) =>
  box.replaceChildren(...(err.field ? [html("span", {}, err.field), ": "] : []), reason(err));

/** A <select> of `options` with `value` picked. */
export const select = (options, value) => html("select", {},
  options.map((o) => new Option(o, o, false, String(o) === String(value))));

/** Vertical stripes, one per origin rank, repainted only when the origins change. */
export function stripes(group, origins, w, h) {
  const key = `${origins.join(",")}/${w}x${h}`;
  if (group.dataset.key === key) return;
  group.dataset.key = key;
  group.replaceChildren();
  const sw = w / Math.max(origins.length, 1);
  origins.forEach((r, i) => el("rect", { x: i * sw, width: sw + 0.4, height: h, fill: colour(r) }, group));
}

/** Table `id`'s rows of cells under `heads`, each cell headed on a phone (CSS .reflow: data-head). */
export function table(id, heads, rows) {
  $(id).replaceChildren(html("tr", {}, heads.map((h) => html("th", {}, h))),
    ...rows.map((cells) => html("tr", {}, cells.map((c, i) => html("td", { "data-head": heads[i] }, c)))));
}
