// Lecture mode (L): big type, only the stage; fullscreen at the first gesture (browsers allow no sooner).

import { $ } from "rs/core/dom.js";
import { redrawCharts } from "rs/panels/charts.js";

export class LectureMode {
  /** `address`: the address bar, which keeps the mode for a reload. */
  constructor({ controls, stage, address }) {
    Object.assign(this, { controls, stage, address });
    $("present").onclick = () => this.flip();
  }

  get on() { return document.body.classList.contains("present"); }

  set(on, gesture = false) {
    document.body.classList.toggle("present", on);
    $("present").classList.toggle("active", on);
    this.controls.setLecture(on);
    this.stage.fitToBox(true); // its names and bytes at a projector's size, or back
    redrawCharts(); // their ticks and titles likewise
    this.address.remember();
    const full = () => this.on && !document.fullscreenElement
      && document.documentElement.requestFullscreen?.().catch(() => {});
    if (on && gesture) full();
    else if (on) document.addEventListener("pointerdown", full, { once: true });
    else if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
  }

  /** L, or the Lecture button: a gesture, so fullscreen comes at once. */
  flip() { this.set(!this.on, true); }
}
