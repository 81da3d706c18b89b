// Ringside's page: wires the live connection, the controls, the stage and its panels.

import { api, live } from "rs/api.js";
import { Stage } from "rs/stage.js";
import { Player, bindPlayer } from "rs/player.js";
import { showStep, showOutcome, showHistory } from "rs/panels.js";
import { showCluster } from "rs/cluster.js";
import { Controls } from "rs/controls.js";
import { plotly, timeline, totals } from "rs/charts.js";
import { runSweep, plotSweep } from "rs/sweep.js";
import { initPredict } from "rs/predict.js";
import { download } from "rs/export.js";
import { compare, setPresenter, toggleCompare } from "rs/compare.js";
import { openInPerfetto } from "rs/perfetto.js";
import * as perturbation from "rs/perturbation.js";
import { Training } from "rs/training.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
let role = "viewer"; // until the snapshot says what the token grants (an audience link may carry a viewer token)
let worldSize = -1;
let endedStates = new Set(); // the states a run ends in: the catalog's run_states.ended
let submitted = null; // the run this page last submitted: it takes the stage even when not following
// An audience page follows the presenter's view until it moves by itself; one opened on a
// link to a run shows that run.
let attached = !params.has("run");
let send = () => false; // over the live socket (the presenter's page tells what it shows)
let sent = ""; // the view last sent
const ended = (run) => endedStates.has(run.state);
const swept = (run) => run.spec.purpose === "sweep"; // a sweep's run never takes the stage by itself

const stage = new Stage($("stage"));
const player = new Player(stage, (p) => { showStep(p); remember(p); lead(p); $("speed").value = String(p.speed); });
const controls = new Controls((id) => { submitted = id; }, sweep);
bindPlayer(player);
player.onDetach = () => { attached = false; showLead(); };
const training = new Training((run) => { player.own(); showRun(run); }); // a training step's gradient sync, on the stage
window.ringside = { player, stage, controls, training };

/** Open a stored run; `asked`: this page asked for it (a link, the history), not the presenter. */
async function openRun(id, step, asked = true) {
  try {
    const run = await api(`/api/runs/${id}`);
    if (asked && following()) return; // the presenter's view came first, and this page follows it
    showRun(run, step);
  } catch (err) {
    $("caption").textContent = `Could not open run ${id}: ${err.reason ?? err}`;
  }
}

/** Whether this page shows what the presenter's page shows. */
const following = () => role !== "presenter" && attached && player.view !== null;

/** The presenter's page: what it shows goes to every audience page (the server checks the token). */
function lead(p) {
  if (role !== "presenter" || !p.run) return;
  const view = { type: "presenter", run_id: p.run.id, step: p.step, playing: p.playing, speed: p.speed };
  const text = JSON.stringify(view);
  if (text !== sent && send(view)) sent = text;
}

let opening = null; // the presenter's run being fetched
/** An audience page, attached: show the presenter's run at the presenter's step, playing as it plays. */
async function follow(view) {
  player.view = view;
  if (!following()) return showLead();
  player.led = true;
  showLead();
  if (player.run?.id === view.run_id) return player.mirror(view);
  if (opening === view.run_id) return; // on its way: the latest view is applied when it lands
  opening = view.run_id;
  try {
    const run = await api(`/api/runs/${view.run_id}`);
    if (following() && player.view.run_id === run.id) {
      showRun(run);
      player.mirror(player.view);
    }
  } catch (err) {
    $("caption").textContent = `Could not open the presenter's run ${view.run_id}: ${err.reason ?? err}`;
  } finally {
    opening = null;
  }
}

/** One tap brings a detached audience page back to the presenter's view. */
function showLead() {
  const detached = role !== "presenter" && !attached && player.view !== null;
  $("follow-presenter").hidden = !detached;
  if (role !== "presenter") $("role").textContent = following() ? "audience · following the presenter" : "audience";
}

function reattach() {
  attached = true;
  if (player.view) follow(player.view);
}

function showRun(run, step) {
  // A fetched run can answer after the live feed announced its end: it is older than the stage's.
  if (player.run?.id === run.id && ended(player.run) && !ended(run)) return;
  player.load(run, { step });
  $("run-title").textContent = `${run.spec.collective} · ${run.choice?.label ?? run.spec.algorithm} · ${run.group.length} ranks · ${run.spec.count} × ${run.spec.dtype} · ${run.id}`;
  $("run-title").title = run.choice?.why ?? ""; // what auto chose, and every candidate's predicted time
  $("run-state").textContent = run.state + (run.verified === true ? " ✓" : run.verified === false ? " ✗" : "");
  $("run-state").dataset.state = run.state;
  $("cancel").hidden = role !== "presenter" || ended(run) || run.cancel_requested;
  showOutcome(run);
  document.querySelectorAll("#history li").forEach((li) => li.classList.toggle("current", li.dataset.run === run.id));
  if (ended(run)) { timeline(run); totals(run); compare(); }
}

async function sweep(entry, spec) {
  const why = $("run-why"), progress = $("sweep-progress");
  progress.textContent = `${entry.name}: queueing runs…`;
  try {
    why.textContent = "sweep: under way, in the Sweep panel below (its runs stay off the stage)";
    const runs = await runSweep(entry.name, entry.algorithms, spec.dtype, endedStates, (done, total) => (progress.textContent = `${entry.name}: ${done} of ${total} runs`));
    await plotSweep(runs, await plotly());
    progress.textContent = `${entry.name}: ${runs.length} runs, charted`;
    why.textContent = "";
  } catch (err) {
    progress.textContent = `sweep stopped: ${err.reason ?? err}`;
  }
}

async function refreshHistory() {
  const { runs } = await api("/api/runs?limit=30");
  showHistory(runs, player.run?.id, (id) => { player.own(); openRun(id); });
  return runs;
}

/** A page opened between runs shows the last that ended, not an empty stage; a live run that starts meanwhile wins. */
async function showLatest(newest) {
  if (!newest || player.run) return;
  const run = await api(`/api/runs/${newest.id}`);
  if (!player.run) showRun(run);
}

async function refreshCatalog() {
  const catalog = await api("/api/catalog");
  worldSize = catalog.world_size;
  endedStates = new Set(catalog.run_states.ended);
  controls.setCatalog(catalog, role === "presenter");
  training.setCatalog(catalog, role === "presenter");
  initPredict(catalog, plotly).catch(() => {}); // the prediction panel's choices; it says its own errors
}

/** Whether every rank of its group has started it (sent its inputs), as run_started says. */
const started = (run) => run.group.every((r) => run.inputs[String(r)]);

/**
 * The live feed. A run on stage arrives whole once (run_started: schedule, inputs, layout),
 * then a message per rank per step, then whole again at its end (run_ended: results and
 * figures); so a live run costs no GET. `run` (a summary) only touches the history.
 */
function onMessage(m) {
  perturbation.onMessage(m); // marks, wavefront and waits of perturbed runs (perturbation.js)
  if (m.type === "snapshot") {
    if (m.role !== role) controls.setCatalog(controls.catalog, m.role === "presenter");
    role = m.role;
    training.connected(role === "presenter");
    setPresenter(role === "presenter");
    $("role").textContent = role === "presenter" ? "presenter" : "audience";
    onCluster(m.cluster);
    if (m.current && !params.get("run") && !swept(m.current)) showRun(m.current);
    if (m.presenter && role !== "presenter") follow(m.presenter);
    lead(player);
    // Back after the feed was down, the run on stage may have ended meanwhile: ask for its end.
    if (player.run && !ended(player.run) && player.run.id !== m.current?.id) openRun(player.run.id);
    refreshHistory().then((runs) => params.get("run") || showLatest(runs.find((r) => ended(r) && r.purpose !== "sweep")));
  } else if (m.type === "cluster") {
    onCluster(m);
  } else if (m.type === "training" || m.type === "train_step") {
    training.onMessage(m);
  } else if (m.type === "run") {
    refreshHistory();
  } else if (m.type === "presenter") {
    if (role !== "presenter") follow(m);
  } else if (m.type === "run_started") {
    if ((player.follow && !swept(m.run)) || [player.run?.id, submitted].includes(m.run.id)) showRun(m.run);
    refreshHistory();
  } else if (m.type === "run_ended") {
    // A run that failed before it started was never on stage: its end shows why, to whoever follows.
    const mine = [player.run?.id, submitted].includes(m.run.id);
    if (mine || (player.follow && !started(m.run) && !swept(m.run))) showRun(m.run);
    refreshHistory();
  } else if (m.type === "step" && player.run?.id === m.run_id) {
    const step = player.run.steps[m.step];
    if (!step) return; // beyond the run's plan: nothing to draw it with
    step.ranks[String(m.rank)] = { t0: m.t0, t1: m.t1, states: m.states };
    player.grow();
  }
}

function onCluster(cluster) {
  showCluster(cluster);
  if (cluster.world_size !== worldSize) {
    worldSize = cluster.world_size;
    refreshCatalog();
  }
}

/** What a shared link asks for: a spec in the controls, a run and step on the stage. */
function applyShared() {
  if (params.get("collective")) {
    const fields = {};
    for (const k of ["algorithm", "count", "dtype", "op", "root", "chunks"]) if (params.get(k)) fields[k] = params.get(k);
    if (params.get("ranks")) fields.group = params.get("ranks");
    controls.pick(params.get("collective"), fields);
  }
  if (params.get("run")) openRun(params.get("run"), params.has("step") ? Number(params.get("step")) : undefined);
}

/** Keep the address bar a link to what is on screen (run and step, and the chosen spec). */
function remember(p) {
  if (!p.run) return;
  const q = new URLSearchParams();
  if (document.body.classList.contains("present")) q.set("present", "1");
  if (following()) return history.replaceState(null, "", `${location.pathname}${q.size ? `?${q}` : ""}`); // a reload follows again
  q.set("collective", p.run.spec.collective);
  q.set("algorithm", p.run.spec.algorithm);
  q.set("count", p.run.spec.count);
  q.set("dtype", p.run.spec.dtype);
  q.set("op", p.run.spec.op);
  q.set("ranks", p.run.group.join(","));
  q.set("run", p.run.id);
  q.set("step", p.step);
  history.replaceState(null, "", `${location.pathname}?${q}`);
}

/** Lecture mode: big type, high contrast, only the stage; fullscreen at the first gesture (browsers allow no sooner). */
function lecture(on, gesture = false) {
  document.body.classList.toggle("present", on);
  $("present").classList.toggle("active", on);
  controls.setLecture(on);
  if (player.run) remember(player);
  const full = () => document.body.classList.contains("present") && !document.fullscreenElement && document.documentElement.requestFullscreen?.().catch(() => {});
  if (on && gesture) full();
  else if (on) document.addEventListener("pointerdown", full, { once: true });
  else if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
}

function theme(name) {
  document.documentElement.dataset.theme = name;
  localStorage.setItem("ringside-theme", name);
  if (player.run && ended(player.run)) { timeline(player.run); totals(player.run); }
}

theme(localStorage.getItem("ringside-theme") ?? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
lecture(params.get("present") === "1");
$("theme").onclick = () => theme(document.documentElement.dataset.theme === "dark" ? "light" : "dark");
$("present").onclick = () => lecture(!document.body.classList.contains("present"), true);
$("help").onclick = () => $("keys").showModal();
$("export").onclick = () => player.run && download(player.run);
$("follow-presenter").onclick = reattach;
$("perfetto").onclick = () => {
  if (!player.run) return;
  const say = (text, state) => { $("perfetto-status").textContent = text; $("perfetto-status").dataset.state = state; };
  openInPerfetto(`/api/runs/${player.run.id}/trace`, `Ringside ${player.run.id}: ${player.run.spec.collective} ${player.run.spec.algorithm}`, say);
};
$("cancel").onclick = async () => {
  $("cancel").hidden = true;
  try {
    await api(`/api/runs/${player.run.id}/cancel`, { method: "POST" });
  } catch (err) {
    $("caption").textContent = `Could not cancel ${player.run.id}: ${err.reason ?? err}`;
  }
};
$("share").onclick = async () => {
  await navigator.clipboard?.writeText(location.href).catch(() => {});
  $("share").textContent = "Link copied";
  setTimeout(() => ($("share").textContent = "Copy link"), 1500);
};
document.addEventListener("keydown", (e) => {
  if (e.target.closest?.("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "Enter" && e.target.closest?.("button, a")) return; // Enter on a button presses that button
  if (e.key === "r" || e.key === "R" || e.key === "Enter") controls.again();
  else if (e.key === "a" || e.key === "A") controls.cycleAlgorithm();
  else if (e.key === "o" || e.key === "O") controls.cycleOp();
  else if (e.key === "p" || e.key === "P") controls.togglePreset();
  else if (/^[0-9]$/.test(e.key)) controls.pickIndex((Number(e.key) + 9) % 10);
  else if (e.key === "]" || e.key === "[") controls.pickNext(e.key === "]" ? 1 : -1);
  else if (e.key === "f" || e.key === "F") document.fullscreenElement ? document.exitFullscreen() : document.documentElement.requestFullscreen?.().catch(() => {});
  else if (e.key === "l" || e.key === "L") lecture(!document.body.classList.contains("present"), true);
  else if (e.key === "c" || e.key === "C") toggleCompare();
  else if (e.key === "t" || e.key === "T") training.toggleOverlay();
  else if (e.key === "?") $("keys").open ? $("keys").close() : $("keys").showModal();
});

await refreshCatalog(); // the ended states are known before the first run arrives
applyShared();
send = live(onMessage, (state) => {
  $("connection").dataset.state = state;
  $("connection").textContent = state === "open" ? "live" : "reconnecting…";
  if (state === "open") { sent = ""; lead(player); } // a restarted server learns the presenter's view again
});
