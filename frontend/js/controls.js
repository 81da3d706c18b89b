// The run controls, built from /api/catalog: a button per collective and the spec's fields.
// A control that cannot be used says why; the server's refusals appear next to their field.

import { api } from "rs/api.js";

const $ = (id) => document.getElementById(id);
const FIELDS = ["algorithm", "count", "dtype", "op", "root", "peer", "group", "pattern", "capture", "chunks"];

export class Controls {
  constructor(onSubmitted, onSweep) {
    this.onSubmitted = onSubmitted;
    this.onSweep = onSweep;
    this.catalog = null;
    this.collective = null; // the catalog's first until one is picked
    this.canRun = false;
    this.lastSpec = null;
    this.lecture = false; // lecture mode: R runs the pick with the lecture preset, if it is on
    this.presetOn = true;
  }

  /** The lecture preset applies: in lecture mode, unless turned off (key P). */
  get preset() { return this.lecture && this.presetOn; }

  setLecture(on) { this.lecture = on; this.showPick(); }
  togglePreset() { this.presetOn = !this.presetOn; this.showPick(); }

  /** Numbers a back row can read: one digit a block (a rank with one block holds its rank + 1,
   * one with several 1, 2, 3 …), and a count that puts one value in every chunk: as many
   * elements a block as the algorithm cuts it into chunks (the catalog says how many; for one
   * it cannot say, as the server chooses it, one a rank: enough for any that cuts by rank). */
  presetFields(spec) {
    const entry = this.catalog?.collectives.find((c) => c.name === spec.collective);
    return { count: entry?.pieces?.[spec.algorithm] ?? Math.max(1, this.catalog.world_size), pattern: "digits", capture: "full", chunks: 1 };
  }

  setCatalog(catalog, canRun) {
    this.catalog = catalog;
    this.canRun = canRun;
    const box = $("collectives");
    box.replaceChildren(...catalog.collectives.map((c, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = c.name;
      b.dataset.collective = c.name;
      b.title = `${i < 10 ? `key ${(i + 1) % 10}: ` : ""}${c.name}`;
      if (c.peer && catalog.world_size < 2) {
        b.disabled = true;
        b.title = `${c.name} needs at least two ranks`;
      }
      b.addEventListener("click", () => this.pick(c.name));
      return b;
    }));
    this.pick(this.collective ?? catalog.collectives[0]?.name);
  }

  pick(name, overrides = {}) {
    if (!this.catalog) return;
    const entry = this.catalog.collectives.find((c) => c.name === name);
    if (!entry) return;
    this.collective = name;
    document.querySelectorAll("#collectives button").forEach((b) => b.classList.toggle("active", b.dataset.collective === name));
    this.render(entry, overrides);
  }

  /** The algorithm a freshly drawn form shows: the one asked for or shown before, if this
   * collective has it, else its last stepwise one (native draws no transfers). */
  algorithmFor(entry, wanted, custom) {
    return [...entry.algorithms, ...custom].includes(wanted) ? wanted : entry.algorithms.at(-1);
  }

  pickIndex(i) {
    const entry = this.catalog?.collectives[i];
    if (entry) this.pick(entry.name);
  }

  /** ] and [: the next or previous collective, round the catalog (the digits reach only ten). */
  pickNext(delta) {
    const list = this.catalog?.collectives ?? [];
    const at = list.findIndex((c) => c.name === this.collective);
    if (list.length) this.pick(list[(at + delta + list.length) % list.length].name);
  }

  render(entry, overrides) {
    const c = this.catalog;
    const form = $("spec");
    const previous = Object.fromEntries(new FormData(form));
    const v = (k, d) => overrides[k] ?? previous[k] ?? d;
    const world = c.world_size || 1;
    // A presenter may also paste (or load) a schedule as data: the algorithm the catalog names for it.
    const custom = this.canRun && c.custom ? [c.custom.algorithm] : [];
    const rows = [
      ["algorithm", select([...entry.algorithms, ...custom], this.algorithmFor(entry, v("algorithm"), custom))],
      ["count", input("number", v("count", 8), { min: 1 })],
      ["dtype", select(c.dtypes, v("dtype", "int32"))],
      entry.reduces ? ["op", select(c.ops, v("op", "SUM"))] : null,
      entry.rooted ? ["root", input("number", v("root", 0), { min: 0, max: world - 1 })] : null,
      entry.peer ? ["peer", input("number", v("peer", 1 % world), { min: 0, max: world - 1 })] : null,
      ["group", input("text", v("group", ""), { placeholder: `all ${world} ranks, or e.g. 0,2,3` })],
      ["pattern", select(c.patterns, v("pattern", "index"))],
      ["capture", select(c.captures, v("capture", "full"))],
      ["chunks", input("number", v("chunks", 1), { min: 1 })],
      custom.length ? ["schedule", scheduleBox(v("schedule", ""), c.custom)] : null,
    ].filter(Boolean);
    form.replaceChildren();
    for (const [name, control] of rows) {
      control.name = name;
      control.id = `field-${name}`;
      const label = document.createElement("label");
      label.htmlFor = control.id;
      label.textContent = name;
      const error = document.createElement("div");
      error.className = "error";
      error.dataset.errorFor = name;
      if ("forCustom" in control.dataset) label.dataset.forCustom = "";
      form.append(label, control, ...(control.companion ? [control.companion] : []), error);
    }
    const submit = document.createElement("button");
    submit.type = "submit";
    submit.id = "run";
    submit.textContent = `Run ${entry.name}`;
    submit.disabled = !this.canRun || !c.world_size;
    const sweep = document.createElement("button");
    sweep.type = "button";
    sweep.id = "sweep-run";
    sweep.textContent = "Sweep sizes, every algorithm";
    sweep.title = "run every algorithm of this collective at growing sizes, then chart time and busbw";
    sweep.disabled = submit.disabled;
    sweep.onclick = () => this.onSweep(entry, this.spec());
    form.append(submit, sweep);
    $("run-why").textContent = !c.world_size ? "No ranks are connected yet."
      : !this.canRun ? "Watching only: open the presenter link (the one with ?token=) to run collectives." : "";
    form.onsubmit = (e) => { e.preventDefault(); this.submit(); };
    const dtype = form.elements.dtype, op = form.elements.op;
    const refreshOps = () => {
      if (!op) return;
      const integer = c.integer_dtypes.includes(dtype.value);
      for (const o of op.options) {
        const why = c.bitwise_ops.includes(o.value) && !integer ? `${o.value} needs an integer dtype`
          : o.value === "AVG" && integer ? "AVG needs a floating dtype" : "";
        o.disabled = !!why;
        o.title = why;
      }
      if (op.selectedOptions[0]?.disabled) op.value = "SUM";
    };
    dtype.addEventListener("change", refreshOps);
    refreshOps();
    const showSchedule = () => form.querySelectorAll("[data-for-custom]").forEach((el) => { el.hidden = form.elements.algorithm.value !== c.custom?.algorithm; });
    form.elements.algorithm.addEventListener("change", showSchedule);
    showSchedule();
    form.onchange = () => this.showPick();
    this.showPick();
  }

  spec() {
    const form = $("spec");
    const spec = { collective: this.collective };
    for (const name of FIELDS) {
      const field = form.elements[name];
      if (!field || field.value === "") continue;
      if (name === "group") spec.group = field.value.split(",").map((s) => Number(s.trim()));
      else spec[name] = field.type === "number" ? Number(field.value) : field.value;
    }
    if (spec.algorithm === this.catalog?.custom?.algorithm) spec.schedule = parseSchedule(form.elements.schedule.value);
    else if (this.preset) Object.assign(spec, this.presetFields(spec));
    return spec;
  }

  async submit(spec) {
    document.querySelectorAll("[data-error-for]").forEach((e) => (e.textContent = ""));
    try {
      spec ??= this.spec();
      const accepted = await api("/api/runs", { method: "POST", body: spec });
      this.lastSpec = spec;
      this.onSubmitted(accepted.id);
    } catch (err) {
      // "schedule.steps.3.transfers" is shown next to the schedule
      const field = String(err.field ?? "").split(".")[0];
      const slot = document.querySelector(`[data-error-for="${field}"]`) ?? $("run-why");
      slot.textContent = err.reason ?? String(err);
    }
  }

  /** R / Enter: run what is picked (after a run, that is the same run again). */
  again() { if (this.canRun) this.submit(); }

  /** A: the next algorithm of the picked collective, stepwise ones first and native last. */
  cycleAlgorithm() {
    const select = $("spec").elements.algorithm;
    const entry = this.catalog?.collectives.find((c) => c.name === this.collective);
    if (!select || !entry) return;
    const [native, ...rest] = entry.algorithms; // the catalog lists the backend's own call first
    const chosen = rest.filter((a) => a === this.catalog.auto?.algorithm); // the server's pick, just before native
    const order = [...rest.filter((a) => !chosen.includes(a)), ...chosen, native];
    select.value = order[(order.indexOf(select.value) + 1) % order.length];
    select.dispatchEvent(new Event("change", { bubbles: true }));
  }

  /** O: the next op the picked collective's reduction can take (with the preset, AVG brings
   * a floating dtype, and the others an integer one, so every op can be picked). */
  cycleOp() {
    const f = $("spec").elements;
    if (!f.op) return;
    const usable = [...f.op.options].filter((o) => this.preset || !o.disabled).map((o) => o.value);
    const next = usable[(usable.indexOf(f.op.value) + 1) % usable.length];
    if (this.preset) {
      const integer = this.catalog.integer_dtypes.includes(f.dtype.value);
      const want = next === "AVG" ? (integer ? this.catalog.dtypes.find((d) => d.startsWith("float") && d !== "float16") : f.dtype.value)
        : (integer ? f.dtype.value : this.catalog.integer_dtypes.find((d) => d.endsWith("32")) ?? f.dtype.value);
      if (want !== f.dtype.value) {
        f.dtype.value = want;
        f.dtype.dispatchEvent(new Event("change", { bubbles: true }));
      }
    }
    f.op.value = next;
    f.op.dispatchEvent(new Event("change", { bubbles: true }));
  }

  /** The strip over the stage in lecture mode: what R would run, without the side panels. */
  showPick() {
    const strip = $("pick");
    if (!strip || !this.catalog || !this.collective) return;
    const spec = this.specShown();
    const ranks = spec.group ? spec.group.length : this.catalog.world_size;
    const parts = [this.collective, spec.algorithm, `${ranks} ranks`, `${spec.count} × ${spec.dtype}`, spec.op,
      this.preset ? "lecture data: a digit a block" : null];
    const what = document.createElement("b");
    what.textContent = parts.filter(Boolean).join(" · ");
    const keys = document.createElement("span");
    keys.className = "keys";
    keys.textContent = `R runs it · A algorithm · O op · P ${this.preset ? "own data" : "lecture data"} · 1–0 [ ] pick`;
    strip.replaceChildren(what, "  —  ", keys);
    strip.dataset.preset = this.preset;
    strip.hidden = !this.canRun; // the audience runs nothing: what it would pick is nobody's business
  }

  /** What R would submit, for the strip (a schedule that is not JSON yet is not its business). */
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
    throw Object.assign(new Error(`not JSON: ${e.message}`), { field: "schedule", reason: `not JSON: ${e.message}` });
  }
}

/** A text box for a schedule as JSON, and a button that loads one from a file. */
function scheduleBox(value, limits) {
  const box = document.createElement("textarea");
  box.rows = 6;
  box.value = value;
  box.dataset.forCustom = "";
  box.placeholder = '{"pieces": 4, "steps": [{"phase": "reduce-scatter", "caption": "…", '
    + `"transfers": [[0, 1, 3, 3, 1], …]}]}  (src, dst, chunk, into, reduce); at most ${limits.max_steps} steps`;
  const file = document.createElement("input");
  file.type = "file";
  file.accept = ".json,application/json";
  file.dataset.forCustom = "";
  file.title = "load a schedule from a JSON file";
  file.onchange = async () => { if (file.files[0]) box.value = await file.files[0].text(); };
  box.companion = file; // placed under the box
  return box;
}

function select(options, value) {
  const s = document.createElement("select");
  for (const o of options) s.append(new Option(o, o, false, String(o) === String(value)));
  return s;
}

function input(type, value, attrs = {}) {
  const i = document.createElement("input");
  i.type = type;
  i.value = value;
  for (const [k, v] of Object.entries(attrs)) i.setAttribute(k, v);
  return i;
}
