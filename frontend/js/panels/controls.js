// The run controls, built from /api/catalog: a button per collective and the spec's fields. A control
// that cannot be used says why; the server's refusals appear next to their field.

import { api } from "rs/core/api.js";
import { $, html, reason, refused, say, sayEach, select } from "rs/core/dom.js";
import { seconds } from "rs/core/format.js";

const FIELDS = ["algorithm", "count", "dtype", "op", "root", "peer", "servers", "group", "pattern", "capture",
  "chunks"];
// the lecture preset's inputs (I), as the strip names them
export const PATTERN_WORDS = { digits: "a digit a block", own_rank: "each value its rank",
  powers: "[1, 10, 100, 1000]·rank", origin: "r2c3: rank 2's chunk 3" };
const changed = (field) => field.dispatchEvent(new Event("change", { bubbles: true }));

export class Controls extends EventTarget {
  catalog = null;
  collective = null; // the catalog's first until one is picked
  lecture = false; // R runs the pick with the lecture preset, if it is on
  presetOn = true;
  presetPattern = "digits"; // I: the preset's inputs (lessons.js)
  scale = 1; // , and .: the preset's values a chunk

  /** `state`: the page's, whose role says whether this page may run. */
  constructor(state, onSubmitted, onSweep) {
    super();
    this.state = state;
    this.onSubmitted = onSubmitted;
    this.onSweep = onSweep;
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
    this.render(entry, overrides);
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

  render(entry, overrides) {
    const c = this.catalog;
    const form = $("spec");
    const previous = Object.fromEntries(new FormData(form));
    const v = (k, d) => overrides[k] ?? previous[k] ?? d;
    const world = c.world_size || 1;
    // A presenter may also give a schedule as data (the catalog's custom algorithm).
    const algorithms = [...entry.algorithms, ...(this.canRun && c.custom ? [c.custom.algorithm] : [])];
    const rows = [
      // the one asked for or shown before, else the last stepwise one (native draws no transfers)
      ["algorithm", select(algorithms, algorithms.includes(v("algorithm")) ? v("algorithm") : entry.lecture)],
      ["count", input("number", v("count", 8), { min: 1 })],
      ["dtype", select(c.dtypes, v("dtype", "int32"))],
      entry.reduces ? ["op", select(c.ops, v("op", "SUM"))] : null,
      entry.rooted ? ["root", input("number", v("root", 0), { min: 0, max: world - 1 })] : null,
      entry.peer ? ["peer", input("number", v("peer", 1 % world), { min: 0, max: world - 1 })] : null,
      entry.servers ? ["servers", input("number", v("servers", 1), { min: 1, max: Math.max(1, world - 1) })]
        : null,
      ["group", input("text", v("group", ""), { placeholder: `all ${world} ranks, or e.g. 0,2,3` })],
      ["pattern", select(c.patterns, v("pattern", "index"))],
      ["capture", select(c.captures, v("capture", "full"))],
      ["chunks", input("number", v("chunks", 1), { min: 1 })],
      algorithms.length > entry.algorithms.length // another collective's example is no example here
        ? ["schedule", scheduleBox(v("schedule", "") === this.example ? "" : v("schedule", ""), c.custom)] : null,
    ].filter(Boolean);
    form.replaceChildren();
    for (const [name, control] of rows) {
      Object.assign(control, { name, id: `field-${name}` });
      const label = html("label", { for: control.id }, name);
      if ("forCustom" in control.dataset) label.dataset.forCustom = "";
      form.append(...[label, control, control.companion,
        html("div", { class: "error", "data-error-for": name })].filter(Boolean));
    }
    const submit = html("button", { type: "submit", id: "run" }, `Run ${entry.name}`);
    const sweep = html("button", { type: "button", id: "sweep-run",
      onclick: () => this.onSweep(entry, this.spec()),
      title: "run every algorithm of this collective at growing sizes, then chart time and busbw" },
      "Sweep sizes, every algorithm");
    submit.disabled = sweep.disabled = !this.canRun || !c.world_size;
    form.append(submit, sweep);
    this.showWorld(c);
    say("run-why", !c.world_size ? "No ranks are connected yet."
      : !this.canRun ? "Watching only: open the presenter link (the one with ?token=) to run collectives."
      : "");
    form.onsubmit = (e) => { e.preventDefault(); this.submit(); };
    const dtype = form.elements.dtype, op = form.elements.op;
    const refreshOps = () => {
      if (!op) return;
      const integer = c.integer_dtypes.includes(dtype.value);
      for (const o of op.options) {
        const why = c.bitwise_ops.includes(o.value) && !integer ? `${o.value} needs an integer dtype`
          : o.value === "AVG" && entry.servers ? "servers add into their weights: AVG would divide them too"
            : o.value === "AVG" && integer ? "AVG needs a floating dtype" : "";
        o.disabled = !!why;
        o.title = why;
      }
      if (op.selectedOptions[0]?.disabled) op.value = "SUM";
    };
    dtype.addEventListener("change", refreshOps);
    refreshOps();
    const showSchedule = () => {
      const custom = form.elements.algorithm.value === c.custom?.algorithm;
      form.querySelectorAll("[data-for-custom]").forEach((el) => { el.hidden = !custom; });
      if (custom && !form.elements.schedule.value) this.fillExample(entry);
    };
    form.elements.algorithm.addEventListener("change", showSchedule);
    showSchedule();
    form.onchange = () => this.showPick();
    this.showPick();
  }

  /** The world's size: a control that resizes it where the server started the ranks (the catalog's
   * max_ranks), else how to start another number. */
  showWorld(c) {
    const world = c.world_size || 1, most = c.max_ranks, said = `${world} ranks connected:`;
    if (most == null || !this.canRun) {
      return $("ranks-why").replaceChildren(said, " ", html("code", {}, "ringside up --ranks N"), " ",
        "starts another number; the group field runs on some of them.");
    }
    const ranks = input("number", world, { id: "world-ranks", min: 1, max: most, title: "the world's size" });
    const set = html("button", { type: "button", id: "world-set", onclick: () => this.resize(Number(ranks.value)) },
      "Set ranks");
    $("ranks-why").replaceChildren(said, " ", ranks, " ", set, " ",
      `1 to ${most}: the world grows or shrinks in place; the group field runs on some of them.`);
  }

  /** The world resized to n ranks: the catalog follows once the cluster says its new size. */
  async resize(n) {
    $("world-set").disabled = true;
    say("run-why", `Resizing the world to ${n} ranks…`);
    try {
      await api("/api/cluster/size", { method: "POST", body: { ranks: n } });
      say("run-why", "");
    } catch (err) {
      $("run-why").replaceChildren("Not resized: ", reason(err));
    } finally {
      if ($("world-set")) $("world-set").disabled = false;
    }
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

  /** The strip over the stage in lecture mode: what R would run. */
  showPick() {
    const strip = $("pick");
    if (!strip || !this.catalog || !this.collective) return;
    const spec = this.specShown();
    const ranks = spec.group ? spec.group.length : this.catalog.world_size;
    const rooted = spec.root != null && this.entry()?.rooted;
    const who = spec.group ? `ranks ${spec.group.join(",")}` : `${ranks} ranks`;
    const stagger = spec.perturb?.stagger?.delay_s;
    // a barrier's stage draws when each rank arrives, not its buffer: the strip says that, not the data
    const parts = this.entry()?.arrivals ? [this.collective, spec.algorithm, who,
      stagger ? `ranks arrive ${seconds(stagger)} apart: each waits for the last` : "each rank waits for the last"]
      : [this.collective, spec.algorithm, who,
        `${spec.count} × ${spec.dtype}`, spec.op, rooted ? `root ${spec.root}` : null,
        spec.servers ? `S = ${spec.servers}` : null,
        stagger ? `ranks arrive ${seconds(stagger)} apart` : null,
        this.preset ? `lecture data: ${PATTERN_WORDS[this.presetPattern]}` : null];
    strip.replaceChildren(html("b", { id: "pick-spec" }), "  —  ",
      html("span", { class: "keys" },
        `R runs it · A algorithm · O op · P ${this.preset ? "own data" : "lecture data"} · `
        + `1–0 [ ] pick · Q asks the room`));
    sayEach("pick-spec", parts.map((p) => p || null));
    strip.dataset.preset = this.preset;
    strip.hidden = !this.canRun; // the audience runs nothing
    this.dispatchEvent(new Event("pick")); // what is picked, or a field of it, changed
  }

  /** "custom" starts from an example that runs: the collective's lecture algorithm's schedule as
   * data (the server plans it: POST /api/runs/preview), in group ranks, a step a line. */
  async fillExample(entry) {
    const box = $("spec").elements.schedule, spec = { ...this.spec(false), algorithm: entry.lecture };
    let plan;
    try {
      plan = (await api("/api/runs/preview", { method: "POST", body: spec })).schedule;
    } catch (err) {
      return refused(err, "data-error-for", "run-why");
    }
    if (!plan || box.value || !box.isConnected) return; // typed or loaded meanwhile, or picked anew
    const group = spec.group ?? Array.from({ length: this.catalog.world_size }, (_, r) => r);
    const steps = plan.steps.map(({ phase, caption, transfers }) => JSON.stringify({ phase, caption,
      transfers: transfers.map(([src, dst, ...rest]) => [group.indexOf(src), group.indexOf(dst), ...rest]) }));
    box.value = this.example = `{"pieces": ${plan.pieces}, "layout": "${plan.layout}", "steps": [\n`
      + `${steps.join(",\n")}\n]}`;
    this.showPick();
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

/** A text box for a schedule as JSON, and a button that loads one from a file. */
function scheduleBox(value, limits) {
  const box = html("textarea", { rows: 6, "data-for-custom": "",
    placeholder: '{"pieces": 4, "steps": [{"phase": "reduce-scatter", "caption": "…", '
      + `"transfers": [[0, 1, 3, 3, 1], …]}]}  (src, dst, chunk, into, reduce); `
      + `at most ${limits.max_steps} steps` });
  box.value = value;
  box.companion = html("input", { type: "file", accept: ".json,application/json", "data-for-custom": "",
    title: "load a schedule from a JSON file",
    // placed under the box
    onchange: async (e) => { const file = e.target.files[0]; if (file) box.value = await file.text(); } });
  return box;
}

const input = (type, value, attrs = {}) => html("input", { type, value, ...attrs });
