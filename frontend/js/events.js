// A source of events: the stage, the player and the page's state say what happened, and whoever
// cares listens (no module watches another's nodes or reads the page's globals).

export class Emitter {
  #listeners = {};

  /** Call `f` on every `name` from now on, after those listening already. */
  on(name, f) {
    (this.#listeners[name] ??= []).push(f);
    return this;
  }

  emit(name, ...args) {
    for (const f of this.#listeners[name] ?? []) f(...args);
  }
}
