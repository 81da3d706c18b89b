// The run form of the picked collective: the fields its catalog entry takes, the ops a dtype allows, a
// custom schedule (typed, loaded, or an example that runs), and the world's size.

import { api } from "rs/core/api.js";
import { $, html, reason, refused, say, select } from "rs/core/dom.js";

export class SpecForm {
  /** `controls`: whose catalog and pick it shows, told when it is submitted or changed. */
  resizing = null; // the world's size a resize asked for, until the server answers

  constructor(controls) { this.controls = controls; }

  render(entry, overrides) {
    const ctl = this.controls, c = ctl.catalog;
    const form = $("spec");
    const previous = Object.fromEntries(new FormData(form));
    const v = (k, d) => overrides[k] ?? previous[k] ?? d;
    const world = c.world_size || 1;
    // A presenter may also give a schedule as data (the catalog's custom algorithm).
    const algorithms = [...entry.algorithms, ...(ctl.canRun && c.custom ? [c.custom.algorithm] : [])];
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
      onclick: () => ctl.onSweep(entry, ctl.spec()),
      title: "run every algorithm of this collective at growing sizes, then chart time and busbw" },
      "Sweep sizes, every algorithm");
    submit.disabled = sweep.disabled = !ctl.canRun || !c.world_size;
    form.append(submit, sweep);
    this.showWorld(c);
    // a resize in flight keeps its word: the world it changes draws this form again meanwhile
    say("run-why", this.resizing != null ? `Resizing the world to ${this.resizing} ranks…`
      : !c.world_size ? "No ranks are connected yet."
      : !ctl.canRun ? "Watching only: open the presenter link (the one with ?token=) to run collectives."
      : "");
    form.onsubmit = (e) => { e.preventDefault(); ctl.submit(); };
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
    form.onchange = () => ctl.showPick();
    ctl.showPick();
  }

  /** The world's size: a control that resizes it where the server started the ranks (the catalog's
   * max_ranks), else how to start another number. */
  showWorld(c) {
    const world = c.world_size || 1, most = c.max_ranks, said = `${world} ranks connected:`;
    if (most == null || !this.controls.canRun) {
      return $("ranks-why").replaceChildren(said, " ", html("code", {}, "ringside up --ranks N"), " ",
        "starts another number; the group field runs on some of them.");
    }
    // what is typed and not yet set outlives a redraw (the role, the catalog coming in meanwhile)
    const before = $("world-ranks"), typed = before && "typed" in before.dataset ? before.value : null;
    const ranks = input("number", typed ?? world, { id: "world-ranks", min: 1, max: most, title: "the world's size" });
    if (typed != null) ranks.dataset.typed = "";
    ranks.addEventListener("input", () => { ranks.dataset.typed = ""; });
    const set = html("button", { type: "button", id: "world-set", onclick: () => this.resize(Number(ranks.value)) },
      "Set ranks");
    set.disabled = this.resizing != null;
    $("ranks-why").replaceChildren(said, " ", ranks, " ", set, " ",
      `1 to ${most}: the world grows or shrinks in place; the group field runs on some of them.`);
    if (before && before === document.activeElement) ranks.focus();
  }

  /** The world resized to n ranks: the catalog follows once the cluster says its new size. */
  async resize(n) {
    this.resizing = n;
    $("world-set").disabled = true;
    delete $("world-ranks").dataset.typed; // set: a redraw shows the world's size again
    say("run-why", `Resizing the world to ${n} ranks…`);
    try {
      await api("/api/cluster/size", { method: "POST", body: { ranks: n } });
      say("run-why", "");
    } catch (err) {
      $("run-why").replaceChildren("Not resized: ", reason(err));
    } finally {
      this.resizing = null;
      if ($("world-set")) $("world-set").disabled = false;
    }
  }

  /** "custom" starts from an example that runs: the collective's lecture algorithm's schedule as
   * data (the server plans it: POST /api/runs/preview), in group ranks, a step a line. */
  async fillExample(entry) {
    const ctl = this.controls, box = $("spec").elements.schedule;
    const spec = { ...ctl.spec(false), algorithm: entry.lecture };
    let plan;
    try {
      plan = (await api("/api/runs/preview", { method: "POST", body: spec })).schedule;
    } catch (err) {
      return refused(err, "data-error-for", "run-why");
    }
    if (!plan || box.value || !box.isConnected) return; // typed or loaded meanwhile, or picked anew
    const group = spec.group ?? Array.from({ length: ctl.catalog.world_size }, (_, r) => r);
    const steps = plan.steps.map(({ phase, caption, transfers }) => JSON.stringify({ phase, caption,
      transfers: transfers.map(([src, dst, ...rest]) => [group.indexOf(src), group.indexOf(dst), ...rest]) }));
    box.value = this.example = `{"pieces": ${plan.pieces}, "layout": "${plan.layout}", "steps": [\n`
      + `${steps.join(",\n")}\n]}`;
    ctl.showPick();
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
