// The panels around the stage: caption, transfer log, phases, before/after, traffic, history.

import { describeStep, outcomes, phasesOf } from "rs/replay.js";
import { bandwidth, bytes, formatValue, seconds } from "rs/format.js";
import { html } from "rs/dom.js";

const $ = (id) => document.getElementById(id);

const counted = (n, noun) => `${n} ${noun}${n === 1 ? "" : "s"}`;
const values = (v) => (v == null ? "–" : v.length > 6 ? `${v.slice(0, 6).map(formatValue).join(" ")} …` : v.map(formatValue).join(" "));

export function showStep(player) {
  const { run, frames, step } = player;
  const total = run ? run.steps.length : 0;
  $("slider").max = Math.max(-1, player.available() - 1);
  $("slider").value = step;
  $("step-label").textContent = step < 0 ? "inputs" : `step ${step + 1} / ${total}`;
  $("play").textContent = player.playing ? "❚❚" : "▶"; // two bars every font has (⏸ is missing from many)
  const log = $("log");
  log.replaceChildren();
  showPhases(player);
  if (!run) return;
  if (step < 0) {
    $("caption").textContent = run.steps.length
      ? `${run.spec.collective} by ${run.spec.algorithm}: ${counted(total, "step")}. Every rank starts with its input.`
      : `${run.spec.collective} (${run.spec.algorithm}): the backend's own call, timed as a whole.`;
    return;
  }
  const s = run.steps[step];
  $("caption").textContent = `Step ${step + 1} of ${total} · ${s.phase}: ${s.caption}`;
  const lines = describeStep(run, frames, step, 200);
  for (const line of lines) log.append(html("li", {}, line));
  if (s.transfers.length > lines.length && lines.length === 200) log.append(html("li", {}, `… and more: ${s.transfers.length} transfers in all`));
}

/** "✗ [3] 7 ≠ 8 …": where the output differs from native's, in red. */
function differences(o) {
  const shown = o.mismatches.map(([i, got, want]) => `[${i}] ${formatValue(got)} ≠ ${formatValue(want)}`);
  return `✗ ${shown.join(", ") || `off by ${formatValue(o.maxDiff)}`}`;
}

/** The phases as a bar under the slider (reduce-scatter, then all-gather); a click jumps to one. */
function showPhases(player) {
  const bar = $("phases");
  const phases = phasesOf(player.run?.steps ?? []);
  const key = `${player.run?.id}:${phases.map((p) => `${p.phase}${p.last}`).join()}`;
  if (bar.dataset.key !== key) {
    bar.dataset.key = key;
    bar.replaceChildren(...(phases.length > 1 ? phases : []).map((p) => html("span", {
      style: `flex-grow: ${p.last - p.first + 1}`, "data-first": p.first, "data-last": p.last,
      title: `steps ${p.first + 1}–${p.last + 1}`, onclick: () => { player.pause(); player.go(p.first); } }, p.phase)));
  }
  for (const span of bar.children) span.classList.toggle("current", +span.dataset.first <= player.step && player.step <= +span.dataset.last);
}

export function showOutcome(run) {
  const box = $("outcome");
  box.replaceChildren();
  if (!run) return;
  const rows = outcomes(run).map((o) => html("tr", {},
    html("td", {}, `r${o.rank}`), html("td", {}, values(o.inputs.flat())), html("td", {}, values(o.outputs.flat())),
    html("td", { class: o.verified === false ? "differs" : "ok", "data-verified": String(o.verified) },
      o.verified === true ? "✓" : o.verified === false ? differences(o) : "")));
  box.append(html("table", {}, html("tr", {}, html("th", {}, "rank"), html("th", {}, "in"), html("th", {}, "out"), html("th", {}, "vs native")), rows));
  const t = run.traffic;
  $("traffic").replaceChildren(html("table", {},
    html("tr", {}, html("td", {}, "time"), html("td", {}, seconds(run.time))),
    html("tr", {}, html("td", {}, "algbw / busbw"), html("td", {}, run.algbw ? `${bandwidth(run.algbw)} / ${bandwidth(run.busbw)}` : "–")),
    html("tr", {}, html("td", {}, "total sent"), html("td", {}, bytes(t?.total))),
    html("tr", {}, html("td", {}, "busiest link"), html("td", {}, t?.busiest_link ? `${t.busiest_link.src} → ${t.busiest_link.dst}: ${bytes(t.busiest_link.bytes)}` : "–")),
    ...Object.entries(t?.sent ?? {}).map(([r, b]) => html("tr", {}, html("td", {}, `rank ${r}`), html("td", {}, `sent ${bytes(b)} · got ${bytes(t.received[r])}`)))));
  $("trace").href = `/api/runs/${run.id}/trace`;
}

export function showHistory(runs, currentId, open) {
  $("history").replaceChildren(...runs.map((r) => html("li", { class: r.id === currentId ? "current" : "", "data-run": r.id, onclick: () => open(r.id) },
    html("span", {}, `${r.collective} · ${r.algorithm}`), html("span", { class: "pill" }, r.state))));
}
