// Under the stage, the algorithm's traffic formula as the server evaluated it, beside what the
// run measured: "2·(N/P)·(P-1) = 48 B sent by every rank · measured 48 B ✓".

import { $, html } from "rs/core/dom.js";
import { bytes } from "rs/core/format.js";

/** The formula's line in words: [formula part, measurement part, verdict]. */
export function formulaText(f, p) {
  const unit = `${f.unit} = ${bytes(f.unit_bytes)}, P = ${p}`;
  const said = `${f.formula} = ${bytes(f.value)} ${f.what}`;
  if (f.measured == null) return [said, `(${unit}) · measured when the run ends`, ""];
  const same = f.measured === f.value;
  return [said, `(${unit}) · measured ${bytes(f.measured)}`, same ? "✓" : "≠"];
}

/** The #formula line under the stage (made on first use), with the key to the cards' sent and
 * received bars; no formula where the algorithm has no closed form. data-* hold the bytes. */
export function showFormula(run) {
  const stage = $("stage");
  if (!stage) return;
  let box = $("formula");
  if (!box) stage.after((box = html("p", { id: "formula", "aria-live": "polite" })));
  // the cards' bars come with the display data
  const f = run?.display?.formula, bars = !!run?.display?.itemsize;
  box.hidden = !f && !bars;
  for (const k of ["formula", "value", "measured", "what"]) delete box.dataset[k];
  const part = (cls, text) => html("span", { class: cls }, text);
  const legend = bars ? [" ", part("legend-sent", "sent"), " ", part("legend-received", "received")] : [];
  if (!f) {
    box.replaceChildren(...legend);
    return;
  }
  const [said, measured, verdict] = formulaText(f, run.group.length);
  Object.assign(box.dataset, { formula: f.formula, value: String(f.value), what: f.what });
  if (f.measured != null) box.dataset.measured = String(f.measured);
  box.replaceChildren(part("said", said), " ", part("measured", measured), " ",
    part(verdict === "✓" ? "verdict ok" : "verdict differs", verdict), ...legend);
}
