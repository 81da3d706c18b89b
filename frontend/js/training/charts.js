// The training's charts, grown as the ranks report each step (a click on a step opens its
// gradient sync), the methods compared: a table and a chart of the finished trainings, and the
// trainings of one "compare all methods" side by side: a loss curve each and each rank's traffic.

import { api } from "rs/core/api.js";
import { $, html, reason, say, sayEach } from "rs/core/dom.js";
import { bytes, byteUnit, colour } from "rs/core/format.js";
import { CONFIG, chartTheme, plotly } from "rs/panels/charts.js";

const FLUSH_MS = 50; // steps that arrive together are drawn together
const COMPARED = [ // what the comparison shows of a result: key, heading, how to write it
  ["step_ms", "time per step", (v) => `${v.toFixed(2)} ms`],
  ["comm_share", "communication share", (v) => `${(v * 100).toFixed(1)}%`],
  ["busiest_link_bytes", "busiest link", bytes],
  ["final_loss", "final loss", (v) => v.toFixed(3)],
  ["test_accuracy", "held-out accuracy", (v) => `${(v * 100).toFixed(1)}%`],
];

const DASHES = ["solid", "dot", "dash", "longdash", "dashdot", "longdashdot"]; // coinciding curves, each seen
// the bytes a rank's link carried a step, the busier way (as the busiest link is counted)
const busier = (r) => (r.sent == null || r.received == null ? null : Math.max(r.sent, r.received));

const percent = (v) => (v == null ? null : v * 100);
/** One rank's `key` at each of `steps`, through `f`. */
const per = (steps, r, key, f = (v) => v) => steps.map((s) => f(s.ranks[r]?.[key] ?? null));
const who = (r, servers) => (servers.includes(r) ? `server ${r}` : `rank ${r}`);

/** A method as the page writes it: its name, and S for the one that has servers. */
export function label(spec, catalog) {
  return spec.method === catalog?.parameter_server ? `${spec.method} S=${spec.servers}` : spec.method;
}

export class TrainCharts {
  plotted = 0; // steps of the feed's shown training the charts hold; -1: not drawn yet
  charting = Promise.resolve(); // chart work, one call after another
  flushing = null;
  inView = false;
  compared = null; // the comparison's rows
  side = null; // the trainings of one "compare all methods" side by side (GET /api/trainings/compared)
  unit = [1, "B"]; // the bytes chart's, fixed when it is drawn

  /** `feed` (the Training) has the training shown, the catalog, and opens a step's sync. */
  constructor(feed) {
    this.feed = feed;
    // Drawn once in view: parsing plotly.js would stall the stage's animation.
    new IntersectionObserver((entries) => {
      this.inView = entries.some((e) => e.isIntersecting);
      if (this.inView && this.plotted < 0) this.chart(() => this.draw());
    }).observe($("training-charts"));
  }

  /** Another training on the charts: drawn from scratch (now, if they are in view). */
  reset() {
    this.plotted = -1;
    if (this.inView) this.chart(() => this.draw());
  }

  /** The shown training's new steps: appended a moment later, with any that follow them. */
  grown() {
    this.flushing ??= setTimeout(() => { this.flushing = null; this.chart(() => this.extend()); }, FLUSH_MS);
  }

  /** A new theme: the charts take its ink. */
  themed() {
    if (this.plotted >= 0) this.chart(() => this.draw());
    if (this.compared) this.chart(() => this.drawComparison(this.compared));
    if (this.side) this.chart(() => this.drawSide(this.side));
  }

  /** T: the charts over everything (in lecture mode too), or not. */
  showOverlay(on) {
    document.body.classList.toggle("training-shown", on);
    if (on && !this.feed.shown) {
      say("train-status", "No training yet: the presenter starts one from the Train panel.");
    }
    if (this.plotted >= 0 && window.Plotly) {
      for (const chart of document.querySelectorAll("#training-charts .chart")) {
        if (chart.offsetParent) window.Plotly.Plots.resize(chart);
      }
    }
  }

  chart(work) {
    this.charting = this.charting.then(work).catch((err) =>
      $("train-status").replaceChildren("charts: ", reason(err)));
  }

  ranks() {
    const workers = this.feed.shown.workers ?? [], servers = this.feed.shown.servers ?? [];
    return { workers, servers, all: [...servers, ...workers].sort((a, b) => a - b) };
  }

  /** Each chart's series over `steps`, in its traces' order: for draw() and extend(). */
  series(steps) {
    const { workers, all } = this.ranks();
    const b = (v) => (v == null ? null : v / this.unit[0]);
    const lines = (key, f) => [steps.map((s) => f(s[key])), ...workers.map((r) => per(steps, r, key, f))];
    return {
      "train-loss": lines("loss", (v) => v),
      "train-accuracy": lines("accuracy", percent),
      "train-time": [steps.map((s) => s.compute_s * 1e3), steps.map((s) => s.comm_s * 1e3)],
      "train-bytes": all.flatMap((r) => [per(steps, r, "bytes_sent", b), per(steps, r, "bytes_received", b)]),
    };
  }

  /** Every chart from scratch, with every step known so far. */
  async draw() {
    const t = this.feed.shown;
    if (!t || !this.inView) return;
    const Plotly = await plotly();
    const { workers, servers, all } = this.ranks();
    const theme = chartTheme();
    const steps = t.steps.slice(); // those that arrive while plotly draws are extend()'s
    const xs = steps.map((s) => s.step);
    this.unit = byteUnit(t.parameters * 4 * Math.max(1, t.world_size - 1));
    const ys = this.series(steps);
    // The legend beside a chart, or under it on a phone.
    const narrow = matchMedia("(max-width: 900px)").matches, font = { size: 11 };
    const layout = (title, y, extra = {}) => ({ ...theme, title: { text: title, font: { size: 13 } },
      height: narrow ? 360 : 260, margin: { ...theme.margin, r: narrow ? 12 : 130 },
      legend: narrow ? { orientation: "h", y: -0.3, font } : { x: 1.02, y: 1, font },
      xaxis: { ...theme.xaxis, title: { text: "step" } },
      yaxis: { ...theme.yaxis, title: { text: y }, rangemode: "tozero" }, ...extra });
    const line = (name, y, width, color, x = xs, dash) => ({ x, y, name, mode: "lines",
      line: { width, color, dash } });
    const lines = ([mean, ...ranks]) => [
      line("all workers", mean, 3, theme.font.color),
      ...workers.map((r, i) => line(`rank ${r}`, ranks[i], 1.2, colour(r))),
      // A server computes no loss: its legend entry says so. One empty point keeps the entry (plotly
      // drops a trace without points); last, so extend() never grows it.
      ...servers.map((r) => line(`server ${r}: no loss`, [null], 1.2, colour(r), [0], "dot")),
    ];
    const react = (id, traces, ...titles) => Plotly.react($(id), traces, layout(...titles), CONFIG);
    await react("train-loss", lines(ys["train-loss"]),
      "loss per rank (click a step to open its gradient sync)",
      "cross-entropy");
    await react("train-accuracy", lines(ys["train-accuracy"]),
      "accuracy per rank, on its part of the batch", "%",
      { yaxis: { ...theme.yaxis, title: { text: "%" }, range: [0, 100] } });
    const [compute, comm] = ys["train-time"];
    await react("train-time", [
      { type: "bar", x: xs, y: compute, name: "compute", marker: { color: "#0072B2" } },
      { type: "bar", x: xs, y: comm, name: "communication", marker: { color: "#D55E00" } },
    ], "step time: compute and communication", "ms", { barmode: "stack", bargap: 0.1 });
    const unreported = steps.length > 0
      && steps.every((s) => all.every((r) => s.ranks[r]?.bytes_sent == null));
    const why = "this method is the backend's own call: it does not report its bytes";
    const middle = { xref: "paper", yref: "paper", x: 0.5, y: 0.5, showarrow: false };
    const annotations = unreported ? [{ text: why, ...middle }] : [];
    await react("train-bytes", all.flatMap((r, i) => [
      line(`${who(r, servers)} sent`, ys["train-bytes"][2 * i], 2, colour(r)),
      line(`${who(r, servers)} received`, ys["train-bytes"][2 * i + 1], 2, colour(r), xs, "dot"),
    ]), "bytes per rank per step: sent (solid), received (dotted)", this.unit[1], { annotations });
    if (this.feed.shown !== t) return; // another training took the charts: its draw follows
    this.plotted = steps.length;
    for (const id of ["train-loss", "train-accuracy", "train-time"]) {
      const el = $(id);
      el.removeAllListeners?.("plotly_click");
      el.on("plotly_click", (e) => { if (e.points?.length) this.feed.openStep(e.points[0].x); });
    }
  }

  /** The steps that came since the charts were drawn, appended: no redraw. */
  async extend() {
    const t = this.feed.shown;
    if (!t || this.plotted < 0) return;
    const fresh = t.steps.slice(this.plotted);
    if (!fresh.length) return;
    const Plotly = await plotly();
    if (this.feed.shown !== t) return; // likewise
    const xs = fresh.map((s) => s.step);
    for (const [id, ys] of Object.entries(this.series(fresh))) {
      await Plotly.extendTraces($(id), { x: ys.map(() => xs), y: ys }, ys.map((_, i) => i));
    }
    if (this.feed.shown === t) this.plotted += fresh.length;
  }

  // ---- the comparison

  /** The newest finished training of each method like the one shown (same hidden, P, steps). */
  compare(trainings) {
    const ref = this.feed.shown ?? trainings.find((t) => t.state === "done");
    const same = (t) => t.state === "done" && t.result && t.spec.hidden === ref.spec.hidden
      && t.world_size === ref.world_size && t.spec.steps === ref.spec.steps;
    const newest = new Map();
    for (const t of ref ? trainings.filter(same) : []) {
      const key = label(t.spec, this.feed.catalog);
      if (!newest.has(key)) newest.set(key, t); // the list is newest first
    }
    const order = this.feed.catalog?.methods ?? [];
    const rows = [...newest.values()].sort((a, b) =>
      order.indexOf(a.spec.method) - order.indexOf(b.spec.method)
      || (a.spec.servers - b.spec.servers));
    $("train-compare").hidden = !rows.length;
    this.compared = rows.length ? rows : null;
    if (!rows.length) return;
    $("training").hidden = false;
    const methods = `${rows.length} method${rows.length > 1 ? "s" : ""} finished`;
    sayEach("train-compare-what", [`hidden ${ref.spec.hidden} (${ref.parameters} parameters)`,
      `P = ${ref.world_size}`, `${ref.spec.steps} steps: ${methods}`]);
    const heads = ["method", ...COMPARED.map(([, head]) => head), "training"];
    $("train-table").replaceChildren( // data-head: for a phone (CSS .reflow)
      html("thead", {}, html("tr", {}, heads.map((head) => html("th", {}, head)))),
      html("tbody", {}, rows.map((t) => html("tr", { "data-training": t.id },
        html("td", {}, label(t.spec, this.feed.catalog)),
        COMPARED.map(([key, head, write]) => html("td", { "data-head": head },
          t.result[key] == null ? "–" : write(t.result[key]))),
        html("td", { "data-head": "training" }, t.id)))));
    this.chart(() => this.drawComparison(rows));
  }

  async drawComparison(rows) {
    const Plotly = await plotly();
    const theme = chartTheme();
    const names = rows.map((t) => label(t.spec, this.feed.catalog));
    const [scale, unit] = byteUnit(Math.max(...rows.map((t) => t.result.busiest_link_bytes ?? 0)));
    const panels = [["step_ms", "time per step (ms)", 1], ["comm_share", "communication share (%)", 100],
      ["busiest_link_bytes", `busiest link (${unit})`, 1 / scale], ["final_loss", "final loss", 1],
      ["test_accuracy", "held-out accuracy (%)", 100]];
    const traces = panels.map(([key, title, factor], i) => ({
      type: "bar", x: names, name: title, xaxis: `x${i + 1}`, yaxis: `y${i + 1}`, showlegend: false,
      y: rows.map((t) => (t.result[key] == null ? null : t.result[key] * factor)),
      marker: { color: names.map((_, j) => colour(j)) },
      hovertemplate: `%{x}<br>${title}: %{y:.3g}<extra></extra>` }));
    const narrow = matchMedia("(max-width: 900px)").matches; // a phone: the panels one under another
    const layout = { ...theme, height: narrow ? 260 * panels.length : 340, margin: { ...theme.margin, b: 20 },
      grid: { rows: narrow ? panels.length : 1, columns: narrow ? 1 : panels.length, pattern: "independent",
        ygap: 0.45 },
      annotations: panels.map(([, title], i) => ({ text: title, xref: `x${i + 1} domain`,
        yref: `y${i + 1} domain`,
        x: 0.5, y: 1.12, showarrow: false, font: { size: 12 } })) };
    // plotly calls the first axes "xaxis" and "yaxis", not "xaxis1"
    for (let i = 1; i <= panels.length; i++) {
      layout[`xaxis${i > 1 ? i : ""}`] = { ...theme.xaxis, tickangle: -40, automargin: true };
      layout[`yaxis${i > 1 ? i : ""}`] = { ...theme.yaxis, rangemode: "tozero" };
    }
    await Plotly.react($("train-compare-chart"), traces, layout, CONFIG);
  }

  // ---- one "compare all methods" side by side

  /** The trainings `ids`, one a method on the same data, side by side, in view over the stage. */
  async showSide(ids) {
    $("train-side").hidden = $("training").hidden = false;
    try {
      this.side = await api(`/api/trainings/compared?ids=${ids.join(",")}`);
    } catch (err) {
      $("train-side-what").replaceChildren("Could not compare the trainings: ", reason(err));
      return;
    }
    const c = this.side, spread = c.loss_spread;
    const silent = c.methods.filter((m) => !m.busiest).map((m) => m.method);
    sayEach("train-side-what", [`hidden ${c.hidden} (${c.parameters} parameters)`, `P = ${c.world_size}`,
      "the same seed, initial weights and batches",
      spread == null ? null : `the losses agree to within ${spread ? spread.toExponential(1) : 0}: `
        + "each method sums the same gradients in its own order",
      ...silent.map((m) => `${m}: the backend's own call does not report its bytes`)]);
    this.chart(() => this.drawSide(c));
    $("train-side").scrollIntoView?.({ block: "start" });
  }

  async drawSide(c) {
    const Plotly = await plotly();
    const theme = chartTheme(), names = c.methods.map((m) => m.method);
    const [scale, unit] = byteUnit(Math.max(0, ...c.methods.flatMap((m) => m.ranks.map((r) => busier(r) ?? 0))));
    const layout = (title, x, y, extra = {}) => ({ ...theme, height: 300, title: { text: title, font: { size: 13 } },
      margin: { ...theme.margin, r: 12 }, legend: { orientation: "h", y: -0.25, font: { size: 11 } },
      xaxis: { ...theme.xaxis, title: { text: x } }, yaxis: { ...theme.yaxis, title: { text: y } }, ...extra });
    await Plotly.react($("train-side-loss"), c.methods.map((m, i) => ({
      x: m.losses.map((_, k) => k), y: m.losses, name: m.method, mode: "lines",
      line: { color: colour(i), width: 3.5 - 0.4 * (i % 6), dash: DASHES[i % DASHES.length] } })),
    layout("loss per method, step by step, on the same batches", "", "cross-entropy",
      { xaxis: { ...theme.xaxis, dtick: Math.max(1, Math.ceil(c.steps / 10)) } }), CONFIG);
    const ranks = Array.from({ length: c.world_size }, (_, r) => r);
    await Plotly.react($("train-side-traffic"), ranks.map((r) => ({
      type: "bar", x: names, name: `rank ${r}`, marker: { color: colour(r),
        pattern: { shape: c.methods.map((m) => (m.ranks[r].server ? "x" : "")) } },
      y: c.methods.map((m) => (busier(m.ranks[r]) == null ? null : busier(m.ranks[r]) / scale)),
      hovertemplate: `%{x}<br>rank ${r}: %{y:.3g} ${unit}<extra></extra>` })),
    layout("bytes a step on each rank's link, the busier way (crossed: a server)", "", unit,
      { barmode: "group", xaxis: { ...theme.xaxis, tickangle: -30, automargin: true },
        legend: { x: 1.02, y: 1, font: { size: 11 } }, margin: { ...theme.margin, r: 80 } }), CONFIG);
  }
}
