// Light or dark, kept by the browser; a switch draws the charts again in its colours.

import { $ } from "rs/core/dom.js";
import { timeline, totals } from "rs/panels/charts.js";

const KEY = "ringside-theme";

export class Theme {
  constructor({ state, player, training }) {
    Object.assign(this, { state, player, training });
    const dark = matchMedia("(prefers-color-scheme: dark)").matches;
    this.set(localStorage.getItem(KEY) ?? (dark ? "dark" : "light"));
    $("theme").onclick = () => this.set(document.documentElement.dataset.theme === "dark" ? "light" : "dark");
  }

  set(name) {
    document.documentElement.dataset.theme = name;
    localStorage.setItem(KEY, name);
    const { run } = this.player;
    if (run && this.state.over(run)) { timeline(run); totals(run); }
    this.training.charts.themed();
  }
}
