// The run controls, built from /api/catalog: a button per collective and the spec's fields (spec-form.js).
// A control that cannot be used says why; the server's refusals appear next to their field.

import { api } from "rs/core/api.js";
import { $, html, reason, refused, sayEach } from "rs/core/dom.js";
import { SpecForm } from "rs/panels/spec-form.js";
import { PATTERN_WORDS, runParts, specParts } from "rs/panels/strip.js";

const FIELDS = ["algorithm", "count", "dtype", "op", "root", "peer", "servers", "group", "pattern", "capture",
  "chunks"];
const changed = (field) => field.dispatchEvent(new Event("change", { bubbles: true }));

export class Controls extends EventTarget {
  catalog = null;
  collective = null; // the catalog's first until one is picked
  lecture = false; // R runs the pick with the lecture preset, if it is on
  presetOn = true;
  presetPattern = "digits"; // I: the preset's inputs (lessons.js)
  scale = 1; // , and .: the preset's values a chunk
  onStage = null; // the run on the stage, and the pick when it came: {run, pick}

  /** `state`: the page's, whose role says whether this page may run. */
  constructor(state, onSubmitted, onSweep) {
    super();
    this.state = state;
    this.onSubmitted = onSubmitted;
    this.onSweep = onSweep;
    this.form = new SpecForm(this);
    state.addEventListener("role", () => this.catalog && this.setCatalog(this.catalog));
  }

  get canRun() { return this.state.presenter; }

  /** The lecture preset applies: in lecture mode, unless turned off (key P). */
  get preset() { return this.lecture && this.presetOn; }

  setLecture(on) { this.lecture = on; this.showPick(); }
  togglePreset() { this.presetOn = !this.presetOn; this.showPick(); }

  /** Numbers a back row can read: one digit a block, and as many elements a block for every
   * algorithm of a collective, so that a lecture compares like with like (ring against tree at
   * the same N): the fewest that give each algorithm's chunks (the catalog's pieces) as many
   * values each, else one a rank. */
  presetFields(spec) {
    const pieces = Object.values(this.entry(spec.collective)?.pieces ?? {});
    const gcd = (a, b) => (b ? gcd(b, a % b) : a), lcm = pieces.reduce((a, b) => (a * b) / gcd(a, b), 1);
    const count = !pieces.length ? Math.max(1, this.catalog.world_size)
      : lcm <= 64 ? lcm : Math.max(...pieces);
    // scaled by , and .; a parameter server's model has S shards; a barrier's ranks arrive one by one
    const perturb = this.entry(spec.collective)?.lecture_perturb;
    return { count: count * this.scale * (spec.servers ?? 1), pattern: this.presetPattern, capture: "full",
             chunks: 1, ...(perturb && { perturb }) };
  }

  setCatalog(catalog) {
    this.catalog = catalog;
    $("collectives").replaceChildren(...catalog.collectives.map((c, i) => {
      const alone = c.peer && catalog.world_size < 2;
      const b = html("button", { type: "button", "data-collective": c.name, onclick: () => this.pick(c.name),
        title: alone ? `${c.name} needs at least two ranks`
          : `${i < 10 ? `key ${(i + 1) % 10}: ` : ""}${c.name}` }, c.name);
      b.disabled = alone;
      return b;
    }));
    this.pick(this.collective ?? catalog.collectives[0]?.name);
  }

  /** The catalog's entry for a collective (the picked one by default). */
  entry(name = this.collective) { return this.catalog?.collectives.find((c) => c.name === name); }

  pick(name, overrides = {}) {
    const entry = this.entry(name);
    if (!entry) return;
    // a collective picked anew opens on its lecture algorithm (the catalog's), whatever came before
    if (name !== this.collective && !overrides.algorithm)
      overrides = { ...overrides, algorithm: entry.lecture };
    // and the parameter server on SUM, whatever op came before: its caption's w ← w − η·Σg
    if (name !== this.collective && entry.servers && !overrides.op) overrides = { ...overrides, op: "SUM" };
    this.collective = name;
    document.querySelectorAll("#collectives button")
      .forEach((b) => b.classList.toggle("active", b.dataset.collective === name));
    this.form.render(entry, overrides);
  }

  /** What is picked, for pick(...) to put back. */
  picked() { return [this.collective, Object.fromEntries(new FormData($("spec")))]; }

  pickIndex(i) {
    const entry = this.catalog?.collectives[i];
    if (entry) this.pick(entry.name);
  }

  /** ] and [: the next or previous collective (the digits reach only ten). */
  pickNext(delta) {
    const list = this.catalog?.collectives ?? [];
    const at = list.findIndex((c) => c.name === this.collective);
    if (list.length) this.pick(list[(at + delta + list.length) % list.length].name);
  }

  /** What R would submit; `schedule` false: a custom run's schedule left out. */
  spec(schedule = true) {
    const form = $("spec");
    const spec = { collective: this.collective };
    for (const name of FIELDS) {
      const field = form.elements[name];
      if (!field || field.value === "") continue;
      if (name === "group") spec.group = field.value.split(",").map((s) => Number(s.trim()));
      else spec[name] = field.type === "number" ? Number(field.value) : field.value;
    }
    // the server wants the root in the group even where the collective takes none (G: odds)
    if (spec.group && spec.root == null) spec.root = spec.group[0];
    if (spec.algorithm === this.catalog?.custom?.algorithm)
      spec.schedule = schedule ? parseSchedule(form.elements.schedule.value) : undefined;
    else if (this.preset) Object.assign(spec, this.presetFields(spec));
    return spec;
  }

  async submit() {
    document.querySelectorAll("[data-error-for]").forEach((e) => (e.textContent = ""));
    try {
      this.onSubmitted((await api("/api/runs", { method: "POST", body: this.spec() })).id);
    } catch (err) {
      refused(err, "data-error-for", "run-why");
      // lecture mode hides the form: the caption says why R ran nothing
      if (document.body.classList.contains("present")) $("caption").replaceChildren("Not run: ", reason(err));
    }
  }

  /** R / Enter: run what is picked (again). */
  again() { if (this.canRun) this.submit(); }

  /** A: the next algorithm of the picked collective, stepwise ones first and native last. */
  cycleAlgorithm() {
    const select = $("spec").elements.algorithm, entry = this.entry();
    if (!select || !entry) return;
    const [native, ...rest] = entry.algorithms; // the catalog lists the backend's own call first
    const chosen = rest.filter((a) => a === this.catalog.auto?.algorithm); // auto, just before native
    const order = [...rest.filter((a) => !chosen.includes(a)), ...chosen, native];
    select.value = order[(order.indexOf(select.value) + 1) % order.length];
    changed(select);
  }

  /** O: the next op the dtype takes (with the preset every op: AVG brings a float dtype, the others an
   * integer one). */
  cycleOp() {
    const f = $("spec").elements;
    if (!f.op) return;
    // with the preset every op the collective takes (the dtype follows); the parameter server's no AVG
    const taken = (o) => !(o.value === "AVG" && this.entry()?.servers);
    const usable = [...f.op.options].filter((o) => taken(o) && (this.preset || !o.disabled))
      .map((o) => o.value);
    const next = usable[(usable.indexOf(f.op.value) + 1) % usable.length];
    if (this.preset) {
      const integer = this.catalog.integer_dtypes.includes(f.dtype.value);
      const want = next === "AVG"
        ? (integer ? this.catalog.dtypes.find((d) => d.startsWith("float") && d !== "float16")
          : f.dtype.value)
        : (integer ? f.dtype.value
          : this.catalog.integer_dtypes.find((d) => d.endsWith("32")) ?? f.dtype.value);
      if (want !== f.dtype.value) {
        f.dtype.value = want;
        changed(f.dtype);
      }
    }
    f.op.value = next;
    changed(f.op);
  }

  /** The pick changed, or is drawn anew: the strip over the stage and the first screen show it. */
  showPick() {
    if (this.drawStrip()) this.dispatchEvent(new Event("pick")); // what is picked, or a field of it, changed
  }

  /** A run on the stage (a preview: none): the strip names it until the pick changes. */
  showRun(run) {
    const shown = run?.preview ? null : run;
    if (shown?.id === this.onStage?.run.id) return;
    this.onStage = shown && { run: shown, pick: this.pickKey() };
    this.drawStrip();
  }

  /** The pick as the presenter sets it (not what follows: the world's size, lecture mode on). */
  pickKey() { return JSON.stringify([this.picked(), this.presetOn, this.presetPattern, this.scale]); }

  /** The strip: the run on the stage, else what R would run; false before the catalog. */
  drawStrip() {
    const strip = $("pick");
    if (!strip || !this.catalog || !this.collective) return false;
    const spec = this.specShown(), entry = this.entry(), ranks = this.catalog.world_size;
    const pick = specParts(spec, { entry, ranks, data: this.preset && PATTERN_WORDS[this.presetPattern] });
    const run = this.onStage?.pick === this.pickKey() ? this.onStage.run : null;
    const parts = run ? runParts(run, this.entry(run.spec.collective)) : pick;
    // R runs the pick: where the strip names a run that R would not run again, the keys say what R runs
    const again = !run
      || parts.join() === specParts(spec, { entry, ranks, data: PATTERN_WORDS[spec.pattern] }).join();
    const runs = again ? "it" : pick.slice(0, 2).join(" · ");
    strip.replaceChildren(html("b", { id: "pick-spec" }), "  —  ",
      html("span", { class: "keys" },
        `R runs ${runs} · A algorithm · O op · P ${this.preset ? "own data" : "lecture data"} · `
        + `1–0 [ ] pick · Q asks the room`));
    sayEach("pick-spec", parts.map((p) => p || null));
    strip.dataset.preset = this.preset;
    strip.hidden = !this.canRun; // the audience runs nothing
    return true;
  }

  /** What R would submit (a schedule that is not JSON yet is not the strip's business). */
  specShown() {
    try {
      return this.spec();
    } catch {
      return { ...Object.fromEntries(new FormData($("spec"))), collective: this.collective, group: null };
    }
  }
}

/** A schedule's JSON, or an error that names the field (shown beside it). */
function parseSchedule(text) {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw Object.assign(new Error(`not JSON: ${e.message}`),
      { field: "schedule", reason: `not JSON: ${e.message}` });
  }
}
