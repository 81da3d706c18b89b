// A sweep over sizes: the current collective with every algorithm at growing counts, then
// time and bus bandwidth against size, measured, with the alpha-beta prediction drawn over them.

import { api } from "rs/api.js";
import { colour } from "rs/format.js";
import { chartTheme } from "rs/charts.js";

export const COUNTS = [256, 1024, 4096, 16384, 65536, 262144];

/** The run once it has ended: in one of the `ended` states (the catalog's run_states.ended). */
async function finished(id, ended) {
  for (;;) {
    const run = await api(`/api/runs/${id}`);
    if (ended.has(run.state)) return run;
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Queue every (algorithm, count), wait for all to end, and return them. */
export async function runSweep(collective, algorithms, dtype, ended, onProgress) {
  const ids = [];
  for (const algorithm of algorithms)
    for (const count of COUNTS)
      ids.push((await api("/api/runs", { method: "POST", body: { collective, algorithm, count, dtype, capture: "none", iterations: 10, warmup: 2 } })).id);
  const runs = [];
  for (const id of ids) {
    runs.push(await finished(id, ended));
    onProgress(runs.length, ids.length);
  }
  return runs;
}

export async function plotSweep(runs, Plotly) {
  const el = document.getElementById("sweep");
  const done = runs.filter((r) => r.state === "done" && r.time);
  const algorithms = [...new Set(done.map((r) => r.spec.algorithm))];
  const traces = [];
  for (const [i, algorithm] of algorithms.entries()) {
    const mine = done.filter((r) => r.spec.algorithm === algorithm).sort((a, b) => a.spec.count - b.spec.count);
    const size = mine.map((r) => r.algbw * r.time);
    const line = { color: colour(i), width: 2 };
    traces.push({ x: size, y: mine.map((r) => r.time * 1e6), name: algorithm, mode: "lines+markers", line, legendgroup: algorithm });
    traces.push({ x: size, y: mine.map((r) => r.busbw / 1e9), name: `${algorithm} busbw`, mode: "lines+markers", yaxis: "y2",
      line, legendgroup: algorithm, showlegend: false });
    if (!mine[0].schedule) continue; // the backend's own call has no schedule: nothing to model
    const predicted = await Promise.all(mine.map((r) => api(`/api/model?collective=${r.spec.collective}&algorithm=${algorithm}` +
      `&world_size=${r.group.length}&count=${r.spec.count}&dtype=${r.spec.dtype}`)));
    traces.push({ x: size, y: predicted.map((p) => p.time * 1e6), name: `${algorithm} model`, mode: "lines",
      line: { ...line, dash: "dot" }, legendgroup: algorithm, showlegend: false });
  }
  // Two panels over one size axis: time above, bus bandwidth below (one axis each reads far
  // better than two scales on one plot); the legend stands to the right, clear of both.
  const t = chartTheme();
  await Plotly.react(el, traces, {
    ...t, height: 440, title: { text: `${done[0]?.spec.collective ?? ""}: time and bus bandwidth against size; dotted: the alpha-beta model`, font: { size: 13 } },
    margin: { ...t.margin, r: 150 }, legend: { x: 1.02, y: 1 },
    xaxis: { ...t.xaxis, type: "log", anchor: "y2", title: { text: "bytes per rank" } },
    yaxis: { ...t.yaxis, type: "log", domain: [0.54, 1], title: { text: "time (µs)" } },
    yaxis2: { ...t.yaxis, type: "log", domain: [0, 0.42], title: { text: "busbw (GB/s)" } },
  }, { displayModeBar: false, responsive: true });
}
