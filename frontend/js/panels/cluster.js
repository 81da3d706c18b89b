// The cluster panel: ranks by node, each with its device, status, heartbeat and recent usage.

import { $, el, html } from "rs/core/dom.js";
import { bytes, colour } from "rs/core/format.js";

const W = 90, H = 22;

/** One polyline per series of the heartbeat history ([time, cpu, rss, gpu]), each scaled to its own top. */
function sparkline(history) {
  const svg = el("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: "spark" });
  if (history.length < 2) return svg;
  const series = [[1, "cpu", 100], [2, "mem", 0], [3, "gpu", 0]];
  for (const [column, name, floor] of series) {
    const ys = history.map((p) => p[column]);
    if (ys.some((v) => v == null)) continue;
    const top = Math.max(floor, ...ys) || 1;
    const points = ys.map((v, i) =>
      `${((i / (ys.length - 1)) * W).toFixed(1)},${(H - 1 - (v / top) * (H - 2)).toFixed(1)}`);
    el("polyline", { class: name, points: points.join(" ") }, svg);
  }
  return svg;
}

/** How the ranks came to be: world size, backend, where they met, what started them. */
function origin(ranks) {
  const first = ranks[0];
  const launchers = [...new Set(ranks.map((r) => r.launcher).filter(Boolean))].join(", ");
  // each part its own text, said alone in another language
  const parts = [`world size ${first.world_size ?? ranks.length}`, first.backend,
    first.master && `MASTER_ADDR:PORT ${first.master}`, launchers && `started by ${launchers}`];
  return html("p", { class: "origin" }, parts.filter(Boolean).flatMap((p, i) => (i ? [" · ", p] : [p])));
}

export function showCluster(cluster) {
  const hosts = new Map();
  for (const r of cluster.ranks)
    hosts.set(r.host, [...(hosts.get(r.host) ?? []), { ...r, world_size: cluster.world_size }]);
  const panel = $("cluster");
  panel.replaceChildren(...(cluster.ranks.length ? [origin([...hosts.values()].flat())] : []),
    ...[...hosts].map(([host, ranks]) => html("div", { class: "host" },
    html("h3", {}, `node ${host} · torch ${ranks[0].torch_version}`),
    ranks.map((r) => html("div", { class: "rank-row", "data-rank": r.rank, "data-status": r.status },
      html("span", { title: "global rank" },
        html("span", { class: `dot ${r.status}`, style: `outline: 2px solid ${colour(r.rank)}` }),
        `${r.rank}`),
      html("span", { class: "local", title: "local rank / ranks on this node" },
        `local ${r.local_rank}/${r.local_world_size ?? ranks.length}`),
      html("span", { title: `pid ${r.pid}` }, r.device, " · ", r.status, ` · ♥ ${r.heartbeat_age.toFixed(1)} s`),
      html("span", { class: "usage" },
        `${Math.round(r.cpu_percent ?? 0)}% · ${bytes(r.rss_bytes)}`
        + `${r.gpu_memory_bytes != null ? ` · GPU ${bytes(r.gpu_memory_bytes)}` : ""}`),
      sparkline(r.history ?? []))))));
  if (!cluster.ranks.length) panel.append(html("p", { class: "why" }, "No ranks are connected."));
  document.querySelectorAll(".card").forEach((c) => {
    const r = cluster.ranks.find((x) => String(x.rank) === c.dataset.rank);
    for (const status of ["busy", "lost"]) c.classList.toggle(status, r?.status === status);
  });
}
