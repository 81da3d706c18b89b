// The address bar: a link to what is on screen (Copy link copies it), and what a shared link asks
// for: a spec in the controls, a run and step on the stage, a job (?job=, `ringside open` prints it).

import { $, say } from "rs/core/dom.js";

export class Address {
  /** `params`: the page's query as it was opened. */
  constructor({ state, player, controls, runs, jobs, toggle, params }) {
    Object.assign(this, { state, player, controls, runs, jobs, toggle, params });
    $("share").onclick = () => this.share();
  }

  applyShared() {
    const { params } = this;
    if (params.get("collective")) {
      const fields = {};
      for (const k of ["algorithm", "count", "dtype", "op", "root", "chunks"])
        if (params.get(k)) fields[k] = params.get(k);
      if (params.get("ranks")) fields.group = params.get("ranks");
      this.controls.pick(params.get("collective"), fields);
    }
    if (params.get("run"))
      this.runs.open(params.get("run"), params.has("step") ? Number(params.get("step")) : undefined);
    if (params.get("job")) {
      this.jobs.follow(params.get("job"));
      this.toggle("jobs");
    }
  }

  remember() {
    const p = this.player;
    if (!p.run || p.run.preview) return;
    const q = new URLSearchParams(), path = location.pathname;
    if (document.body.classList.contains("present")) q.set("present", "1");
    // a reload follows again
    if (this.state.following) return history.replaceState(null, "", `${path}${q.size ? `?${q}` : ""}`);
    for (const k of ["collective", "algorithm", "count", "dtype", "op"]) q.set(k, p.run.spec[k]);
    q.set("ranks", p.run.group.join(","));
    q.set("run", p.run.id);
    q.set("step", p.step);
    history.replaceState(null, "", `${path}?${q}`);
  }

  async share() {
    await navigator.clipboard?.writeText(location.href).catch(() => {});
    say("share", "Link copied");
    setTimeout(() => say("share", "Copy link"), 1500);
  }
}
