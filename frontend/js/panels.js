// The panels around the stage: caption, transfer log, before/after, traffic, history, cluster.

import { describeTransfer, outcomes } from "rs/replay.js";
import { colour, formatValue } from "rs/stage.js";

const $ = (id) => document.getElementById(id);

function html(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children.flat()) if (child != null) node.append(child);
  return node;
}

const bytes = (n) => (n == null ? "–" : n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);
const seconds = (s) => (s == null ? "–" : s >= 1 ? `${s.toFixed(2)} s` : s >= 1e-3 ? `${(s * 1e3).toFixed(2)} ms` : `${(s * 1e6).toFixed(1)} µs`);
const values = (v) => (v == null ? "–" : v.length > 6 ? `${v.slice(0, 6).map(formatValue).join(" ")} …` : v.map(formatValue).join(" "));

export function showStep(player) {
  const { run, frames, step } = player;
  const total = run ? run.steps.length : 0;
  $("slider").max = Math.max(-1, player.available() - 1);
  $("slider").value = step;
  $("step-label").textContent = step < 0 ? "inputs" : `step ${step + 1} / ${total}`;
  $("play").textContent = player.playing ? "⏸" : "▶";
  const log = $("log");
  log.replaceChildren();
  showPhases(player);
  if (!run) return;
  if (step < 0) {
    $("caption").textContent = run.steps.length
      ? `${run.spec.collective} by ${run.spec.algorithm}: ${total} steps. Every rank starts with its input.`
      : `${run.spec.collective} (native): the backend's own call, timed as a whole.`;
    return;
  }
  const s = run.steps[step];
  $("caption").textContent = `Step ${step + 1} of ${total} · ${s.phase}: ${s.caption}`;
  for (const t of s.transfers.slice(0, 200)) log.append(html("li", {}, describeTransfer(run, frames, step, t)));
  if (s.transfers.length > 200) log.append(html("li", {}, `… and ${s.transfers.length - 200} more`));
}

/** "✗ [3] 7 ≠ 8 …": where the output differs from native's, in red. */
function differences(o) {
  const shown = o.mismatches.map(([i, got, want]) => `[${i}] ${formatValue(got)} ≠ ${formatValue(want)}`);
  return `✗ ${shown.join(", ") || `off by ${formatValue(o.maxDiff)}`}`;
}

/** Consecutive steps of one phase as one stretch: [{phase, first, last}]. */
export function phasesOf(steps) {
  const out = [];
  steps.forEach((s, i) => {
    const last = out.at(-1);
    if (last && last.phase === s.phase) last.last = i;
    else out.push({ phase: s.phase, first: i, last: i });
  });
  return out;
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
    html("tr", {}, html("td", {}, "algbw / busbw"), html("td", {}, run.algbw ? `${(run.algbw / 1e9).toFixed(3)} / ${(run.busbw / 1e9).toFixed(3)} GB/s` : "–")),
    html("tr", {}, html("td", {}, "total sent"), html("td", {}, bytes(t?.total))),
    html("tr", {}, html("td", {}, "busiest link"), html("td", {}, t?.busiest_link ? `${t.busiest_link.src} → ${t.busiest_link.dst}: ${bytes(t.busiest_link.bytes)}` : "–")),
    ...Object.entries(t?.sent ?? {}).map(([r, b]) => html("tr", {}, html("td", {}, `rank ${r}`), html("td", {}, `sent ${bytes(b)} · got ${bytes(t.received[r])}`)))));
  $("trace").href = `/api/runs/${run.id}/trace`;
}

export function showHistory(runs, currentId, open) {
  $("history").replaceChildren(...runs.map((r) => html("li", { class: r.id === currentId ? "current" : "", "data-run": r.id, onclick: () => open(r.id) },
    html("span", {}, `${r.collective} · ${r.algorithm}`), html("span", { class: "pill" }, r.state))));
}

function sparkline(history) {
  const w = 80, h = 18;
  const cpu = history.map((p) => p[1]);
  if (cpu.length < 2) return html("span");
  const top = Math.max(100, ...cpu);
  const points = cpu.map((v, i) => `${(i / (cpu.length - 1)) * w},${h - (v / top) * h}`).join(" ");
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("width", w); svg.setAttribute("height", h);
  svg.innerHTML = `<polyline fill="none" stroke="currentColor" stroke-width="1.2" points="${points}"/>`;
  return svg;
}

export function showCluster(cluster) {
  const box = $("cluster");
  const hosts = {};
  for (const r of cluster.ranks) (hosts[r.host] ??= []).push(r);
  box.replaceChildren(...Object.entries(hosts).map(([host, ranks]) => html("div", { class: "host" },
    html("h3", {}, `${host} · ${ranks[0].backend} · torch ${ranks[0].torch_version}`),
    ranks.map((r) => html("div", { class: "rank-row", "data-rank": r.rank, "data-status": r.status },
      html("span", {}, html("span", { class: `dot ${r.status}`, style: `outline: 2px solid ${colour(r.rank)}` }), `${r.rank}`),
      html("span", { title: `pid ${r.pid}` }, `${r.device} · ${r.status} · ${r.heartbeat_age.toFixed(1)} s · ${bytes(r.rss_bytes)}${r.gpu_memory_bytes != null ? ` · GPU ${bytes(r.gpu_memory_bytes)}` : ""}`),
      sparkline(r.history))))));
  document.querySelectorAll(".card").forEach((c) => {
    const r = cluster.ranks.find((x) => String(x.rank) === c.dataset.rank);
    c.classList.toggle("busy", r?.status === "busy");
  });
}
