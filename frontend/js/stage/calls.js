// Send/recv code's calls under the stage, a time row per rank: grey from post to wait (the rank
// worked meanwhile), red from wait to completion (the rank was blocked in the call), and how long
// it waited in words. The point-to-point lesson (send_recv by blocking and by isend) lives here:
// the page keeps each algorithm's last sender wait, so the two are said side by side.

import { $, html } from "rs/core/dom.js";
import { seconds } from "rs/core/format.js";

/** The rows of `calls` (rank -> [CallTime]), or null where no rank made a call. */
export function callTimeline(calls) {
  const ranks = Object.entries(calls).filter(([, list]) => list.length);
  if (!ranks.length) return null;
  const end = Math.max(...ranks.flatMap(([, list]) => list.map((c) => c.done))) || 1;
  const share = (t) => `${(100 * Math.max(0, t)) / end}%`;
  const rows = ranks.map(([rank, list]) => {
    const blocked = waited(list);
    const bars = list.flatMap((c) => {
      const title = `${c.name} ${c.name.endsWith("send") ? "to" : "from"} rank ${c.peer} (${c.line}): `
        + `posted ${seconds(c.posted)}, waited from ${seconds(c.waited)}, done ${seconds(c.done)}`;
      const bar = (cls, from, to) => html("span", { class: cls, title,
        style: `left:${share(from)};width:${share(to - from)}` });
      return [bar("flight", c.posted, c.waited), bar("blocked", c.waited, c.done)];
    });
    const what = list.map((c) => `${c.name} ${c.name.endsWith("send") ? "→" : "←"} ${c.peer}`).join(", ");
    return html("div", { class: "call-row", "data-rank": rank, "data-blocked": blocked.toFixed(4) },
      html("span", { class: "who" }, `rank ${rank}`, ": ", what), html("span", { class: "track" }, bars),
      html("span", { class: "waited" }, `waited ${seconds(blocked)}`));
  });
  const key = `Each rank's calls, ${seconds(end)} in all: grey while in flight, `
    + "red while the rank waits in the call";
  return html("div", { class: "calls" }, html("p", {}, key), rows);
}

/** The #calls box under the stage (made on first use) for the run on it; hidden without calls. */
export class Calls {
  senderWait = {}; // collective -> algorithm -> its root's wait in the last run this page showed

  show(run) {
    let box = $("calls");
    if (!box) $("caption").before((box = html("div", { id: "calls", "aria-live": "polite" })));
    const rows = callTimeline(run?.calls ?? {});
    box.hidden = !rows;
    box.replaceChildren(...(rows ? [rows] : []));
    const root = run?.layout?.root ?? run?.spec.root, sender = run?.calls?.[String(root)];
    if (!rows || !sender?.length) return;
    const waits = (this.senderWait[run.spec.collective] ??= {});
    waits[run.spec.algorithm] = waited(sender);
    const known = Object.entries(waits).map(([a, s]) => `${a} ${seconds(s)}`);
    const versus = `rank ${root}, the sender, waited: ${known.join(" · ")}`;
    if (known.length > 1) rows.append(html("p", { class: "versus" }, versus));
  }
}

/** How long a rank waited in its calls, in all. */
const waited = (list) => list.reduce((sum, c) => sum + Math.max(0, c.done - c.waited), 0);
