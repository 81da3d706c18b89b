// A lesson the lecturer prepared (server/lessons/: the seed lecture's, or `up --lesson FILE`): U runs
// its next stage: the stage's run with the inputs typed in, or its question first (the run held until
// the reveal, polls.js). Beside the stage, its caption in the page's language, its code and what each
// rank prints. The stage shown is part of the presenter's view, so the phones show it too; what a
// stage with a question prints is its answer, which a phone reads once the question is revealed, and
// the projector, which the room reads too, shows only then.
// A stage on another number of ranks resizes the world first where the server started its ranks
// (the catalog's max_ranks says how far: POST /api/cluster/size); elsewhere it runs on the first
// ranks of a larger world, and a larger stage says how to start one.

import { api } from "rs/core/api.js";
import { $, reason, say } from "rs/core/dom.js";
import { onLanguage } from "rs/i18n/i18n.js";

const HOLDING = ["running", "open", "closed"]; // a poll's states before its reveal
const language = () => (document.documentElement.lang || "en").slice(0, 2); // zh-CN: zh

export class Lesson {
  lesson = null;
  at = null; // the stage shown (0-based), or none
  asked = new Set(); // stages whose printed output was asked for
  revealed = new Set(); // question stages whose question was revealed since they came on: what they print shows
  routes = { poll: (m) => m.poll.state === "revealed" && this.answered() };

  /** `onSubmitted(id)`: a stage's run was made (it takes the stage); `onMoved()`: the stage changed. */
  constructor({ state, polls, onSubmitted, onMoved }) {
    Object.assign(this, { state, polls, onSubmitted, onMoved });
    this.keys = { u: () => this.next() };
    onLanguage(() => this.show());
  }

  async load() {
    this.lesson = await api("/api/lesson").catch(() => null);
    this.show();
  }

  /** U (the presenter): the next stage, after the last the first again. */
  async next() {
    const stages = this.lesson?.stages;
    if (!this.state.presenter || !stages?.length) return;
    // a question still open holds the stage: U would show what answers it
    if (HOLDING.includes(this.state.poll?.state)) return say("caption", "The stage holds: Enter reveals the answer");
    this.at = this.at == null ? 0 : (this.at + 1) % stages.length;
    this.revealed.delete(this.at); // asked again
    if (this.state.poll?.state === "revealed") this.polls.close(); // the last stage's question, answered
    this.show();
    const stage = stages[this.at], q = stage.question, world = await this.fit(stage);
    if (!q || !world) this.onMoved(); // a question's stage once its run is held
    if (!world) return; // the stage says why it does not run
    const spec = { ...stage.run, ...(stage.ranks < world && { group: [...Array(stage.ranks).keys()] }) };
    if (q) return this.polls.pose({ ...q, question: q.ask, spec }).then(this.onMoved);
    try {
      this.onSubmitted((await api("/api/runs", { method: "POST", body: spec })).id);
    } catch (err) {
      $("caption").replaceChildren("Not run: ", reason(err));
    }
  }

  /** The world size the stage runs on: its own, the world resized to it where the server can; else
   * the cluster's, where that has enough ranks; 0 where none fits (the stage says why). */
  async fit(stage) {
    const n = stage.ranks, world = this.state.worldSize;
    if (n === world || !this.resizes(n)) return n <= world ? world : 0;
    say("lesson-ranks", `Resizing the world to ${n} ranks…`);
    try {
      await api("/api/cluster/size", { method: "POST", body: { ranks: n } });
      say("lesson-ranks", "");
      return n;
    } catch (err) {
      $("lesson-ranks").replaceChildren("Not resized: ", reason(err));
      return 0;
    }
  }

  /** Whether the server resizes the world to n ranks: it started them, and n is within its bound. */
  resizes(n) { return this.state.maxRanks != null && n <= this.state.maxRanks; }

  /** An audience page: the presenter's stage. */
  follow(at) {
    if (at === this.at) return;
    this.at = at ?? null;
    this.revealed.delete(this.at); // come on again: its question asked again
    this.show();
    this.prints();
  }

  /** A question revealed: the stage on shows what it prints. */
  answered() {
    if (this.at == null) return;
    this.revealed.add(this.at);
    this.show();
    this.prints();
  }

  /** A stage's printed output, left out for the room where it answers the stage's question. */
  async prints() {
    const at = this.at, stage = this.lesson?.stages[at];
    if (!stage?.question || stage.prints != null || this.asked.has(at)) return;
    this.asked.add(at);
    const got = await api(`/api/lesson/stages/${at}/prints`).catch(() => null);
    if (got) {
      stage.prints = got.prints;
      this.revealed.add(at); // the server gives it once a question was revealed on that stage
    } else this.asked.delete(at); // not yet: asked again at the reveal
    if (this.at === at) this.show();
  }

  show() {
    const stage = this.lesson?.stages[this.at], lang = language();
    $("lesson").hidden = !stage;
    if (!stage) return;
    const { title, stages } = this.lesson;
    say("lesson-title", `${title[lang] ?? title.en} · ${this.at + 1}/${stages.length}`);
    say("lesson-caption", stage.caption[lang] ?? stage.caption.en);
    $("lesson-snippet").textContent = (stage.code ?? "").trim();
    const answer = stage.question && !this.revealed.has(this.at); // the presenter has it: the room does not yet
    $("lesson-prints").textContent = answer ? "" : (stage.prints ?? "").trim();
    $("lesson-code").hidden = !stage.code && !stage.prints;
    const world = this.state.worldSize, n = stage.ranks, most = this.state.maxRanks;
    say("lesson-ranks", n === world || this.resizes(n) ? ""
      : most != null && n > world ? `This stage asks for ${n} ranks, over the ${most} the world may grow to: `
        + `start it with ringside up --max-ranks ${n}`
      : n > world ? `This stage asks for ${n} ranks and the cluster has ${world}: start it with ringside up -n ${n}`
      : `On ranks 0 to ${n - 1} of the cluster's ${world}`);
  }
}
