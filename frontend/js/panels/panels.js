// The panels around the stage: caption, transfer log, phases, before/after, traffic, history.

import { $, html, say } from "rs/core/dom.js";
import { bandwidth, bytes, exact, formatValue, seconds } from "rs/core/format.js";
import { describeStep, outcomes, phasesOf } from "rs/stage/replay.js";

const counted = (n, noun) => `${n} ${noun}${n === 1 ? "" : "s"}`;
const values = (v) => (v == null ? "–"
  : v.length > 6 ? `${v.slice(0, 6).map(formatValue).join(" ")} …`
  : v.map(formatValue).join(" "));
/** A cell of the before/after table: the values short, every digit of them on hover (as the stage's). */
const valuesCell = (v) => html("td", { title: (v ?? []).slice(0, 256).map(exact).join(" ") }, values(v));

export function showStep(player) {
  const { run, frames, step } = player;
  const total = run ? run.steps.length : 0;
  $("slider").max = Math.max(-1, player.available() - 1);
  $("slider").value = step;
  const divided = frames?.[step + 1]?.divisor; // the frame after the last step of a run that averages
  say("step-label", step < 0 ? "inputs"
    : divided && step >= total ? `÷ ${divided}`
    : `step ${step + 1} / ${total}`);
  say("play", player.playing ? "❚❚" : "▶"); // two bars every font has (⏸ is missing from many)
  const log = $("log"), caption = $("caption");
  log.replaceChildren();
  showPhases(player);
  if (!run) return;
  if (run.preview) { // the first screen: what to press
    caption.replaceChildren(...run.hint());
    return;
  }
  if (step < 0) {
    caption.textContent = run.steps.length
      ? `${run.spec.collective} by ${run.spec.algorithm}: ${counted(total, "step")}. `
        + `Every rank starts with its input.`
      : run.state === "failed" && !run.schedule
        ? `${run.spec.collective} by ${run.spec.algorithm} failed before its first step `
          + `(Before / after says why).`
        : `${run.spec.collective} (${run.spec.algorithm}): the backend's own call, timed as a whole.`;
    return;
  }
  const s = run.steps[step];
  if (!s) { // past the last step: the division by P
    caption.textContent = `After step ${total}, every rank divides its sum by P = ${divided}: `
      + `the average, the run's output.`;
    return;
  }
  caption.textContent = `Step ${step + 1} of ${total} · ${s.phase}: ${s.caption}`;
  const lines = describeStep(run, frames, step, 200);
  for (const line of lines) log.append(html("li", {}, line));
  if (s.transfers.length > lines.length && lines.length === 200)
    log.append(html("li", {}, `… and more: ${s.transfers.length} transfers in all`));
}

/** "✗ [3] 7 ≠ 8 …": where the output differs from native's, in red. */
function differences(o) {
  const shown = o.mismatches.map(([i, got, want]) => `[${i}] ${formatValue(got)} ≠ ${formatValue(want)}`);
  return `✗ ${shown.join(", ") || `off by ${formatValue(o.maxDiff)}`}`;
}

/** The phases as a bar under the slider; a click jumps to one. */
function showPhases(player) {
  const bar = $("phases");
  const phases = phasesOf(player.run?.steps ?? []);
  const key = `${player.run?.id}:${phases.map((p) => `${p.phase}${p.last}`).join()}`;
  if (bar.dataset.key !== key) {
    bar.dataset.key = key;
    bar.replaceChildren(...(phases.length > 1 ? phases : []).map((p) => html("span", {
      style: `flex-grow: ${p.last - p.first + 1}`, "data-first": p.first, "data-last": p.last,
      title: `steps ${p.first + 1}–${p.last + 1}`,
      onclick: () => { player.pause(); player.go(p.first); } }, p.phase)));
  }
  for (const span of bar.children)
    span.classList.toggle("current", +span.dataset.first <= player.step && player.step <= +span.dataset.last);
}

/** Why a run went wrong, in the server's words: where its result first departed from the
 * collective's (a button shows that step with `player`), a failed run's error. */
function verdicts(run, player) {
  const out = [];
  const d = run.departure;
  if (d) {
    const show = () => { player.pause(); player.go(d.step); };
    out.push(html("p", {
      class: "departure differs", "data-step": d.step, "data-rank": d.rank, "data-chunk": d.chunk },
      "First departure: ", html("span", { "data-refused": "departure" }, d.words), ". ",
      d.step >= 0 ? html("button", { type: "button", onclick: show }, `show step ${d.step + 1}`) : null));
  }
  if (run.state === "failed" && run.error) {
    out.push(html("p", { class: "failure differs" }, html("span", { "data-refused": "error" }, run.error)));
  }
  return out;
}

/** The run's verdicts, each rank's input and output, and its traffic; `player` shows a step. */
export function showOutcome(run, player) {
  const box = $("outcome");
  box.replaceChildren();
  if (!run) return;
  // While a poll about this run is open its outputs and figures are the answers: "?" (polls.js).
  const hide = player.state.hiding(run);
  const rows = outcomes(run).map((o) => row("td", [
    `r${o.rank}`, valuesCell(o.inputs.flat()), hide ? "?" : valuesCell(o.outputs.flat()),
    html("td", { class: o.verified === false ? "differs" : "ok", "data-verified": String(o.verified) },
      o.verified === true ? "✓" : o.verified === false ? differences(o) : "")]));
  box.append(...verdicts(run, player),
    html("table", {}, row("th", ["rank", "in", "out", "vs native"]), rows));
  const t = run.traffic, p = run.prediction;
  $("traffic").replaceChildren(hide
    ? html("p", { class: "why" }, "? until the poll's answer is revealed")
    : html("table", {},
    row("td", ["time", seconds(run.time)]),
    row("td", ["predicted", html("td", { title: p?.source ?? "" },
      p?.time != null ? `${seconds(p.time)} (${p.error >= 0 ? "+" : ""}${Math.round(p.error * 100)}%)`
        : "–")], { "data-model": "prediction" }),
    run.choice ? row("td", [run.choice.label, run.choice.why], { "data-model": "choice" }) : null,
    row("td", ["algbw / busbw", run.algbw ? `${bandwidth(run.algbw)} / ${bandwidth(run.busbw)}` : "–"]),
    row("td", ["total sent", bytes(t?.total)]),
    row("td", ["busiest link", t?.busiest_link
      ? `${t.busiest_link.src} → ${t.busiest_link.dst}: ${bytes(t.busiest_link.bytes)}` : "–"]),
    Object.entries(t?.sent ?? {}).map(([r, b]) =>
      row("td", [`rank ${r}`, `sent ${bytes(b)} · got ${bytes(t.received[r])}`]))));
  if (run.preview) $("trace").removeAttribute("href"); // no run yet: nothing to download
  else $("trace").href = `/api/runs/${run.id}/trace`;
}

/** A table row: a `tag` cell for each of `cells` (text, or a cell made already). */
const row = (tag, cells, attrs = {}) => html("tr", attrs,
  cells.map((c) => (c instanceof Node ? c : html(tag, {}, c))));

/** The run list; `held(run)`: a poll holds it, and its line says "held", not how it is getting on. */
export function showHistory(runs, currentId, open, held = () => false) {
  $("history").replaceChildren(...runs.map((r) => html("li", {
    class: r.id === currentId ? "current" : "", "data-run": r.id, onclick: () => open(r.id) },
    html("span", {}, `${r.collective} · ${r.algorithm}`),
    html("span", { class: "pill" }, held(r) ? "held" : r.state))));
}
