// The seed lecture's lessons from the keyboard, for lecture mode hides the form: a group of the
// ranks (G), the root (X), the count (, .), the parameter server's S (S), the inputs (I), the
// seed's formulas (M), the training method (W), a training (N), every method compared (V), its
// steps' gradient syncs (Y) and export (E). Each key changes the form's field, so the strip over the
// stage says what R will run, and the caption what N will train.

import { $, say } from "rs/core/dom.js";
import { download } from "rs/export/export.js";
import { nextView } from "rs/lecture/seed-formulas.js";
import { PATTERN_WORDS } from "rs/panels/strip.js";
import { Calls } from "rs/stage/calls.js";
import { label } from "rs/training/charts.js";

const PATTERNS = Object.keys(PATTERN_WORDS);
const MOST = 64; // , and .: at most this many times the preset's values a chunk
const changed = (field) => field.dispatchEvent(new Event("change", { bubbles: true }));
const after = (list, value) => list[(list.indexOf(value) + 1) % list.length];

/** The group presets of `world` ranks whose hosts are `hosts` (rank -> host): [name, ranks], each
 * of two ranks or more ("one per node" needs two nodes). */
export function groupPresets(world, hosts) {
  const all = Array.from({ length: world }, (_, r) => r);
  const firsts = all.filter((r) => all.findIndex((q) => hosts[q] === hosts[r]) === r);
  return [["all", all], ["evens", all.filter((r) => r % 2 === 0)], ["odds", all.filter((r) => r % 2)],
    ["first half", all.slice(0, Math.ceil(world / 2))], ["one per node", firsts]]
    .filter(([name, ranks]) => name === "all" || (ranks.length >= 2 && ranks.length < world));
}

export class Lessons {
  presets = [["all", []]];
  preset = "all";

  /** The page's `controls`, `training` and `player`; `toggle(name)`: an overlay over the stage, or none. */
  constructor({ state, controls, training, player, toggle }) {
    Object.assign(this, { state, controls, training, player, toggle, callBox: new Calls() });
    player.addEventListener("change", () => this.calls());
    this.keys = { g: () => this.cycleGroup(), x: () => this.cycleRoot(),
      ",": () => this.scale(0.5), ".": () => this.scale(2),
      s: () => this.cycleServers(), i: () => this.cyclePattern(), m: () => toggle(nextView(state.overlay)),
      w: () => this.cycleMethod(), n: () => this.train(), v: () => this.compareMethods(),
      y: () => this.openSync(), e: () => player.run && !player.run.preview && download(player.run) };
    this.routes = { snapshot: (m) => this.cluster(m.cluster), cluster: (m) => this.cluster(m) };
  }

  get form() { return $("spec").elements; }

  cluster(cluster) {
    const hosts = Object.fromEntries((cluster?.ranks ?? []).map((r) => [r.rank, r.host]));
    this.presets = groupPresets(cluster?.world_size ?? 0, hosts);
  }

  /** The ranks R would run on: the group's, else all of them. */
  members() {
    const text = this.form.group?.value.trim();
    return text ? text.split(",").map(Number) : this.presets.find(([n]) => n === "all")?.[1] ?? [];
  }

  /** G: the next group preset; a root or peer left outside comes in with it. */
  cycleGroup() {
    const f = this.form;
    if (!f.group) return;
    const names = this.presets.map(([n]) => n);
    this.preset = names.includes(this.preset) ? after(names, this.preset) : names[0];
    const ranks = this.presets.find(([n]) => n === this.preset)[1];
    f.group.value = this.preset === "all" ? "" : ranks.join(",");
    for (const field of ["root", "peer"]) { // the peer, left outside or on the new root: another rank
      const taken = field === "peer" ? Number(f.root?.value) : -1, at = Number(f[field]?.value);
      if (f[field] && (!ranks.includes(at) || at === taken)) f[field].value = ranks.find((r) => r !== taken);
    }
    changed(f.group);
    const which = `${this.preset} (${ranks.join(", ")})`;
    say("caption", `group: ${which}: the others greyed on the stage once R runs it`);
  }

  /** X: the next rank of the group as the root (a peer it lands on moves on too). */
  cycleRoot() {
    const f = this.form, ranks = this.members();
    if (!f.root || !ranks.length) return;
    f.root.value = after(ranks, Number(f.root.value));
    if (f.peer && f.peer.value === f.root.value) f.peer.value = after(ranks, Number(f.root.value));
    changed(f.root);
  }

  /** , and .: half or twice the count (with the lecture preset: its values a chunk). */
  scale(by) {
    const c = this.controls;
    if (c.preset) {
      c.scale = Math.min(MOST, Math.max(1, c.scale * by));
      c.showPick();
    } else if (this.form.count) {
      this.form.count.value = Math.max(1, Math.round(Number(this.form.count.value) * by));
      changed(this.form.count);
    }
  }

  /** S: the parameter server's number of servers, 1 … P−1 (picking the parameter server first). */
  cycleServers() {
    const c = this.controls;
    if (!c.entry()?.servers) {
      const ps = c.catalog?.collectives.find((e) => e.servers);
      if (!ps) return;
      c.pick(ps.name);
      return;
    }
    const most = Math.max(1, this.members().length - 1), f = this.form;
    f.servers.value = (Number(f.servers.value) % most) + 1;
    changed(f.servers);
  }

  /** I: the next input pattern (with the preset: the seed's own among them). */
  cyclePattern() {
    const c = this.controls;
    if (c.preset) {
      c.presetPattern = after(PATTERNS, c.presetPattern);
      c.showPick();
    } else if (this.form.pattern) {
      const options = [...this.form.pattern.options].map((o) => o.value);
      this.form.pattern.value = after(options, this.form.pattern.value);
      changed(this.form.pattern);
    }
  }

  /** W: the Train panel's next method, in the seed lecture's order (the first W: its first), named
   * in the caption; N trains with it. */
  cycleMethod() {
    const t = this.training, field = $("train-form")?.elements.method;
    if (!this.state.presenter || !t.catalog || !field) return;
    const order = t.catalog.lecture_order;
    field.value = this.methodPicked ? after(order, field.value) : order[0];
    this.methodPicked = true;
    changed(field);
    say("caption", `training method: ${label(t.form.spec(), t.catalog)}: N trains with it, V compares every method`);
  }

  /** N: train with the Train panel's settings, its charts over the stage (T). */
  async train() {
    const t = this.training;
    if (!this.state.presenter || !t.catalog) return;
    if (await t.form.submit(t.form.spec()) && this.state.overlay !== "training") this.toggle("training");
  }

  /** V: every method trained on the same data, one after another, then side by side over the stage. */
  compareMethods() {
    const t = this.training;
    if (!this.state.presenter || !t.catalog) return;
    t.form.compareAll();
    if (this.state.overlay !== "training") this.toggle("training");
  }

  /** Y: the next step's gradient sync of the training on the charts, on the stage. */
  async openSync() {
    const t = this.training.shown;
    if (!t?.steps.length) return say("caption", "Y opens a training's step: train one first (N)");
    const box = $("train-step"), k = this.opened === t.id ? (Number(box.value) + 1) % t.steps.length : 0;
    box.value = k;
    this.opened = t.id;
    if (this.state.overlay === "training") this.toggle("training");
    this.player.own();
    await this.training.openStep(k);
    say("caption", $("train-sync-why").textContent);
  }

  /** The calls of the run on the stage, under it (send/recv's lesson). */
  calls() {
    const run = this.player.run, key = run && `${run.id}:${run.state}`;
    if (key === this.callsOf) return;
    this.callsOf = key;
    this.callBox.show(run);
  }
}
