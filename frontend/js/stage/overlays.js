// What covers the stage, one overlay at most: the compare chart (C), the training's charts (T),
// the watched jobs (J) or the seed's formulas (M). The presenter's page tells the audience.

export class Overlays {
  /** `onShown()`: another overlay is shown. */
  constructor({ state, compare, training, jobs, formulas, onShown }) {
    Object.assign(this, { state, compare, training, jobs, formulas, onShown });
  }

  show(name) {
    if (name === this.state.overlay) return; // the view comes with every step
    this.state.overlay = name;
    this.compare.show(name === "compare");
    this.training.charts.showOverlay(name === "training");
    this.jobs.show(name === "jobs");
    this.formulas.show(name);
    this.onShown();
  }

  /** C, T, J: an audience page that toggles one itself leaves the presenter's view. */
  toggle(name) {
    if (this.state.following) this.state.set({ attached: false });
    this.show(this.state.overlay === name ? null : name);
  }
}
