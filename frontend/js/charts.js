// Timing charts with plotly.js (served by the server from the installed plotly package,
// loaded after the first paint): a per-rank timeline of steps, and per-rank totals.

import { colour } from "rs/stage.js";

let loading = null;

export function plotly() {
  loading ??= new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = "/vendor/plotly.min.js";
    s.onload = () => resolve(window.Plotly);
    s.onerror = () => reject(new Error("plotly.js could not be loaded"));
    document.head.append(s);
  });
  return loading;
}

function theme() {
  const css = getComputedStyle(document.documentElement);
  const ink = css.getPropertyValue("--ink").trim(), line = css.getPropertyValue("--line").trim();
  return { paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)", font: { color: ink, size: 11 },
    margin: { l: 55, r: 10, t: 32, b: 38 }, xaxis: { gridcolor: line }, yaxis: { gridcolor: line } };
}

/** One row per rank, a bar per step from its start to its end: waiting and stragglers show. */
export async function timeline(run) {
  const el = document.getElementById("timeline");
  if (!run?.steps.length) { el.replaceChildren(); return; }
  const Plotly = await plotly();
  const traces = run.steps.map((s) => {
    const ranks = run.group.filter((r) => s.ranks[String(r)]);
    return { type: "bar", orientation: "h", name: `step ${s.step + 1}`, showlegend: false,
      y: ranks.map((r) => `rank ${r}`), base: ranks.map((r) => s.ranks[String(r)].t0 * 1e6),
      x: ranks.map((r) => (s.ranks[String(r)].t1 - s.ranks[String(r)].t0) * 1e6),
      marker: { color: colour(s.step), line: { width: 0 } }, hovertemplate: `step ${s.step + 1} (${s.phase})<br>%{base:.0f} µs + %{x:.0f} µs<extra></extra>` };
  });
  const t = theme();
  await Plotly.react(el, traces, { ...t, title: { text: "timeline (µs since the aligned start)", font: { size: 12 } }, barmode: "overlay",
    yaxis: { ...t.yaxis, autorange: "reversed" }, xaxis: { ...t.xaxis, title: "µs" } }, { displayModeBar: false, responsive: true });
}

/** Per rank: the median iteration time, and the bytes it sent. */
export async function totals(run) {
  const el = document.getElementById("totals");
  const results = Object.entries(run?.results ?? {});
  if (!results.length) { el.replaceChildren(); return; }
  const Plotly = await plotly();
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const ranks = results.map(([r]) => `rank ${r}`);
  const t = theme();
  await Plotly.react(el, [
    { type: "bar", name: "time (µs)", x: ranks, y: results.map(([, v]) => median(v.timings.iterations) * 1e6), marker: { color: "#0072B2" } },
    { type: "bar", name: "sent (KiB)", x: ranks, y: results.map(([, v]) => v.bytes_sent / 1024), yaxis: "y2", marker: { color: "#E69F00" } },
  ], { ...t, title: { text: "per-rank totals", font: { size: 12 } }, barmode: "group", legend: { orientation: "h", y: -0.2 },
    yaxis: { ...t.yaxis, title: "µs" }, yaxis2: { overlaying: "y", side: "right", title: "KiB", showgrid: false } },
  { displayModeBar: false, responsive: true });
}
