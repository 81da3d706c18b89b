// Data-parallel training: the presenter's Train panel, charts that grow as the ranks report each
// step, a step's gradient sync opened on the stage, and the methods compared. Which methods exist,
// and which one has servers, is the catalog's to say (catalog.training): this page names none.

import { api } from "rs/api.js";
import { plotly, chartTheme, CONFIG } from "rs/charts.js";
import { byteUnit, bytes, colour } from "rs/format.js";
import { $, html, say, select } from "rs/dom.js";

const FLUSH_MS = 50; // steps that arrive together are drawn together
const COMPARED = [ // what the comparison shows of a result: key, heading, how to write it
  ["step_ms", "time per step", (v) => `${v.toFixed(2)} ms`],
  ["comm_share", "communication share", (v) => `${(v * 100).toFixed(1)}%`],
  ["busiest_link_bytes", "busiest link", bytes],
  ["final_loss", "final loss", (v) => v.toFixed(3)],
  ["test_accuracy", "held-out accuracy", (v) => `${(v * 100).toFixed(1)}%`],
];

// a diverged loss crosses JSON as "inf" or "nan": said as it is
const fixed = (v, digits) => (v == null ? "–" : typeof v === "number" ? v.toFixed(digits) : String(v));
const percent = (v) => (v == null ? null : v * 100);
/** One rank's `key` at each of `steps`, through `f`. */
const per = (steps, r, key, f = (v) => v) => steps.map((s) => f(s.ranks[r]?.[key] ?? null));

export class Training {
  catalog = null; // catalog.training
  world = 0;
  ended = new Set();
  presenter = false;
  shown = null; // the training on the charts, grown by train_step
  loading = null; // {id, early: train_steps that came before its GET answered}
  plotted = 0; // steps of `shown` the charts hold; -1: not drawn yet
  charting = Promise.resolve(); // chart work, one call after another
  flushing = null;
  inView = false;
  queue = []; // "compare all methods": specs not accepted yet
  queued = 0; // how many it held when it was made
  pumping = false;
  again = false;
  retry = null;
  mine = null; // the training this page last submitted
  compared = null; // the comparison's rows
  unit = [1, "B"]; // the bytes chart's, fixed when it is drawn

  /** `openRun(run)` puts a Run on the stage; `onShown()`: another training is on the charts. */
  constructor(openRun, onShown) {
    this.openRun = openRun;
    this.onShown = onShown;
    // Drawn once in view: parsing plotly.js would stall the stage's animation.
    new IntersectionObserver((entries) => {
      this.inView = entries.some((e) => e.isIntersecting);
      if (this.inView && this.plotted < 0) this.chart(() => this.draw());
    }).observe($("training-charts"));
    // A new theme: the charts take its ink.
    new MutationObserver(() => {
      if (this.plotted >= 0) this.chart(() => this.draw());
      if (this.compared) this.chart(() => this.drawComparison(this.compared));
    }).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    $("train-open").onclick = () => this.openStep(Number($("train-step").value));
  }

  // ---- the catalog, the role, the late joiner

  setCatalog(catalog, presenter) {
    this.catalog = catalog.training ?? null;
    this.world = catalog.world_size;
    this.ended = new Set(catalog.run_states.ended);
    this.presenter = presenter;
    this.renderForm();
  }

  /** The live feed (re)opened: the role is known; what was trained meanwhile is fetched. */
  async connected(presenter) {
    if (presenter !== this.presenter) {
      this.presenter = presenter;
      this.renderForm();
    }
    if (!this.catalog) return; // a server that trains nothing
    if (this.queue.length) this.pump(); // an end may have been missed while the feed was down
    const [newest] = await this.list();
    if (newest && newest.id !== this.shown?.id) this.open(newest.id);
    else if (this.shown) this.open(this.shown.id); // steps may have come while the feed was down
  }

  /** Every training the server keeps (newest first), compared; [] if it could not say. */
  async list() {
    try {
      const { trainings } = await api("/api/trainings?limit=100");
      this.compare(trainings);
      return trainings;
    } catch (err) {
      say("train-status", `Could not list the trainings: ${err.reason ?? err}`);
      return [];
    }
  }

  onMessage(m) {
    if (m.type === "training") this.onSummary(m.training);
    else if (m.type === "train_step") this.onStep(m.id, m.step);
  }

  // ---- the Train panel (presenter only)

  renderForm() {
    const t = this.catalog;
    const panel = $("train-panel");
    panel.hidden = !this.presenter || !t;
    const form = $("train-form");
    if (panel.hidden) { form.replaceChildren(); return; }
    const previous = Object.fromEntries(new FormData(form));
    const v = (k) => previous[k] ?? t.defaults[k];
    const input = (k, attrs) => html("input", { type: "number", value: v(k) ?? "", ...attrs });
    const rows = [ // name, control, title, label
      ["method", select(t.methods, v("method")), "how the gradients are synced"],
      ["servers", input("servers", { min: 1, max: Math.max(1, this.world - 1) }), "S: ranks that hold a shard of the weights", "servers (S)"],
      ["hidden", input("hidden", { min: 1, max: t.max_hidden }), "width of the MLP's two hidden layers"],
      ["steps", input("steps", { min: 1, max: t.max_steps }), "SGD steps"],
      ["lr", input("lr", { step: "any" }), "learning rate", "learning rate"],
      ["batch", input("batch", { min: 1, max: t.max_batch }), "samples per step, over every rank that computes"],
    ];
    form.replaceChildren();
    for (const [name, control, title, words = name] of rows) {
      Object.assign(control, { name, id: `train-${name}` });
      control.dataset.row = name;
      form.append(html("label", { for: control.id, title, "data-row": name }, words), control,
        html("div", { class: "error", "data-train-error": name, "data-row": name }));
    }
    const train = html("button", { type: "submit", id: "train" }, "Train");
    const all = html("button", { type: "button", id: "train-all", title: "one training per method with these settings, one after another",
      onclick: () => this.compareAll() }, "Compare all methods");
    train.disabled = all.disabled = !this.world;
    form.append(train, all);
    form.onsubmit = (e) => { e.preventDefault(); this.submit(this.spec()); };
    form.elements.method.onchange = () => this.showServers();
    this.showServers();
    say("train-why", this.world ? "" : "No ranks are connected yet.");
  }

  /** S only for the method that has servers. */
  showServers() {
    const ps = $("train-form").elements.method.value === this.catalog.parameter_server;
    document.querySelectorAll('#train-form [data-row="servers"]').forEach((el) => { el.hidden = !ps; });
  }

  spec() {
    const f = $("train-form").elements;
    const spec = { method: f.method.value };
    if (spec.method === this.catalog.parameter_server) spec.servers = Number(f.servers.value);
    for (const k of ["hidden", "steps", "lr", "batch"]) spec[k] = f[k].value === "" ? null : Number(f[k].value);
    return spec;
  }

  /** POST one training; a refusal is shown beside its field. Returns the answer, or null. */
  async submit(spec, { quiet409 = false } = {}) {
    document.querySelectorAll("[data-train-error]").forEach((e) => (e.textContent = ""));
    say("train-why", "");
    try {
      const accepted = await api("/api/trainings", { method: "POST", body: spec });
      this.mine = accepted.id;
      say("train-why", `${accepted.id}: ${accepted.state}`);
      $("training").scrollIntoView?.({ block: "start", behavior: "smooth" });
      return accepted;
    } catch (err) {
      if (err.status === 409 && quiet409) throw err;
      const field = String(err.field ?? "").split(".")[0];
      const slot = document.querySelector(`[data-train-error="${field}"]`) ?? $("train-why");
      slot.textContent = err.reason ?? String(err);
      return null;
    }
  }

  /** One training per method (the servers one twice: S = 1 and P-1), each submitted once the
   * one before it has ended. */
  compareAll() {
    const base = this.spec();
    const ps = this.catalog.parameter_server;
    this.queue = this.catalog.methods.filter((m) => m !== ps).map((method) => ({ ...base, method, servers: undefined }));
    const shards = [...new Set([1, this.world - 1])].filter((s) => s >= 1 && s <= this.world - 1);
    if (this.catalog.methods.includes(ps)) this.queue.push(...shards.map((servers) => ({ ...base, method: ps, servers })));
    this.queued = this.queue.length;
    this.pump();
  }

  /** Submit the next queued training, if the cluster takes it. */
  async pump() {
    clearTimeout(this.retry);
    if (this.pumping) { this.again = true; return; } // an end heard while a POST was out: once more after it
    if (!this.queue.length) return;
    this.pumping = true;
    try {
      if (await this.submit(this.queue[0], { quiet409: true })) this.queue.shift();
      else this.queue = []; // refused: the reason is shown beside its field
    } catch {
      // Busy (409): the next training's end pumps again; a collective run sends none: a slow retry.
      this.retry = setTimeout(() => this.pump(), 1500);
    } finally {
      this.pumping = false;
    }
    const left = this.queue.length;
    if (this.queued) say("train-why", `compare all methods: ${this.queued - left} of ${this.queued} submitted${left ? ", each when the one before has ended" : ""}`);
    if (!left) this.queued = 0;
    if (this.again) { this.again = false; this.pump(); }
  }

  // ---- live: a training's state and steps

  onSummary(summary) {
    if (summary.id === this.mine && !this.queued) say("train-why", `${summary.id}: ${summary.state}${summary.error ? ` (${summary.error})` : ""}`);
    if (this.shown?.id === summary.id) {
      Object.assign(this.shown, summary);
      this.status();
    } else if (summary.state === "running" || (!this.shown && !this.loading)) {
      this.open(summary.id);
    }
    if (this.ended.has(summary.state)) {
      this.list();
      if (this.queue.length) this.pump();
    }
  }

  onStep(id, step) {
    if (this.loading?.id === id) this.loading.early.push(step);
    else if (this.shown?.id !== id) this.open(id); // a training whose start this page missed
    else this.add(step);
  }

  add(step) {
    const steps = this.shown.steps;
    if (steps.length && step.step <= steps.at(-1).step) return; // known (a GET and the feed overlap)
    steps.push(step);
    this.status();
    this.flushing ??= setTimeout(() => { this.flushing = null; this.chart(() => this.extend()); }, FLUSH_MS);
  }

  /** Show a training: its detail from the server, then whatever the feed adds. */
  async open(id) {
    const loading = (this.loading = { id, early: [] });
    let detail;
    try {
      detail = await api(`/api/trainings/${id}`);
    } catch (err) {
      if (this.loading === loading) this.loading = null;
      say("train-status", `Could not open training ${id}: ${err.reason ?? err}`);
      return;
    }
    if (this.loading !== loading) return; // a newer one was asked for meanwhile
    this.loading = null;
    this.shown = detail;
    this.onShown();
    this.plotted = -1;
    $("training").hidden = false;
    for (const step of loading.early) this.add(step);
    this.status();
    this.list();
    if (this.inView) this.chart(() => this.draw());
  }

  status() {
    const t = this.shown, s = t.spec, last = t.steps.at(-1);
    const parts = [`${t.id} · ${label(s, this.catalog)} · ${t.world_size} ranks · hidden ${s.hidden} (${t.parameters} parameters)`,
      `${t.state}: step ${t.steps.length} of ${s.steps}`, last ? `loss ${fixed(last.loss, 3)}` : null,
      t.result ? `held-out accuracy ${(t.result.test_accuracy * 100).toFixed(1)}%` : null, t.error ? `error: ${t.error}` : null];
    say("train-status", parts.filter(Boolean).join(" · "));
    $("train-status").dataset.state = t.state;
    $("train-step").max = Math.max(0, t.steps.length - 1);
  }

  /** The presenter's page shows training `id`. */
  follow(id) {
    if (id && id !== this.shown?.id && id !== this.loading?.id) this.open(id);
  }

  /** T: the charts over everything (in lecture mode too), or not. */
  showOverlay(on) {
    document.body.classList.toggle("training-shown", on);
    if (on && !this.shown) say("train-status", "No training yet: the presenter starts one from the Train panel.");
    if (this.plotted >= 0 && window.Plotly) {
      for (const chart of document.querySelectorAll("#training-charts .chart")) if (chart.offsetParent) window.Plotly.Plots.resize(chart);
    }
  }

  // ---- the charts

  chart(work) {
    this.charting = this.charting.then(work).catch((err) => say("train-status", `charts: ${err.message ?? err}`));
  }

  ranks() {
    const workers = this.shown.workers ?? [], servers = this.shown.servers ?? [];
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
    const t = this.shown;
    if (!t || !this.inView) return;
    const Plotly = await plotly();
    const { workers, servers, all } = this.ranks();
    const theme = chartTheme();
    const steps = t.steps.slice(); // those that arrive while plotly draws are extend()'s
    const xs = steps.map((s) => s.step);
    this.unit = byteUnit(t.parameters * 4 * Math.max(1, t.world_size - 1));
    const ys = this.series(steps);
    // The legend beside a chart, or under it on a phone.
    const narrow = matchMedia("(max-width: 900px)").matches;
    const layout = (title, y, extra = {}) => ({ ...theme, title: { text: title, font: { size: 13 } }, height: narrow ? 360 : 260,
      margin: { ...theme.margin, r: narrow ? 12 : 130 }, legend: narrow ? { orientation: "h", y: -0.3, font: { size: 11 } } : { x: 1.02, y: 1, font: { size: 11 } },
      xaxis: { ...theme.xaxis, title: { text: "step" } },
      yaxis: { ...theme.yaxis, title: { text: y }, rangemode: "tozero" }, ...extra });
    const lines = ([mean, ...ranks]) => [
      { x: xs, y: mean, name: "all workers", mode: "lines", line: { width: 3, color: theme.font.color } },
      ...workers.map((r, i) => ({ x: xs, y: ranks[i], name: `rank ${r}`, mode: "lines", line: { width: 1.2, color: colour(r) } })),
      // A server computes no loss: its legend entry says so. One empty point keeps the entry (plotly
      // drops a trace without points); last, so extend() never grows it.
      ...servers.map((r) => ({ x: [0], y: [null], name: `server ${r}: no loss`, mode: "lines", line: { width: 1.2, dash: "dot", color: colour(r) } })),
    ];
    await Plotly.react($("train-loss"), lines(ys["train-loss"]), layout("loss per rank (click a step to open its gradient sync)", "cross-entropy"), CONFIG);
    await Plotly.react($("train-accuracy"), lines(ys["train-accuracy"]), layout("accuracy per rank, on its part of the batch", "%", { yaxis: { ...theme.yaxis, title: { text: "%" }, range: [0, 100] } }), CONFIG);
    const [compute, comm] = ys["train-time"];
    await Plotly.react($("train-time"), [
      { type: "bar", x: xs, y: compute, name: "compute", marker: { color: "#0072B2" } },
      { type: "bar", x: xs, y: comm, name: "communication", marker: { color: "#D55E00" } },
    ], layout("step time: compute and communication", "ms", { barmode: "stack", bargap: 0.1 }), CONFIG);
    const unreported = steps.length > 0 && steps.every((s) => all.every((r) => s.ranks[r]?.bytes_sent == null));
    await Plotly.react($("train-bytes"), all.flatMap((r, i) => [
      { x: xs, y: ys["train-bytes"][2 * i], name: `${who(r, servers)} sent`, mode: "lines", line: { color: colour(r), width: 2 } },
      { x: xs, y: ys["train-bytes"][2 * i + 1], name: `${who(r, servers)} received`, mode: "lines", line: { color: colour(r), width: 2, dash: "dot" } },
    ]), layout("bytes per rank per step: sent (solid), received (dotted)", this.unit[1], { annotations: unreported ? [{
      text: "this method is the backend's own call: it does not report its bytes", xref: "paper", yref: "paper", x: 0.5, y: 0.5, showarrow: false }] : [] }), CONFIG);
    if (this.shown !== t) return; // another training took the charts: its draw follows
    this.plotted = steps.length;
    for (const id of ["train-loss", "train-accuracy", "train-time"]) {
      const el = $(id);
      el.removeAllListeners?.("plotly_click");
      el.on("plotly_click", (e) => { if (e.points?.length) this.openStep(e.points[0].x); });
    }
  }

  /** The steps that came since the charts were drawn, appended: no redraw. */
  async extend() {
    const t = this.shown;
    if (!t || this.plotted < 0) return;
    const fresh = t.steps.slice(this.plotted);
    if (!fresh.length) return;
    const Plotly = await plotly();
    if (this.shown !== t) return; // likewise
    const xs = fresh.map((s) => s.step);
    for (const [id, ys] of Object.entries(this.series(fresh))) await Plotly.extendTraces($(id), { x: ys.map(() => xs), y: ys }, ys.map((_, i) => i));
    if (this.shown === t) this.plotted += fresh.length;
  }

  // ---- a step's gradient sync on the stage

  async openStep(k) {
    const t = this.shown;
    if (!t) return;
    say("train-sync-why", "");
    try {
      this.openRun(await api(`/api/trainings/${t.id}/steps/${k}/sync`));
      scrollTo({ top: 0 }); // up to the stage, first in every layout
      say("train-sync-why", `${t.id}, step ${k}: its gradient sync (${label(t.spec, this.catalog)}) is on the stage; step through it with the player`);
    } catch (err) {
      say("train-sync-why", `step ${k}: ${err.reason ?? err}`);
    }
  }

  // ---- the comparison

  /** The newest finished training of each method like the one shown (same hidden, P, steps). */
  compare(trainings) {
    const ref = this.shown ?? trainings.find((t) => t.state === "done");
    const same = (t) => t.state === "done" && t.result && t.spec.hidden === ref.spec.hidden && t.world_size === ref.world_size
      && t.spec.steps === ref.spec.steps;
    const newest = new Map();
    for (const t of ref ? trainings.filter(same) : []) {
      const key = label(t.spec, this.catalog);
      if (!newest.has(key)) newest.set(key, t); // the list is newest first
    }
    const order = this.catalog?.methods ?? [];
    const rows = [...newest.values()].sort((a, b) => order.indexOf(a.spec.method) - order.indexOf(b.spec.method) || (a.spec.servers - b.spec.servers));
    $("train-compare").hidden = !rows.length;
    this.compared = rows.length ? rows : null;
    if (!rows.length) return;
    $("training").hidden = false;
    say("train-compare-what", `hidden ${ref.spec.hidden} (${ref.parameters} parameters) · P = ${ref.world_size} · ${ref.spec.steps} steps: ${rows.length} method${rows.length > 1 ? "s" : ""} finished`);
    $("train-table").replaceChildren( // data-head: for a phone (CSS .reflow)
      html("thead", {}, html("tr", {}, html("th", {}, "method"), COMPARED.map(([, head]) => html("th", {}, head)), html("th", {}, "training"))),
      html("tbody", {}, rows.map((t) => html("tr", { "data-training": t.id },
        html("td", {}, label(t.spec, this.catalog)),
        COMPARED.map(([key, head, write]) => html("td", { "data-head": head }, t.result[key] == null ? "–" : write(t.result[key]))),
        html("td", { "data-head": "training" }, t.id)))));
    this.chart(() => this.drawComparison(rows));
  }

  async drawComparison(rows) {
    const Plotly = await plotly();
    const theme = chartTheme();
    const names = rows.map((t) => label(t.spec, this.catalog));
    const [scale, unit] = byteUnit(Math.max(...rows.map((t) => t.result.busiest_link_bytes ?? 0)));
    const panels = [["step_ms", "time per step (ms)", 1], ["comm_share", "communication share (%)", 100],
      ["busiest_link_bytes", `busiest link (${unit})`, 1 / scale], ["final_loss", "final loss", 1], ["test_accuracy", "held-out accuracy (%)", 100]];
    const traces = panels.map(([key, title, factor], i) => ({
      type: "bar", x: names, y: rows.map((t) => (t.result[key] == null ? null : t.result[key] * factor)), name: title,
      xaxis: `x${i + 1}`, yaxis: `y${i + 1}`, marker: { color: names.map((_, j) => colour(j)) }, showlegend: false,
      hovertemplate: `%{x}<br>${title}: %{y:.3g}<extra></extra>` }));
    const narrow = matchMedia("(max-width: 900px)").matches; // a phone: the panels one under another
    const layout = { ...theme, height: narrow ? 260 * panels.length : 340, margin: { ...theme.margin, b: 20 },
      grid: { rows: narrow ? panels.length : 1, columns: narrow ? 1 : panels.length, pattern: "independent", ygap: 0.45 },
      annotations: panels.map(([, title], i) => ({ text: title, xref: `x${i + 1} domain`, yref: `y${i + 1} domain`, x: 0.5, y: 1.12,
        showarrow: false, font: { size: 12 } })) };
    for (let i = 1; i <= panels.length; i++) { // plotly calls the first axes "xaxis" and "yaxis", not "xaxis1"
      layout[`xaxis${i > 1 ? i : ""}`] = { ...theme.xaxis, tickangle: -40, automargin: true };
      layout[`yaxis${i > 1 ? i : ""}`] = { ...theme.yaxis, rangemode: "tozero" };
    }
    await Plotly.react($("train-compare-chart"), traces, layout, CONFIG);
  }
}

/** A method as the page writes it: its name, and S for the one that has servers. */
function label(spec, catalog) {
  return spec.method === catalog?.parameter_server ? `${spec.method} S=${spec.servers}` : spec.method;
}

const who = (r, servers) => (servers.includes(r) ? `server ${r}` : `rank ${r}`);
