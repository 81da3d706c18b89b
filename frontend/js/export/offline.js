// The page of an exported run: the stage and player over the run in the file, with no server.

import { $, notAShortcut, sayEach, toggleFullscreen } from "rs/core/dom.js";
import { PageState } from "rs/core/state.js";
import { Languages } from "rs/i18n/i18n.js";
import { showOutcome, showStep } from "rs/panels/panels.js";
import { Player, PlayerButtons } from "rs/stage/player.js";
import { Stage } from "rs/stage/stage.js";

new Languages(); // the file's words and captions in its reader's language, as on the live page

const run = JSON.parse($("run-data").textContent);
const stage = new Stage($("stage"));
const player = new Player(stage, new PageState({ live: false })); // no feed, no presenter: it drives itself
player.addEventListener("change", () => showStep(player));
new PlayerButtons(player); // Space, ← and →
sayEach("run-title", [run.spec.collective, run.op, run.spec.algorithm, `${run.group.length} ranks`, run.id]);
player.load(run);
showOutcome(run, player);
window.ringside = Object.freeze({ player, stage, run }); // read by tests

function lecture() {
  $("present").classList.toggle("active", document.body.classList.toggle("present"));
  stage.fitToBox(true); // names and bytes at a projector's size, or back
}

$("present").onclick = lecture;
document.addEventListener("keydown", (e) => {
  if (notAShortcut(e)) return;
  if (e.key === "l" || e.key === "L") lecture();
  else if (e.key === "f" || e.key === "F") toggleFullscreen();
  else if (e.key === "Home" || e.key === "End") { // as on the live page: to the inputs, to the result
    player.pause();
    player.go(e.key === "Home" ? -1 : player.available() - 1);
  }
});
