// The poll's card, drawn: the presenter's menu of questions, and a poll as this page may see it:
// the presenter's while its run runs held (or why it was not asked), then the question, its
// choices (a button each on an audience page) and a number to type beside them, how many voted
// and, once voting has closed (on the presenter's page when W shows it), the tally.

import { html } from "rs/core/dom.js";
import { ownWords } from "rs/lecture/poll-form.js";

const ABC = "ABCDEFGH";
export const QUESTIONS = ["holds", "busiest_link", "bottleneck", "faster", "custom"];
const ASKS = [(a) => `What does rank ${a.rank} hold after step ${a.step + 1}?`,
  () => "How many bytes cross the busiest link?", () => "Which rank moves the most bytes?",
  () => "Which algorithm finishes first at this size and P?", () => "Your own question: choices or a number"];
const TYPED = { holds: (p) => `or type element ${p.element}`, busiest_link: () => "or type the bytes",
  bottleneck: () => "or type the rank", custom: () => "Type your answer" };
const language = () => (document.documentElement.lang || "en").slice(0, 2); // zh-CN: zh
/** A question's or a choice's words; a custom one's as its lecturer wrote them, in the page's language
 * ([data-said]: the page translates none of them). */
const own = (tag, words, custom) => html(tag, custom ? { "data-said": "" } : {}, ownWords(words, language()));
// what each wrong choice of a holds question got wrong, said at the reveal (server/polls/mistakes.py)
const MISTAKES = {
  early: (m) => `one step early: after step ${m.step + 1}`, late: (m) => `one step late: after step ${m.step + 1}`,
  inputs: () => "its input, before any step", final: () => "the end, after the last step",
  rank: (m) => `rank ${m.rank}'s buffer after this step`, op: (m) => `${m.op} instead of ${m.run_op}`,
  own: () => "not combined yet: only its own part", copied: () => "copied over instead of combined",
  added: () => "added instead of copied", mirrored: () => "sent the other way round",
};
/** A wrong choice's mistake, in words (null where the server named none). */
export const mistakeWords = (m) => (m && MISTAKES[m.kind] ? MISTAKES[m.kind](m) : null);
/** Whether typed number `a` is the poll's: within a custom one's tolerance, else as the server grades it. */
const same = (a, { number: b, tolerance }) => Math.abs(a - b) <= (tolerance == null
  ? 1e-6 * Math.max(1, Math.abs(b)) : tolerance * (1 + 1e-9) + 1e-9 * Math.max(1, Math.abs(b)));

/** Each choice's share of the votes, in percent (0 while none). */
export function shares(counts) {
  const all = counts.reduce((a, b) => a + b, 0);
  return counts.map((c) => (all ? (100 * c) / all : 0));
}

/** The presenter's menu: the questions it may ask of the run that is picked, before it runs. */
export function menu(ask, note) {
  const { collective, algorithm } = ask.spec;
  return [html("h2", {}, `Ask the room, then run ${collective} · ${algorithm} held`),
    html("ol", { class: "menu" }, ASKS.map((words, i) =>
      html("li", { "data-question": QUESTIONS[i] }, html("b", {}, i + 1), words(ask)))),
    html("p", { class: "settings" }, html("span", {}, ask.seconds ? `voting closes after ${ask.seconds} s`
      : "no timer"), " · ", html("span", {}, ask.numeric ? "a number may be typed" : "choices only")),
    html("p", { class: "why", role: "status" }, note),
    html("p", { class: "foot" }, "1–5 asks · ↑ ↓ rank · ← → step · T timer · N numbers · Esc cancels")];
}

/** The card of `poll`, for `polls` (the page's Polls: its state, this page's vote, its note). */
export function pollCard(poll, polls) {
  const custom = poll.question === "custom", note = html("p", { class: "why", role: "status" }, polls.note);
  const head = own("h2", poll.text, custom);
  if (poll.state === "running" || poll.state === "failed") { // the presenter's alone
    return [head, html("p", {}, poll.state === "running"
      ? "Running it held: the room sees the question when it has run" : `Not asked: ${poll.why}`),
    seenAlready(poll), note, html("p", { class: "foot" }, "Esc closes")];
  }
  const { presenter } = polls.state, mine = polls.voted?.choice ?? null;
  // the tally: the room's once voting has closed; the presenter's, on the projector when W shows it
  const tallied = poll.counts != null && (!presenter || polls.showTally || poll.state !== "open");
  if (mine != null) note.append(` · your vote: ${ABC[mine]}`);
  return [head, html("ol", { class: "choices" }, choices(poll, polls, tallied)), typing(poll, polls, tallied),
    note, seenAlready(poll), html("p", { class: "foot" }, votes(poll, polls), foot(poll, polls)),
    poll.state === "revealed" && !presenter
      ? html("button", { type: "button", class: "close", onclick: () => polls.close() }, "Close") : ""];
}

function choices(poll, polls, tallied) {
  const revealed = poll.state === "revealed", right = new Set(poll.answers), pct = tallied ? shares(poll.counts) : [];
  const mine = polls.voted?.choice, free = poll.state === "open" && polls.voted == null;
  return poll.choices.map((text, i) => {
    const why = revealed ? mistakeWords(poll.mistakes?.[i]) : null;
    const face = [html("b", {}, `${right.has(i) ? "✓ " : ""}${ABC[i]}`), own("span", text, poll.question === "custom"),
      why ? html("small", { class: "mistake" }, why) : ""];
    const cls = [right.has(i) && "right", revealed && !right.has(i) && "wrong", mine === i && "chosen"];
    return html("li", { class: cls.filter(Boolean).join(" "), "data-choice": i },
      polls.state.presenter ? html("div", { class: "choice" }, face) : html("button", { type: "button",
        class: "choice", onclick: () => polls.vote({ choice: i }), ...(!free && { disabled: "" }) }, face),
      tallied ? [html("span", { class: "count" }, poll.counts[i]),
        html("span", { class: "tally" }, html("i", { style: `width:${pct[i]}%` }))] : null);
  });
}

/** A number typed beside the choices: the field (while this page may vote), what it typed, what
 * the room typed (with the tally), and the right number once revealed. */
function typing(poll, polls, tallied) {
  if (!poll.numeric) return null;
  const typed = polls.voted?.number, out = [];
  if (!polls.state.presenter && poll.state === "open" && polls.voted == null) {
    const field = html("input", { type: "number", step: "any", inputmode: "decimal", "aria-label": "the number" });
    out.push(html("form", { class: "typed", onsubmit: (e) => {
      e.preventDefault();
      if (field.value.trim() !== "" && Number.isFinite(Number(field.value))) polls.vote({ number: Number(field.value) });
    } }, html("label", {}, html("span", {}, TYPED[poll.question](poll)), field),
    html("button", { type: "submit" }, "Send")));
  }
  if (typed != null) out.push(html("p", {}, `You typed ${typed}`));
  if (tallied && poll.typed?.length) {
    const marked = ([v, n]) => `${poll.number != null ? (same(v, poll) ? "✓ " : "✗ ") : ""}${v} ×${n}`;
    out.push(html("p", { class: "typed-tally" }, poll.typed.map(marked).join(" · ")));
    if (poll.median != null) out.push(html("p", { class: "median" }, `median ${poll.median}`));
  }
  if (poll.number != null) {
    const within = poll.tolerance ? ` ± ${poll.tolerance}` : "";
    out.push(html("p", { class: "number" }, `The number: ${poll.number}${within}`, " · ",
      html("span", {}, `${poll.typed_right} typed it`)));
  }
  return out;
}

/** The presenter's alone: runs every page has seen that answer this question already, those held from
 * the room until the reveal for it, and the seed drawn in place of the one such a run had. */
export function seenWords(poll) {
  const said = [];
  if (poll.answered_by?.length) said.push(`Every page has seen ${poll.answered_by.join(", ")}: it answers this already`);
  if (poll.rehearsals?.length) {
    said.push(`Every page has seen ${poll.rehearsals.join(", ")}, which answers this: held from the room until the reveal`);
  }
  if (poll.fresh_seed != null) {
    said.push(`Seed ${poll.fresh_seed} drawn: every page has seen a run of the seed asked, which answers this`);
  }
  return said;
}

const seenAlready = (poll) => seenWords(poll).map((words) => html("p", { class: "seen" }, words));

/** How long voting has left, in words. */
export const closesIn = (poll) => `closes in ${Math.max(0, Math.ceil(poll.closes_at - Date.now() / 1000))} s`;

function votes(poll, polls) {
  return [html("span", { class: "votes" }, `${poll.votes} vote${poll.votes === 1 ? "" : "s"}`),
    ...(polls.state.presenter && polls.pages != null ? [" · ", html("span", {}, `${polls.pages} pages connected`)] : []),
    ...(poll.state === "open" && poll.closes_at != null ? [" · ", html("span", { class: "left" }, closesIn(poll))] : [])];
}

function foot(poll, polls) {
  const { state, voted } = polls, open = poll.state === "open";
  const words = state.presenter
    ? { open: `Enter reveals · B closes voting · W ${polls.showTally ? "hides" : "shows"} the tally · Esc closes`,
      closed: "Enter reveals · Esc closes", revealed: "Esc closes" }[poll.state]
    : open ? (voted == null ? "Tap your answer: one vote a phone" : "")
    : poll.state === "closed" ? "Voting has closed"
    : voted == null ? "" : right(poll, voted) ? "You got it ✓" : "Not this time";
  return words ? [" · ", html("span", {}, words)] : null;
}

const right = (poll, voted) => (voted.number != null
  ? poll.number != null && same(voted.number, poll) : poll.answers.includes(voted.choice));
