// The prediction panel: every algorithm of a collective at scales the cluster cannot run, from
// its fitted alpha, beta, gamma or a named preset (two levels, inside a node and between nodes, each
// with NCCL's alpha per protocol), each cut into the chunks it runs fastest with, native beside them
// (the measured line, or NCCL's own choice under a preset), and the sizes where the fastest one changes.

import { api } from "rs/core/api.js";
import { $, html, refusal } from "rs/core/dom.js";
import { bytes, colour, seconds } from "rs/core/format.js";
import { CONFIG, chartTheme } from "rs/panels/charts.js";

/** Fill the panel's form from the catalog (collectives that move a message) and the presets. */
export async function showPredict(catalog, plotly) {
  const form = $("predict-form");
  if (!form) return;
  const fit = await api("/api/model/fit");
  const collectives = catalog.collectives.filter((c) => c.algorithms.length > 2);
  form.replaceChildren(
    html("label", {}, "collective ", html("select", { name: "collective" },
      ...collectives.map((c) => html("option", { value: c.name }, c.name)))),
    html("label", {}, "P ", html("input", { name: "p", type: "number", min: 2, max: 1024, value: 64 })),
    html("label", {}, "size for P curve ", html("input", { name: "size", value: "1M", size: 6 })),
    html("label", {}, "parameters ", html("select", { name: "preset" },
      html("option", { value: "" }, "this cluster's fit"),
      ...Object.entries(fit.presets).map(([name, p]) =>
        html("option", { value: name, title: p.source }, name)))),
    html("label", { hidden: true }, "ranks per node ",
      html("input", { name: "per_node", type: "number", min: 1, max: 1024, size: 4 })),
    html("button", { type: "submit" }, "Predict"));
  // ranks per node shape a preset's two levels: offered with a preset, starting at the preset's own
  const perNode = form.elements.per_node;
  form.elements.preset.onchange = () => {
    const preset = fit.presets[form.elements.preset.value];
    perNode.closest("label").hidden = !preset;
    perNode.value = preset ? preset.per_node : "";
  };
  form.onsubmit = (e) => { e.preventDefault(); show(form, plotly); };
}

async function show(form, plotly) {
  const why = $("predict-why");
  const q = new URLSearchParams();
  for (const name of ["collective", "p", "preset"])
    if (form.elements[name].value) q.set(name, form.elements[name].value);
  if (form.elements.preset.value && form.elements.per_node.value)
    q.set("per_node", form.elements.per_node.value);
  const size = form.elements.size.value.trim();
  if (size) q.set("size", String(parseSize(size)));
  try {
    why.textContent = "predicting…";
    const answer = await api(`/api/model/predict?${q}`);
    await draw(answer, await plotly());
    // a sentence a text node: the page says each in its language (i18n.js)
    why.replaceChildren(...describe(answer).map((sentence, i) => (i ? ` ${sentence}` : sentence)));
  } catch (err) {
    refusal(why, err);
  }
}

/** "1K" → 1024, "4M" → 4194304 (a bad one: the server's answer names the field). */
function parseSize(text) {
  const m = /^\s*([\d.]+)\s*([KMG]?)/i.exec(text);
  if (!m) return text;
  return Math.round(Number(m[1]) * ({ K: 1024, M: 1 << 20, G: 1 << 30 }[m[2].toUpperCase()] ?? 1));
}

const gbps = (perByte) => (perByte ? (1 / perByte / 1e9).toFixed(2) : "∞");

/** Where the answer's numbers come from, in sentences the i18n tables know (the server's words, a
 * preset's links and sources, included). */
export function describe(a) {
  const p = a.params;
  if (a.origin.kind !== "preset") {
    return [`α ${seconds(p.alpha)} a step, β ${gbps(p.beta)} GB/s, γ ${gbps(p.gamma)} GB/s reduced — `
      + `${p.source}. Every schedule cut into the chunks it runs fastest with (as chunks: auto).`];
  }
  const alpha = (l) => Object.entries(l.alpha).map(([k, v]) => `${seconds(v)} ${k}`).join(", ");
  const level = (where, l) => `${where}, ${l.link}: α ${alpha(l)} a step, β ${gbps(l.beta)} GB/s.`;
  const { name, per_node: n } = a.origin;
  return [n === 1 ? `preset ${name}, 1 rank a node, NCCL ${p.nccl}.` : `preset ${name}, ${n} ranks a node, NCCL ${p.nccl}.`,
    level("Inside a node", p.inside), level("Between nodes", p.between), `γ ${gbps(p.gamma)} GB/s reduced.`,
    `Sources: ${p.source}.`,
    "Every schedule cut into the chunks it runs fastest with (as chunks: auto), with the protocol NCCL would pick.",
    ...(a.native ? [`Native: ${a.native.source}.`] : [])];
}

/** "ring ×16 · LL128" for one point of a curve. */
const way = (w) =>
  `${w.algorithm}${w.chunks > 1 ? ` ×${w.chunks}` : ""}${w.protocol ? ` · ${w.protocol}` : ""}`;

async function draw(a, Plotly) {
  const algorithms = Object.keys(a.versus_size);
  const t = chartTheme();
  const layout = (title, x) => ({ ...t, height: 320, title: { text: title, font: { size: 13 } },
    xaxis: { ...t.xaxis, type: "log", title: { text: x } },
    yaxis: { ...t.yaxis, type: "log", title: { text: "time (µs)" } } });
  const curves = (x, times, f, more) => algorithms.map((name, i) => ({ x, y: times[name].map(f), name,
    mode: "lines+markers", line: { color: colour(i), width: 2 }, legendgroup: name, ...more }));
  const bySize = curves(a.sizes, a.versus_size, (s) => s * 1e6);
  bySize.forEach((trace) => { trace.text = a.ways[trace.name].map(way); });
  if (a.native) {
    const nccl = a.native.kind === "nccl";
    bySize.push({ x: a.sizes, y: a.native.times.map((s) => s * 1e6), mode: "lines",
      name: nccl ? "native: NCCL's choice" : `native: measured line (${a.native.runs} runs)`,
      text: nccl ? a.native.chosen.map(way) : undefined,
      line: { color: colour(algorithms.length), dash: "dot" } });
  }
  await Plotly.react($("predict-size"), bySize,
    layout(`time against size at P=${a.p}`, "bytes per rank"), CONFIG);
  const byP = curves(a.ps, a.versus_p, (s) => (s == null ? null : s * 1e6), { showlegend: false });
  await Plotly.react($("predict-p"), byP,
    layout(`time against P at ${bytes(a.size)} per rank`, "ranks (P)"), CONFIG);
  $("predict-crossovers").replaceChildren(...(a.crossovers.length
    ? a.crossovers.map((c) => html("li", { "data-size": c.size }, c.text))
    : [html("li", {},
      `one algorithm is fastest from ${bytes(a.sizes[0])} to ${bytes(a.sizes.at(-1))} at P=${a.p}`)]));
}
