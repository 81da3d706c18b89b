// The page an exported run opens in: the stage and player over the run embedded in the file,
// with no server at all. It opens in lecture mode; the keys are the live page's.

import { Stage } from "rs/stage.js";
import { Player, bindPlayer } from "rs/player.js";
import { showStep, showOutcome } from "rs/panels.js";

const $ = (id) => document.getElementById(id);
const run = JSON.parse($("run-data").textContent);
const player = new Player(new Stage($("stage")), showStep);
bindPlayer(player); // Space, ← and →
$("run-title").textContent = `${run.spec.collective} · ${run.spec.algorithm} · ${run.group.length} ranks · ${run.id}`;
player.follow = false;
player.load(run);
showOutcome(run);
window.ringside = { player, run };

function lecture(on) {
  document.body.classList.toggle("present", on);
  $("present").classList.toggle("active", on);
}

$("present").onclick = () => lecture(!document.body.classList.contains("present"));
document.addEventListener("keydown", (e) => {
  if (e.target.closest?.("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "l" || e.key === "L") lecture(!document.body.classList.contains("present"));
  else if (e.key === "f" || e.key === "F") document.fullscreenElement ? document.exitFullscreen() : document.documentElement.requestFullscreen?.().catch(() => {});
});
