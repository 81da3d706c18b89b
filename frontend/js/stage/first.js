// The first screen: before any run, the stage draws what the picked run would start from (the
// server plans it and makes every rank's inputs, POST /api/runs/preview; no rank runs it), and the
// caption says what to press. A pick changed meanwhile is drawn anew; the first run takes its place.

import { api } from "rs/core/api.js";
import { html } from "rs/core/dom.js";

export class FirstScreen {
  asked = 0; // previews asked for: the last one asked is the one shown

  constructor({ state, player, controls, runs }) {
    Object.assign(this, { state, player, controls, runs });
    controls.addEventListener("pick", () => this.show());
  }

  /** Whether the stage has no run to show: nothing, or a preview. */
  get empty() { return !this.runs.linked && (!this.player.run || !!this.player.run.preview); }

  async show() {
    const { controls, state } = this, world = controls.catalog?.world_size;
    if (!this.empty || !world) return;
    const asked = ++this.asked;
    let spec, run;
    try {
      spec = controls.spec(); // a custom schedule that is no JSON yet is no pick
      run = await api("/api/runs/preview", { method: "POST", body: spec });
    } catch {
      return; // a pick the server would refuse: R says why
    }
    if (asked !== this.asked || !this.empty) return; // picked again, or a run came, meanwhile
    const ranks = run.group.length, named = `${spec.collective} on ${ranks} ranks`;
    run.preview = true;
    // the caption's words (panels.js): made anew each time it is shown
    run.hint = () => (state.presenter
      ? [`Press R to run ${named}; 1–0 picks a collective. Another number of ranks:`, " ",
        html("code", {}, "ringside up --ranks N"), "."]
      : [`No run yet: ${named}, from these inputs.`]);
    this.runs.show(run);
  }
}
