// Ringside's page, wired: each part is made once, here, and handed what it uses. What the page may
// do and who drives its stage is its state's (core/state.js); the feed's messages go by type,
// through the parts' tables of routes, to those that handle them.

import { live } from "rs/core/api.js";
import { $, say } from "rs/core/dom.js";
import { PageState } from "rs/core/state.js";
import { download } from "rs/export/export.js";
import { openInPerfetto } from "rs/export/perfetto.js";
import { Languages } from "rs/i18n/i18n.js";
import { Hall } from "rs/lecture/hall.js";
import { Hosts } from "rs/lecture/hosts.js";
import { Launchers } from "rs/lecture/launchers.js";
import { LectureMode } from "rs/lecture/lecture-mode.js";
import { Lesson } from "rs/lecture/lesson.js";
import { Lessons } from "rs/lecture/lessons.js";
import { Polls } from "rs/lecture/polls.js";
import { Practice } from "rs/lecture/practice.js";
import { PracticeChart } from "rs/lecture/practice-chart.js";
import { Presenter } from "rs/lecture/presenter.js";
import { SeedFormulas } from "rs/lecture/seed-formulas.js";
import { Address } from "rs/page/address.js";
import { Catalog } from "rs/page/catalog.js";
import { Keys } from "rs/page/keys.js";
import { Theme } from "rs/page/theme.js";
import { Compare } from "rs/panels/compare.js";
import { Controls } from "rs/panels/controls.js";
import { showStep } from "rs/panels/panels.js";
import { Perturbations } from "rs/panels/perturbation.js";
import { sweep } from "rs/panels/sweep.js";
import { FirstScreen } from "rs/stage/first.js";
import { Overlays } from "rs/stage/overlays.js";
import { Player, PlayerButtons } from "rs/stage/player.js";
import { Runs } from "rs/stage/runs.js";
import { Stage } from "rs/stage/stage.js";
import { Training } from "rs/training/training.js";
import { WatchedJobs } from "rs/watched/watched-jobs.js";

new Languages(); // first: the page's words, and whatever the modules write from now on, in its language

const params = new URLSearchParams(location.search);
// An audience page follows the presenter until it moves by itself (or opens on a run's link).
const state = new PageState({ attached: !params.has("run") });
const stage = new Stage($("stage"));
const player = new Player(stage, state);
// The first of the player's listeners: a poll's, the perturbations' and the lessons' come after it.
player.addEventListener("change", () => {
  showStep(player); address.remember(); presenter.lead(); $("speed").value = String(player.speed);
  controls.showRun(player.run); // the strip over the stage names the run on it
});
const controls = new Controls(state, (id) => { state.submitted = id; },
  (entry, spec) => sweep(entry, spec, state.ended));
new PlayerButtons(player);
// The training charted is part of the presenter's view.
const training = new Training(state, (run) => { player.own(); runs.show(run); }, () => presenter.lead());
const watched = new WatchedJobs(state, () => presenter.lead());
const compare = new Compare(state, player);
const polls = new Polls(state, player, controls, () => runs.polled());
const perturbations = new Perturbations({ state, player, stage, controls }); // its caption after the page's
const runs = new Runs({ state, player, polls, compare, linked: params.get("run") });
new FirstScreen({ state, player, controls, runs }); // the stage before the first run
const formulas = new SeedFormulas(state, player);
const hosts = new Hosts(), launchers = new Launchers(); // B and Z: the cluster in the seeds' terms
const overlays = new Overlays({ state, compare, training, jobs: watched, formulas, hosts, launchers,
  onShown: () => presenter.lead() });
// U: a lesson's next stage, which the audience's pages show as the presenter's
const lesson = new Lesson({ state, polls, onSubmitted: (id) => { state.submitted = id; }, onMoved: () => presenter.lead() });
const presenter = new Presenter({ state, player, training, jobs: watched, perturbations, polls, overlays, runs, lesson });
// a phone steps the run alone, predicting each step; H: the presenter's chart of how the room did
new Practice({ state, player, polls, onRejoin: () => presenter.reattach() });
const practiceChart = new PracticeChart({ state, player });
const toggle = (name) => overlays.toggle(name);
const address = new Address({ state, player, controls, runs, jobs: watched, toggle, params });
const lessons = new Lessons({ state, controls, training, player, toggle }); // G X , . S I M N Y E
const catalog = new Catalog({ state, controls, training });
// A read-only handle on the page for tests and benchmarks: no module reads it.
window.ringside = Object.freeze({ state, player, stage, controls, training, watched, polls, lesson });

new Theme({ state, player, training });
const lecture = new LectureMode({ controls, stage, address });
lecture.set(params.get("present") === "1");
$("jobs-open").onclick = $("jobs-close").onclick = () => toggle("jobs");
$("export").onclick = () => player.run && !player.run.preview && download(player.run);
$("perfetto").onclick = () => player.run && !player.run.preview && openInPerfetto(`/api/runs/${player.run.id}/trace`,
  `Ringside ${player.run.id}: ${player.run.spec.collective} ${player.run.spec.algorithm}`, "perfetto-status");
const hall = new Hall(state);
new Keys({ state, player, controls, polls, overlays, lecture, perturbations, hall, lessons, lesson, practiceChart });

// The state learns its role first; the perturbations hear a message before the page does (the
// end of a demo's run is theirs to know when the page shows it), the training after.
const TABLES = [{ snapshot: (m) => state.set({ role: m.role }) }, perturbations.routes, catalog.routes,
  runs.routes, presenter.routes, training.routes, watched.routes, polls.routes, lessons.routes, lesson.routes,
  practiceChart.routes, hosts.routes, launchers.routes];
const route = (m) => { for (const table of TABLES) table[m.type]?.(m); };

await catalog.first(); // the ended states, before the first run arrives
lesson.load();
address.applyShared();
state.send = live(route, (socket) => {
  $("connection").dataset.state = socket;
  say("connection", socket === "open" ? "live" : "reconnecting…");
  if (socket === "open") presenter.resend();
}, polls.carried);
