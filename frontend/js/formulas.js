// The formula beside the measurement, under the stage: the algorithm's traffic formula as the
// server evaluated it for this run (display.formula), and what the run measured of the same
// quantity. "2·(N/P)·(P-1) = 48 B sent by every rank · measured 48 B ✓".

import { bytes } from "rs/format.js";

/** The formula's line in words: [formula part, measurement part, verdict]. */
export function formulaText(f, p) {
  const unit = `${f.unit} = ${bytes(f.unit_bytes)}, P = ${p}`;
  const said = `${f.formula} = ${bytes(f.value)} ${f.what}`;
  if (f.measured == null) return [said, `(${unit}) · measured when the run ends`, ""];
  const same = f.measured === f.value;
  return [said, `(${unit}) · measured ${bytes(f.measured)}`, same ? "✓" : "≠"];
}

/** The #formula line under the stage for `run` (made on first use), with the key to the cards'
 * sent and received bars; no formula where the algorithm on show has no closed form. Its
 * data-* attributes hold the numbers in bytes. */
export function showFormula(run) {
  const stage = document.getElementById("stage");
  if (!stage) return;
  let box = document.getElementById("formula");
  if (!box) {
    box = document.createElement("p");
    box.id = "formula";
    box.setAttribute("aria-live", "polite");
    stage.after(box);
  }
  const f = run?.display?.formula, bars = !!run?.display?.itemsize; // the cards' bars come with the display data
  box.hidden = !f && !bars;
  for (const k of ["formula", "value", "measured", "what"]) delete box.dataset[k];
  const part = (cls, text) => Object.assign(document.createElement("span"), { className: cls, textContent: text });
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
