// The presenter's view, followed: the presenter's page sends what it shows (run, step, playing,
// speed, overlay, training, watched job, demo, lesson stage) as it changes; an attached audience page shows the
// same until it moves by itself.

import { api } from "rs/core/api.js";
import { $, reason, say } from "rs/core/dom.js";

export class Presenter {
  /** The live messages it hears, by type. */
  routes = {
    snapshot: (m) => {
      if (m.presenter && !this.state.presenter) this.follow(m.presenter);
      this.lead();
    },
    // the run a view opens, pushed just before it (one message for every phone, no GET each)
    shown_run: (m) => {
      this.pushed = m.run;
    },
    presenter: (m) => {
      const pushed = this.pushed;
      this.pushed = null; // it is the next view's alone: a later one may be held from the room meanwhile
      if (!this.state.presenter) this.follow(m, pushed);
    },
  };
  pushed = null;

  constructor({ state, player, training, jobs, perturbations, polls, overlays, runs, lesson }) {
    Object.assign(this, { state, player, training, jobs, perturbations, polls, overlays, runs, lesson });
    state.addEventListener("change", () => this.showLead());
    $("follow-presenter").onclick = () => this.reattach();
  }

  /** The presenter's page: what it shows goes to every audience page. */
  lead() {
    const { state, player: p } = this;
    if (!state.presenter || !p.run || p.run.preview) return; // the first screen is each page's own
    const view = { type: "presenter", run_id: p.run.id, step: p.step, playing: p.playing, speed: p.speed,
      overlay: state.overlay, training: this.training.shown?.id, job: this.jobs.shown?.job.id,
      demo: this.perturbations.demoIds(), lesson: this.lesson.at };
    const text = JSON.stringify(view);
    if (text !== state.sent && state.send(view)) state.sent = text;
  }

  /** The live socket (re)opened: a restarted server learns the presenter's view again. */
  resend() {
    this.state.sent = "";
    this.lead();
  }

  /** An attached audience page shows the presenter's run, step and playing: `pushed`, the run the
   * server sent with the view, or else the run fetched. */
  async follow(view, pushed = null) {
    const { state, player } = this;
    state.set({ view });
    this.perturbations.follow(view.demo ?? []); // data, not a view: heard even when detached
    this.polls.moved(view.run_id);
    if (!state.following) return;
    this.training.follow(view.training);
    this.jobs.follow(view.job);
    this.lesson.follow(view.lesson);
    this.overlays.show(view.overlay ?? null);
    if (player.run?.id === view.run_id) return player.mirror();
    if (pushed?.id === view.run_id) {
      this.runs.show(pushed);
      return player.mirror();
    }
    if (state.opening === view.run_id) return; // the latest view is applied when it lands
    state.opening = view.run_id;
    try {
      const run = await api(`/api/runs/${view.run_id}`);
      if (state.following && state.view.run_id === run.id) {
        this.runs.show(run);
        player.mirror();
      }
    } catch (err) {
      $("caption").replaceChildren(`Could not open the presenter's run ${view.run_id}: `, reason(err));
    } finally {
      state.opening = null;
    }
  }

  /** The page's role, and for a detached audience page a button back to the presenter's view. */
  showLead() {
    const { state } = this;
    $("follow-presenter").hidden = state.presenter || state.attached || !state.view;
    say("role", state.presenter ? "presenter"
      : state.following ? "audience · following the presenter" : "audience");
  }

  reattach() {
    this.state.set({ attached: true });
    if (this.state.view) this.follow(this.state.view);
  }
}
