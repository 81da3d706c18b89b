// M: the seed's three all_reduce formulas over the stage, with the run's N and P put in, beside
// what this cluster measured at that N and P (/api/compare/formulas). M again switches what the
// rows count: what each formula counts, then every rank's sends in total, then the busiest link,
// then closes. The presenter's page runs the rows not measured yet, off the stage (as a sweep's).

import { api } from "rs/core/api.js";
import { $, html, reason } from "rs/core/dom.js";
import { bytes } from "rs/core/format.js";

export const VIEWS = ["formulas", "formulas:total", "formulas:link"];
const HEADS = { counts: "what each formula counts", total: "every rank's sends, in total",
  link: "the busiest link" };
const POLL_MS = 1500, POLLS = 40; // rows run meanwhile come in within a minute

/** The overlay M shows after `overlay` (the one shown now), or null: closed. */
export function nextView(overlay) {
  const i = VIEWS.indexOf(overlay);
  return i + 1 < VIEWS.length ? VIEWS[i + 1] : null;
}

/** The formula with this run's N and P put in: "(4−1)·16 B = 48 B" ("≈" where it is not whole). */
const putIn = (row) =>
  `${row.put_in} ${Number.isInteger(row.value) ? "=" : "≈"} ${bytes(Math.round(row.value))}`;

function table(data, view, presenter) {
  const counts = view === "counts";
  const heads = counts ? ["", "formula", "counts", "with this N and P", "measured here"]
    : ["", "simulated", "measured here", "in units of N"];
  const rows = data.rows.map((r) => {
    const m = r.measured, got = m?.[view];
    const expected = counts ? (Number.isInteger(r.value) ? r.value : null) : r.simulated[view];
    const verdict = got == null || expected == null ? "" : got === expected ? " ✓" : " ≠";
    const measured = got != null ? `${bytes(got)}${verdict}`
      : r.why ? html("span", { "data-refused": "" }, r.why) : presenter ? "running it…" : "not run at this N and P yet";
    const inN = got == null ? "" : `${+(got / data.n).toFixed(2)}·N`;
    const cells = counts ? [r.algorithm, r.formula, r.counts, putIn(r), measured]
      : [r.algorithm, bytes(r.simulated[view]), measured, inN];
    // each cell headed on a phone, where the table is too wide (CSS .reflow)
    const tr = html("tr", { "data-algorithm": r.algorithm },
      cells.map((c, i) => html("td", heads[i] ? { "data-head": heads[i] } : {}, c)));
    if (got != null) tr.dataset.measured = String(got);
    if (verdict === " ✓") tr.cells[counts ? 4 : 2].className = "ok";
    return tr;
  });
  return [html("tr", {}, heads.map((h) => html("th", {}, h))), ...rows];
}

/** The formulas over the stage (M) for the run on the page's player. */
export class SeedFormulas {
  shown = 0; // the newest drawing asked for: an older answer is dropped

  /** `state`: the page's (may it run the rows missing); `player`: the run on stage. */
  constructor(state, player) { Object.assign(this, { state, player }); }

  /** Show overlay `name` (one of VIEWS; anything else hides it) for the run on the player. */
  show(name) {
    const view = VIEWS.includes(name) ? (name.split(":")[1] ?? "counts") : null;
    document.body.classList.toggle("formulas-shown", !!view);
    let box = $("seed-formulas");
    if (!box) {
      box = html("section", { id: "seed-formulas", "aria-live": "polite", "aria-label": "the formulas" });
      document.body.append(box);
    }
    box.hidden = !view;
    const { player } = this, mine = ++this.shown, run = player.run?.preview ? null : player.run; // a run
    if (!view) return;
    // drawn again for another run: a phone's (the presenter's) may be on its way
    const redraw = () => mine === this.shown && (player.run?.id === run?.id
      ? player.addEventListener("change", redraw, { once: true }) : this.show(name));
    player.addEventListener("change", redraw, { once: true });
    if (run) return this.draw(box, run, view, mine, 0);
    box.replaceChildren(html("p", {}, "Run something first: the formulas take its N and P."));
  }

  async draw(box, run, view, mine, polls) {
    let data;
    try {
      data = await api(`/api/compare/formulas?run=${encodeURIComponent(run.id)}`);
    } catch (err) {
      if (mine === this.shown) box.replaceChildren(html("p", {}, "formulas: ", reason(err)));
      return;
    }
    if (mine !== this.shown) return;
    const missing = data.rows.filter((r) => !r.measured && r.spec), { presenter } = this.state;
    if (!polls && presenter) {
      for (const r of missing) api("/api/runs", { method: "POST", body: r.spec }).catch(() => {});
    }
    const again = () => mine === this.shown && this.draw(box, run, view, mine, polls + 1);
    if (missing.length && polls < POLLS) setTimeout(again, POLL_MS);
    const at = `N = ${bytes(data.n)} (${data.count} × ${run.spec.dtype}), P = ${data.p}`;
    const resized = `N made ${data.count} elements (the run had ${run.spec.count}): ring's N/P splits evenly`;
    box.replaceChildren(html("h2", {}, `The seed's all_reduce formulas at ${at}: ${HEADS[view]}`),
      data.resized ? html("p", {}, resized) : "",
      html("table", { class: "reflow" }, table(data, view, presenter)),
      html("p", { class: "keys" }, "M: the next count · measured here by runs of this N and P"));
    box.dataset.view = view;
  }
}
