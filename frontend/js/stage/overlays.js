// What covers the stage, one overlay at most: the compare chart (C), the training's charts (T),
// the watched jobs (J), the seed's formulas (M), the nodes and ranks (B) or spawn against launcher
// (Z). The presenter's page tells the audience.

export class Overlays {
  /** `onShown()`: another overlay is shown. */
  constructor({ state, compare, training, jobs, formulas, hosts, launchers, onShown }) {
    Object.assign(this, { state, compare, training, jobs, formulas, hosts, launchers, onShown });
  }

  show(name) {
    if (name === this.state.overlay) return; // the view comes with every step
    this.state.overlay = name;
    this.compare.show(name === "compare");
    this.training.charts.showOverlay(name === "training");
    this.jobs.show(name === "jobs");
    this.formulas.show(name);
    this.hosts.show(name === "hosts");
    this.launchers.show(name === "launchers");
    this.onShown();
  }

  /** C, T, J, B, Z: an audience page that toggles one itself leaves the presenter's view. */
  toggle(name) {
    if (this.state.following) this.state.set({ attached: false });
    this.show(this.state.overlay === name ? null : name);
  }
}
