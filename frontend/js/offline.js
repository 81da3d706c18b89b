// The page an exported run opens in: the stage and player over the run embedded in the file,
// with no server at all.

import { Stage } from "rs/stage.js";
import { Player, bindPlayer } from "rs/player.js";
import { showStep, showOutcome } from "rs/panels.js";

const run = JSON.parse(document.getElementById("run-data").textContent);
const player = new Player(new Stage(document.getElementById("stage")), showStep);
bindPlayer(player);
document.getElementById("run-title").textContent = `${run.spec.collective} · ${run.spec.algorithm} · ${run.group.length} ranks · ${run.id}`;
player.follow = false;
player.load(run);
showOutcome(run);
window.ringside = { player, run };
