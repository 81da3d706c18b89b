// B: the cluster as the seeds draw it, over the stage: its nodes, each holding its ranks, every rank
// with its node, local rank and global rank, and the world size they make, beside the seeds' words
// for the four terms. From the cluster's own data (each rank's hello), as the server last said it.

import { $, html } from "rs/core/dom.js";
import { colour } from "rs/core/format.js";

/** The seeds' four terms, each with the variable torchrun sets for it. */
const TERMS = [
  ["Node", "a machine (a computer or server) with its GPUs or CPUs; here each holds a block of ranks", null],
  ["Global rank", "a process's number across every node, from 0, unique to it", "RANK"],
  ["Local rank", "a process's number within its node, from 0 on every node", "LOCAL_RANK"],
  ["World size", "how many processes there are in all: nodes × processes a node", "WORLD_SIZE"],
];

/** The cluster's ranks by node, in the order of their first rank: [{host, index, ranks}]. */
export function nodesOf(cluster) {
  const nodes = new Map();
  for (const r of [...(cluster?.ranks ?? [])].sort((a, b) => a.rank - b.rank)) {
    if (!nodes.has(r.host)) nodes.set(r.host, { host: r.host, index: nodes.size, ranks: [] });
    nodes.get(r.host).ranks.push(r);
  }
  return [...nodes.values()];
}

/** An overlay over the stage drawn from the cluster as the server last said it (B, Z): shown with
 * the body's class "<id>-shown", drawn again as the cluster changes while shown. */
export class ClusterOverlay {
  cluster = null;
  shown = false;
  /** The live messages it hears, by type: the cluster as it changes. */
  routes = { snapshot: (m) => this.seen(m.cluster), cluster: (m) => this.seen(m) };

  constructor(id, label) {
    Object.assign(this, { id, label });
  }

  seen(cluster) {
    this.cluster = cluster;
    if (this.shown) this.draw();
  }

  /** Show or hide the overlay (the page's Overlays ask). */
  show(on) {
    this.shown = on;
    this.box().hidden = !on;
    document.body.classList.toggle(`${this.id}-shown`, on);
    if (on) this.draw();
  }

  /** Its box over the stage, made once, class "keyed", hidden until shown. */
  box() {
    let box = $(this.id);
    if (!box) {
      box = html("section", { id: this.id, class: "keyed", "aria-live": "polite", "aria-label": this.label });
      box.hidden = true;
      document.body.append(box);
    }
    return box;
  }
}

export class Hosts extends ClusterOverlay {
  constructor() {
    super("hosts", "nodes and ranks");
  }

  draw() {
    const box = this.box(), nodes = nodesOf(this.cluster);
    const world = this.cluster?.world_size ?? 0, each = nodes[0]?.ranks.length ?? 0;
    const node = ({ host, index, ranks }) => html("div", { class: "node", "data-host": host },
      html("h3", {}, html("span", {}, `node ${host}`), " ", html("code", {}, `GROUP_RANK=${index}`)),
      html("ul", {}, ranks.map((r) => html("li", { "data-rank": r.rank, "data-local": r.local_rank },
        html("span", { class: "swatch", style: `background: ${colour(r.rank)}` }),
        html("span", { class: "global" }, `global rank ${r.rank}`), " · ",
        html("span", { class: "local" }, `local rank ${r.local_rank}`)))));
    const even = nodes.every((n) => n.ranks.length === each);
    box.replaceChildren(html("h2", {}, "Nodes, local ranks and global ranks"),
      nodes.length ? html("div", { class: "nodes" }, nodes.map(node))
        : html("p", {}, "No ranks are connected."),
      html("p", { class: "world", "data-world": world },
        even && nodes.length ? `world size ${world} = ${nodes.length} nodes × ${each} ranks a node`
          : `world size ${world}`),
      html("dl", { class: "terms" }, TERMS.flatMap(([term, what, variable]) => [
        html("dt", {}, term), html("dd", {}, what, variable ? [" ", html("code", {}, variable)] : [])])),
      html("p", { class: "keys" }, "B closes · Z: how the ranks were started"));
  }
}
