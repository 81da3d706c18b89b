// The player: which step is on the stage, moved by hand, at a speed, by a live run's new steps,
// or by the presenter's view. It dispatches "change" on every move; who drives it is the page
// state's to say.

import { $, notAShortcut } from "rs/core/dom.js";
import { extend, firstFrame, stepComplete } from "rs/stage/replay.js";

const STEP_MS = 1400; // one step at 1x: long enough to follow a chunk with the eye

export class Player extends EventTarget {
  run = null;
  frames = [];
  step = -1; // -1: the inputs, before any step
  playing = false;
  speed = 1;
  loop = 0; // the play loop that may go on: a newer one, or the presenter's lead, ends an older one

  /** `state`: the page's (PageState), which says who drives. */
  constructor(stage, state) {
    super();
    this.stage = stage;
    this.state = state;
  }

  /** Show a run, or newer data of the one on stage (a live run's end, a reload). */
  load(run, { step } = {}) {
    const same = this.run?.id === run.id;
    const drawn = same && this.run.chunk_bounds.length === run.chunk_bounds.length
      && this.run.group.length === run.group.length;
    // A step's frame never changes once every rank has reported it: newer data keeps the frames
    // built from steps it too has complete.
    const kept = drawn && stepComplete(run, this.frames.length - 2);
    this.run = run;
    if (!kept) this.frames = [firstFrame(run)];
    extend(this.frames, run);
    if (drawn) this.stage.update(run, this.frames);
    else this.stage.load(run, this.frames);
    if (!same) this.step = -1;
    // Newer data of a run in flight: the step being animated shows itself when it lands.
    if (!(drawn && step === undefined && this.stage.pending)) {
      this.step = Math.min(step ?? this.step, this.available() - 1, this.limit());
      this.stage.show(this.step + 1);
      this.stage.mark(this.step);
    }
    this.changed();
    this.followLive();
  }

  /** A live run's new reports: frames for the steps they complete. */
  grow() {
    if (!extend(this.frames, this.run)) return;
    this.stage.outgrown();
    this.changed();
    if (this.leading()) this.mirror(); // the presenter may be ahead of what had arrived
    this.followLive();
  }

  /** Whether the presenter drives this player, and its view is about the run on stage. */
  leading() { return this.state.driver === "presenter" && this.state.view.run_id === this.run?.id; }

  /** A followed live run plays on as its steps arrive (even after a pause), unless the presenter leads
   * or a poll holds it (its steps are its answer). */
  followLive() {
    const { state, run } = this;
    if (state.live && run.state === "running" && !this.leading() && !this.playing && !state.hiding(run)) {
      this.loopFrom();
    }
  }

  /** The last step this page may show: while a poll holds its run, none from the step asked
   * about on (the answer lies there), and on an audience page none past the presenter's. */
  limit() {
    const { presenter, view } = this.state, asked = this.state.askedBefore(this.run);
    if (presenter || asked === Infinity) return asked;
    return Math.min(asked, view?.run_id === this.run.id ? view.step : -1);
  }

  /** Steps that every rank has reported, each with its frame. */
  available() { return this.run ? this.frames.length - 1 : 0; }

  changed() { this.dispatchEvent(new Event("change")); }

  /** A move of this page's own (a key, a button, the slider) leaves the presenter's lead. */
  own() {
    if (this.state.driver !== "presenter") return;
    this.playing = false; // the presenter's playing was shown, not played by a loop of this page's
    this.loop += 1;
    this.state.set({ attached: false });
  }

  /** The presenter's view: its step (a step forward flies, as there), speed and playing. A step
   * not received yet is shown on arrival. */
  mirror() {
    const view = this.state.view;
    if (this.state.driver !== "presenter" || this.run?.id !== view.run_id) return;
    this.loop += 1; // no play loop of this page's own beside the lead
    this.speed = view.speed;
    const target = Math.max(-1, Math.min(view.step, this.available() - 1));
    if (target === this.step + 1 && view.playing) {
      this.step = target;
      this.stage.animate(target, STEP_MS / this.speed);
    } else if (target !== this.step) {
      this.show(target);
    }
    this.playing = view.playing;
    this.changed();
  }

  go(step) {
    this.own();
    this.show(step);
    this.changed();
  }

  show(step) {
    if (!this.run) return;
    this.stage.stopAnimation();
    this.step = Math.max(-1, Math.min(step, this.available() - 1, this.limit()));
    this.stage.show(this.step + 1);
    this.stage.mark(this.step);
  }

  async forward() { this.own(); return this.advance(); }

  async advance() {
    if (!this.run || this.step + 1 >= Math.min(this.available(), this.limit() + 1)) return false;
    this.step += 1;
    this.changed();
    await this.stage.animate(this.step, STEP_MS / this.speed);
    return true;
  }

  back() { this.pause(); this.go(this.step - 1); }

  play() {
    this.own();
    if (!this.playing) this.loopFrom();
  }

  /** Play on from the step shown (from the inputs if at the end of an ended run). */
  async loopFrom() {
    if (!this.run) return;
    if (this.step + 1 >= this.available() && this.run.state !== "running") this.show(-1);
    const mine = ++this.loop;
    this.playing = true;
    this.changed();
    const going = () => this.playing && this.loop === mine;
    while (going()) {
      const moved = await this.advance();
      if (!going()) return; // paused, or taken over: whoever did says so
      if (!moved && this.run.state !== "running") break;
      // unmoved: a live run's next step
      await new Promise((r) => setTimeout(r, moved ? 120 / this.speed : 100));
    }
    if (this.loop !== mine) return;
    this.playing = false;
    this.changed();
  }

  pause() { this.own(); this.playing = false; this.changed(); }
  toggle() {
    const playing = this.playing; // as shown: a tap on ❚❚ pauses, even the presenter's playing
    this.own();
    playing ? this.pause() : this.play();
  }

  setSpeed(speed) { this.own(); this.speed = speed; this.changed(); }
}

/** The player's buttons, slider, speed and keys (Space, ← →, + -). */
export class PlayerButtons {
  constructor(player) {
    this.player = player;
    $("first").onclick = () => { player.pause(); player.go(-1); };
    $("back").onclick = () => player.back();
    $("play").onclick = () => player.toggle();
    $("forward").onclick = () => { player.pause(); player.forward(); };
    // the step read first: pause() draws the player again, the slider at the step shown
    $("slider").oninput = (e) => { const step = Number(e.target.value); player.pause(); player.go(step); };
    $("speed").onchange = (e) => player.setSpeed(Number(e.target.value));
    const follow = $("follow");
    if (follow) follow.onchange = (e) => player.state.set({ live: e.target.checked });
    document.addEventListener("keydown", (e) => {
      if (notAShortcut(e)) return;
      if (e.key === " ") { e.preventDefault(); player.toggle(); }
      else if (e.key === "ArrowRight") { e.preventDefault(); player.pause(); player.forward(); }
      else if (e.key === "ArrowLeft") { e.preventDefault(); player.back(); }
      else if (e.key === "+" || e.key === "=" || e.key === "-") this.faster(e.key === "-" ? -1 : 1);
    });
  }

  /** + and -: the next speed the select offers, up or down. */
  faster(by) {
    const speeds = [...$("speed").options].map((o) => Number(o.value)), { player } = this;
    const at = speeds.findIndex((v) => v >= player.speed);
    const next = speeds[Math.max(0, Math.min(speeds.length - 1, (at < 0 ? speeds.length - 1 : at) + by))];
    $("speed").value = String(next);
    player.setSpeed(next);
  }
}
