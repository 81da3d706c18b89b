// The page's state, in one object: what this page may do (its role) and who drives its stage.
// Modules ask it rather than keep their own copies, and hear its changes as events.

const HOLDING = new Set(["running", "open", "closed"]); // a poll's states that hold its runs

export class PageState extends EventTarget {
  role = "audience"; // until the snapshot says what the token grants: "presenter" runs and leads
  live = true; // "follow live": a run that starts takes the stage
  attached = true; // an audience page follows the presenter until it moves by itself
  view = null; // the presenter's latest view, as this (audience) page heard it
  overlay = null; // what covers the stage: "compare" (C), "training" (T) or null
  submitted = null; // this page's last run: it takes the stage even when not following
  ended = new Set(); // the catalog's run_states.ended
  worldSize = -1; // the cluster's when the catalog was last asked for: a new one asks again
  maxRanks = null; // the most ranks the server may resize the world to; null: it did not start them
  opening = null; // the presenter's run being fetched
  send = () => false; // a view to the server, over the live socket once it is open
  sent = ""; // the view last sent
  // the poll on this page's card (polls.js): until its reveal, its runs show no answer
  poll = null;

  constructor(fields = {}) {
    super();
    Object.assign(this, fields);
  }

  get presenter() { return this.role === "presenter"; }

  /** Who moves the stage: "presenter" (an audience page attached to the presenter's view),
   * "live" (the runs that start, as they arrive) or "self" (this page alone). */
  get driver() {
    if (!this.presenter && this.attached && this.view) return "presenter";
    return this.live ? "live" : "self";
  }

  /** Whether this audience page shows the presenter's view. */
  get following() { return this.driver === "presenter"; }

  /** Whether `run` has ended: its state is one of the catalog's ended states. */
  over(run) { return this.ended.has(run.state); }

  /** Whether the poll on the card holds `run` (its own, or a race's other): until the reveal its
   * answer (a later step, the outputs, the bytes, the times) stays hidden, on the projector too. */
  hiding(run) {
    const poll = this.poll;
    return !!run && HOLDING.has(poll?.state) && (poll.runs?.length ? poll.runs : [poll.run_id]).includes(run.id);
  }

  /** The last step of `run` that a poll holding it lets any page show: before the step asked
   * about, or the inputs (-1); Infinity where no poll holds it. */
  askedBefore(run) {
    if (!this.hiding(run)) return Infinity;
    const { poll } = this;
    return poll.question === "holds" && poll.run_id === run.id && poll.step != null ? poll.step - 1 : -1;
  }

  /** Change some of the state: listeners hear "change", and "role" where the role changed. */
  set(fields) {
    const role = this.role;
    Object.assign(this, fields);
    if (this.role !== role) this.dispatchEvent(new Event("role"));
    this.dispatchEvent(new Event("change"));
  }
}
