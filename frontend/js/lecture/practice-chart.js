// H (the presenter): how the room did practising the run on the stage, a bar a step that asks: its
// length the pages that answered it (against the step answered most), its green part those right,
// and "1 of 2 right" beside it. Live: the server tells the presenter's pages each burst of answers
// (`practice`, heard by no other page); the phones' side is practice.js.

import { api } from "rs/core/api.js";
import { $, html, reason } from "rs/core/dom.js";

export class PracticeChart {
  shown = false;
  run = null; // the run charted: its id and state when it was read
  cells = [];
  tally = new Map(); // step -> {answered, right}
  note = null; // why the run cannot be practised
  routes = { practice: (m) => m.run_id === this.run?.id && this.fill(m.steps) };

  constructor({ state, player }) {
    Object.assign(this, { state, player, box: $("practice-chart") });
    player.addEventListener("change", () => {
      const run = player.run;
      if (this.shown && (run?.id !== this.run?.id || run?.state !== this.run?.state)) this.load();
    });
  }

  /** H: the chart of the run on stage, or off. */
  toggle() {
    if (!this.state.presenter) return;
    this.shown = !this.shown;
    this.box.hidden = !this.shown;
    document.body.classList.toggle("chart-shown", this.shown);
    if (this.shown) this.load();
  }

  async load() {
    const run = this.player.run;
    Object.assign(this, { run: run && { id: run.id, state: run.state }, cells: [], tally: new Map(), note: null });
    if (run && !run.preview) {
      try {
        const asked = await api(`/api/practice/${run.id}`);
        if (asked.run_id !== this.run?.id) return;
        this.cells = asked.cells;
        return this.fill(asked.tally ?? []);
      } catch (err) {
        if (run.id === this.run?.id) this.note = err;
      }
    }
    this.render();
  }

  fill(steps) {
    for (const { step, answered, right } of steps) this.tally.set(step, { answered, right });
    this.render();
  }

  render() {
    if (!this.shown) return;
    const most = Math.max(1, ...[...this.tally.values()].map((t) => t.answered));
    const rows = this.cells.flatMap((cell, k) => {
      if (!cell) return [];
      const { answered = 0, right = 0 } = this.tally.get(k) ?? {};
      return [html("li", { "data-step": k }, html("b", {}, `step ${k + 1}`),
        html("span", { class: "bar" }, html("i", { style: `width:${(100 * answered) / most}%` },
          html("i", { class: "right", style: `width:${answered ? (100 * right) / answered : 0}%` }))),
        html("span", { class: "count" }, `${right} of ${answered} right`))];
    });
    this.box.replaceChildren(...[html("h2", {}, this.run ? `Practice on run ${this.run.id}` : "No run on the stage"),
      this.note && html("p", { class: "why" }, "Not practised: ", reason(this.note)),
      rows.length && html("ol", {}, rows),
      html("p", { class: "foot" }, "The phones' predictions, step by step · H closes")].filter(Boolean));
  }
}
