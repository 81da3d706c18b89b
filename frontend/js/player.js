// The player: which step is on the stage, and moving through them — by hand, at a speed,
// or following a live run as its steps arrive.

import { extend, firstFrame, stepComplete } from "rs/replay.js";

const STEP_MS = 1400; // one step at 1x: long enough to follow a chunk with the eye

export class Player {
  constructor(stage, onChange) {
    this.stage = stage;
    this.onChange = onChange;
    this.run = null;
    this.frames = [];
    this.step = -1; // -1: the inputs, before any step
    this.playing = false;
    this.speed = 1;
    this.follow = true;
  }

  /** Show a run: a new one, or newer data of the one on stage (a live run's end, a reload). */
  load(run, { step } = {}) {
    const same = this.run?.id === run.id;
    const drawn = same && this.run.chunk_bounds.length === run.chunk_bounds.length && this.run.group.length === run.group.length;
    // A step's frame never changes once every rank has reported it: newer data of the same
    // run keeps the frames it has, as long as it too has every step they were built from.
    const kept = drawn && stepComplete(run, this.frames.length - 2);
    this.run = run;
    if (!kept) this.frames = [firstFrame(run)];
    extend(this.frames, run);
    if (drawn) this.stage.update(run, this.frames);
    else this.stage.load(run, this.frames);
    if (!same) this.step = -1;
    // Newer data of the run in flight: the step being animated shows itself when it lands.
    if (!(drawn && step === undefined && this.stage.pending)) {
      this.step = Math.min(step ?? this.step, this.available() - 1);
      this.stage.show(this.step + 1);
      this.stage.mark(this.step);
    }
    this.changed();
    this.followLive();
  }

  /** The run on stage has new reports (a live run): frames for the steps they complete. */
  grow() {
    if (!extend(this.frames, this.run)) return;
    this.changed();
    this.followLive();
  }

  /** Following, a live run plays on as its steps arrive (even after a pause by hand). */
  followLive() {
    if (this.follow && this.run.state === "running") this.play();
  }

  /** Steps that every rank has reported, each with its frame (a live run grows). */
  available() {
    return this.run ? this.frames.length - 1 : 0;
  }

  changed() { this.onChange(this); }

  go(step) {
    if (!this.run) return;
    this.stage.stopAnimation();
    this.step = Math.max(-1, Math.min(step, this.available() - 1));
    this.stage.show(this.step + 1);
    this.stage.mark(this.step);
    this.changed();
  }

  async forward() {
    if (!this.run || this.step + 1 >= this.available()) return false;
    this.step += 1;
    this.changed();
    await this.stage.animate(this.step, STEP_MS / this.speed);
    return true;
  }

  back() { this.pause(); this.go(this.step - 1); }

  async play() {
    if (this.playing || !this.run) return;
    if (this.step + 1 >= this.available() && this.run.state !== "running") this.go(-1);
    this.playing = true;
    this.changed();
    while (this.playing) {
      const moved = await this.forward();
      if (!moved) {
        if (this.run.state !== "running") break;
        await new Promise((r) => setTimeout(r, 100)); // a live run: wait for its next step
      } else {
        await new Promise((r) => setTimeout(r, 120 / this.speed));
      }
    }
    this.playing = false;
    this.changed();
  }

  pause() { this.playing = false; this.changed(); }
  toggle() { this.playing ? this.pause() : this.play(); }
}

/** Wire the player's buttons, slider, speed and keys (Space, ←, →) on this page. */
export function bindPlayer(player) {
  const $ = (id) => document.getElementById(id);
  $("first").onclick = () => { player.pause(); player.go(-1); };
  $("back").onclick = () => player.back();
  $("play").onclick = () => player.toggle();
  $("forward").onclick = () => { player.pause(); player.forward(); };
  $("slider").oninput = (e) => { player.pause(); player.go(Number(e.target.value)); };
  $("speed").onchange = (e) => { player.speed = Number(e.target.value); };
  const follow = $("follow");
  if (follow) follow.onchange = (e) => { player.follow = e.target.checked; };
  document.addEventListener("keydown", (e) => {
    if (e.target.closest?.("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === " ") { e.preventDefault(); player.toggle(); }
    else if (e.key === "ArrowRight") { e.preventDefault(); player.pause(); player.forward(); }
    else if (e.key === "ArrowLeft") { e.preventDefault(); player.back(); }
  });
}
