// Watched jobs (J): users' own torchrun jobs, every collective of every rank as it is issued. The open
// one's hang, ranks by node, lanes, latest collectives, totals, p2p links, trace. The server judges.

import { api } from "rs/core/api.js";
import { $, html, reason, say, table } from "rs/core/dom.js";
import { bandwidth, bytes, colour, seconds } from "rs/core/format.js";
import { openInPerfetto } from "rs/export/perfetto.js";
import { onLanguage, said } from "rs/i18n/i18n.js";
import { byHost, Lanes, MAX_LANES, moved } from "rs/watched/watched-lanes.js";

export { byHost };
const KEEP = 2000; // collectives kept, and drawn
const KEPT_ENTRIES = 400_000; // and fewer in a job of many ranks: each names every rank's issue
const MAX_NODES_LISTED = 12; // folded nodes listed under the lanes, in a job of many ranks
const RECENT = 30; // rows of the latest
const FLUSH_MS = 250; // tables redrawn at most this often
const REFETCH_MS = 5000; // totals and links come with the detail only: asked again while it runs

/** `incoming` merged into `kept` by index (an update replaces), in index order, the last `keep`. */
export function merge(kept, incoming, keep = KEEP) {
  const all = new Map(kept.map((c) => [c.index, c]));
  for (const c of incoming) all.set(c.index, c);
  return [...all.values()].sort((a, b) => a.index - b.index).slice(-keep);
}

const ranks = (rs) => `rank${rs.length > 1 ? "s" : ""} ${rs.join(", ")}`;
const members = (m = []) => (m.length > 8 ? `${m.length} ranks` : ranks(m));
// a group by its name and ranks: a 2-D mesh's dp groups share one name
const groupCell = (g, d) => (d.groups[g] ? [groupName(g, d.group_descs), " (", members(d.groups[g]), ")"] : groupName(g, d.group_descs));
/** The collectives a job keeps: fewer as its world grows. */
export const keepFor = (world) => Math.max(32, Math.min(KEEP, Math.floor(KEPT_ENTRIES / world)));
const num = (n) => n.toLocaleString("en");
const gbps = (v) => (v == null ? "–" : bandwidth(v * 1e9));
const pill = (state) => html("span", { class: "pill", "data-state": state }, state);
/** A job's size in parts, each said alone in another language ("4 ranks", "1 node"). */
const size = (j) => [`${j.world_size} ranks`, `${j.nodes} node${j.nodes > 1 ? "s" : ""}`,
  `${num(j.collectives)} collectives`,
  j.missed ? `(${num(j.missed)} more unseen: the recorder overwrote them unread)` : null];
/** `parts` (nulls left out) as one line, " · " between, each its own text. */
const line = (parts) => parts.filter((p) => p != null).flatMap((p, i) => (i ? [" · ", p] : [p]));
const rankState = (r) => (r.connected ? "connected" : r.exit_code != null ? `exited ${r.exit_code}` : "gone");

/** A group as torch named it (a DeviceMesh dim, a group_desc: `names`), else by its number. */
export const groupName = (g, names = {}) => (/^(undefined|default_pg)?$/.test(names[g] ?? "") ? g : names[g]);

/** A hang's headline: who is late (or silent: stopped), who waits in what (or goes on); a cycle of
 * waits; or which ranks issued something else as one collective. */
export const hangLine = (h, names = {}) => {
  const s = h.waiting.length > 1 ? "" : "s", size = `${num(h.count)} × ${h.dtype}`;
  return ({
    silent: () => `${members(h.late)} silent: ${members(h.waiting)} go${s ? "es" : ""} on`,
    mismatch: () => `mismatch on #${h.seq} of group ${groupName(h.group, names)}: ${members(h.late)}`,
    deadlock: () => `${members(h.late)} deadlocked`,
  }[h.kind] ?? (() => `${members(h.late)} late: ${members(h.waiting)} wait${s} in ${h.op} ${h.seq < 0 ? `(${size})`
    : `#${h.seq} (group ${groupName(h.group, names)}, ${size})`}`))();
};

const bucket = (b) => b && `${b.index}: ${b.params.join(", ")}`;
/** A collective in a line: op #seq, size, last rank and lag (or that it waits), DDP bucket. */
export const describe = (c, names = {}) => [`${c.op} #${c.seq} (group ${groupName(c.group, names)})`,
  `${num(c.count)} × ${c.dtype} · ${bytes(c.bytes)}`,
  c.last_rank == null ? (c.complete ? null : "in flight") : `last rank ${c.last_rank}, lag ${seconds(c.lag_s)}`,
  c.bucket && `bucket ${bucket(c.bucket)}`].filter(Boolean).join(" · ");

export class WatchedJobs {
  shown = null; // the open job's detail, grown by the feed
  loading = null; // {id, early: collectives heard before its GET answered}
  lanes = new Lanes((c) => describe(c, this.shown?.group_descs));
  hang = null; // {hang, heard: ms}
  over = null; // what the server said when the last hang ended: {words, text}
  fetched = 0;
  routes = { snapshot: () => this.refresh(), watched: (m) => this.onJob(m),
    watched_collectives: (m) => this.onCollectives(m), watched_hang: (m) => this.onHang(m) };

  /** `onShown()`: another job is open (the presenter's view says which). */
  constructor(state, onShown) {
    Object.assign(this, { state, onShown });
    $("job-list").onkeydown = (e) => { // Enter opens: a button's own
      const rows = [...$("job-list").querySelectorAll("button")],
        to = moved(e, rows.indexOf(document.activeElement), rows.length);
      if (to != null) rows[to].focus();
    };
    $("job-perfetto").onclick = () => this.job
      && openInPerfetto(this.trace(), `Ringside ${this.job.id}: ${this.job.script}`, "job-perfetto-status");
    onLanguage(() => { // what the server said, said again in the page's new language
      if (!this.shown) return;
      this.sayHang();
      this.render();
    });
  }

  get job() { return this.shown?.job; }
  trace() { return `/api/watched/${this.job.id}/trace`; }

  /** J: the view over everything (in lecture mode too), or not. */
  show(on) { document.body.classList.toggle("jobs-shown", on); }

  /** The feed (re)opened: the list, and the open job again. */
  async refresh() {
    let jobs;
    try {
      ({ jobs } = await api("/api/watched?limit=50"));
    } catch (err) {
      return $("jobs-status").replaceChildren("Could not list the watched jobs: ", reason(err));
    }
    if (!jobs.length)
      $("jobs-status").replaceChildren("No watched job yet:", " ",
        html("code", {}, "torchrun -m ringside.watch --server URL train.py"));
    jobs.reverse().forEach((j) => this.listed(j));
    const id = this.job?.id ?? this.loading?.id
      ?? (jobs.findLast((j) => j.state === "running") ?? jobs.at(-1))?.id;
    if (id) this.open(id);
  }

  // ---- live

  onJob({ job, ranks }) {
    const was = this.listed(job);
    if (this.job?.id !== job.id) {
      // it started
      if (job.state === "running" && was !== "running" && this.state.driver === "live") this.open(job.id);
      return;
    }
    Object.assign(this.shown, { job, ranks });
    // a hang heard, or its words grown (the ranks that wait in a large job say so over a report's time)
    if (job.hang && (!this.hang || hangLine(job.hang) !== hangLine(this.hang.hang))) this.setHang(job.hang);
    if (job.state !== "running" && job.state !== was) this.open(job.id); // ended: its last totals
    else if (Date.now() - this.fetched > REFETCH_MS) {
      this.detail(job.id, 1).then((d) => { // totals and links, which no message carries
        if (d && this.job?.id === d.job.id)
          Object.assign(this.shown, { totals: d.totals, links: d.links, events: d.events, groups: d.groups,
            group_descs: d.group_descs });
      });
    }
    this.later();
  }

  onCollectives({ job_id: id, collectives }) {
    if (this.loading?.id === id) this.loading.early.push(...collectives);
    if (this.job?.id !== id) return;
    // a burst cut short: read it
    if (collectives[0]?.index > (this.shown.collectives.at(-1)?.index ?? -1) + 1) return this.open(id);
    this.shown.collectives = merge(this.shown.collectives, collectives, keepFor(this.job.world_size));
    collectives.forEach((c) => this.lanes.draw(c));
    this.later();
  }

  onHang({ job_id: id, hang, text, words }) {
    if (this.job?.id !== id) return;
    this.job.hang = hang;
    this.setHang(hang, { words, text });
    this.shown.events.push({ t: Date.now() / 1e3 - this.job.started_at, text, words });
  }

  /** The presenter's page shows job `id`. */
  follow(id) {
    if (id && id !== this.job?.id && id !== this.loading?.id) this.open(id);
  }

  // ---- the list

  /** A job's row in the list, made or updated; returns the state it had there. */
  listed(job) {
    const list = $("job-list"), old = list.querySelector(`[data-job="${job.id}"]`), was = old?.dataset.state;
    const row = old
      ?? html("button", { type: "button", "data-job": job.id, onclick: () => this.pick(job.id) });
    row.dataset.state = job.state;
    row.replaceChildren(html("b", {}, job.script), " ", pill(job.state), html("br"),
      ...line([...size(job), new Date(job.started_at * 1e3).toTimeString().slice(0, 8), job.id]));
    if (!old) list.prepend(html("li", {}, row));
    say("jobs-status", "");
    $("jobs-open").dataset.state = list.querySelector("[data-state=running]") ? "running" : "";
    return was;
  }

  /** A job opened by hand: an attached audience page leaves the presenter's view. */
  pick(id) {
    if (this.state.driver === "presenter") this.state.set({ attached: false });
    this.open(id);
  }

  // ---- the open job

  async detail(id, limit = 500) {
    this.fetched = Date.now();
    return api(`/api/watched/${id}?limit=${limit}`)
      .catch((err) => $("jobs-status").replaceChildren(`Could not open job ${id}: `, reason(err)));
  }

  /** Open a job: its detail from the server, then whatever the feed adds. */
  async open(id) {
    const loading = (this.loading = { id, early: [] });
    const d = await this.detail(id);
    if (this.loading !== loading) return; // a newer one was asked for
    this.loading = null;
    if (!d) return;
    const again = this.job?.id === id;
    d.collectives = merge(again ? this.shown.collectives : [], [...d.collectives, ...loading.early],
      keepFor(d.job.world_size));
    this.shown = d;
    this.lanes.clear(d);
    if (!again) { this.hang = this.over = null; $("job-hang").replaceChildren(); }
    if (d.job.hang || this.hang) this.setHang(d.job.hang,
      { words: [{ key: "hang_over" }], text: "the hang is over" });
    $("job").hidden = false;
    this.render();
    if (!again) this.onShown();
  }

  later() { this.flushing ??= setTimeout(() => { this.flushing = null; this.render(); }, FLUSH_MS); }

  render() {
    const d = this.shown, job = d?.job;
    if (!d) return;
    for (const b of $("job-list").querySelectorAll("button"))
      b.toggleAttribute("aria-current", b.dataset.job === job.id);
    $("job-title").replaceChildren(html("b", {}, job.script), " ", pill(job.state), " ",
      ...line([...size(job), job.backend, bytes(job.bytes), job.id]));
    $("job-trace").href = this.trace();
    this.lanes.update(this.hang?.hang.late ?? []);
    this.showRanks(d.ranks);
    table("job-recent",
      ["#seq", "group", "op", "dtype", "count", "bytes", "last rank", "lag", "busbw", "bucket"],
      d.collectives.slice(-RECENT).reverse().map((c) => [c.seq, groupCell(c.group, d), c.op,
        c.dtype, num(c.count),
        bytes(c.bytes), c.last_rank ?? (c.complete ? "–" : "in flight"), seconds(c.lag_s),
        gbps(c.busbw_gbps), bucket(c.bucket) ?? "–"]));
    table("job-totals", ["group", "op", "count", "bytes", "lag max", "lag mean", "time mean", "busbw"],
      d.totals.map((t) => [groupCell(t.group, d), t.op,
        num(t.count), bytes(t.bytes),
        seconds(t.lag_max_s), seconds(t.lag_mean_s), seconds(t.duration_mean_s), gbps(t.busbw_gbps)]));
    table("job-links", ["from", "to", "messages", "bytes"],
      d.links.map((l) => [l.src, l.dst, num(l.count), bytes(l.bytes)]));
    $("job-p2p").hidden = !d.links.length;
    $("job-events").replaceChildren(...d.events.slice(-8).map((e) =>
      html("li", {}, `${seconds(e.t)}: `, html("span", { "data-said": "" }, said(e.words, e.text)))));
    this.tick();
  }

  /** How long the hang has lasted (a dumped job's: till its dumps). */
  tick() {
    const since = this.job?.state === "dumped" ? 0 : (Date.now() - (this.hang?.heard ?? 0)) / 1e3;
    if (this.hang) say("job-hang-for", ` · for ${seconds(this.hang.hang.since_s + since)}`);
  }

  /** Ranks by node: state or exit code, where, last issued seq per group. A job of many ranks lists
   * the ranks of the nodes drawn rank by rank, and of the others a line a node, the first few. */
  showRanks(rs) {
    const late = this.hang?.hang.late ?? [], few = this.job.world_size <= MAX_LANES;
    const drawn = new Set(this.lanes.lanes.filter((lane) => lane.rank != null).map((lane) => lane.rank));
    const nodes = byHost(rs), open = nodes.filter(([, mine]) => few || mine.some((r) => drawn.has(r.rank)));
    const folded = nodes.filter((node) => !open.includes(node));
    $("job-ranks").replaceChildren(...open.map(([host, mine]) => html("div", { class: "host" },
      html("h3", {}, `node ${host} · ${ranks(mine.map((r) => r.rank))}`),
      mine.map((r) => this.rankRow(r, late)))),
    ...folded.slice(0, MAX_NODES_LISTED).map(([host, mine]) => html("div", { class: "host", "data-folded": "" },
      html("h3", {}, `node ${host} · ${mine.length} ranks`))),
    ...(folded.length > MAX_NODES_LISTED
      ? [html("p", { class: "why" }, `${folded.length - MAX_NODES_LISTED} more nodes`)] : []));
  }

  rankRow(r, late) {
    return html("div", { class: "rank-row", "data-rank": r.rank, "data-state": rankState(r),
      ...(late.includes(r.rank) && { "data-late": "" }) },
    html("span", { title: `pid ${r.pid} · ${r.launcher}` },
      html("span", { class: "dot", style: `background: ${colour(r.rank)}` }), r.rank),
    html("span", {}, `local ${r.local_rank}/${r.local_world_size}`),
    html("span", {}, rankState(r), r.where && ` · ${r.where}`),
    html("span", { class: "usage", title: `last report at ${seconds(r.seen_s)}`
      + `${r.missed || r.dropped ? ` · ${r.missed} missed, ${r.dropped} dropped` : ""}` },
    Object.entries(r.issued).map(([g, s]) => `${groupName(g, this.shown?.group_descs)
      .replace(/^\d+$/, "g$&")} #${s}`).join(" ") || "–"));
  }

  // ---- the hang

  /** The banner: a hang at once, and the words that clear it (`over`: "caught up … after 3.2 s"). */
  setHang(hang, over) {
    this.hang = hang && { hang, heard: Date.now() };
    this.over = over;
    clearInterval(this.ticking);
    if (hang) this.ticking = setInterval(() => this.tick(), 1000);
    this.sayHang();
    this.later();
  }

  /** The banner's words: the page's headline, and what the server said, in the page's language. */
  sayHang() {
    const banner = $("job-hang"), hang = this.hang?.hang;
    banner.dataset.state = hang ? "hang" : "clear";
    if (!hang && !this.over) return;
    banner.replaceChildren(...(hang ? [html("b", {}, `Hang: ${hangLine(hang, this.shown?.group_descs)}`),
      html("span", { id: "job-hang-for", "aria-hidden": "true" }),
      html("small", { "data-said": "" }, said(hang.words, hang.text))]
      : [html("span", { "data-said": "" }, said(this.over.words, this.over.text))]));
    this.tick();
  }
}
