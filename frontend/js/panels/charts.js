// Timing charts: a per-rank timeline of steps, and per-rank totals. plotly.js is loaded once a
// chart comes into view: parsing it holds the page a second or two, stalling the animation. The
// script, and the observer that waits for a chart to show, are one per document: this module
// keeps them for every chart of the page.

import { $ } from "rs/core/dom.js";
import { byteUnit } from "rs/core/format.js";
import { onLanguage, tr } from "rs/i18n/i18n.js";
import { phaseIndex, rankTotals, timelineBars } from "rs/panels/timeline.js";

// Phases' hues, apart from the ranks' palette (which means "data from rank r").
const PHASE_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00"];
let loading = null;

/** plotly.js, whose charts say their words (names, titles, hovers, categories) in the page's language,
 * and again on a switch. */
export function plotly() {
  loading ??= new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = "/vendor/plotly.min.js";
    s.onload = () => resolve(translating(window.Plotly));
    s.onerror = () => { loading = null; reject(new Error("plotly.js could not be loaded")); };
    document.head.append(s);
  });
  return loading;
}

const WORDS = new Set(["name", "text", "title", "hovertemplate", "ticktext", "x", "y"]);
const drawings = new Map(); // a chart -> what its drawer handed plotly, in English (grown by extendTraces)

// a hover template's markup and plotly's fields (%{y:.3g}) between its words
const MARKUP = /(<br>|<\/?sub>|<extra><\/extra>|%\{[^}]*\})/;

/** A chart's traces or layout with its words in the page's language: strings under WORDS' keys, a
 * hover template's words between its markup apart. */
function localized(value, key = "") {
  if (typeof value === "string") {
    if (!WORDS.has(key)) return value;
    return value.split(MARKUP).map((part, i) => {
      const [, before, words, after] = /^(\s*)(.*?)([\s:+,]*)$/.exec(part);
      return i % 2 ? part : before + tr(words) + after;
    }).join("");
  }
  if (Array.isArray(value)) return value.map((v) => localized(v, key));
  if (value && typeof value === "object" && value.constructor === Object) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, localized(v, WORDS.has(k) ? k : "")]));
  }
  return value;
}

export const PROJECTED = 18; // px: on a projector (lecture mode), a chart's least: ticks, titles, legends

/** A layout as a projector draws it: every font PROJECTED px at least (the layout's own, so ticks
 * too; titles', legends' and notes' that asked for less), and margins that grow to hold the larger
 * ticks and titles. Elsewhere the layout as it is. */
export function projected(layout, on = document.body.classList.contains("present")) {
  if (!on) return layout;
  const raised = (font) => ({ ...font, size: Math.max(PROJECTED, font?.size ?? 0) });
  const walk = (value, key = "") => {
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (!value || typeof value !== "object" || value.constructor !== Object) return value;
    const out = Object.fromEntries(Object.entries(value).map(([k, v]) =>
      [k, k === "font" || k === "tickfont" ? raised(v) : walk(v, k)]));
    return /^[xy]axis\d*$/.test(key) ? { ...out, automargin: true } : out;
  };
  return { ...walk(layout), font: raised(layout.font) };
}

function translating(Plotly) {
  const react = (el, traces, layout, config) => {
    drawings.set(el, [traces, layout, config]);
    return Plotly.react(el, localized(traces), projected(localized(layout)), config);
  };
  const extendTraces = (el, update, indices, ...more) => {
    const traces = drawings.get(el)?.[0];
    for (const [k, lists] of Object.entries(traces ? update : {}))
      indices.forEach((i, j) => { traces[i][k] = [...(traces[i][k] ?? []), ...lists[j]]; });
    return Plotly.extendTraces(el, update, indices, ...more);
  };
  redraw = () => {
    for (const [el, drawing] of drawings) if (el.isConnected && el.data) react(el, ...drawing);
  };
  onLanguage(redraw);
  return Object.assign(Object.create(Plotly), { react, extendTraces });
}

let redraw = () => {}; // no chart drawn yet

/** Every chart drawn again as it was asked for: lecture mode came or went (projected). */
export const redrawCharts = () => redraw();

export function chartTheme() {
  const css = getComputedStyle(document.documentElement);
  const ink = css.getPropertyValue("--ink").trim(), line = css.getPropertyValue("--line").trim();
  return { paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)", font: { color: ink, size: 12 },
    margin: { l: 60, r: 12, t: 34, b: 40 }, xaxis: { gridcolor: line, zerolinecolor: line },
    yaxis: { gridcolor: line, zerolinecolor: line } };
}

export const CONFIG = { displayModeBar: false, responsive: true };
const waiting = new Map(); // chart element -> the latest drawing it is waiting to show
let observer = null;

/** Draw into `el` once it is on screen (at once if it is); a later call replaces an earlier one. */
export function whenShown(el, draw) {
  waiting.set(el, draw);
  observer ??= new IntersectionObserver((entries) => {
    for (const e of entries) {
      // merely touching the fold is not in view
      if (e.intersectionRatio <= 0 || !waiting.has(e.target)) continue;
      const next = waiting.get(e.target);
      waiting.delete(e.target);
      observer.unobserve(e.target);
      next();
    }
  }, { threshold: 0.05 });
  observer.observe(el);
}

export function timeline(run) {
  whenShown($("timeline"), () => drawTimeline(run));
}

export function totals(run) {
  whenShown($("totals"), () => drawTotals(run));
}

/** One row per rank, a bar per step from its start to its end: waiting and stragglers show. */
async function drawTimeline(run) {
  const el = $("timeline");
  const bars = run?.steps.length ? timelineBars(run) : [];
  if (!bars.length) { el.replaceChildren(); return; }
  const Plotly = await plotly();
  const phases = phaseIndex(run);
  const byStep = new Map();
  for (const b of bars) byStep.set(b.step, [...(byStep.get(b.step) ?? []), b]);
  const t = chartTheme();
  const traces = [...byStep.values()].map((mine) => ({
    type: "bar", orientation: "h", name: `step ${mine[0].step + 1}`, showlegend: false,
    y: mine.map((b) => `rank ${b.rank}`), base: mine.map((b) => b.start), x: mine.map((b) => b.length),
    marker: { color: PHASE_COLOURS[phases[mine[0].phase] % PHASE_COLOURS.length],
      opacity: mine[0].step % 2 ? 0.65 : 1,
      line: { width: mine.map((b) => (b.last ? 2 : 0)), color: t.font.color } },
    hovertemplate: `step ${mine[0].step + 1} (${mine[0].phase})<br>`
      + `%{base:.0f} µs + %{x:.0f} µs<extra></extra>`,
  }));
  await Plotly.react(el, traces, { ...t,
    title: { text: "timeline: a bar per step, outlined where a rank finished last", font: { size: 13 } },
    barmode: "overlay", yaxis: { ...t.yaxis, autorange: "reversed" },
    xaxis: { ...t.xaxis, title: { text: "µs since the aligned start" } } }, CONFIG);
}

/** Per rank: the median iteration time, the time inside steps, and the bytes it sent and received. */
async function drawTotals(run) {
  const el = $("totals");
  const rows = run?.results && Object.keys(run.results).length ? rankTotals(run) : [];
  if (!rows.length) { el.replaceChildren(); return; }
  const Plotly = await plotly();
  const ranks = rows.map((r) => `rank ${r.rank}`);
  const [scale, unit] = byteUnit(Math.max(...rows.map((r) => Math.max(r.sent, r.received))));
  const t = chartTheme();
  // offsetgroup keeps the bars on the right-hand axis beside, not over, the others
  const bar = (name, y, offsetgroup, color, yaxis) =>
    ({ type: "bar", name, x: ranks, y, offsetgroup, yaxis, marker: { color } });
  await Plotly.react(el, [
    bar("iteration (µs)", rows.map((r) => r.time), 1, "#0072B2"),
    bar("in steps (µs)", rows.map((r) => r.busy), 2, "#56B4E9"),
    bar(`sent (${unit})`, rows.map((r) => r.sent / scale), 3, "#E69F00", "y2"),
    bar(`received (${unit})`, rows.map((r) => r.received / scale), 4, "#D55E00", "y2"),
  ], { ...t, title: { text: "per-rank totals", font: { size: 13 } }, barmode: "group",
    legend: { orientation: "h", y: -0.2 },
    margin: { ...t.margin, r: 60 }, yaxis: { ...t.yaxis, title: { text: "µs" } },
    yaxis2: { overlaying: "y", side: "right", title: { text: unit }, showgrid: false,
      rangemode: "tozero" } }, CONFIG);
}
