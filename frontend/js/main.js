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
import { compare, setPresenter, showCompare } from "rs/compare.js";
import { openInPerfetto } from "rs/perfetto.js";
import * as perturbation from "rs/perturbation.js";
import { Training } from "rs/training.js";
import { $, notAShortcut, say, toggleFullscreen } from "rs/dom.js";

const params = new URLSearchParams(location.search);
let presenter = false; // until the snapshot says what the token grants
let worldSize = -1;
let endedStates = new Set(); // the catalog's run_states.ended
let submitted = null; // this page's last run: it takes the stage even when not following
// An audience page follows the presenter until it moves by itself (or opens on a run's link).
let attached = !params.has("run");
let send = () => false; // over the live socket
let sent = ""; // the view last sent
let cover = null; // what covers the stage: "compare" (C), "training" (T) or null
const ended = (run) => endedStates.has(run.state);
const swept = (run) => run.spec.purpose === "sweep"; // never takes the stage by itself

const stage = new Stage($("stage"));
const player = new Player(stage, (p) => { showStep(p); remember(p); lead(p); $("speed").value = String(p.speed); });
const controls = new Controls((id) => { submitted = id; }, sweep);
bindPlayer(player);
player.onDetach = () => { attached = false; showLead(); };
// The training charted is part of the presenter's view.
const training = new Training((run) => { player.own(); showRun(run); }, () => lead(player));
window.ringside = { player, stage, controls, training };

/** Open a stored run (a link, the history, the run on stage after the feed was down). */
async function openRun(id, step) {
  try {
    const run = await api(`/api/runs/${id}`);
    if (following()) return; // the presenter's view came first
    showRun(run, step);
  } catch (err) {
    say("caption", `Could not open run ${id}: ${err.reason ?? err}`);
  }
}

const following = () => !presenter && attached && player.view !== null;

/** The presenter's page: what it shows goes to every audience page. */
function lead(p) {
  if (!presenter || !p.run) return;
  const view = { type: "presenter", run_id: p.run.id, step: p.step, playing: p.playing, speed: p.speed, overlay: cover,
    training: training.shown?.id, demo: perturbation.demoIds() };
  const text = JSON.stringify(view);
  if (text !== sent && send(view)) sent = text;
}

let opening = null; // the presenter's run being fetched
/** An attached audience page shows the presenter's run, step and playing. */
async function follow(view) {
  player.view = view;
  perturbation.follow(view.demo ?? []); // data, not a view: heard even when detached
  if (!following()) return showLead();
  player.led = true;
  showLead();
  training.follow(view.training);
  overlay(view.overlay ?? null);
  if (player.run?.id === view.run_id) return player.mirror(view);
  if (opening === view.run_id) return; // the latest view is applied when it lands
  opening = view.run_id;
  try {
    const run = await api(`/api/runs/${view.run_id}`);
    if (following() && player.view.run_id === run.id) {
      showRun(run);
      player.mirror(player.view);
    }
  } catch (err) {
    say("caption", `Could not open the presenter's run ${view.run_id}: ${err.reason ?? err}`);
  } finally {
    opening = null;
  }
}

/** A detached audience page gets a button back to the presenter's view. */
function showLead() {
  const detached = !presenter && !attached && player.view !== null;
  $("follow-presenter").hidden = !detached;
  if (!presenter) say("role", following() ? "audience · following the presenter" : "audience");
}

/** One overlay over the stage at most; the presenter's page tells the audience. */
function overlay(name) {
  if (name === cover) return; // the view comes with every step
  cover = name;
  showCompare(name === "compare");
  training.showOverlay(name === "training");
  lead(player);
}

/** C, T: an audience page that toggles one itself leaves the presenter's view. */
function toggle(name) {
  if (following()) { attached = false; showLead(); }
  overlay(cover === name ? null : name);
}

function reattach() {
  attached = true;
  if (player.view) follow(player.view);
}

function showRun(run, step) {
  // A fetched run that answers after the feed announced its end is older than the stage's.
  if (player.run?.id === run.id && ended(player.run) && !ended(run)) return;
  player.load(run, { step });
  say("run-title", `${run.spec.collective} · ${run.choice?.label ?? run.spec.algorithm} · ${run.group.length} ranks · ${run.spec.count} × ${run.spec.dtype} · ${run.id}`);
  $("run-title").title = run.choice?.why ?? ""; // what auto chose, and why
  say("run-state", run.state + (run.verified === true ? " ✓" : run.verified === false ? " ✗" : ""));
  $("run-state").dataset.state = run.state;
  $("cancel").hidden = !presenter || ended(run) || run.cancel_requested;
  showOutcome(run);
  document.querySelectorAll("#history li").forEach((li) => li.classList.toggle("current", li.dataset.run === run.id));
  if (ended(run)) { timeline(run); totals(run); compare(); }
}

async function sweep(entry, spec) {
  const progress = (text) => say("sweep-progress", text);
  progress(`${entry.name}: queueing runs…`);
  try {
    say("run-why", "sweep: under way, in the Sweep panel below (its runs stay off the stage)");
    const runs = await runSweep(entry.name, entry.algorithms, spec.dtype, endedStates, (done, total) => progress(`${entry.name}: ${done} of ${total} runs`));
    await plotSweep(runs, await plotly());
    progress(`${entry.name}: ${runs.length} runs, charted`);
    say("run-why", "");
  } catch (err) {
    progress(`sweep stopped: ${err.reason ?? err}`);
  }
}

async function refreshHistory() {
  const { runs } = await api("/api/runs?limit=30");
  showHistory(runs, player.run?.id, (id) => { player.own(); openRun(id); });
  return runs;
}

/** A page opened between runs shows the last that ended; a live run that starts meanwhile wins. */
async function showLatest(newest) {
  if (!newest || player.run) return;
  const run = await api(`/api/runs/${newest.id}`);
  if (!player.run) showRun(run);
}

async function refreshCatalog() {
  const catalog = await api("/api/catalog");
  worldSize = catalog.world_size;
  endedStates = new Set(catalog.run_states.ended);
  controls.setCatalog(catalog, presenter);
  training.setCatalog(catalog, presenter);
  initPredict(catalog, plotly).catch(() => {}); // it says its own errors
}

/** Whether every rank of its group has sent its inputs. */
const started = (run) => run.group.every((r) => run.inputs[String(r)]);

/** The live feed: a run arrives whole at run_started and run_ended, and a message per rank per
 * step between: a live run costs no GET. */
function onMessage(m) {
  perturbation.onMessage(m);
  if (m.type === "snapshot") {
    const was = presenter;
    presenter = m.role === "presenter";
    if (presenter !== was) controls.setCatalog(controls.catalog, presenter);
    training.connected(presenter);
    setPresenter(presenter);
    say("role", presenter ? "presenter" : "audience");
    onCluster(m.cluster);
    if (m.current && !params.get("run") && !swept(m.current)) showRun(m.current);
    if (m.presenter && !presenter) follow(m.presenter);
    lead(player);
    // The run on stage may have ended while the feed was down.
    if (player.run && !ended(player.run) && player.run.id !== m.current?.id) openRun(player.run.id);
    refreshHistory().then((runs) => params.get("run") || showLatest(runs.find((r) => ended(r) && r.purpose !== "sweep")));
  } else if (m.type === "cluster") {
    onCluster(m);
  } else if (m.type === "training" || m.type === "train_step") {
    training.onMessage(m);
  } else if (m.type === "run") {
    refreshHistory();
  } else if (m.type === "presenter") {
    if (!presenter) follow(m);
  } else if (m.type === "run_started") {
    if ((player.follow && !swept(m.run)) || [player.run?.id, submitted].includes(m.run.id)) showRun(m.run);
    refreshHistory();
  } else if (m.type === "run_ended") {
    // A run that failed before it started was never on stage: its end says why.
    const mine = [player.run?.id, submitted].includes(m.run.id);
    if (mine || (player.follow && !started(m.run) && !swept(m.run))) showRun(m.run);
    refreshHistory();
  } else if (m.type === "step" && player.run?.id === m.run_id) {
    const step = player.run.steps[m.step];
    if (!step) return; // beyond the run's plan
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

/** The address bar: a link to what is on screen. */
function remember(p) {
  if (!p.run) return;
  const q = new URLSearchParams();
  if (document.body.classList.contains("present")) q.set("present", "1");
  if (following()) return history.replaceState(null, "", `${location.pathname}${q.size ? `?${q}` : ""}`); // a reload follows again
  for (const k of ["collective", "algorithm", "count", "dtype", "op"]) q.set(k, p.run.spec[k]);
  q.set("ranks", p.run.group.join(","));
  q.set("run", p.run.id);
  q.set("step", p.step);
  history.replaceState(null, "", `${location.pathname}?${q}`);
}

/** Lecture mode: big type, only the stage; fullscreen at the first gesture (browsers allow no sooner). */
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
const flipLecture = () => lecture(!document.body.classList.contains("present"), true);
$("present").onclick = flipLecture;
$("help").onclick = () => $("keys").showModal();
$("export").onclick = () => player.run && download(player.run);
$("follow-presenter").onclick = reattach;
$("perfetto").onclick = () => {
  if (!player.run) return;
  const status = (text, state) => { say("perfetto-status", text); $("perfetto-status").dataset.state = state; };
  openInPerfetto(`/api/runs/${player.run.id}/trace`, `Ringside ${player.run.id}: ${player.run.spec.collective} ${player.run.spec.algorithm}`, status);
};
$("cancel").onclick = async () => {
  $("cancel").hidden = true;
  try {
    await api(`/api/runs/${player.run.id}/cancel`, { method: "POST" });
  } catch (err) {
    say("caption", `Could not cancel ${player.run.id}: ${err.reason ?? err}`);
  }
};
$("share").onclick = async () => {
  await navigator.clipboard?.writeText(location.href).catch(() => {});
  say("share", "Link copied");
  setTimeout(() => say("share", "Copy link"), 1500);
};
const KEYS = { // in either case; the player binds its own (Space, arrows, + and -)
  r: () => controls.again(), enter: () => controls.again(), a: () => controls.cycleAlgorithm(), o: () => controls.cycleOp(),
  p: () => controls.togglePreset(), "]": () => controls.pickNext(1), "[": () => controls.pickNext(-1),
  f: toggleFullscreen, l: flipLecture, c: () => toggle("compare"), t: () => toggle("training"),
  "?": () => ($("keys").open ? $("keys").close() : $("keys").showModal()),
};
document.addEventListener("keydown", (e) => {
  if (notAShortcut(e) || (e.key === "Enter" && e.target.closest?.("button, a"))) return; // Enter on a button presses it
  if (/^[0-9]$/.test(e.key)) controls.pickIndex((Number(e.key) + 9) % 10);
  else KEYS[e.key?.toLowerCase()]?.();
});

await refreshCatalog(); // the ended states, before the first run arrives
applyShared();
send = live(onMessage, (state) => {
  $("connection").dataset.state = state;
  say("connection", state === "open" ? "live" : "reconnecting…");
  if (state === "open") { sent = ""; lead(player); } // a restarted server learns the presenter's view again
});
