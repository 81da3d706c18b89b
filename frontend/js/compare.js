// The compare view: the busiest rank's bytes and the busiest link's against P (2..64) for the
// algorithms the server sets side by side (/api/compare, counted by its simulator), in units
// of N, with the points this cluster measured on top. Drawn once it comes into view.

import { api } from "rs/api.js";
import { chartTheme, plotly } from "rs/charts.js";
import { PALETTE } from "rs/format.js";

const COLOURS = [PALETTE[5], PALETTE[4], PALETTE[2], PALETTE[6]];
let observer = null;

/** Plotly traces for the compare payload: a line per algorithm and figure, the measured points as markers. */
export function compareTraces(data) {
  const traces = [];
  data.series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const name = s.label ?? s.algorithm;
    traces.push({ mode: "lines", name: `${name}: busiest rank`, x: s.p, y: s.per_rank, line: { color: colour, width: 3 },
      legendgroup: s.algorithm, hovertemplate: `${name}, P=%{x}: %{y:.2f}·N through the busiest rank<extra></extra>` });
    traces.push({ mode: "lines", name: `${name}: busiest link`, x: s.p, y: s.busiest_link, xaxis: "x2", yaxis: "y2",
      line: { color: colour, width: 3, dash: "dot" }, legendgroup: s.algorithm, showlegend: false,
      hovertemplate: `${name}, P=%{x}: %{y:.2f}·N on the busiest link<extra></extra>` });
    const mine = data.measured.filter((m) => m.algorithm === s.algorithm);
    if (!mine.length) return;
    const marker = { color: colour, size: 13, symbol: "diamond", line: { width: 2, color: "#000" } };
    traces.push({ mode: "markers", name: `${name}: measured here`, x: mine.map((m) => m.p), y: mine.map((m) => m.per_rank),
      marker, legendgroup: s.algorithm, hovertemplate: `measured here (run %{text}): %{y:.2f}·N<extra></extra>`, text: mine.map((m) => m.run) });
    traces.push({ mode: "markers", x: mine.map((m) => m.p), y: mine.map((m) => m.busiest_link), xaxis: "x2", yaxis: "y2",
      marker, legendgroup: s.algorithm, showlegend: false, hovertemplate: "measured here: %{y:.2f}·N<extra></extra>" });
  });
  return traces;
}

let presenter = false;

/** Whether this page may run what the table lacks (the presenter's token). */
export function setPresenter(yes) { presenter = yes; }

/** Under the chart, for a parameter-server run on stage: its formula and measured bytes beside
 * those of the algorithms that replaced it, for the same N and P (/api/compare/beside). */
async function beside() {
  const table = document.getElementById("beside");
  const run = window.ringside?.player?.run;
  table.hidden = !run?.layout?.servers?.length;
  if (table.hidden) return;
  const data = await api(`/api/compare/beside?run=${encodeURIComponent(run.id)}`);
  const cell = (tag, text, attrs = {}) => Object.assign(document.createElement(tag), { textContent: text, ...attrs });
  const head = document.createElement("tr");
  for (const h of ["", "formula", "counts", `= for N = ${data.n} B, P = ${data.p}`, "measured here"]) head.append(cell("th", h));
  const rows = data.rows.map((r) => {
    const tr = document.createElement("tr");
    const same = r.measured != null && r.measured === r.value;
    tr.append(cell("td", r.label), cell("td", r.formula ?? "no closed form here"), cell("td", r.what ?? ""),
      cell("td", r.value != null ? `${r.value} B` : "–"),
      cell("td", r.measured != null ? `${r.measured} B ${same ? "✓" : "≠"}` : "not run at this N and P", { className: same ? "ok" : "" }));
    if (r.measured == null && r.spec && presenter) {
      const run = cell("button", "run it", { type: "button" });
      run.onclick = async () => { run.disabled = true; await api("/api/runs", { method: "POST", body: r.spec }).catch(() => (run.disabled = false)); };
      tr.lastChild.append(" ", run);
    }
    return tr;
  });
  table.replaceChildren(head, ...rows);
}

async function draw(el) {
  const [data, Plotly] = await Promise.all([api("/api/compare"), plotly(), beside()]); // the table first: the chart takes the room it leaves
  const t = chartTheme();
  const axis = (title, domain, anchor) => ({ ...t.xaxis, title: { text: title }, domain, anchor, type: "log", dtick: Math.log10(2) });
  await Plotly.react(el, compareTraces(data), {
    ...t, font: { ...t.font, size: 16 }, title: { text: "bytes against P, in units of N (one rank's buffer): lines simulated, diamonds measured here", font: { size: 17 } },
    grid: { rows: 1, columns: 2 }, legend: { orientation: "h", y: -0.25 },
    xaxis: axis("P (ranks)", [0, 0.46], "y"), xaxis2: axis("P (ranks)", [0.54, 1], "y2"),
    yaxis: { ...t.yaxis, title: { text: "busiest rank (× N)" }, type: "log", anchor: "x", // every tick its whole number
      tickvals: [1, 2, 5, 10, 20, 50, 100], ticktext: ["1", "2", "5", "10", "20", "50", "100"] },
    yaxis2: { ...t.yaxis, title: { text: "busiest link (× N)" }, anchor: "x2", rangemode: "tozero" },
  }, { displayModeBar: false, responsive: true });
  el.dataset.drawn = String(data.measured.length);
}

/** (Re)draw the compare chart in #compare, now if it is in view, else once it is. */
export function compare() {
  const el = document.getElementById("compare");
  if (!el) return;
  observer ??= new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (e.intersectionRatio <= 0) continue;
      observer.unobserve(e.target);
      draw(e.target).catch((err) => { e.target.textContent = `compare: ${err.reason ?? err}`; });
    }
  }, { threshold: 0.05 });
  observer.unobserve(el);
  observer.observe(el);
}

/** C: the compare chart over the stage (in lecture mode the only way to see it), and back. */
export function toggleCompare() {
  const on = document.body.classList.toggle("comparing");
  const el = document.getElementById("compare");
  if (!el) return;
  if (on) draw(el).catch((err) => { el.textContent = `compare: ${err.reason ?? err}`; });
  else if (window.Plotly && el.dataset.drawn) window.Plotly.Plots.resize(el);
}
