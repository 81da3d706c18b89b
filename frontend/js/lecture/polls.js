// Predict, then reveal: the presenter asks the room about the run on stage (Q, then a
// question of the menu), every page shows it on a card, a phone votes with a tap and then sees the
// tally, Enter (or V) reveals the answer everywhere and the run plays on to show why. While it is
// open no page shows a step past the presenter's (Player.limit) nor the outputs and bytes ("?").
// The questions, choices and answers are the server's (polls.py).

import { api } from "rs/core/api.js";
import { $, el, html } from "rs/core/dom.js";

const ABC = "ABCDEF";
const HELD = /^( |r|R|Arrow(Left|Right)|Home|End|q|Q)$/; // keys that would move the stage on, or ask again
const ASKS = [["holds", (a) => `What does rank ${a.rank} hold after step ${a.step + 1}?`],
  ["busiest_link", () => "How many bytes cross the busiest link?"],
  ["bottleneck", () => "Which rank moves the most bytes?"],
  ["faster", () => "Which algorithm finishes first at this size and P?"]];
const why = (err) => err.reason ?? String(err);

/** This page's voter id: random, kept across reloads, so that the server counts one vote a page. */
export function voterId(store) {
  let id = store.getItem("ringside-voter");
  if (!/^[\w-]{8,64}$/.test(id ?? "")) {
    id = [...crypto.getRandomValues(new Uint8Array(12))].map((b) => b.toString(16).padStart(2, "0")).join("");
    store.setItem("ringside-voter", id);
  }
  return id;
}

/** The "holds" question to start from, at step `shown`: the next step, and a rank it writes to. */
export function firstAsk(run, shown) {
  const step = Math.max(0, Math.min(shown + 1, run.steps.length - 1));
  return { rank: run.steps[step]?.transfers[0]?.[1] ?? run.group[0], step, from: step };
}

/** ↑ ↓ another rank of the group, ← → another step (none shown yet): the ask moved, or null
 * for another key. */
export function moveAsk(ask, key, run) {
  const [dr, ds] = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[key] ?? [];
  if (dr == null) return null;
  const g = run.group, n = g.length;
  return { ...ask, rank: g[(g.indexOf(ask.rank) + dr + n) % n],
    step: Math.max(ask.from, Math.min(run.steps.length - 1, ask.step + ds)) };
}

/** Each choice's share of the votes, in percent (0 while none). */
export function shares(counts) {
  const all = counts.reduce((a, b) => a + b, 0);
  return counts.map((c) => (all ? (100 * c) / all : 0));
}

export class Polls {
  asking = null; // the presenter's menu while open: the holds question's {rank, step, from}
  // the presenter's last poll, {id, rank, step}: its rank marked on stage, played on to its step
  asked = null;
  voted = null; // this page's choice in the poll on its card
  note = ""; // a line on the card: a refusal, a vote counted
  stopAt = null; // the step the reveal plays on to
  routes = { snapshot: () => this.refresh(), poll: (m) => this.show(m.poll), tally: (m) => this.tally(m) };

  /** `onChange()`: a poll opened, was revealed or closed: what the page hides changes. */
  constructor(state, player, onChange) {
    Object.assign(this, { state, player, onChange, card: $("poll"), voter: voterId(localStorage) });
    player.stage.addEventListener("load", () => this.mark());
    player.addEventListener("change", () => {
      if (player.step >= (this.stopAt ?? Infinity)) { this.stopAt = null; player.pause(); }
    });
  }

  /** The newest poll, as a page that (re)loads finds it: an open one, or news of the one shown. */
  async refresh() {
    const { poll, voted } = await api(`/api/polls/current?voter=${this.voter}`).catch(() => ({}));
    if (poll && (poll.state === "open" || poll.id === this.state.poll?.id)) this.show(poll, voted);
  }

  show(poll, voted = null) {
    const was = this.state.poll, fresh = poll.id !== was?.id;
    if (fresh) Object.assign(this, { voted, note: "" });
    this.asking = null;
    this.state.set({ poll });
    this.render();
    if (fresh && !this.state.presenter) this.card.scrollIntoView({ block: "nearest" });
    if (fresh || poll.state !== was.state) { this.mark(); this.onChange(); }
  }

  tally({ poll_id, counts, votes }) {
    const poll = this.state.poll;
    if (poll?.id !== poll_id || votes < poll.votes) return; // another poll's, or older than the card's
    Object.assign(poll, { counts, votes });
    this.render();
  }

  /** Q (the presenter): the menu of questions about the run on stage, which holds still meanwhile. */
  ask() {
    const run = this.player.run;
    if (!this.state.presenter || !run) return;
    this.player.pause();
    this.close();
    // At the result every answer is on show: the room predicts from the inputs, step 1 first.
    if (this.player.step >= run.steps.length - 1) this.player.go(-1);
    this.asking = firstAsk(run, this.player.step);
    this.render();
  }

  /** Question `i` of the menu: the server builds it from the run, or says why it cannot. */
  async open(i) {
    const { rank, step } = this.asking, holds = !i;
    try {
      const poll = await api("/api/polls", { method: "POST",
        body: { run_id: this.player.run.id, question: ASKS[i][0], ...(holds && { rank, step }) } });
      this.asked = { id: poll.id, rank: holds ? rank : null, step: holds ? step : null };
      if (!holds) this.player.go(-1); // bytes and speed: held at the inputs, no bar filled yet
      this.show(poll);
      this.mark(); // its poll may have come over /ws first
    } catch (err) {
      this.note = why(err);
      this.render();
    }
  }

  /** Enter or V (the presenter): the answer, on every page; the run plays on to show why. */
  async reveal() {
    const poll = this.state.poll;
    this.note = "";
    try {
      this.show(await api(`/api/polls/${poll.id}/reveal`, { method: "POST" }));
    } catch (err) {
      this.note = why(err);
      return this.render();
    }
    if (this.player.run?.id !== poll.run_id) return;
    this.stopAt = this.asked?.id === poll.id ? this.asked.step : null; // "after step s": on to step s
    this.player.play();
  }

  async vote(choice) {
    const poll = this.state.poll;
    try {
      await api(`/api/polls/${poll.id}/votes`, { method: "POST", body: { choice, voter: this.voter } });
      Object.assign(this, { voted: choice, note: "Your vote counted" });
    } catch (err) {
      this.note = { voter: "You voted already", poll: "Voting has closed" }[err.field] ?? why(err);
      if (err.field === "voter") this.voted = (await api(`/api/polls/${poll.id}?voter=${this.voter}`)
        .catch(() => ({}))).voted ?? null;
    }
    this.render();
  }

  /** Esc: the card closes (an open poll still takes votes; this page shows its run again). */
  close() {
    this.asking = null;
    this.state.set({ poll: null });
    this.render();
    this.mark();
    this.onChange();
  }

  /** The presenter shows another run: a revealed card closes (an open one stays: it takes votes). */
  moved(runId) {
    const poll = this.state.poll;
    if (poll?.state === "revealed" && poll.run_id !== runId) this.close();
  }

  /** Keys while the menu or a card is up, before the page's own: whether it took `e`. */
  key(e) {
    const k = e.key, poll = this.state.poll, moved = this.asking && moveAsk(this.asking, k, this.player.run);
    if (this.asking) { // the menu holds every key
      if (/^[1-4]$/.test(k)) this.open(k - 1);
      else if (k === "Escape") this.close();
      else if (moved) { this.asking = moved; this.render(); }
    } else if (!poll) return false;
    else if (k === "Escape") this.close();
    else if (!this.state.presenter) return false;
    else if (/^(Enter|v|V)$/.test(k)) poll.state === "open" && this.reveal();
    else if (poll.state === "open" && HELD.test(k)) {
      this.note = "The stage holds: Enter reveals the answer"; this.render();
    }
    else return false;
    return true;
  }

  /** The card: the menu, or the question, its choices (a button each on a voter's page) and their tally. */
  render() {
    const poll = this.state.poll, card = this.card, { presenter } = this.state,
      note = html("p", { class: "why", role: "status" }, this.note);
    card.hidden = !(poll || this.asking);
    document.body.classList.toggle("poll-shown", !card.hidden);
    document.body.classList.toggle("poll-hiding", this.state.hiding(this.player.run));
    if (this.asking) {
      return card.replaceChildren(html("h2", {}, "Ask the room about this run"), html("ol", { class: "menu" },
        ASKS.map(([q, words], i) => html("li", { "data-question": q }, html("b", {}, i + 1),
          words(this.asking)))),
      note, html("p", { class: "foot" }, "1–4 asks · ↑ ↓ rank · ← → step · Esc cancels"));
    }
    if (!poll) return card.replaceChildren();
    const revealed = poll.state === "revealed", right = new Set(poll.answers), pct = shares(poll.counts),
      mine = this.voted;
    const choices = poll.choices.map((text, i) => {
      const face = [html("b", {}, `${right.has(i) ? "✓ " : ""}${ABC[i]}`), html("span", {}, text)];
      const cls = [right.has(i) && "right", revealed && !right.has(i) && "wrong", mine === i && "chosen"];
      return html("li", { class: cls.filter(Boolean).join(" "), "data-choice": i },
        presenter ? html("div", { class: "choice" }, face) : html("button", { type: "button", class: "choice",
          onclick: () => this.vote(i), ...((revealed || mine != null) && { disabled: "" }) }, face),
        // a voter sees the room's tally once it has voted
        presenter || revealed || mine != null ? [html("span", { class: "count" }, poll.counts[i]),
          html("span", { class: "tally" }, html("i", { style: `width:${pct[i]}%` }))] : null);
    });
    if (mine != null) note.append(` · your vote: ${ABC[mine]}`);
    const foot = presenter ? `${revealed ? "" : "Enter reveals · "}Esc closes`
      : !revealed ? (mine == null ? "Tap your answer: one vote a phone" : "")
      : mine == null ? "" : right.has(mine) ? "You got it ✓" : "Not this time";
    card.dataset.state = poll.state;
    card.replaceChildren(html("h2", {}, poll.text), html("ol", { class: "choices" }, choices), note,
      html("p", { class: "foot" }, html("span", { class: "votes" },
        `${poll.votes} vote${poll.votes === 1 ? "" : "s"}`), foot && ` · ${foot}`),
      revealed && !presenter
        ? html("button", { type: "button", class: "close", onclick: () => this.close() }, "Close") : "");
  }

  /** On the presenter's stage, the rank asked about: outlined, with a "?" (its answer's
   * place), ✓ once revealed. */
  mark() {
    const stage = this.player.stage, a = this.asked;
    stage.svg.querySelector(".asked")?.remove();
    const at = a?.rank != null && this.state.poll?.id === a.id && stage.positions?.[a.rank];
    if (!at) return;
    const { w, h } = stage.card, r = Math.max(16, stage.head * 0.7),
      g = el("g", { class: "asked" }, stage.names);
    el("rect", { x: at.x - w / 2 - 5, y: at.y - h / 2 - 5, width: w + 10, height: h + 10, rx: 10 }, g);
    // on the card's corner, kept whole where the card meets the stage's edge
    const cx = Math.min(at.x + w / 2, stage.width - r - 1), cy = Math.max(at.y - h / 2, r + 1);
    el("circle", { cx, cy, r }, g);
    el("text", { x: cx, y: cy, "font-size": r * 1.4 }, g).textContent =
      this.state.poll.state === "open" ? "?" : "✓";
  }
}
