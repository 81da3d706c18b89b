// Ringside's page: wires the live connection, the controls, the stage and its panels. What the
// page may do and who drives its stage is its state's (state.js); the feed's messages go by type,
// through a table, to those that handle them.

import { api, live } from "rs/core/api.js";
import { $, keysAfterClicks, notAShortcut, say, toggleFullscreen } from "rs/core/dom.js";
import { dtypeOf } from "rs/core/format.js";
import { PageState } from "rs/core/state.js";
import { download } from "rs/export/export.js";
import { openInPerfetto } from "rs/export/perfetto.js";
import { Languages } from "rs/i18n/i18n.js";
import { Lessons } from "rs/lecture/lessons.js";
import { Polls } from "rs/lecture/polls.js";
import { SeedFormulas } from "rs/lecture/seed-formulas.js";
import { plotly, timeline, totals } from "rs/panels/charts.js";
import { showCluster } from "rs/panels/cluster.js";
import { Compare } from "rs/panels/compare.js";
import { Controls } from "rs/panels/controls.js";
import { showHistory, showOutcome, showStep } from "rs/panels/panels.js";
import { Perturbations } from "rs/panels/perturbation.js";
import { showPredict } from "rs/panels/predict.js";
import { plotSweep, runSweep } from "rs/panels/sweep.js";
import { Player, PlayerButtons } from "rs/stage/player.js";
import { Stage } from "rs/stage/stage.js";
import { Training } from "rs/training/training.js";
import { Jobs } from "rs/watched/jobs.js";

new Languages(); // first: the page's words, and whatever the modules write from now on, in its language

const params = new URLSearchParams(location.search);
// An audience page follows the presenter until it moves by itself (or opens on a run's link).
const state = new PageState({ attached: !params.has("run") });
const ended = (run) => state.ended.has(run.state);
const swept = (run) => run.spec.purpose === "sweep"; // never takes the stage by itself
const following = () => state.driver === "presenter";

const stage = new Stage($("stage"));
const player = new Player(stage, state);
player.addEventListener("change", () => {
  showStep(player); remember(player); lead(player); $("speed").value = String(player.speed);
});
const controls = new Controls(state, (id) => { state.submitted = id; }, sweep);
new PlayerButtons(player);
// The training charted is part of the presenter's view.
const training = new Training(state, (run) => { player.own(); showRun(run); }, () => lead(player));
const jobs = new Jobs(state, () => lead(player));
const compare = new Compare(state, player);
// A poll opened, revealed or closed: what the page hides of its run changes, and no page shows a
// step past the presenter's while it is open.
const polls = new Polls(state, player, () => {
  if (!player.run) return;
  // A viewer's copy of a run held for a poll lacks the answer (the server's): revealed, read it whole.
  if (player.run.held_for && !state.hiding(player.run)) reread(player.run.id);
  showOutcome(player.run, player);
  if (player.step > player.limit()) player.show(player.step);
  player.changed();
});
const perturbations = new Perturbations({ state, player, stage, controls }); // its caption after the page's
const formulas = new SeedFormulas(state, player);
state.addEventListener("change", showLead);
const lessons = new Lessons({ state, controls, training, player, toggle }); // G X , . S I M N Y E
// A read-only handle on the page for tests and benchmarks: no module reads it.
window.ringside = Object.freeze({ state, player, stage, controls, training, jobs, polls });

/** Whether a run is this page's: the one on its stage, or the last it submitted. */
const mine = (run) => [player.run?.id, state.submitted].includes(run.id);

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

async function reread(id) {
  const run = await api(`/api/runs/${id}`).catch(() => null);
  if (run && player.run?.id === id) { showRun(run); player.mirror(); }
}

/** The presenter's page: what it shows goes to every audience page. */
function lead(p) {
  if (!state.presenter || !p.run) return;
  const view = { type: "presenter", run_id: p.run.id, step: p.step, playing: p.playing, speed: p.speed,
    overlay: state.overlay, training: training.shown?.id, job: jobs.shown?.job.id,
    demo: perturbations.demoIds() };
  const text = JSON.stringify(view);
  if (text !== state.sent && state.send(view)) state.sent = text;
}

/** An attached audience page shows the presenter's run, step and playing. */
async function follow(view) {
  state.set({ view });
  perturbations.follow(view.demo ?? []); // data, not a view: heard even when detached
  polls.moved(view.run_id);
  if (!following()) return;
  training.follow(view.training);
  jobs.follow(view.job);
  overlay(view.overlay ?? null);
  if (player.run?.id === view.run_id) return player.mirror();
  if (state.opening === view.run_id) return; // the latest view is applied when it lands
  state.opening = view.run_id;
  try {
    const run = await api(`/api/runs/${view.run_id}`);
    if (following() && state.view.run_id === run.id) {
      showRun(run);
      player.mirror();
    }
  } catch (err) {
    say("caption", `Could not open the presenter's run ${view.run_id}: ${err.reason ?? err}`);
  } finally {
    state.opening = null;
  }
}

/** The page's role, and for a detached audience page a button back to the presenter's view. */
function showLead() {
  $("follow-presenter").hidden = state.presenter || state.attached || !state.view;
  say("role", state.presenter ? "presenter"
    : following() ? "audience · following the presenter" : "audience");
}

/** One overlay over the stage at most; the presenter's page tells the audience. */
function overlay(name) {
  if (name === state.overlay) return; // the view comes with every step
  state.overlay = name;
  compare.show(name === "compare");
  training.charts.showOverlay(name === "training");
  jobs.show(name === "jobs");
  formulas.show(name);
  lead(player);
}

/** C, T, J: an audience page that toggles one itself leaves the presenter's view. */
function toggle(name) {
  if (following()) state.set({ attached: false });
  overlay(state.overlay === name ? null : name);
}

function reattach() {
  state.set({ attached: true });
  if (state.view) follow(state.view);
}

function showRun(run, step) {
  // A fetched run that answers after the feed announced its end is older than the stage's.
  if (player.run?.id === run.id && ended(player.run) && !ended(run)) return;
  player.load(run, { step });
  const op = run.op ? ` · ${run.op}` : ""; // the reduction the numbers on stage go through
  const how = `${run.choice?.label ?? run.spec.algorithm} · ${run.group.length} ranks`;
  say("run-title",
    `${run.spec.collective}${op} · ${how} · ${run.spec.count} × ${dtypeOf(run)} · ${run.id}`);
  $("run-title").title = run.choice?.why ?? ""; // what auto chose, and why
  say("run-state", run.state + (run.verified === true ? " ✓" : run.verified === false ? " ✗" : ""));
  $("run-state").dataset.state = run.state;
  $("cancel").hidden = !state.presenter || ended(run) || run.cancel_requested;
  showOutcome(run, player);
  polls.render(); // whether it hides anything of this run
  document.querySelectorAll("#history li")
    .forEach((li) => li.classList.toggle("current", li.dataset.run === run.id));
  if (ended(run)) { timeline(run); totals(run); compare.draw(); }
}

async function sweep(entry, spec) {
  const progress = (text) => say("sweep-progress", text);
  progress(`${entry.name}: queueing runs…`);
  try {
    say("run-why", "sweep: under way, in the Sweep panel below (its runs stay off the stage)");
    const runs = await runSweep(entry.name, entry.algorithms, spec.dtype, state.ended,
      (done, total) => progress(`${entry.name}: ${done} of ${total} runs`));
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
  state.worldSize = catalog.world_size;
  state.ended = new Set(catalog.run_states.ended);
  controls.setCatalog(catalog);
  training.setCatalog(catalog);
  showPredict(catalog, plotly).catch(() => {}); // it says its own errors
}

/** Whether every rank of its group has sent its inputs. */
const started = (run) => run.group.every((r) => run.inputs[String(r)]);

/** The live feed, by message type: a run arrives whole at run_started and run_ended, and a
 * message per rank per step between: a live run costs no GET. */
const ROUTES = {
  snapshot(m) {
    onCluster(m.cluster);
    if (m.current && !params.get("run") && !swept(m.current)) showRun(m.current);
    if (m.presenter && !state.presenter) follow(m.presenter);
    lead(player);
    // The run on stage may have ended while the feed was down.
    if (player.run && !ended(player.run) && player.run.id !== m.current?.id) openRun(player.run.id);
    refreshHistory().then((runs) => params.get("run")
      || showLatest(runs.find((r) => ended(r) && r.purpose !== "sweep")));
  },
  cluster: onCluster,
  run: () => refreshHistory(),
  presenter(m) {
    if (!state.presenter) follow(m);
  },
  run_started(m) {
    if ((state.live && !swept(m.run)) || mine(m.run)) showRun(m.run);
    refreshHistory();
  },
  run_ended(m) {
    // A run that failed before it started was never on stage: its end says why.
    if (mine(m.run) || (state.live && !started(m.run) && !swept(m.run))) showRun(m.run);
    refreshHistory();
  },
  step(m) {
    const step = player.run?.id === m.run_id && player.run.steps[m.step];
    if (!step) return; // another run's, or beyond the run's plan
    step.ranks[String(m.rank)] = { t0: m.t0, t1: m.t1, states: m.states };
    player.grow();
  },
};

// The state learns its role first; the perturbations hear a message before the page does (the
// end of a demo's run is theirs to know when the page shows it), the training after.
const TABLES = [{ snapshot: (m) => state.set({ role: m.role }) }, perturbations.routes, ROUTES,
  training.routes, jobs.routes, polls.routes, lessons.routes];
const route = (m) => { for (const table of TABLES) table[m.type]?.(m); };

function onCluster(cluster) {
  showCluster(cluster);
  if (cluster.world_size !== state.worldSize) {
    state.worldSize = cluster.world_size;
    refreshCatalog();
  }
}

/** What a shared link asks for: a spec in the controls, a run and step on the stage. */
function applyShared() {
  if (params.get("collective")) {
    const fields = {};
    for (const k of ["algorithm", "count", "dtype", "op", "root", "chunks"])
      if (params.get(k)) fields[k] = params.get(k);
    if (params.get("ranks")) fields.group = params.get("ranks");
    controls.pick(params.get("collective"), fields);
  }
  if (params.get("run"))
    openRun(params.get("run"), params.has("step") ? Number(params.get("step")) : undefined);
}

/** The address bar: a link to what is on screen. */
function remember(p) {
  if (!p.run) return;
  const q = new URLSearchParams();
  if (document.body.classList.contains("present")) q.set("present", "1");
  // a reload follows again
  if (following()) return history.replaceState(null, "", `${location.pathname}${q.size ? `?${q}` : ""}`);
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
  stage.fitToBox(true); // its names and bytes at a projector's size, or back
  if (player.run) remember(player);
  const full = () => document.body.classList.contains("present") && !document.fullscreenElement
    && document.documentElement.requestFullscreen?.().catch(() => {});
  if (on && gesture) full();
  else if (on) document.addEventListener("pointerdown", full, { once: true });
  else if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
}

function theme(name) {
  document.documentElement.dataset.theme = name;
  localStorage.setItem("ringside-theme", name);
  if (player.run && ended(player.run)) { timeline(player.run); totals(player.run); }
  training.charts.themed();
}

theme(localStorage.getItem("ringside-theme")
  ?? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
lecture(params.get("present") === "1");
$("theme").onclick = () => theme(document.documentElement.dataset.theme === "dark" ? "light" : "dark");
const flipLecture = () => lecture(!document.body.classList.contains("present"), true);
$("present").onclick = flipLecture;
$("help").onclick = () => $("keys").showModal();
$("jobs-open").onclick = $("jobs-close").onclick = () => toggle("jobs");
$("export").onclick = () => player.run && download(player.run);
$("follow-presenter").onclick = reattach;
$("perfetto").onclick = () => {
  if (!player.run) return;
  openInPerfetto(`/api/runs/${player.run.id}/trace`,
    `Ringside ${player.run.id}: ${player.run.spec.collective} ${player.run.spec.algorithm}`,
    "perfetto-status");
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
/** K: the audience's link as a QR code, the size of the screen, for a hall to scan (the presenter's). */
async function showHall() {
  const box = $("hall");
  if (box.open) return box.close();
  if (!state.presenter) return;
  try {
    const { audience, qr_svg: qr } = await api("/api/lecture");
    box.querySelector(".qr").innerHTML = qr; // the server's own SVG (segno), not a client's
    box.querySelector("p").textContent = audience[0];
    box.showModal();
  } catch (err) {
    say("caption", `No audience link: ${err.reason ?? err}`);
  }
}

const KEYS = { // in either case; the player binds its own (Space, arrows, + and -)
  r: () => controls.again(), enter: () => controls.again(), a: () => controls.cycleAlgorithm(),
  o: () => controls.cycleOp(),
  p: () => controls.togglePreset(), "]": () => controls.pickNext(1), "[": () => controls.pickNext(-1),
  f: toggleFullscreen, l: flipLecture, c: () => toggle("compare"), t: () => toggle("training"),
  j: () => toggle("jobs"),
  d: () => state.presenter && perturbations.runDemo(), q: () => polls.ask(), k: showHall,
  escape: () => state.overlay && toggle(state.overlay), // Esc closes C, T and J as the dialogs close
  home: () => { player.pause(); player.go(-1); },
  end: () => { player.pause(); player.go(player.available() - 1); },
  "?": () => ($("keys").open ? $("keys").close() : $("keys").showModal()), ...lessons.keys,
};
keysAfterClicks();
// A poll's card takes its keys first (its menu, Enter reveals, the stage held).
document.addEventListener("keydown", (e) => {
  if (!notAShortcut(e) && !$("keys").open && polls.key(e)) {
    e.preventDefault(); e.stopImmediatePropagation();
  }
}, true);
// A digit picks a collective; digits then Enter go to that step (1-based, as shown) and put the pick back.
const untyped = () => ({ digits: "", at: -Infinity, pick: null });
let typed = untyped();
document.addEventListener("keydown", (e) => {
  // Enter on a button presses it
  if (notAShortcut(e) || (e.key === "Enter" && e.target.closest?.("button, a"))) return;
  const recent = performance.now() - typed.at < 3000;
  if (/^[0-9]$/.test(e.key)) {
    typed = { digits: (recent ? typed.digits : "") + e.key, at: performance.now(),
      pick: recent ? typed.pick : controls.picked() };
    controls.pickIndex((Number(e.key) + 9) % 10);
    return;
  }
  if (e.key === "Enter" && recent && typed.digits && player.run) {
    controls.pick(...typed.pick);
    player.pause();
    player.go(Number(typed.digits) - 1);
  } else KEYS[e.key?.toLowerCase()]?.();
  typed = untyped();
});

/** The catalog at last: a server that is restarting, or a lost request, is asked again. */
async function firstCatalog(delay = 250) {
  while (!(await refreshCatalog().then(() => true, () => false))) {
    say("connection", "reconnecting…");
    await new Promise((wake) => setTimeout(wake, delay));
    delay = Math.min(delay * 2, 5000);
  }
}

await firstCatalog(); // the ended states, before the first run arrives
applyShared();
state.send = live(route, (socket) => {
  $("connection").dataset.state = socket;
  say("connection", socket === "open" ? "live" : "reconnecting…");
  // a restarted server learns the presenter's view again
  if (socket === "open") { state.sent = ""; lead(player); }
});
