// The page of an exported run: the stage and player over the run in the file, with no server.

import { Stage } from "rs/stage.js";
import { Player, bindPlayer } from "rs/player.js";
import { showStep, showOutcome } from "rs/panels.js";
import { $, notAShortcut, say, toggleFullscreen } from "rs/dom.js";
const run = JSON.parse($("run-data").textContent);
const player = new Player(new Stage($("stage")), showStep);
bindPlayer(player); // Space, ← and →
say("run-title", `${run.spec.collective} · ${run.spec.algorithm} · ${run.group.length} ranks · ${run.id}`);
player.follow = false;
player.load(run);
showOutcome(run);
window.ringside = { player, run };

function lecture() {
  $("present").classList.toggle("active", document.body.classList.toggle("present"));
}

$("present").onclick = lecture;
document.addEventListener("keydown", (e) => {
  if (notAShortcut(e)) return;
  if (e.key === "l" || e.key === "L") lecture();
  else if (e.key === "f" || e.key === "F") toggleFullscreen();
});
