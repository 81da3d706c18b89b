// The page's keys, in either case (the player binds its own: Space, arrows, + and -): a letter
// each, digits that pick a collective or go to a step, and a poll's card before them all.

import { $, notAShortcut, toggleFullscreen } from "rs/core/dom.js";

const untyped = () => ({ digits: "", at: -Infinity, pick: null });

export class Keys {
  typed = untyped(); // digits typed lately, and the pick they put back

  constructor({ state, player, controls, polls, overlays, lecture, perturbations, hall, lessons, lesson, practiceChart }) {
    Object.assign(this, { player, controls });
    const toggle = (name) => overlays.toggle(name);
    this.keys = {
      r: () => controls.again(), enter: () => controls.again(), a: () => controls.cycleAlgorithm(),
      o: () => controls.cycleOp(),
      p: () => controls.togglePreset(), "]": () => controls.pickNext(1), "[": () => controls.pickNext(-1),
      f: toggleFullscreen, l: () => lecture.flip(), c: () => toggle("compare"), t: () => toggle("training"),
      j: () => toggle("jobs"), b: () => toggle("hosts"), z: () => toggle("launchers"),
      d: () => state.presenter && perturbations.runDemo(), q: () => polls.ask(), k: () => hall.toggle(),
      h: () => practiceChart.toggle(),
      escape: () => state.overlay && toggle(state.overlay), // Esc closes C, T, J, M, B and Z as the dialogs close
      home: () => { player.pause(); player.go(-1); },
      end: () => { player.pause(); player.go(player.available() - 1); },
      "?": () => ($("keys").open ? $("keys").close() : $("keys").showModal()), ...lessons.keys, ...lesson.keys,
    };
    $("help").onclick = () => $("keys").showModal();
    afterClicks();
    // A poll's card takes its keys first (its menu, Enter reveals, the stage held).
    document.addEventListener("keydown", (e) => {
      if (!notAShortcut(e) && !$("keys").open && polls.key(e)) {
        e.preventDefault(); e.stopImmediatePropagation();
      }
    }, true);
    document.addEventListener("keydown", (e) => this.press(e));
  }

  /** A digit picks a collective; digits then Enter go to that step (1-based, as shown) and put the
   * pick back; any other key does what `keys` says. */
  press(e) {
    const { typed, controls, player } = this;
    // Enter on a button presses it
    if (notAShortcut(e) || (e.key === "Enter" && e.target.closest?.("button, a"))) return;
    const recent = performance.now() - typed.at < 3000;
    if (/^[0-9]$/.test(e.key)) {
      this.typed = { digits: (recent ? typed.digits : "") + e.key, at: performance.now(),
        pick: recent ? typed.pick : controls.picked() };
      controls.pickIndex((Number(e.key) + 9) % 10);
      return;
    }
    if (e.key === "Enter" && recent && typed.digits && player.run) {
      controls.pick(...typed.pick);
      player.pause();
      player.go(Number(typed.digits) - 1);
    } else if (this.keys[e.key?.toLowerCase()]) {
      if (e.key === "Home" || e.key === "End") e.preventDefault(); // the stage's, not the page's scroll
      this.keys[e.key.toLowerCase()]();
    }
    this.typed = untyped();
  }
}

/** A checkbox, select, slider or button used with the mouse gives the focus back, so that the
 * page's keys (R, A, Space, arrows, digits) work on at once: none is typed into, and Space or
 * Enter would press a focused button again. One reached with Tab keeps it. */
function afterClicks() {
  const controls = "button, select, input[type=checkbox], input[type=radio], input[type=range]";
  let touched = false;
  const touch = (e) => { touched = !!e.target.closest?.(`${controls}, label`); };
  document.addEventListener("pointerdown", touch, true);
  document.addEventListener("keydown", () => { touched = false; }, true); // a key's click is the keyboard's
  const release = (e) => {
    const used = document.activeElement;
    if (!touched || (e.type === "click" && used?.matches("select"))) return; // a select gives back on change
    if (!used?.matches(controls) || used.closest("dialog")) return; // a dialog keeps its own focus
    touched = false;
    used.blur();
  };
  document.addEventListener("click", release);
  document.addEventListener("change", release);
}
