// Text measured in the font the browser chose for it, not assumed: a canvas measures each kind of
// the stage's text in the style its CSS gives it (the family with its fallbacks, the weight), so
// another machine's fonts (a wider monospace, a Korean or Chinese face) give other widths and
// heights and the layout follows them. Widths are measured once per text at a reference size and
// scaled. Without a page (node's tests) an estimate stands in: glyphs 0.62 em, a Korean or
// Chinese one 1 em.

// The stage's kinds of text, each as the stage nests it (stage.css styles them by these classes).
const KINDS = {
  value: ["cell", "value"], name: ["names", "name"], bytes: ["names", "bytes"], region: ["names", "region"],
  terms: ["names", "terms"], note: ["cell", "note"], sum: ["sum", ""],
};
const REFERENCE = 100; // px: the size texts are measured at
const MAX_KEPT = 20000; // widths remembered per kind, then forgotten all at once

// Hangul, kana and CJK ideographs (and their punctuation): a full em, where the Latin is about 0.6
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60]/g;
const estimate = (text) => (text.length + 0.62 * (text.match(WIDE)?.length ?? 0)) * 0.62;

let context = null;
const fonts = {}; // kind -> {font: the canvas's font at REFERENCE px, widths: Map, ascent, descent}

/** How `kind`'s text is drawn: the style of a hidden probe nested as the stage nests it. */
function fontOf(kind) {
  if (fonts[kind]) return fonts[kind];
  if (typeof document === "undefined" || !document.body) return null;
  context ??= document.createElement("canvas").getContext("2d");
  if (!context) return null;
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg"), [outer, inner] = KINDS[kind];
  svg.setAttribute("aria-hidden", "true");
  svg.style.cssText = "position:absolute;width:0;height:0;visibility:hidden";
  const g = svg.appendChild(document.createElementNS(NS, "g"));
  g.setAttribute("class", outer);
  const text = g.appendChild(document.createElementNS(NS, "text"));
  if (inner) text.setAttribute("class", inner);
  document.body.append(svg);
  const style = getComputedStyle(text);
  const font = `${style.fontStyle} ${style.fontWeight} ${REFERENCE}px ${style.fontFamily}`;
  svg.remove();
  context.font = font;
  const m = context.measureText("0Ag");
  fonts[kind] = { font, widths: new Map(), ascent: m.fontBoundingBoxAscent / REFERENCE,
    descent: m.fontBoundingBoxDescent / REFERENCE };
  return fonts[kind];
}

/** The width of `text` drawn at `font` px (stage units) as the stage draws text of `kind`. */
export function textWidth(text, font, kind = "value") {
  const f = fontOf(kind);
  if (!f) return estimate(text) * font;
  let w = f.widths.get(text);
  if (w === undefined) {
    if (f.widths.size > MAX_KEPT) f.widths.clear();
    context.font = f.font;
    w = context.measureText(text).width / REFERENCE;
    f.widths.set(text, w);
  }
  return w * font;
}

/** How far `kind`'s glyphs reach above and below their baseline, in ems: {ascent, descent}. */
export function reach(kind = "value") {
  const f = fontOf(kind);
  return f ? { ascent: f.ascent, descent: f.descent } : { ascent: 0.93, descent: 0.24 };
}
