// The presenter's Train panel: a training's settings within the catalog's limits, and "compare
// all methods": one training per method, each submitted once the one before it has ended, and
// once the last has ended, all of them side by side (the charts' showSide).

import { api } from "rs/core/api.js";
import { $, html, refused, say, select } from "rs/core/dom.js";

/** A training's id and state beside the form, and why it failed: its words apart, each said alone. */
const said = (t) => $("train-why").replaceChildren(`${t.id}: `, t.state,
  ...(t.error ? [" (", html("span", { "data-refused": "error" }, t.error), ")"] : []));

export class TrainForm {
  queue = []; // "compare all methods": specs not accepted yet
  queued = 0; // how many it held when it was made
  batch = null; // "compare all methods" under way: {ids: accepted, ended: ids heard ended, total}
  pumping = false;
  again = false;
  retry = null;
  mine = null; // the training this page last submitted

  /** `feed` (the Training) knows the catalog; the page's `state` says whether this page trains. */
  constructor(feed, state) {
    this.feed = feed;
    this.state = state;
    state.addEventListener("role", () => this.render());
  }

  render() {
    const t = this.feed.catalog, world = this.feed.world;
    const panel = $("train-panel");
    panel.hidden = !this.state.presenter || !t;
    const form = $("train-form");
    if (panel.hidden) { form.replaceChildren(); return; }
    const previous = Object.fromEntries(new FormData(form));
    const v = (k) => previous[k] ?? t.defaults[k];
    const input = (k, attrs) => html("input", { type: "number", value: v(k) ?? "", ...attrs });
    const rows = [ // name, control, title, label
      ["method", select(t.methods, v("method")), "how the gradients are synced"],
      ["servers", input("servers", { min: 1, max: Math.max(1, world - 1) }),
        "S: ranks that hold a shard of the weights", "servers (S)"],
      ["hidden", input("hidden", { min: 1, max: t.max_hidden }), "width of the MLP's two hidden layers"],
      ["steps", input("steps", { min: 1, max: t.max_steps }), "SGD steps"],
      ["lr", input("lr", { step: "any" }), "learning rate", "learning rate"],
      ["batch", input("batch", { min: 1, max: t.max_batch }),
        "samples per step, over every rank that computes"],
    ];
    form.replaceChildren();
    for (const [name, control, title, words = name] of rows) {
      Object.assign(control, { name, id: `train-${name}` });
      control.dataset.row = name;
      form.append(html("label", { for: control.id, title, "data-row": name }, words), control,
        html("div", { class: "error", "data-train-error": name, "data-row": name }));
    }
    const train = html("button", { type: "submit", id: "train" }, "Train");
    const all = html("button", { type: "button", id: "train-all", onclick: () => this.compareAll(),
      title: "one training per method with these settings, one after another" }, "Compare all methods");
    train.disabled = all.disabled = !world;
    form.append(train, all);
    form.onsubmit = (e) => { e.preventDefault(); this.submit(this.spec()); };
    form.elements.method.onchange = () => this.showServers();
    this.showServers();
    say("train-why", world ? "" : "No ranks are connected yet.");
  }

  /** S only for the method that has servers. */
  showServers() {
    const ps = $("train-form").elements.method.value === this.feed.catalog.parameter_server;
    document.querySelectorAll('#train-form [data-row="servers"]').forEach((el) => { el.hidden = !ps; });
  }

  spec() {
    const f = $("train-form").elements;
    const spec = { method: f.method.value };
    if (spec.method === this.feed.catalog.parameter_server) spec.servers = Number(f.servers.value);
    for (const k of ["hidden", "steps", "lr", "batch"]) spec[k] = f[k].value === "" ? null
      : Number(f[k].value);
    return spec;
  }

  /** POST one training; a refusal is shown beside its field. Returns the answer, or null. */
  async submit(spec, { quiet409 = false } = {}) {
    document.querySelectorAll("[data-train-error]").forEach((e) => (e.textContent = ""));
    say("train-why", "");
    try {
      const accepted = await api("/api/trainings", { method: "POST", body: spec });
      this.mine = accepted.id;
      said(accepted);
      $("training").scrollIntoView?.({ block: "start", behavior: "smooth" });
      return accepted;
    } catch (err) {
      if (err.status === 409 && quiet409) throw err;
      refused(err, "data-train-error", "train-why");
      return null;
    }
  }

  /** One training per method (the servers one twice: S = 1 and P-1), each submitted once the
   * one before it has ended. */
  compareAll() {
    const base = this.spec(), { methods, parameter_server: ps } = this.feed.catalog, world = this.feed.world;
    this.queue = methods.filter((m) => m !== ps).map((method) => ({ ...base, method, servers: undefined }));
    const shards = [...new Set([1, world - 1])].filter((s) => s >= 1 && s <= world - 1);
    if (methods.includes(ps)) this.queue.push(...shards.map((servers) => ({ ...base, method: ps, servers })));
    this.queued = this.queue.length;
    this.batch = { ids: [], ended: new Set(), total: this.queue.length };
    this.pump();
  }

  /** Every training of the batch ended: they go side by side. */
  settle() {
    const b = this.batch;
    if (!b || b.ids.length < b.total || !b.ids.every((id) => b.ended.has(id))) return;
    this.batch = null;
    this.feed.charts.showSide(b.ids);
  }

  /** Submit the next queued training, if the cluster takes it. */
  async pump() {
    clearTimeout(this.retry);
    if (this.pumping) { this.again = true; return; } // an end heard while a POST was out: once more after it
    if (!this.queue.length) return;
    this.pumping = true;
    try {
      const accepted = await this.submit(this.queue[0], { quiet409: true });
      if (accepted) {
        this.queue.shift();
        this.batch?.ids.push(accepted.id);
        if (this.state.ended.has(accepted.state)) this.batch?.ended.add(accepted.id);
      } else {
        this.queue = []; // refused: the reason is shown beside its field
        this.batch = null;
      }
    } catch {
      // Busy (409): the next training's end pumps again; a collective run sends none: a slow retry.
      this.retry = setTimeout(() => this.pump(), 1500);
    } finally {
      this.pumping = false;
    }
    const left = this.queue.length;
    if (this.queued) {
      const then = left ? ", each when the one before has ended" : "";
      say("train-why", `compare all methods: ${this.queued - left} of ${this.queued} submitted${then}`);
    }
    if (!left) this.queued = 0;
    this.settle(); // the last may have ended before its POST was answered
    if (this.again) { this.again = false; this.pump(); }
  }

  /** A training's state: this page's own says how it goes; one that ended lets the next go. */
  heard(summary, ended) {
    if (summary.id === this.mine && !this.queued) {
      said(summary);
    }
    if (ended && this.batch) { this.batch.ended.add(summary.id); this.settle(); }
    if (ended && this.queue.length) this.pump();
  }
}
