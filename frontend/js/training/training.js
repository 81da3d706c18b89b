// Data-parallel training: what the live feed says of each training (its state, and its steps as
// the ranks report them), the training on the charts, and a step's gradient sync opened on the
// stage. The presenter's Train panel and the charts are modules of their own. Which methods exist,
// and which one has servers, is the catalog's to say (catalog.training): this page names none.

import { api } from "rs/core/api.js";
import { $, html, reason, say, sayEach } from "rs/core/dom.js";
import { label, TrainCharts } from "rs/training/charts.js";
import { TrainForm } from "rs/training/form.js";

// a diverged loss crosses JSON as "inf" or "nan": said as it is
const fixed = (v, digits) => (v == null ? "–" : typeof v === "number" ? v.toFixed(digits) : String(v));

export class Training {
  catalog = null; // catalog.training
  world = 0;
  shown = null; // the training on the charts, grown by train_step
  loading = null; // {id, early: train_steps that came before its GET answered, summary: its latest}
  /** The live messages it hears, by type. */
  routes = { snapshot: () => this.connected(), training: (m) => this.onSummary(m.training),
    train_step: (m) => this.onStep(m.id, m.step) };

  /** `state`: the page's; `openRun(run)` puts a Run on the stage; `onShown()`: another training
   * is on the charts. */
  constructor(state, openRun, onShown) {
    this.state = state;
    this.openRun = openRun;
    this.onShown = onShown;
    this.form = new TrainForm(this, state);
    this.charts = new TrainCharts(this);
    $("train-open").onclick = () => this.openStep(Number($("train-step").value));
    $("train-cancel").onclick = () => this.cancel();
  }

  // ---- the catalog, the late joiner

  setCatalog(catalog) {
    this.catalog = catalog.training ?? null;
    this.world = catalog.world_size;
    this.form.render();
  }

  /** The live feed (re)opened: what was trained meanwhile is fetched. */
  async connected() {
    if (!this.catalog) return; // a server that trains nothing
    if (this.form.queue.length) this.form.pump(); // an end may have been missed while the feed was down
    const [newest] = await this.list();
    if (newest && newest.id !== this.shown?.id) this.open(newest.id);
    else if (this.shown) this.open(this.shown.id); // steps may have come while the feed was down
  }

  /** Every training the server keeps (newest first), compared; [] if it could not say. */
  async list() {
    try {
      const { trainings } = await api("/api/trainings?limit=100");
      this.charts.compare(trainings);
      return trainings;
    } catch (err) {
      $("train-status").replaceChildren("Could not list the trainings: ", reason(err));
      return [];
    }
  }

  // ---- live: a training's state and steps

  onSummary(summary) {
    const ended = this.state.ended.has(summary.state);
    this.form.heard(summary, ended);
    if (this.shown?.id === summary.id) {
      Object.assign(this.shown, summary);
      this.status();
    } else if (this.loading?.id === summary.id) {
      this.loading.summary = summary; // newer than the detail on its way, maybe: a quick one's end
    } else if (summary.state === "running" || (!this.shown && !this.loading)) {
      this.open(summary.id);
    }
    if (ended) this.list();
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
    this.charts.grown();
  }

  /** Show a training: its detail from the server, then whatever the feed adds. */
  async open(id) {
    const loading = (this.loading = { id, early: [] });
    let detail;
    try {
      detail = await api(`/api/trainings/${id}`);
    } catch (err) {
      if (this.loading === loading) this.loading = null;
      $("train-status").replaceChildren(`Could not open training ${id}: `, reason(err));
      return;
    }
    if (this.loading !== loading) return; // a newer one was asked for meanwhile
    this.loading = null;
    // a training that ended while its detail was fetched: the detail may predate that
    if (loading.summary && !this.state.ended.has(detail.state)) Object.assign(detail, loading.summary);
    this.shown = detail;
    this.charts.reset(); // drawn after the steps that came early
    this.onShown();
    $("training").hidden = false;
    for (const step of loading.early) this.add(step);
    this.status();
    this.list();
  }

  status() {
    const t = this.shown, s = t.spec, last = t.steps.at(-1);
    sayEach("train-status", [t.id, label(s, this.catalog), `${t.world_size} ranks`,
      `hidden ${s.hidden} (${t.parameters} parameters)`, `${t.state}: step ${t.steps.length} of ${s.steps}`,
      last ? `loss ${fixed(last.loss, 3)}` : null,
      t.result ? `held-out accuracy ${(t.result.test_accuracy * 100).toFixed(1)}%` : null,
      t.error ? html("span", {}, "error: ", html("span", { "data-refused": "error" }, t.error)) : null]);
    $("train-status").dataset.state = t.state;
    $("train-step").max = Math.max(0, t.steps.length - 1);
    $("train-cancel").hidden = !this.state.presenter || this.state.ended.has(t.state) || t.cancel_requested;
  }

  /** The presenter stops the training on the charts: its ranks stop together after their current step. */
  async cancel() {
    const t = this.shown;
    $("train-cancel").hidden = true;
    try {
      await api(`/api/trainings/${t.id}/cancel`, { method: "POST" });
    } catch (err) {
      $("train-status").replaceChildren(`Could not cancel ${t.id}: `, reason(err));
    }
  }

  /** The presenter's page shows training `id`. */
  follow(id) {
    if (id && id !== this.shown?.id && id !== this.loading?.id) this.open(id);
  }

  // ---- a step's gradient sync on the stage

  async openStep(k) {
    const t = this.shown;
    if (!t) return;
    say("train-sync-why", "");
    try {
      const run = await api(`/api/trainings/${t.id}/steps/${k}/sync`);
      this.openRun(run);
      scrollTo({ top: 0 }); // up to the stage, first in every layout
      // the backend's own call is one call: its gradients before and the sums after, nothing between
      say("train-sync-why", run.steps.length
        ? `${t.id}, step ${k}: its gradient sync (${label(t.spec, this.catalog)}) is on the stage; `
          + "step through it with the player"
        : `${t.id}, step ${k}: its gradient sync is the backend's own all_reduce (${t.spec.method}), one call `
          + "with no steps to show: a stepwise method (W) shows one step by step");
    } catch (err) {
      $("train-sync-why").replaceChildren(`step ${k}: `, reason(err));
    }
  }
}
