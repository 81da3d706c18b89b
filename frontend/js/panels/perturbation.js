// Perturbations: a slow rank or link marked on the stage, a hang's wavefront, who waited for whom,
// the form that asks for them (presenter only) and the lecture demo (D): the server's pair of
// algorithms under one straggler. Predictions and a hang's state come from the server.

import { api } from "rs/core/api.js";
import { $, el, html, refusal } from "rs/core/dom.js";
import { bandwidth, seconds } from "rs/core/format.js";
import { fill, tr } from "rs/i18n/i18n.js";
import { arrivals, lastArrivals } from "rs/panels/timeline.js";

const MARK = "#D55E00"; // vermilion: apart from every rank's colour
const SHOWN_STEPS = 12; // steps listed in the waits report

// ---- the stage

/** The run on stage's marks: its straggler, its slow link, its hang's wavefront. */
function draw(stage) {
  const run = stage.run;
  stage.svg.querySelector("g.perturbation")?.remove();
  if (!run?.spec || !stage.positions) return;
  const asked = run.spec.perturb, front = run.perturbed?.wavefront;
  if (!asked && !front) return;
  const g = el("g", { class: "perturbation", "pointer-events": "none" }, stage.svg);
  if (asked?.straggler)
    outline(stage, g, asked.straggler.rank, fill("straggler · +{s1} a step", { s1: seconds(asked.straggler.delay_s) }));
  if (asked?.slow_link) link(stage, g, asked.slow_link);
  if (front?.rank != null) wave(stage, g, front);
  stage.overlaid();
}

const fontOf = (stage) => (stage.column ? 13 : Math.max(12, Math.min(20, stage.card.h * 0.16)));
/** Where a mark's words start over a card: centred on it, or in a phone's narrow
 * column from its left edge. */
const anchor = (stage, at) => (stage.column ? [at.x - stage.card.w / 2, "start"] : [at.x, "middle"]);

function outline(stage, g, rank, label, dashed = "8 5", cls = "perturb-label") {
  const at = stage.positions[rank];
  if (!at) return;
  const { w, h } = stage.card, pad = 5;
  el("rect", { class: "perturb-mark", "data-rank": rank, x: at.x - w / 2 - pad, y: at.y - h / 2 - pad,
    width: w + 2 * pad, height: h + 2 * pad, rx: 10, fill: "none", stroke: MARK, "stroke-width": 4,
    "stroke-dasharray": dashed }, g);
  text(g, anchor(stage, at), at.y - h / 2 - pad - 6, label, fontOf(stage), cls);
}

function link(stage, g, { a, b, bytes_per_s }) {
  const p = stage.positions[a], q = stage.positions[b];
  if (!p || !q) return;
  el("line", { class: "perturb-link", "data-a": a, "data-b": b,
    x1: p.x, y1: p.y, x2: q.x, y2: q.y, stroke: MARK,
    "stroke-width": 7, "stroke-opacity": 0.55, "stroke-dasharray": "14 8", "stroke-linecap": "round" }, g);
  text(g, [(p.x + q.x) / 2, "middle"], (p.y + q.y) / 2 - 8,
    fill("slow link {n1}–{n2} · {s1}", { n1: a, n2: b, s1: bandwidth(bytes_per_s) }), fontOf(stage));
}

/** The hang: the rank everyone waits for outlined, every rank's last step done under its card. */
function wave(stage, g, front) {
  outline(stage, g, front.rank, fill("everyone waits for it at step {n1}", { n1: front.step + 1 }), "3 4",
    "perturb-label perturb-verdict");
  for (const [rank, done] of Object.entries(front.done)) {
    const at = stage.positions[rank];
    if (!at) continue;
    const waits = front.waiting.includes(Number(rank)) ? ` · ${fill("waits for {n1}", { n1: front.rank })}` : "";
    const last = done < 0 ? tr("done: no step") : fill("done: step {n1}", { n1: done + 1 });
    text(g, anchor(stage, at), at.y + stage.card.h / 2 + fontOf(stage) + 4, `${last}${waits}`,
      fontOf(stage) * 0.85);
  }
}

function text(g, [x, side], y, words, size, cls = "perturb-label") {
  el("text", { class: cls, x, y, "text-anchor": side, "font-size": size, fill: MARK, "font-weight": 600,
    "paint-order": "stroke", stroke: "var(--bg, #fff)", "stroke-width": 4 }, g).textContent = words;
}

// ---- the panel

const FIELDS = [ // option, field, label, default
  ["straggler", "rank", "rank", 0], ["straggler", "delay_s", "delay (s)", 0.1],
  ["slow_link", "a", "rank", 0], ["slow_link", "b", "and rank", 1],
  ["slow_link", "bytes_per_s", "bytes/s", 1e6],
  ["hang", "rank", "rank", 0], ["hang", "step", "at step", 1],
];
const OPTIONS = { straggler: "Straggler", slow_link: "Slow link", hang: "Hang" };

/** The options ticked in the form, as RunSpec.perturb (null if none). */
function asked() {
  const f = $("perturb-form").elements, out = {};
  for (const option of Object.keys(OPTIONS)) {
    if (!f[`${option}.on`].checked) continue;
    out[option] = Object.fromEntries(FIELDS.filter(([o]) => o === option).map(([, name]) =>
      [name, Number(f[`${option}.${name}`].value)]));
  }
  if (out.hang) out.hang.step -= 1; // the page counts steps from 1, the run's spec from 0
  return Object.keys(out).length ? out : null;
}

async function submit(request, then) {
  const why = $("perturb-why");
  why.textContent = "";
  try {
    then(await request());
  } catch (err) {
    refusal(why, err);
  }
}

// ---- the report

function reportOf(run) {
  const lines = [];
  const extra = run.perturbed?.predicted_extra_s;
  if (extra != null) lines.push(html("p", { class: "perturb-predicted" },
    `predicted extra: +${seconds(extra)} (from the schedule)`,
    run.time != null ? ` · measured time: ${seconds(run.time)}` : ""));
  if (run.perturbed?.wavefront?.text)
    lines.push(html("p", { class: "perturb-wavefront" }, run.perturbed.wavefront.text));
  const steps = arrivals(run);
  if (!steps.length || run.state === "running") return lines;
  const counts = Object.entries(lastArrivals(run)).sort((a, b) => b[1] - a[1]);
  lines.push(html("p", { class: "perturb-last" },
    `rank ${counts[0][0]} arrived last at ${counts[0][1]} of ${steps.length} steps`));
  const items = steps.slice(0, SHOWN_STEPS).map((s) => html("li",
    { "data-step": s.step, "data-last": s.last },
    `step ${s.step + 1}: rank ${s.last} last (+${seconds(s.late)})`,
    s.waits.length ? ` · ${s.waits.map((w) =>
      `${w.rank} waited ${seconds(w.seconds)} for ${w.waitedFor}`).join(", ")}` : ""));
  if (steps.length > SHOWN_STEPS) items.push(html("li", {}, `… ${steps.length - SHOWN_STEPS} more steps`));
  lines.push(html("ol", { class: "perturb-waits" }, items));
  return lines;
}

// ---- the page's perturbations: marks, panel, report and demo

export class Perturbations {
  limits = null; // GET /api/perturb's answer, asked once (a promise)
  demo = null; // {ids, ended: {id: run}} of the last demo this page (or the presenter's) started
  /** The live messages it hears, by type, before the page's handling. */
  routes = {
    snapshot: () => { this.mountPanel(); this.later(); },
    wavefront: (m) => {
      const run = this.player.run;
      if (run?.id !== m.run_id) return;
      (run.perturbed ??= {}).wavefront = m.wavefront;
      draw(this.stage);
      this.holdCaption();
    },
    run_started: () => this.later(),
    run_ended: (m) => {
      if (this.demo?.ids.includes(m.run.id)) this.demo.ended[m.run.id] = m.run;
      this.later();
    },
  };

  /** The page's state, player, stage and controls. The marks are drawn again when the stage makes
   * its nodes again (a new run, a resize), and a hang's verdict takes over the caption that the
   * page writes at the player's frontier (its listener comes before this one). */
  constructor({ state, player, stage, controls }) {
    Object.assign(this, { state, player, stage, controls });
    stage.addEventListener("load", () => draw(stage));
    player.addEventListener("change", () => this.holdCaption());
  }

  later() { setTimeout(() => this.refresh(), 0); } // after the page's handling of the message

  /** At a hang's last reported step the caption is its verdict: the wavefront's while the others
   * wait, the run's error once it has failed. */
  holdCaption() {
    const { player } = this, caption = $("caption"), front = player.run?.perturbed?.wavefront;
    if (!player.run || player.step + 1 < player.available()) return;
    const failed = front?.rank != null && player.run.state !== "running";
    const verdict = front?.rank == null ? this.demoLine(player.run.id) : failed ? player.run.error : front.text;
    // the run's error is a rank's or the server's words: said by what they are (i18n.js)
    if (verdict && caption.textContent !== verdict) caption.replaceChildren(failed ? html("span", { "data-refused": "error" }, verdict) : verdict);
  }

  async mountPanel() {
    this.limits ??= api("/api/perturb").catch(() => null);
    const title = (await this.limits)?.demo?.title;
    let panel = $("perturb-panel");
    if (!panel) {
      panel = html("section", { id: "perturb-panel", "aria-label": "Perturb" }, html("h2", {}, "Perturb"),
        html("form", { id: "perturb-form" }), html("p", { id: "perturb-why", class: "why" }),
        html("div", { id: "perturb-report" }));
      ($("controls") ?? document.body).after(panel);
      const keys = [html("dt", {}, "D"), html("dd", {}, title ?? "the perturbation demo")];
      document.querySelector("#keys dl")?.append(...keys);
    }
    const form = $("perturb-form"), { presenter } = this.state;
    form.hidden = !presenter;
    if (form.childElementCount || !presenter) return;
    for (const [option, title] of Object.entries(OPTIONS)) {
      const box = html("input", { type: "checkbox", name: `${option}.on` });
      const fields = FIELDS.filter(([o]) => o === option).map(([, name, label, value]) =>
        html("label", {}, `${label} `,
          html("input", { type: "number", name: `${option}.${name}`, value, step: "any", min: 0 })));
      form.append(html("fieldset", {}, html("legend", {}, html("label", {}, box, ` ${title}`)), fields));
    }
    form.append(html("button", { type: "button", id: "perturb-run", onclick: () => this.runPerturbed() },
      "Run with these"), html("button", { type: "button", id: "perturb-demo", title: "D",
      onclick: () => this.runDemo() }, title ?? "Demo"));
  }

  async runPerturbed() {
    const { controls } = this;
    const spec = { ...controls.spec(), perturb: asked() };
    await submit(() => api("/api/runs", { method: "POST", body: spec }),
      (accepted) => controls.onSubmitted(accepted.id));
  }

  /** The lecture demo (D, or its button), with the straggler the form asks for if it is ticked. */
  async runDemo() {
    const ticked = this.state.presenter && $("perturb-form").elements["straggler.on"]?.checked;
    const straggler = ticked ? asked()?.straggler : undefined;
    await submit(() => api("/api/perturb/demo",
      { method: "POST", body: straggler ? { straggler } : {} }), (answer) => {
      this.demo = { ids: answer.runs.map((r) => r.id), ended: {} };
      this.controls.onSubmitted(answer.runs[0].id);
    });
  }

  /** The run on stage's marks, and once it has ended, what was predicted, who arrived last, who waited. */
  refresh() {
    draw(this.stage);
    const report = $("perturb-report"), run = this.player.run;
    if (!report) return;
    report.replaceChildren(...(run ? reportOf(run) : []), ...this.demoReport());
  }

  /** The demo's runs side by side once all have ended, measured against predicted; null before.
   * With `shown`, only while the demo's last run is on stage. */
  demoLine(shown) {
    const { demo } = this;
    if (!demo || demo.ids.some((id) => !demo.ended[id]) || (shown && shown !== demo.ids.at(-1))) return null;
    const parts = demo.ids.map((id) => demo.ended[id]).map(({ spec, time, perturbed }) =>
      `${spec.algorithm}: ${seconds(time)} (predicted +${seconds(perturbed?.predicted_extra_s)})`);
    return `under one straggler: ${parts.join(" · ")}`;
  }

  demoIds() { return this.demo?.ids ?? []; }

  /** The presenter's demo: its ended runs are fetched (a late joiner heard no run_ended). */
  follow(ids) {
    if (!ids.length || String(ids) === String(this.demoIds())) return;
    const mine = (this.demo = { ids, ended: {} });
    for (const id of ids) {
      api(`/api/runs/${id}`).then((run) => {
        if (run.finished_at != null && this.demo === mine) { mine.ended[id] = run; this.refresh(); }
      }).catch(() => {}); // gone from the store: no line
    }
  }

  demoReport() {
    const line = this.demoLine();
    if (!line) return [];
    this.holdCaption(); // the caption says it too (lecture mode shows no panel)
    return [html("p", { class: "perturb-demo" }, line)];
  }
}
