// The run on the stage: a live one as it starts, steps and ends, a stored one opened (a link, the
// history, the presenter's); its title, state and Cancel over the stage, and the history, kept
// from the feed.

import { api } from "rs/core/api.js";
import { $, reason, say, sayEach } from "rs/core/dom.js";
import { dtypeOf } from "rs/core/format.js";
import { timeline, totals } from "rs/panels/charts.js";
import { showHistory, showOutcome } from "rs/panels/panels.js";

const swept = (run) => run.spec.purpose === "sweep"; // never takes the stage by itself
/** Whether every rank of its group has sent its inputs. */
const started = (run) => run.group.every((r) => run.inputs[String(r)]);
const LISTED = 30; // runs in the history
/** A run's line in the history, of the whole run. */
const lineOf = (r) => ({ id: r.id, state: r.state, created_at: r.created_at, ...r.spec });
const NEWS = { run: (r) => r, run_started: lineOf, run_ended: lineOf };

/** The history after a feed message, newest first: the snapshot's or a `runs` message's lines, or a
 * run's line put in its place. */
export function relisted(lines, m) {
  const line = NEWS[m.type]?.(m.run);
  if (!line) return (m.type === "runs" ? m.runs : m.type === "snapshot" && m.recent) || lines;
  return [line, ...lines.filter((r) => r.id !== line.id)]
    .sort((a, b) => b.created_at - a.created_at).slice(0, LISTED);
}

export class Runs {
  lines = []; // the history's runs, newest first
  /** The live feed, by message type: a run arrives whole at run_started and run_ended, and a
   * message per rank per step between: a live run costs no GET. */
  routes = {
    snapshot: (m) => {
      const { state, player } = this;
      this.list(m);
      if (m.current && !this.linked && !swept(m.current)) this.show(m.current);
      // The run on stage may have ended while the feed was down.
      if (player.run && !player.run.preview && !state.over(player.run) && player.run.id !== m.current?.id)
        this.open(player.run.id);
      if (!this.linked) this.latest(this.lines.find((r) => state.over(r) && r.purpose !== "sweep"));
    },
    run: (m) => this.list(m),
    runs: (m) => this.list(m),
    run_started: (m) => {
      if ((this.state.live && !swept(m.run)) || this.mine(m.run)) this.show(m.run);
      this.list(m);
    },
    run_ended: (m) => {
      // A run that failed before it started was never on stage: its end says why. A run a poll
      // holds stays as it came on stage (its end is a time): the poll's opening reads it again.
      const shown = this.mine(m.run) || (this.state.live && !started(m.run) && !swept(m.run));
      if (shown && !this.state.hiding(m.run)) this.show(m.run);
      this.list(m);
    },
    step: (m) => {
      const { player } = this, step = player.run?.id === m.run_id && player.run.steps[m.step];
      // another run's, beyond the run's plan, or a held run's (each step's arrival is a time)
      if (!step || this.state.hiding(player.run)) return;
      step.ranks[String(m.rank)] = { t0: m.t0, t1: m.t1, states: m.states };
      player.grow();
    },
  };

  /** `polls`: what they hide of a run; `compare`: drawn again at a run's end; `linked`: the run the
   * page's link opened, if any (it keeps the stage from the feed's current run). */
  constructor({ state, player, polls, compare, linked }) {
    Object.assign(this, { state, player, polls, compare, linked });
    $("cancel").onclick = () => this.cancel();
  }

  /** Whether a run is this page's: the one on its stage, or the last it submitted. */
  mine(run) { return [this.player.run?.id, this.state.submitted].includes(run.id); }

  /** Open a stored run (a link, the history, the run on stage after the feed was down). */
  async open(id, step) {
    try {
      const run = await api(`/api/runs/${id}`);
      if (this.state.following) return; // the presenter's view came first
      this.show(run, step);
    } catch (err) {
      $("caption").replaceChildren(`Could not open run ${id}: `, reason(err));
    }
  }

  async reread(id) {
    const run = await api(`/api/runs/${id}`).catch(() => null);
    if (run && this.player.run?.id === id) { this.show(run); this.player.mirror(); }
  }

  /** A poll was asked, opened, closed or revealed: what the page hides of its run changes. A run it
   * held is read again: on the presenter's page as it has run by now (its steps were not taken in
   * as they came), on an audience page as the room may read it now (whole once revealed). */
  polled() {
    const { player, state } = this, { run } = player, poll = state.poll;
    this.drawList();
    if (!run) return;
    const asked = poll && (poll.runs?.length ? poll.runs : [poll.run_id]).includes(run.id);
    if ((asked && poll.state !== "running") || (run.held_for && !state.hiding(run))) this.reread(run.id);
    showOutcome(run, player);
    if (player.step > player.limit()) player.show(player.step);
    player.changed();
  }

  show(run, step) {
    const { state, player } = this;
    // A fetched run that answers after the feed announced its end is older than the stage's.
    if (player.run?.id === run.id && state.over(player.run) && !state.over(run)) return;
    player.load(run, { step });
    // the reduction the numbers on stage go through after the collective
    sayEach("run-title", [run.spec.collective, run.op, run.choice?.label ?? run.spec.algorithm,
      `${run.group.length} ranks`, `${run.spec.count} × ${dtypeOf(run)}`, run.id]);
    $("run-title").title = run.choice?.why ?? ""; // what auto chose, and why
    // a run a poll holds says nothing that changes as it runs (when it ends is a time); a preview
    // (the first screen) nothing at all
    const held = state.hiding(run), shownState = held ? "held" : run.state;
    say("run-state", run.preview ? "" : shownState
      + (held ? "" : run.verified === true ? " ✓" : run.verified === false ? " ✗" : ""));
    $("run-state").dataset.state = shownState;
    $("cancel").hidden = !state.presenter || state.over(run) || run.cancel_requested || !!run.preview;
    // what acts on a run waits for one
    for (const id of ["perfetto", "export", "share"]) $(id).disabled = !!run.preview;
    showOutcome(run, player);
    this.polls.render(); // whether it hides anything of this run
    document.querySelectorAll("#history li")
      .forEach((li) => li.classList.toggle("current", li.dataset.run === run.id));
    if (state.over(run) && !held) { timeline(run); totals(run); this.compare.draw(); }
  }

  list(m) { this.lines = relisted(this.lines, m); this.drawList(); }

  drawList() {
    showHistory(this.lines, this.player.run?.id, (id) => { this.player.own(); this.open(id); },
      (r) => this.state.hiding(r));
  }

  /** A page opened between runs shows the last that ended; a live run that starts meanwhile wins. */
  async latest(newest) {
    const empty = () => !this.player.run || this.player.run.preview; // the first screen is no run
    if (!newest || !empty()) return;
    const run = await api(`/api/runs/${newest.id}`);
    if (empty()) this.show(run);
  }

  async cancel() {
    $("cancel").hidden = true;
    try {
      await api(`/api/runs/${this.player.run.id}/cancel`, { method: "POST" });
    } catch (err) {
      $("caption").replaceChildren(`Could not cancel ${this.player.run.id}: `, reason(err));
    }
  }
}
