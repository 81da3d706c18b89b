// What a watched job says (a hang, an event), rendered from the server's phrases (server/watched/words.py)
// by a language's table: each phrase a key of the table's `phrases` and its arguments, an argument data
// kept as it is (a rank's number, an op, #seq, file:line, seconds), a phrase in turn, or a list of phrases
// ("; " between them, or the table's comma where the template writes {name,}); one not given says nothing.

import EN from "rs/i18n/en.js";

const SLOT = /\{(\w+)(,?)\}/g;

/** Whether every phrase of `words` (and of its arguments) is one this page knows. */
export function known(words) {
  const arg = (v) => (Array.isArray(v) ? v.every(one) : typeof v !== "object" || one(v));
  const one = (p) => p && Object.hasOwn(EN.phrases, p.key) && Object.values(p.args ?? {}).every(arg);
  return Array.isArray(words) && words.length > 0 && words.every(one);
}

/** `words` in `table`'s language (English where it is null), joined as the language joins clauses. */
export function render(words, table = null) {
  const phrases = table?.phrases ?? EN.phrases;
  const semicolon = table?.semicolon ?? "; ", comma = table?.comma ?? ", ";
  const one = (p) => (phrases[p.key] ?? EN.phrases[p.key]).replace(SLOT, (_, name, commas) => {
    const v = p.args?.[name];
    if (v == null) return "";
    if (Array.isArray(v)) return v.map(one).join(commas ? comma : semicolon);
    return typeof v === "object" ? one(v) : String(v);
  });
  return words.map(one).join(semicolon);
}
