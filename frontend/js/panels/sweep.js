// A sweep over sizes: every algorithm of a collective at growing counts, measured time and bus
// bandwidth against size, and the model over them (for the model's own pick, the time it
// predicted when it chose; for native, the line fitted to its runs).

import { api } from "rs/core/api.js";
import { $, reason, say } from "rs/core/dom.js";
import { colour } from "rs/core/format.js";
import { CONFIG, chartTheme, plotly } from "rs/panels/charts.js";

const COUNTS = [256, 1024, 4096, 16384, 65536, 262144];
const SETTINGS = { capture: "none", iterations: 10, warmup: 2, purpose: "sweep" };

/** The run once it is in one of the `ended` states. */
async function finished(id, ended) {
  for (;;) {
    const run = await api(`/api/runs/${id}`);
    if (ended.has(run.state)) return run;
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Queue every (algorithm, count) and wait for all; the model's pick goes last, to choose with
 * this sweep's measurements in its fit. */
export async function runSweep(collective, algorithms, dtype, ended, onProgress) {
  const auto = (await api("/api/catalog")).auto?.algorithm;
  const rounds = [algorithms.filter((a) => a !== auto), algorithms.filter((a) => a === auto)];
  const total = algorithms.length * COUNTS.length, runs = [];
  for (const round of rounds) {
    const ids = [];
    for (const algorithm of round)
      for (const count of COUNTS)
        ids.push((await api("/api/runs",
          { method: "POST", body: { collective, algorithm, count, dtype, ...SETTINGS } })).id);
    for (const id of ids) {
      runs.push(await finished(id, ended));
      onProgress(runs.length, total);
    }
  }
  return runs;
}

/** The name a run is charted under: what was asked (an auto run keeps its own series). */
const asked = (run) => run.choice?.asked?.algorithm ?? run.spec.algorithm;

/** Predicted seconds for each run of one series. */
async function predictions(mine, fit) {
  const first = mine[0];
  // the pick: what it predicted when it chose
  if (first.choice && first.choice.asked.algorithm !== first.spec.algorithm)
    return mine.map((r) => r.choice.candidates.find((c) => c.algorithm === r.choice.algorithm
      && c.chunks === r.choice.chunks)?.time ?? null);
  if (!first.schedule) { // the backend's own call: the line fitted to its runs, if there is one
    const line = fit.native.find((n) => n.collective === first.spec.collective
      && n.ranks === first.group.length);
    return mine.map((r) => (line ? line.latency + line.per_byte * r.algbw * r.time : null));
  }
  const answers = await Promise.all(mine.map((r) =>
    api(`/api/model?collective=${r.spec.collective}&algorithm=${r.spec.algorithm}` +
    `&world_size=${r.group.length}&count=${r.spec.count}&dtype=${r.spec.dtype}&chunks=${r.spec.chunks}` +
    (r.spec.servers ? `&servers=${r.spec.servers}` : ""))));
  return answers.map((p) => p.time);
}

const pct = (x) => (x == null ? "–" : `${Math.round(x * 100)}%`);

/** What the dotted lines are, and how far they are from the points over this cluster's runs. */
function modelWords(fit) {
  if (!fit.fitted_from_runs) return "dotted: the model, with default parameters (no runs fitted yet)";
  const held = fit.heldout;
  return `dotted: one α, β, γ for every schedule, fitted to ${fit.fitted_from_runs} runs: `
    + `RMS error ${pct(fit.rms_error)}` +
    (held ? `, ${pct(held.median)} on sizes held out` : "");
}

/** Why the dotted lines may sit off the points, said under the chart. */
function modelNote(fit) {
  const error = fit.heldout?.median ?? fit.rms_error;
  const words = [`Model: α ${(fit.alpha * 1e6).toFixed(1)} µs a step, `
    + `β ${fit.beta ? (1 / fit.beta / 1e9).toFixed(2) : "∞"} GB/s, ` +
    `γ ${fit.gamma ? (1 / fit.gamma / 1e9).toFixed(2) : "∞"} GB/s reduced (${fit.source}).`];
  if (error > 0.25) words.push(`It misses these points by ${pct(error)} (median): `
    + `one latency per step for every schedule ` +
    "cannot hold when the ranks outnumber the cores, "
    + "as a step whose every rank waits on another pays the scheduler each time.");
  words.push("The model's pick is drawn with the time it predicted when it chose; "
    + "native with the line fitted to its runs.");
  return words.join(" ");
}

export async function plotSweep(runs, Plotly) {
  const el = document.getElementById("sweep");
  const done = runs.filter((r) => r.state === "done" && r.time);
  const fit = await api("/api/model/fit");
  const series = [...new Set(done.map(asked))];
  const traces = [];
  for (const [i, name] of series.entries()) {
    const mine = done.filter((r) => asked(r) === name).sort((a, b) => a.spec.count - b.spec.count);
    const size = mine.map((r) => r.algbw * r.time);
    const line = { color: colour(i), width: 2 };
    const ran = mine.map((r) => (r.choice ? `${r.choice.label}: ${r.choice.why}` : ""));
    traces.push({ x: size, y: mine.map((r) => r.time * 1e6), name, mode: "lines+markers", line,
      legendgroup: name, text: ran,
      hovertemplate: "%{x} B: %{y:.1f} µs<br>%{text}<extra></extra>" });
    traces.push({ x: size, y: mine.map((r) => r.busbw / 1e9), name: `${name} busbw`,
      mode: "lines+markers", yaxis: "y2",
      line, legendgroup: name, showlegend: false });
    const predicted = await predictions(mine, fit);
    if (predicted.every((t) => t == null)) continue; // nothing to model it from yet
    traces.push({ x: size, y: predicted.map((t) => (t == null ? null : t * 1e6)),
      name: `${name} model`, mode: "lines",
      line: { ...line, dash: "dot" }, legendgroup: name, showlegend: false });
  }
  // Two panels over one size axis: one scale each reads far better than two on one plot.
  const t = chartTheme();
  const note = el.querySelector("p.why") ?? el.appendChild(document.createElement("p"));
  note.className = "why";
  note.textContent = modelNote(fit);
  await Plotly.react(el, traces, {
    ...t, height: 460,
    title: { text: `${done[0]?.spec.collective ?? ""}: time and bus bandwidth against size<br>`
      + `<sub>${modelWords(fit)}</sub>`, font: { size: 13 } },
    margin: { ...t.margin, t: 56, r: 150 }, legend: { x: 1.02, y: 1 },
    xaxis: { ...t.xaxis, type: "log", anchor: "y2", title: { text: "bytes per rank" } },
    yaxis: { ...t.yaxis, type: "log", domain: [0.54, 1], title: { text: "time (µs)" } },
    yaxis2: { ...t.yaxis, type: "log", domain: [0, 0.42], title: { text: "busbw (GB/s)" } },
  }, CONFIG);
}

/** The Sweep button: `entry`'s algorithms at every count in `spec`'s dtype, its progress in the
 * panel and the chart once all have ended (in one of the `ended` states). */
export async function sweep(entry, spec, ended) {
  const progress = (text) => say("sweep-progress", text);
  progress(`${entry.name}: queueing runs…`);
  try {
    say("run-why", "sweep: under way, in the Sweep panel below (its runs stay off the stage)");
    const runs = await runSweep(entry.name, entry.algorithms, spec.dtype, ended,
      (done, total) => progress(`${entry.name}: ${done} of ${total} runs`));
    await plotSweep(runs, await plotly());
    progress(`${entry.name}: ${runs.length} runs, charted`);
    say("run-why", "");
  } catch (err) {
    $("sweep-progress").replaceChildren("sweep stopped: ", reason(err));
  }
}
