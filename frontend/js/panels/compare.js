// The compare view: the busiest rank's and link's bytes against P, in units of N, for the
// algorithms the server sets side by side (simulated), with this cluster's measurements on top.

import { api } from "rs/core/api.js";
import { $, html, reason } from "rs/core/dom.js";
import { PALETTE } from "rs/core/format.js";
import { CONFIG, chartTheme, plotly, whenShown } from "rs/panels/charts.js";

const COLOURS = [PALETTE[5], PALETTE[4], PALETTE[2], PALETTE[6]];

/** A line per algorithm and figure, the measured points as markers. */
function compareTraces(data) {
  return data.series.flatMap((s, i) => {
    const color = COLOURS[i % COLOURS.length], name = s.label ?? s.algorithm, legendgroup = s.algorithm;
    // each line thinner than those under it: equal ones (P-1)·N both show
    const width = 2 + 1.5 * (data.series.length - 1 - i);
    const link = { xaxis: "x2", yaxis: "y2", legendgroup, showlegend: false }; // the busiest link's panel
    const mine = data.measured.filter((m) => m.algorithm === s.algorithm), x = mine.map((m) => m.p);
    const marker = { color, size: 13, symbol: "diamond", line: { width: 2, color: "#000" } };
    return [
      { mode: "lines", name: `${name}: busiest rank`, x: s.p, y: s.per_rank,
        line: { color, width }, legendgroup,
        hovertemplate: `${name}, P=%{x}: %{y:.2f}·N through the busiest rank<extra></extra>` },
      { mode: "lines", name: `${name}: busiest link`, x: s.p, y: s.busiest_link,
        line: { color, width, dash: "dot" }, ...link,
        hovertemplate: `${name}, P=%{x}: %{y:.2f}·N on the busiest link<extra></extra>` },
      ...(mine.length ? [
        { mode: "markers", name: `${name}: measured here`, x, y: mine.map((m) => m.per_rank),
          marker, legendgroup,
          hovertemplate: "measured here (run %{text}): %{y:.2f}·N<extra></extra>",
          text: mine.map((m) => m.run) },
        { mode: "markers", x, y: mine.map((m) => m.busiest_link), marker, ...link,
          hovertemplate: "measured here: %{y:.2f}·N<extra></extra>" },
      ] : []),
    ];
  });
}

/** The compare chart, in its panel and over the stage (C). */
export class Compare {
  /** `state`: may the page run what the table lacks; `player`: the run on stage. */
  constructor(state, player) { Object.assign(this, { state, player }); }

  /** For a parameter-server run on stage: its formula and bytes beside those of the algorithms
   * that replaced it, at the same N and P. */
  async beside() {
    const table = $("beside");
    const run = this.player.run;
    table.hidden = !run?.layout?.servers?.length;
    if (table.hidden) return;
    const data = await api(`/api/compare/beside?run=${encodeURIComponent(run.id)}`);
    const heads = ["", "formula", "counts", `= for N = ${data.n} B, P = ${data.p}`, "measured here"];
    const rows = data.rows.map((r) => {
      const same = r.measured != null && r.measured === r.value;
      const tr = html("tr", {}, [r.label, r.formula ?? r.why ?? "no closed form here", r.what ?? "",
        r.value != null ? `${r.value} B` : "–",
        r.measured != null ? `${r.measured} B ${same ? "✓" : "≠"}` : "not run at this N and P"]
        .map((text) => html("td", {}, text)));
      heads.forEach((h, i) => h && (tr.cells[i].dataset.head = h)); // for a phone (CSS .reflow)
      if (same) tr.lastChild.className = "ok";
      if (r.measured == null && r.spec && this.state.presenter) {
        const run = html("button", { type: "button", onclick: async () => {
          run.disabled = true;
          await api("/api/runs", { method: "POST", body: r.spec }).catch(() => (run.disabled = false));
        } }, "run it");
        tr.lastChild.append(" ", run);
      }
      return tr;
    });
    table.replaceChildren(html("tr", {}, heads.map((h) => html("th", {}, h))), ...rows);
  }

  async plot(el) {
    // the table first: the chart takes what room is left
    const [data, Plotly] = await Promise.all([api("/api/compare"), plotly(), this.beside()]);
    const t = chartTheme();
    const narrow = matchMedia("(max-width: 900px)").matches; // a phone: one chart under the other
    const [x1, x2, y1, y2] = narrow ? [[0, 1], [0, 1], [0.62, 1], [0, 0.38]]
      : [[0, 0.46], [0.54, 1], [0, 1], [0, 1]];
    const axis = (title, domain, anchor) =>
      ({ ...t.xaxis, title: { text: title }, domain, anchor, type: "log", dtick: Math.log10(2) });
    await Plotly.react(el, compareTraces(data), {
      ...t, font: { ...t.font, size: narrow ? 12 : 16 },
      // under the axes' titles: on a phone under the lower chart, else at the foot of the whole figure,
      // whose margin holds the ticks, the titles (however large lecture mode writes them) and the legend
      legend: narrow ? { orientation: "h", yanchor: "top", y: -0.12 }
        : { orientation: "h", yref: "container", yanchor: "bottom", y: 0, xanchor: "center", x: 0.5 },
      margin: narrow ? t.margin : { ...t.margin, b: 130 },
      title: { text: `bytes against P, in units of N (one rank's buffer):${narrow ? "<br>" : " "}`
        + `lines simulated, diamonds measured here`, font: { size: narrow ? 13 : 17 } },
      xaxis: axis("P (ranks)", x1, "y"), xaxis2: axis("P (ranks)", x2, "y2"),
      // every tick its whole number
      yaxis: { ...t.yaxis, title: { text: "busiest rank (× N)" }, type: "log", anchor: "x", domain: y1,
        tickvals: [1, 2, 5, 10, 20, 50, 100], ticktext: ["1", "2", "5", "10", "20", "50", "100"] },
      yaxis2: { ...t.yaxis, title: { text: "busiest link (× N)" }, anchor: "x2", domain: y2,
        rangemode: "tozero" },
    }, CONFIG);
    el.dataset.drawn = String(data.measured.length);
  }

  /** Draw, or say why not. */
  plotOrSay(el) {
    return this.plot(el).catch((err) => el.replaceChildren("compare: ", reason(err)));
  }

  /** (Re)draw the compare chart, now if it is in view, else once it is. */
  draw() {
    const el = $("compare");
    if (el) whenShown(el, () => this.plotOrSay(el));
  }

  /** C: the compare chart over the stage (in lecture mode the only way to see it), or back. */
  show(on) {
    document.body.classList.toggle("comparing", on);
    const el = $("compare");
    if (on) this.plotOrSay(el);
    // back to its panel, if shown
    else if (window.Plotly && el.dataset.drawn && el.offsetParent) window.Plotly.Plots.resize(el);
  }
}
