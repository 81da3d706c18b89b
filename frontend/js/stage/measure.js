// Text measured in the font the browser chose for it, not assumed: a canvas measures each kind of
// the stage's text in the style its CSS gives it (family and fallbacks, weight), so that another
// machine's fonts (a wider monospace, a Korean face) give the layout other widths and heights.
// Node's tests, with no page, get an estimate: glyphs 0.62 em, a Korean or Chinese one 1 em.

// each kind of text as the stage nests it: [its group's class, its own]
const KINDS = { value: ["cell", "value"], name: ["names", "name"], bytes: ["names", "bytes"],
  region: ["names", "region"], terms: ["names", "terms"], note: ["cell", "note"], sum: ["sum", ""],
  floor: ["scene", "under-floor"] };
const AT = 100; // px: measured at this size, then scaled
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60]/g;
let context = null;
const fonts = {}; // kind -> {font, widths: text -> em, ascent, descent}

/** How `kind`'s text is drawn, read off a hidden probe nested as the stage nests it. */
function fontOf(kind) {
  if (fonts[kind] || typeof document === "undefined" || !document.body) return fonts[kind];
  context ??= document.createElement("canvas").getContext("2d");
  const NS = "http://www.w3.org/2000/svg", svg = document.createElementNS(NS, "svg");
  svg.style.cssText = "position:absolute;width:0;height:0;visibility:hidden";
  const g = svg.appendChild(document.createElementNS(NS, "g")), text = document.createElementNS(NS, "text");
  g.setAttribute("class", KINDS[kind][0]);
  text.setAttribute("class", KINDS[kind][1]);
  document.body.append(svg);
  g.append(text);
  const { fontStyle, fontWeight, fontFamily } = getComputedStyle(text);
  svg.remove();
  context.font = `${fontStyle} ${fontWeight} ${AT}px ${fontFamily}`;
  const m = context.measureText("0Ag");
  fonts[kind] = { font: context.font, widths: new Map(), ascent: m.fontBoundingBoxAscent / AT,
    descent: m.fontBoundingBoxDescent / AT };
  return fonts[kind];
}

/** The width of `text` drawn at `font` (stage units) as the stage draws text of `kind`. */
export function textWidth(text, font, kind = "value") {
  const f = fontOf(kind);
  if (!f) return (text.length + 0.62 * (text.match(WIDE)?.length ?? 0)) * 0.62 * font;
  if (!f.widths.has(text)) {
    if (f.widths.size > 20000) f.widths.clear(); // a long lecture's texts, forgotten now and then
    context.font = f.font;
    f.widths.set(text, context.measureText(text).width / AT);
  }
  return f.widths.get(text) * font;
}

/** How far `kind`'s glyphs reach above and below their baseline, in ems. */
export const reach = (kind = "value") => fontOf(kind) ?? { ascent: 0.93, descent: 0.24 };
