// Practice on a phone: a student takes the run on the stage (one the room may read whole), steps it
// alone, and before each step predicts one cell the step writes: the server says which, the same on
// every page (server/practice/cells.py). The page grades it against the run's recorded states (its
// frames hold what the ranks reported), shows the value, and sends the answer with its ballot, so that
// the presenter's chart (H) counts it once. A run a poll holds is not practised until its reveal.

import { api } from "rs/core/api.js";
import { $, html, reason } from "rs/core/dom.js";
import { exact } from "rs/core/format.js";

const same = (a, b) => Math.abs(a - b) <= Math.max(1e-6 * Math.abs(b), 1e-9); // as the server grades it

/** The first value of the cell's chunk after its step, as its rank reported it; null if unrecorded. */
export function truth(frames, { step, rank, chunk }) {
  const value = frames[step + 1]?.values[String(rank)]?.[chunk]?.[0];
  return typeof value === "number" ? value : null;
}

/** Whether a page may offer practice of `run`: an audience page's, a run that ended done, with steps,
 * held by no poll. */
export const practicable = (run, state) => !state.presenter && !!run && !run.preview && run.state === "done"
  && run.steps.length > 0 && !run.held_for && !state.hiding(run);

export class Practice {
  run = null; // while practising: {id, cells}, a cell a step (null: it asks nothing)
  answers = new Map(); // step -> {value, truth, right, note}
  note = null; // why practice could not start
  wasLive = true;

  /** `polls`: its ballot; `onRejoin()`: the page follows the presenter again. */
  constructor({ state, player, polls, onRejoin }) {
    Object.assign(this, { state, player, polls, onRejoin, card: $("practice"), button: $("practice-open") });
    this.button.onclick = () => this.start();
    const moved = () => {
      // another run, the presenter's view again, or a poll asked of this run since: practice ends
      if (this.run && (state.following || player.run?.id !== this.run.id || state.hiding(player.run))) this.end();
      this.render();
    };
    state.addEventListener("change", moved);
    player.addEventListener("change", moved);
  }

  /** Practice the run on the stage: from its inputs, alone (neither the presenter nor live runs move it). */
  async start() {
    const { player, state } = this, run = player.run;
    this.note = null;
    try {
      const { cells } = await api(`/api/practice/${run.id}`);
      if (player.run?.id !== run.id) return;
      Object.assign(this, { run: { id: run.id, cells }, answers: new Map(), wasLive: state.live });
      player.pause();
      this.follow(false);
      player.go(-1);
      this.card.scrollIntoView({ block: "nearest" });
    } catch (err) {
      this.note = err;
    }
    this.render();
  }

  follow(live) {
    this.state.set({ live });
    if ($("follow")) $("follow").checked = live;
  }

  /** Practice over: the page follows live runs as before. */
  end() {
    this.run = null;
    this.follow(this.wasLive);
  }

  /** Stop: back to the presenter's view (where there is one). */
  stop() {
    this.end();
    this.note = null;
    if (this.state.view) this.onRejoin();
    this.render();
  }

  /** A prediction of the next step's cell: graded here, shown as that step plays, counted by the server. */
  async check(value) {
    const k = this.player.step + 1, cell = this.run.cells[k], real = truth(this.player.frames, cell);
    const answer = { value, truth: real, right: real != null && same(value, real), note: "" };
    this.answers.set(k, answer);
    this.player.forward();
    try {
      await api(`/api/practice/${this.run.id}/answers`, { method: "POST",
        body: { ballot: this.polls.ballot, step: k, value } });
      answer.note = "Counted for the presenter";
    } catch (err) {
      answer.note = err.field === "ballot" ? (err.status === 409 ? "Counted once already"
        : "Not counted: not connected to the lecture") : reason(err);
    }
    this.render();
  }

  render() {
    const { run, card } = this;
    this.button.hidden = !!run || !practicable(this.player.run, this.state);
    card.hidden = !run && !this.note;
    document.body.classList.toggle("practising", !card.hidden);
    if (card.hidden) return card.replaceChildren();
    if (!run) {
      return card.replaceChildren(html("p", { class: "why" }, "Not practised: ", reason(this.note)),
        html("button", { type: "button", onclick: () => { this.note = null; this.render(); } }, "Close"));
    }
    const steps = run.cells.length, k = this.player.step + 1, right = [...this.answers.values()].filter((a) => a.right);
    // a number being typed outlives a render for anything else (a poll's card, a language)
    const was = card.querySelector(".ask input"), typing = was === document.activeElement;
    const kept = was && Number(card.querySelector(".ask").dataset.step) === k ? was.value : "";
    card.replaceChildren(...[html("h2", {}, `Practice on run ${run.id}`), this.graded(k - 1), this.next(k, steps),
      html("p", { class: "score" }, `${right.length} of ${this.answers.size} right`, " ",
        html("button", { type: "button", class: "stop", onclick: () => this.stop() }, "Stop practising"))]
      .filter(Boolean));
    const field = card.querySelector(".ask input");
    if (field && kept) { field.value = kept; if (typing) field.focus(); }
  }

  /** The step just shown: what this page predicted of it, and what its cell holds. */
  graded(k) {
    const a = this.answers.get(k);
    if (!a) return null;
    const said = a.right ? `Step ${k + 1}: right ✓, it holds ${exact(a.truth)}`
      : `Step ${k + 1}: you said ${exact(a.value)}, it holds ${exact(a.truth)}`;
    return html("p", { class: a.right ? "right" : "wrong" }, said, a.note ? [" · ", a.note] : null);
  }

  /** The next step's question, or a step on where it asks nothing, or the end. */
  next(k, steps) {
    if (k >= steps) return html("p", {}, html("span", {}, "The end of the run"), " ",
      html("button", { type: "button", onclick: () => this.player.go(-1) }, "Again"));
    const cell = this.run.cells[k];
    if (!cell) return html("p", {}, html("span", {}, `Step ${k + 1} writes no recorded cell`), " ",
      html("button", { type: "button", onclick: () => this.player.forward() }, "Step on"));
    const field = html("input", { type: "number", step: "any", inputmode: "decimal", required: "",
      "aria-label": "your prediction" });
    return html("form", { class: "ask", "data-step": k, onsubmit: (e) => {
      e.preventDefault();
      if (field.value.trim() !== "" && Number.isFinite(Number(field.value))) this.check(Number(field.value));
    } }, html("label", {}, html("span", {}, `After step ${k + 1}, what is the first value in chunk ${cell.chunk} `
      + `of rank ${cell.rank}?`), field), html("button", { type: "submit" }, "Check"));
  }
}
