// Data-parallel training on the page: the presenter's Train panel, charts that grow as the
// ranks report each step, any step's gradient sync opened on the stage, and the methods
// compared on finished runs. Which methods exist, and which one has servers, is the
// catalog's to say (catalog.training): this page names none.

import { api } from "rs/api.js";
import { plotly, chartTheme } from "rs/charts.js";
import { byteUnit, bytes, colour } from "rs/format.js";
import { html } from "rs/dom.js";

const $ = (id) => document.getElementById(id);
const CONFIG = { displayModeBar: false, responsive: true };
const FLUSH_MS = 50; // steps that arrive together are drawn together: one extendTraces per chart
const COMPARED = [ // what the comparison shows of a finished training's result: key, heading, how to write it
  ["step_ms", "time per step", (v) => `${v.toFixed(2)} ms`],
  ["comm_share", "communication share", (v) => `${(v * 100).toFixed(1)}%`],
  ["busiest_link_bytes", "busiest link", bytes],
  ["final_loss", "final loss", (v) => v.toFixed(3)],
  ["test_accuracy", "held-out accuracy", (v) => `${(v * 100).toFixed(1)}%`],
];

const number = (v) => (v == null ? null : Number(v));
// a diverged training's loss crosses JSON as "inf" or "nan" (JSON has no word for them): said as it is
const fixed = (v, digits) => (v == null ? "–" : typeof v === "number" ? v.toFixed(digits) : String(v));

export class Training {
  /** `openRun(run)`: put a Run on the stage, as the history does. */
  constructor(openRun) {
    this.openRun = openRun;
    this.catalog = null; // catalog.training, and the world size it was made for
    this.world = 0;
    this.ended = new Set();
    this.presenter = false;
    this.shown = null; // the training on the charts: GET /api/trainings/{id}, grown by train_step
    this.loading = null; // {id, early: train_step messages that came before its GET answered}
    this.plotted = 0; // steps of `shown` the charts hold; -1: not drawn yet
    this.charting = Promise.resolve(); // chart work, one call after another
    this.flushing = null;
    this.inView = false;
    this.queue = []; // "compare all methods": specs the server has not accepted yet
    this.queued = 0; // how many that queue held when it was made
    this.pumping = this.again = false;
    this.retry = null;
    this.mine = null; // the training this page last submitted
    this.compared = null; // the comparison's rows, redrawn when the theme changes
    this.unit = [1, "B"]; // the bytes chart's unit, fixed when it is drawn
    // Charts are drawn once they come into view: parsing plotly.js would stall the stage's animation.
    new IntersectionObserver((entries) => {
      this.inView = entries.some((e) => e.isIntersecting);
      if (this.inView && this.plotted < 0) this.chart(() => this.draw());
    }).observe($("training-charts"));
    // A new theme: the charts take its ink (their backgrounds are transparent).
    new MutationObserver(() => {
      if (this.plotted >= 0) this.chart(() => this.draw());
      if (this.compared) this.chart(() => this.drawComparison(this.compared));
    })
      .observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
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

  /** The live feed (re)opened: the role is known, and what was trained meanwhile is fetched. */
  async connected(presenter) {
    if (presenter !== this.presenter) {
      this.presenter = presenter;
      this.renderForm();
    }
    if (!this.catalog) return; // a server that trains nothing
    if (this.queue.length) this.pump(); // an end may have been missed while the feed was down
    const trainings = await this.list();
    const newest = trainings[0];
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
    const rows = [
      ["method", select(t.methods, v("method")), "how the gradients are synced"],
      ["servers", input(v("servers"), { min: 1, max: Math.max(1, this.world - 1) }), "S: ranks that hold a shard of the weights"],
      ["hidden", input(v("hidden"), { min: 1, max: t.max_hidden }), "width of the MLP's two hidden layers"],
      ["steps", input(v("steps"), { min: 1, max: t.max_steps }), "SGD steps"],
      ["lr", input(v("lr"), { step: "any" }), "learning rate"],
      ["batch", input(v("batch"), { min: 1, max: t.max_batch }), "samples per step, over every rank that computes"],
    ];
    form.replaceChildren();
    for (const [name, control, title] of rows) {
      control.name = name;
      control.id = `train-${name}`;
      const label = html("label", { for: control.id, title }, name === "servers" ? "servers (S)" : name === "lr" ? "learning rate" : name);
      label.dataset.row = name;
      control.dataset.row = name;
      form.append(label, control, html("div", { class: "error", "data-train-error": name, "data-row": name }));
    }
    const train = html("button", { type: "submit", id: "train" }, "Train");
    const all = html("button", { type: "button", id: "train-all", title: "one training per method with these settings, one after another" },
      "Compare all methods");
    train.disabled = all.disabled = !this.world;
    all.onclick = () => this.compareAll();
    form.append(train, all);
    form.onsubmit = (e) => { e.preventDefault(); this.submit(this.spec()); };
    form.elements.method.onchange = () => this.showServers();
    this.showServers();
    say("train-why", this.world ? "" : "No ranks are connected yet.");
  }

  /** S only means something for the method that has servers. */
  showServers() {
    const ps = $("train-form").elements.method.value === this.catalog.parameter_server;
    document.querySelectorAll('#train-form [data-row="servers"]').forEach((el) => { el.hidden = !ps; });
  }

  spec() {
    const f = $("train-form").elements;
    const spec = { method: f.method.value };
    if (spec.method === this.catalog.parameter_server) spec.servers = number(f.servers.value);
    for (const k of ["hidden", "steps", "lr", "batch"]) spec[k] = f[k].value === "" ? null : number(f[k].value);
    return spec;
  }

  /** POST one training; a refusal is shown beside the field it names. Returns the answer, or null. */
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

  /** One training per method with the form's settings (the servers method twice: S = 1 and
   * S = P-1). The cluster trains one at a time: each is submitted when a training message
   * says the one before it ended. */
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
    if (this.pumping) { this.again = true; return; } // an end heard while a POST was out: try once more after it
    if (!this.queue.length) return;
    this.pumping = true;
    try {
      if (await this.submit(this.queue[0], { quiet409: true })) this.queue.shift();
      else this.queue = []; // refused: the reason is shown beside its field
    } catch {
      // Busy (409): the next training message that says one ended pumps again; a collective
      // run holding the cluster sends none, so a slow retry covers that too.
      this.retry = setTimeout(() => this.pump(), 1500);
    } finally {
      this.pumping = false;
    }
    const left = this.queue.length;
    if (this.queued) say("train-why", `compare all methods: ${this.queued - left} of ${this.queued} submitted${left ? ", each when the one before has ended" : ""}`);
    if (!left) this.queued = 0;
    if (this.again) { this.again = false; this.pump(); }
  }

  // ---- live: a training's state, and its steps

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
    if (this.loading?.id === id) { this.loading.early.push(step); return; }
    if (this.shown?.id !== id) { this.open(id); return; } // a training whose start this page missed
    this.add(step);
  }

  add(step) {
    const steps = this.shown.steps;
    if (steps.length && step.step <= steps.at(-1).step) return; // known already (a GET and the feed overlap)
    steps.push(step);
    this.status();
    this.flushing ??= setTimeout(() => { this.flushing = null; this.chart(() => this.extend()); }, FLUSH_MS);
  }

  /** Show a training: its detail from the server, then whatever the feed adds. */
  async open(id) {
    const loading = { id, early: [] };
    this.loading = loading;
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
    this.plotted = -1;
    $("training").hidden = false;
    for (const step of loading.early) this.add(step);
    this.status();
    this.list();
    if (this.inView) this.chart(() => this.draw());
  }

  status() {
    const t = this.shown;
    const s = t.spec, last = t.steps.at(-1);
    const method = label(s, this.catalog);
    const parts = [`${t.id} · ${method} · ${t.world_size} ranks · hidden ${s.hidden} (${t.parameters} parameters)`,
      `${t.state}: step ${t.steps.length} of ${s.steps}`, last ? `loss ${fixed(last.loss, 3)}` : null,
      t.result ? `held-out accuracy ${(t.result.test_accuracy * 100).toFixed(1)}%` : null, t.error ? `error: ${t.error}` : null];
    say("train-status", parts.filter(Boolean).join(" · "));
    $("train-status").dataset.state = t.state;
    $("train-step").max = Math.max(0, t.steps.length - 1);
  }

  /** T: the charts over everything, in lecture mode too (where the panels below are hidden). */
  toggleOverlay() {
    document.body.classList.toggle("training-shown");
    if (!this.shown) say("train-status", "No training yet: the presenter starts one from the Train panel.");
    if (this.plotted >= 0 && window.Plotly) {
      for (const chart of document.querySelectorAll("#training-charts .chart")) window.Plotly.Plots.resize(chart);
    }
  }

  // ---- the charts

  chart(work) {
    this.charting = this.charting.then(work).catch((err) => say("train-status", `charts: ${err.message ?? err}`));
  }

  ranks() {
    const t = this.shown;
    return { workers: t.workers ?? [], servers: t.servers ?? [], all: [...(t.servers ?? []), ...(t.workers ?? [])].sort((a, b) => a - b) };
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
    const per = (r, key) => steps.map((s) => s.ranks[String(r)]?.[key] ?? null);
    // The legend beside a chart, or under it where the page is a phone's column.
    const narrow = matchMedia("(max-width: 900px)").matches;
    const layout = (title, y, extra = {}) => ({ ...theme, title: { text: title, font: { size: 13 } }, height: narrow ? 360 : 260,
      margin: { ...theme.margin, r: narrow ? 12 : 130 }, legend: narrow ? { orientation: "h", y: -0.3, font: { size: 11 } } : { x: 1.02, y: 1, font: { size: 11 } },
      xaxis: { ...theme.xaxis, title: { text: "step" } },
      yaxis: { ...theme.yaxis, title: { text: y }, rangemode: "tozero" }, ...extra });
    const lines = (key, scale) => [
      { x: xs, y: steps.map((s) => scale(s[key])), name: "all workers", mode: "lines", line: { width: 3, color: theme.font.color } },
      ...workers.map((r) => ({ x: xs, y: per(r, key).map(scale), name: `rank ${r}`, mode: "lines", line: { width: 1.2, color: colour(r) } })),
      // A server computes no loss: its legend entry says so. One empty point keeps the entry (plotly
      // drops a trace without points from the legend); last, so extend() never grows it.
      ...servers.map((r) => ({ x: [0], y: [null], name: `server ${r}: no loss`, mode: "lines", line: { width: 1.2, dash: "dot", color: colour(r) } })),
    ];
    const percent = (v) => (v == null ? null : v * 100);
    await Plotly.react($("train-loss"), lines("loss", (v) => v), layout("loss per rank (click a step to open its gradient sync)", "cross-entropy"), CONFIG);
    await Plotly.react($("train-accuracy"), lines("accuracy", percent), layout("accuracy per rank, on its part of the batch", "%", { yaxis: { ...theme.yaxis, title: { text: "%" }, range: [0, 100] } }), CONFIG);
    await Plotly.react($("train-time"), [
      { type: "bar", x: xs, y: steps.map((s) => s.compute_s * 1e3), name: "compute", marker: { color: "#0072B2" } },
      { type: "bar", x: xs, y: steps.map((s) => s.comm_s * 1e3), name: "communication", marker: { color: "#D55E00" } },
    ], layout("step time: compute and communication", "ms", { barmode: "stack", bargap: 0.1 }), CONFIG);
    this.unit = byteUnit(t.parameters * 4 * Math.max(1, t.world_size - 1));
    const [scale, unit] = this.unit;
    const b = (v) => (v == null ? null : v / scale);
    const unreported = steps.length > 0 && steps.every((s) => all.every((r) => s.ranks[String(r)]?.bytes_sent == null));
    await Plotly.react($("train-bytes"), all.flatMap((r) => [
      { x: xs, y: per(r, "bytes_sent").map(b), name: `${who(r, servers)} sent`, mode: "lines", line: { color: colour(r), width: 2 } },
      { x: xs, y: per(r, "bytes_received").map(b), name: `${who(r, servers)} received`, mode: "lines", line: { color: colour(r), width: 2, dash: "dot" } },
    ]), layout("bytes per rank per step: sent (solid), received (dotted)", unit, { annotations: unreported ? [{
      text: "this method is the backend's own call: it does not report its bytes", xref: "paper", yref: "paper", x: 0.5, y: 0.5, showarrow: false }] : [] }), CONFIG);
    if (this.shown !== t) return; // another training took the charts meanwhile: its own draw follows
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
    if (this.shown !== t) return; // another training took the charts: its draw() is queued behind this
    const { workers, all } = this.ranks();
    const xs = fresh.map((s) => s.step);
    const per = (r, key, f = (v) => v) => fresh.map((s) => f(s.ranks[String(r)]?.[key] ?? null));
    const percent = (v) => (v == null ? null : v * 100);
    const grow = (el, ys) => Plotly.extendTraces($(el), { x: ys.map(() => xs), y: ys }, ys.map((_, i) => i));
    await grow("train-loss", [fresh.map((s) => s.loss), ...workers.map((r) => per(r, "loss"))]);
    await grow("train-accuracy", [fresh.map((s) => percent(s.accuracy)), ...workers.map((r) => per(r, "accuracy", percent))]);
    await grow("train-time", [fresh.map((s) => s.compute_s * 1e3), fresh.map((s) => s.comm_s * 1e3)]);
    const b = (v) => (v == null ? null : v / this.unit[0]);
    await grow("train-bytes", all.flatMap((r) => [per(r, "bytes_sent", b), per(r, "bytes_received", b)]));
    if (this.shown === t) this.plotted += fresh.length;
  }

  // ---- one step's gradient sync, on the stage

  async openStep(k) {
    const t = this.shown;
    if (!t) return;
    say("train-sync-why", "");
    try {
      const run = await api(`/api/trainings/${t.id}/steps/${k}/sync`);
      this.openRun(run);
      scrollTo({ top: 0 }); // up to the stage (first on the page in every layout): it was asked for from the charts below
      say("train-sync-why", `${t.id}, step ${k}: its gradient sync (${label(t.spec, this.catalog)}) is on the stage; step through it with the player`);
    } catch (err) {
      say("train-sync-why", `step ${k}: ${err.reason ?? err}`);
    }
  }

  // ---- the comparison: the same model, P and steps under each method

  /** Finished trainings like the one shown (same hidden, P, steps), the newest of each method. */
  compare(trainings) {
    const ref = this.shown ?? trainings.find((t) => t.state === "done");
    const box = $("train-compare");
    if (!ref) { box.hidden = true; this.compared = null; return; }
    const same = (t) => t.state === "done" && t.result && t.spec.hidden === ref.spec.hidden && t.world_size === ref.world_size
      && t.spec.steps === ref.spec.steps;
    const newest = new Map();
    for (const t of trainings.filter(same)) {
      const key = label(t.spec, this.catalog);
      if (!newest.has(key)) newest.set(key, t); // the list is newest first
    }
    const order = this.catalog?.methods ?? [];
    const rows = [...newest.values()].sort((a, b) => order.indexOf(a.spec.method) - order.indexOf(b.spec.method) || (a.spec.servers - b.spec.servers));
    box.hidden = rows.length === 0;
    if (!rows.length) { this.compared = null; return; }
    $("training").hidden = false;
    say("train-compare-what", `hidden ${ref.spec.hidden} (${ref.parameters} parameters) · P = ${ref.world_size} · ${ref.spec.steps} steps: ${rows.length} method${rows.length > 1 ? "s" : ""} finished`);
    $("train-table").replaceChildren(
      html("thead", {}, html("tr", {}, html("th", {}, "method"), COMPARED.map(([, head]) => html("th", {}, head)), html("th", {}, "training"))),
      html("tbody", {}, rows.map((t) => html("tr", { "data-training": t.id },
        html("td", {}, label(t.spec, this.catalog)),
        COMPARED.map(([key, , write]) => html("td", {}, t.result[key] == null ? "–" : write(t.result[key]))),
        html("td", {}, t.id)))));
    this.compared = rows;
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

function say(id, text) { $(id).textContent = text; }

function select(options, value) {
  const s = document.createElement("select");
  for (const o of options) s.append(new Option(o, o, false, String(o) === String(value)));
  return s;
}

function input(value, attrs = {}) {
  const i = document.createElement("input");
  i.type = "number";
  i.value = value ?? "";
  for (const [k, v] of Object.entries(attrs)) i.setAttribute(k, v);
  return i;
}
