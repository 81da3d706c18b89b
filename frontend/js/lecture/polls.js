// Predict, then reveal: the presenter asks the room a question before its run is shown (Q, then a
// question of the menu): the run that is picked runs held, and when it has run every page shows the
// question on a card. A page connected to the lecture votes with a tap or a typed number, with the
// ballot its socket was handed; the tally is the presenter's (W puts it on the projector) until
// voting closes (B, a timer, or the reveal); Enter (or V) reveals the answer everywhere and the run
// plays on to show why. Until then no page shows its answer (Player.limit, "?", "held"). The
// questions, choices, answers and what the room may read are the server's (server/polls/).

import { api } from "rs/core/api.js";
import { $, el, html } from "rs/core/dom.js";
import { onLanguage } from "rs/i18n/i18n.js";
import { closesIn, menu, pollCard, QUESTIONS } from "rs/lecture/poll-card.js";
import { customBody, customForm } from "rs/lecture/poll-form.js";

const ON = /^( |ArrowRight|End)$/, AGAIN = /^[rRqQ]$/; // keys that move the stage on; that run or ask again
const TIMERS = [null, 20, 30, 60]; // T in the menu: voting closes after this many seconds, or when closed
const KEPT = "ringside-ballot";
const why = (err) => err.reason ?? String(err);

/** This page's ballot, kept across reloads (and shared by a browser's tabs): one vote a page. Null
 * where none was kept, or a kept one is not what the server hands out. */
export function keptBallot(store) {
  const ballot = store.getItem(KEPT);
  return /^[\w-]{16}\.[\w-]{22}$/.test(ballot ?? "") ? ballot : null;
}

/** The "holds" question to start from for a run of `group`: step 1, the group's second rank. */
export function firstAsk(group) {
  return { group, rank: group[Math.min(1, group.length - 1)], step: 0, seconds: null, numeric: false };
}

/** ↑ ↓ another rank of the group, ← → another step (the server knows how many), T the timer, N a
 * number typed: the ask changed, or null for another key. */
export function moveAsk(ask, key) {
  const g = ask.group, n = g.length, turn = (d) => g[(g.indexOf(ask.rank) + d + n) % n];
  const moves = { ArrowUp: { rank: turn(-1) }, ArrowDown: { rank: turn(1) },
    ArrowLeft: { step: Math.max(0, ask.step - 1) }, ArrowRight: { step: ask.step + 1 },
    t: { seconds: TIMERS[(TIMERS.indexOf(ask.seconds) + 1) % TIMERS.length] }, n: { numeric: !ask.numeric } };
  const move = moves[key.length === 1 ? key.toLowerCase() : key];
  return move ? { ...ask, ...move } : null;
}

export class Polls {
  asking = null; // the presenter's menu while open: {group, rank, step, seconds, numeric}
  // the presenter's last poll, {id, rank, step}: its rank marked on stage, played on to its step
  asked = null;
  voted = null; // this page's vote in the poll on its card: {choice} or {number}
  note = ""; // a line on the card: a refusal, a vote counted
  stopAt = null; // the step the reveal plays on to
  showTally = false; // W: the presenter's tally on the projector while voting is open
  pages = null; // audience pages connected, as the presenter's last tally said
  timer = null;
  routes = {
    snapshot: (m) => { this.keep(m.ballot); this.refresh(); },
    poll: (m) => this.show(m.poll),
    tally: (m) => this.tally(m),
  };

  /** `onChange()`: a poll was asked, opened, closed or revealed: what the page hides changes. */
  constructor(state, player, controls, onChange) {
    Object.assign(this, { state, player, controls, onChange, card: $("poll"), ballot: keptBallot(localStorage) });
    player.stage.addEventListener("load", () => this.mark());
    onLanguage(() => this.render()); // a custom question's words, in the page's language
    player.addEventListener("change", () => {
      if (player.step >= (this.stopAt ?? Infinity)) { this.stopAt = null; player.pause(); }
    });
  }

  /** What the live socket carries when it (re)connects: the ballot this page holds. */
  carried = () => (this.ballot ? { ballot: this.ballot } : {});

  /** The ballot the server handed this page's socket (an audience page's), kept for a reload. */
  keep(ballot) {
    if (!ballot) return;
    this.ballot = ballot;
    localStorage.setItem(KEPT, ballot);
  }

  /** The newest poll, as a page that (re)loads finds it: one still going, or news of the one shown. */
  async refresh() {
    const mine = this.ballot ? `?ballot=${encodeURIComponent(this.ballot)}` : "";
    const { poll, voted } = await api(`/api/polls/current${mine}`).catch(() => ({}));
    if (poll && (poll.state !== "revealed" || poll.id === this.state.poll?.id)) this.show(poll, voted);
  }

  show(poll, voted = null) {
    const was = this.state.poll, fresh = poll.id !== was?.id;
    // a poll never runs again: the POST's answer may land after the socket said it opened
    if (!fresh && poll.state === "running" && was.state !== "running") return;
    if (fresh) Object.assign(this, { voted, note: "" });
    this.asking = null;
    this.state.set({ poll });
    this.render();
    if (fresh && !this.state.presenter) this.card.scrollIntoView({ block: "nearest" });
    if (fresh || poll.state !== was.state) { this.mark(); this.onChange(); }
  }

  tally({ poll_id, votes, counts, typed, median, pages }) {
    const poll = this.state.poll;
    if (poll?.id !== poll_id || votes < poll.votes) return; // another poll's, or older than the card's
    Object.assign(poll, { votes }, counts && { counts }, typed && { typed }, median != null && { median });
    if (pages != null) this.pages = pages;
    this.render();
  }

  /** Q (the presenter): the menu of questions about the run that is picked, before it runs. */
  ask() {
    if (!this.state.presenter) return;
    const spec = this.controls.spec(), all = [...Array(Math.max(this.state.worldSize, 1)).keys()];
    this.player.pause();
    this.close();
    this.asking = { ...firstAsk(spec.group ?? all), spec };
    this.render();
  }

  /** Question `i` of the menu: the server checks it against the run's plan, runs it held and opens
   * it once it has run, or says why it cannot. */
  open(i) {
    if (QUESTIONS[i] !== "custom") return this.pose({ ...this.asking, question: QUESTIONS[i] });
    const { form, focus } = customForm((fields, held) => this.pose({ ...this.asking, question: "custom",
      spec: held ? this.asking.spec : null, ...customBody(fields) }));
    this.asking.form = form;
    this.note = "";
    this.render();
    focus();
  }

  /** `question` about run `spec` (a lesson's stage asks its own): run held, opened once it has run. */
  async pose({ question, spec, rank, step, seconds, numeric, text, choices, answer, number, tolerance }) {
    const holds = question === "holds", own = question === "custom" && { text, choices, answer, number, tolerance };
    this.player.pause();
    try {
      const poll = await api("/api/polls", { method: "POST", body: { question, ...(spec && { run: spec }),
        ...(holds && { rank, step }), ...(seconds && { seconds }), ...(numeric && { numeric }), ...own } });
      this.asked = { id: poll.id, rank: holds ? rank : null, step: holds ? step : null };
      if (poll.run_id) this.state.submitted = poll.run_id; // the run asked about takes the stage when it starts
      this.show(poll);
      this.mark(); // the socket may have said it opened before this answer came, the rank not known then
    } catch (err) {
      this.note = why(err);
      this.render();
    }
  }

  /** Enter or V (the presenter): the answer, on every page; the run plays on to show why. */
  async reveal() {
    const poll = this.state.poll;
    if (!(await this.act("reveal")) || this.player.run?.id !== poll.run_id) return;
    this.stopAt = this.asked?.id === poll.id ? this.asked.step : null; // "after step s": on to step s
    this.player.play();
  }

  /** The presenter closes voting (B) or reveals: the poll as it is now, or false with a note why not. */
  async act(what) {
    this.note = "";
    try {
      this.show(await api(`/api/polls/${this.state.poll.id}/${what}`, { method: "POST" }));
      return true;
    } catch (err) {
      this.note = why(err);
      this.render();
      return false;
    }
  }

  /** A tap on a choice ({choice}) or a typed number ({number}). */
  async vote(answer) {
    const poll = this.state.poll;
    try {
      await api(`/api/polls/${poll.id}/votes`, { method: "POST", body: { ...answer, ballot: this.ballot } });
      Object.assign(this, { voted: answer, note: "Your vote counted" });
    } catch (err) {
      const again = err.status === 409 && err.field === "ballot";
      this.note = again ? "You voted already" : err.field === "ballot" ? "Not connected to the lecture: wait a moment"
        : err.field === "poll" ? "Voting has closed" : why(err);
      if (again) this.voted = (await api(`/api/polls/${poll.id}?ballot=${this.ballot}`).catch(() => ({}))).voted;
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

  /** The presenter shows another run: a revealed card closes (one still going stays). */
  moved(runId) {
    const poll = this.state.poll;
    if (poll?.state === "revealed" && poll.run_id !== runId) this.close();
  }

  /** Keys while the menu or a card is up, before the page's own: whether it took `e`. */
  key(e) {
    const k = e.key, poll = this.state.poll;
    if (this.asking) return this.menuKey(k);
    if (!poll) return false;
    if (k === "Escape") this.close();
    else if (!this.state.presenter) return false;
    else if (/^(Enter|v|V)$/.test(k)) ["open", "closed"].includes(poll.state) && this.reveal();
    else if (/^[bB]$/.test(k)) poll.state === "open" && this.act("close");
    else if (/^[wW]$/.test(k)) { this.showTally = !this.showTally; this.render(); }
    else if (this.held(k)) { this.note = "The stage holds: Enter reveals the answer"; this.render(); }
    else return false;
    return true;
  }

  /** Whether key `k` would show the answer of the run a poll holds (the stage moved past the step
   * asked about), or put another run in its place. */
  held(k) {
    const { player } = this;
    return this.state.hiding(player.run) && (AGAIN.test(k) || (ON.test(k) && player.step >= player.limit()));
  }

  /** The menu holds every key: 1–5 asks, Esc cancels, the rest move the ask; the own question's form
   * leaves Tab, Enter and Space to its fields and buttons (its text fields have every key). */
  menuKey(k) {
    if (this.asking.form) {
      if (k === "Escape") this.close();
      return !/^(Tab|Enter| )$/.test(k);
    }
    const moved = moveAsk(this.asking, k);
    if (/^[1-5]$/.test(k)) this.open(k - 1);
    else if (k === "Escape") this.close();
    else if (moved) { this.asking = moved; this.render(); }
    return true;
  }

  render() {
    const poll = this.state.poll, card = this.card;
    card.hidden = !(poll || this.asking);
    document.body.classList.toggle("poll-shown", !card.hidden);
    document.body.classList.toggle("poll-hiding", this.state.hiding(this.player.run));
    this.countDown(poll);
    const parts = this.asking?.form ? [this.asking.form, html("p", { class: "why", role: "status" }, this.note),
      html("p", { class: "foot" }, "Tab moves · Enter asks · Esc cancels")]
      : this.asking ? menu(this.asking, this.note) : poll ? pollCard(poll, this) : [];
    card.dataset.state = this.asking ? "" : poll?.state ?? "";
    // a number being typed outlives a tally heard meanwhile
    const field = card.querySelector(".typed input"), typing = field === document.activeElement;
    card.replaceChildren(...parts.flat(Infinity).filter((part) => part != null && part !== ""));
    const again = card.querySelector(".typed input");
    if (again && field) { again.value = field.value; if (typing) again.focus(); }
  }

  /** While voting is open with a time: the card says how long is left, each second. */
  countDown(poll) {
    const going = poll?.state === "open" && poll.closes_at != null;
    const tick = () => {
      const left = this.card.querySelector(".left");
      if (left) left.textContent = closesIn(this.state.poll);
    };
    if (going && !this.timer) this.timer = setInterval(tick, 1000);
    if (!going && this.timer) { clearInterval(this.timer); this.timer = null; }
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
    // on the middle of the card's top edge, between its name and its bytes (on the corner it hid the
    // bytes), kept whole where the card meets the stage's edge
    const cx = Math.min(Math.max(at.x, r + 1), stage.width - r - 1), cy = Math.max(at.y - h / 2, r + 1);
    el("circle", { cx, cy, r }, g);
    el("text", { x: cx, y: cy, "font-size": r * 1.4 }, g).textContent =
      this.state.poll.state === "revealed" ? "✓" : "?";
  }
}
