// Z: the seeds' two ways to start the ranks, side by side over the stage: spawn (your script is the
// main process and starts a function in each subprocess) against a launcher (torchrun, or
// torch.distributed.launch: the launcher is the main process and starts your whole script once a
// rank), with how each runs, where a rank learns its number and which variables each sets; then what
// this cluster's ranks were started by and were given, from their own hellos.

import { html } from "rs/core/dom.js";
import { ClusterOverlay, nodesOf } from "rs/lecture/hosts.js";

/** What started a rank (its hello's launcher) -> the seeds' way it is: `ringside up` starts a
 * function in each of its processes as spawn does, and sets the variables torchrun would. */
export const WAYS = { "torch.multiprocessing.spawn": "spawn", "ringside up": "spawn", torchrun: "launcher" };

const ROWS = [ // [what, spawn's: [words, code], the launcher's]
  ["main process", ["your script is the main process: it starts a function in each subprocess",
    "mp.spawn(fn, args=(world_size,), nprocs=world_size)"],
  ["the launcher is the main process: it starts your whole script once a rank", "torchrun --nproc-per-node=4 train.py"]],
  ["a rank's number", ["the function's first argument", "def fn(rank, world_size)"],
    ["read from the variables", "int(os.environ['RANK'])"]],
  ["variables", ["you set them before spawning", "MASTER_ADDR MASTER_PORT WORLD_SIZE"],
    ["it sets them for each rank", "RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE GROUP_RANK MASTER_ADDR MASTER_PORT"]],
  ["several nodes", ["one spawn a node: each rank works out its global rank itself", null],
    ["one launcher a node, told its node's rank: it numbers the global ranks", "--nnodes=2 --node-rank=1"]],
];
const VARIABLES = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK"];

/** A cell's words, and its code under them. */
const cell = (way, [words, code]) => html("td", { "data-way": way }, words, words && code ? html("br") : null,
  code ? html("code", {}, code) : null);

export class Launchers extends ClusterOverlay {
  constructor() {
    super("launchers", "spawn against launcher");
  }

  draw() {
    const ranks = [...(this.cluster?.ranks ?? [])].sort((a, b) => a.rank - b.rank);
    const started = [...new Set(ranks.map((r) => r.launcher).filter(Boolean))];
    const ways = new Set(started.map((l) => WAYS[l]).filter(Boolean));
    const head = (way, title, code) => html("th", { "data-way": way, class: ways.has(way) ? "this" : "" },
      title, " ", html("code", {}, code));
    const table = html("table", { class: "ways" },
      html("tr", {}, html("th", {}), head("spawn", "spawn", "torch.multiprocessing.spawn"),
        head("launcher", "launcher", "torchrun · torch.distributed.launch")),
      ROWS.map(([what, spawn, launcher]) => html("tr", {}, html("th", {}, what), cell("spawn", spawn),
        cell("launcher", launcher))));
    const index = new Map(nodesOf(this.cluster).map((n) => [n.host, n.index]));
    const world = this.cluster?.world_size ?? ranks.length;
    const values = (r) => [r.rank, r.local_rank, world, r.local_world_size, index.get(r.host)];
    // a variable a row, a rank a column: what each rank was given
    const given = ranks.length ? html("table", { class: "given" },
      VARIABLES.map((v, i) => html("tr", { "data-variable": v }, html("th", {}, html("code", {}, v)),
        ranks.map((r) => html("td", { "data-rank": r.rank }, html("code", {}, String(values(r)[i])))))))
      : html("p", {}, "No ranks are connected.");
    const masters = [...new Set(ranks.map((r) => r.master).filter(Boolean))];
    const how = started.length ? [`this cluster: started by ${started.join(", ")}`,
      ...[...ways].flatMap((w) => [" · ", w === "spawn" ? "the spawn way" : "the launcher way"])]
      : ["this cluster: started by hand, its variables set by whoever started it"];
    this.box().replaceChildren(html("h2", {}, "Two ways to start the ranks: spawn against launcher"), table,
      html("p", { class: "how", "data-started": started.join(",") }, ...how), given,
      masters.length ? html("p", { class: "met" }, "where they met", " ", html("code", {}, `MASTER_ADDR:MASTER_PORT = ${masters.join(", ")}`)) : "",
      html("p", { class: "keys" }, "Z closes · B: nodes, local and global ranks"));
  }
}
