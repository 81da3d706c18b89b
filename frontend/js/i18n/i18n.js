// The page's words and the steps' captions in English, Korean or Chinese, chosen per page.
//
// Captions stay English in the protocol, the store and exports, and are translated here, on the page,
// by matching them against a small closed set of templates (ko.js, zh.js): every built-in
// caption comes from a few f-strings (algorithms/captions.py and each algorithm's module), so an
// English pattern per f-string, with its ranks and numbers carried over, covers them all. Why not
// template ids in the protocol: stored runs, exported pages and a user's own schedule would all need
// them, and the schedule core would carry words in two forms; matching keeps it one string, and a
// caption no template matches (a user's) simply stays English. tests/test_i18n.py checks that every
// built-in schedule's every caption is matched in each language.
//
// The page's words are translated in place: every text and title of the page's HTML, watched for what
// the modules write later, so that modules keep writing English and nothing re-renders on a switch.
// SVG is not watched (the stage changes thousands of cells a frame; plotly.js lays out its own): the
// stage and the charts ask for their few words (tr, fill, rankName) as they draw, and draw again on a
// switch (onLanguage). A server's refusal (dom.js marks it with the field it names, the server's stable
// name for what was wrong) is said by its message where a template knows it, else by that field.
// Korean and Chinese tables are loaded when a page first shows that language. A watched job's hangs and
// events come from the server as phrases, not sentences to match (phrases.js): `said` renders them in the
// page's language, into elements marked [data-said] that the watcher leaves alone.

import { known, render } from "rs/i18n/phrases.js";

export const LANGUAGES = { en: "English", ko: "한국어", zh: "中文" };
// a language's table, loaded on first use: import() as a literal, which an exported page follows too
const LOAD = { ko: () => import("rs/i18n/ko.js"), zh: () => import("rs/i18n/zh.js") };
const KEY = "ringside-lang";

/** The language a page opens in: ?lang=, this tab's last pick (sessionStorage, so that two pages
 * side by side keep their own), this browser's last pick, the browser's language; else English. */
export function pickLanguage({ search = "", session = null, local = null, languages = [] } = {}) {
  const wanted = [new URLSearchParams(search).get("lang"), session?.getItem(KEY), local?.getItem(KEY),
    ...languages.map((l) => l.slice(0, 2).toLowerCase())];
  return wanted.find((l) => l && Object.hasOwn(LANGUAGES, l)) ?? "en";
}

// --- templates ---------------------------------------------------------------------------------
// A pattern's placeholders, by their first letter: {n1} a number, {r1} a rank ("rank 3", written the
// language's way), {s1} text kept as it is (a collective's name, a size; never a "; "), {t1} text
// translated in turn (a piece's caption: the pattern fails where it cannot be), {c1} text translated
// where a pattern knows it and else kept (a step's phase and caption in the page's sentence: a user's
// caption stays English), {x1} a detail in English (a browser's message) that other languages leave out, {l1} a list
// ("a; b", "a · b", "a, b"): each item translated where a pattern knows it, else kept if it is a name
// and at most a measure ("ring 1.2 ms", never a sentence, which fails the pattern); {w1} one word
// kept as it is (a name, an id: never a space), {v1} a measure kept as it is ("0.3 µs", "48 B", "12%").
// A server's sentence starts and ends with them: {s1} there would swallow the page's words around it.
const SLOT = /\{([nrstcxlwv]\d*)\}/g;
const CATCH = { n: "(\\d+)", r: "rank (\\d+)", s: "([^;]+?)", t: "(.+?)", c: "(.+?)", x: "(.+)", l: "(.+)", w: "(\\S+)", v: "([-−]?[\\d.]+(?:e[-+]?\\d+)?(?: ?[^\\s\\d;,()]+)?)" };
const ITEMS = /(; | · |, )/;
const NAMED = /^\S+(?: [-−]?[\d.]+(?:e[-+]?\d+)?(?: ?[^\s\d;,()]+)?)?$/; // a list's item kept: "ring 1.2 ms", "2"
const PAIRS = /^(.*) \((rank \d+ to rank \d+(?:(?:, | and )rank \d+ to rank \d+)*)\)$/;
const compiled = new WeakMap(), memos = new WeakMap();
const literally = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function compile(table) {
  if (!compiled.has(table)) {
    const literal = (p) => p.replace(SLOT, "").length;
    const patterns = Object.entries(table.templates).sort((a, b) => literal(b[0]) - literal(a[0]));
    compiled.set(table, patterns.map(([english, into]) => {
      const names = [...english.matchAll(SLOT)].map((m) => m[1]);
      const source = english.split(SLOT).map((part, i) => (i % 2 ? CATCH[part[0]] : literally(part)));
      return { re: new RegExp(`^${source.join("")}$`), names, into };
    }));
  }
  return compiled.get(table);
}

const rankIn = (table, n) => table.rank.replace("{n}", n);

/** `text` in `table`'s language, or null where nothing matches it. */
export function translate(text, table) {
  if (!table || !text) return null;
  if (Object.hasOwn(table.words, text)) return table.words[text];
  // a page says the same few hundred things again and again (every chart redrawn, every step)
  let memo = memos.get(table);
  if (!memo || memo.size > 5000) memos.set(table, (memo = new Map()));
  if (!memo.has(text)) memo.set(text, matched(text, table));
  return memo.get(text);
}

function matched(text, table) {
  for (const { re, names, into } of compile(table)) {
    const m = re.exec(text);
    if (!m) continue;
    const said = Object.fromEntries(names.map((name, i) => [name, slot(name[0], m[i + 1], table)]));
    if (Object.values(said).every((v) => v != null)) return into.replace(SLOT, (_, name) => said[name]);
  }
  const pairs = PAIRS.exec(text); // "… (rank 1 to rank 0 and rank 3 to rank 2)": who sends to whom
  if (pairs) {
    const head = translate(pairs[1], table);
    const each = pairs[2].split(/, | and /).map((p) => p.split(" to ").map((r) => rankIn(table, r.slice(5))));
    return head && `${head} (${each.map(([a, b]) => `${a} → ${b}`).join(table.comma)})`;
  }
  const items = text.split(/, | and /); // a list of things each said alone ("1 waited 2 µs for 0, …")
  if (items.length > 1) {
    const done = items.map((p) => translate(p, table));
    if (done.every((p) => p != null)) return done.join(table.comma);
  }
  const parts = text.split("; "); // a pipelined step: every piece in flight, one caption each
  if (parts.length > 1) {
    const done = parts.map((p) => translate(p, table));
    return done.every((p) => p != null) ? done.join(table.semicolon) : null;
  }
  const phases = text.split(" + "); // a step of two phases, of which a collective's name stays as it is
  if (phases.length === 1) return null;
  const done = phases.map((p) => translate(p, table));
  return done.some((p) => p != null) ? done.map((p, i) => p ?? phases[i]).join(" + ") : null;
}

function slot(kind, value, table) {
  if (kind === "r") return rankIn(table, value);
  if (kind === "t") return translate(value, table);
  if (kind === "c") return translate(value, table) ?? value;
  if (kind === "x") return "";
  if (kind === "l") {
    const items = value.split(ITEMS).map((v, i) => (i % 2 ? v : translate(v, table) ?? (NAMED.test(v) ? v : null)));
    return items.includes(null) ? null : items.join("");
  }
  return value;
}

/** Why the server refused `field`, in `table`'s language: its `message` where a template knows it, else
 * the table's sentence for that field (a field the server names alike every time: its stable code; ""
 * for a failure that names none), with the message's quoted data (an id, a name) beside it; English
 * prose never is. */
export function refused(field, message, table) {
  const said = translate(message, table);
  if (said != null || !table) return said ?? message;
  const data = message.match(/'[^']*'/g) ?? [];
  const sentence = table.refusals[field] ?? table.refusals["*"];
  return data.length ? `${sentence} (${data.join(table.comma)})` : sentence;
}

// --- what the stage and the charts draw -----------------------------------------------------------
let current = { lang: "en", table: null };
const listeners = [];

/** `text` in the page's language (as it is where no template matches it). */
export const tr = (text) => translate(text, current.table) ?? text;

/** "rank 3", the language's way. */
export const rankName = (n) => (current.table ? rankIn(current.table, n) : `rank ${n}`);

/** The template `english` ("{r1} so far: sent {s1}, received {s2}") with `values` ({r1: 3, …}) put in,
 * in the page's language: a lookup, not a match, for what is written every frame (a cell's hover). */
export function fill(english, values) {
  const into = current.table?.templates[english] ?? english;
  return into.replace(SLOT, (_, name) => {
    const v = values[name];
    return name[0] === "r" ? rankName(v) : name[0] === "t" || name[0] === "c" ? tr(String(v)) : String(v);
  });
}

/** What a watched job's server said (its phrases: phrases.js) in the page's language; its English `text`
 * where it has none this page knows (a job an older server kept). */
export const said = (words, text) => (known(words) ? render(words, current.table) : text);

/** `listen(lang)` after every switch of the page's language, once its table is loaded. */
export const onLanguage = (listen) => listeners.push(listen);


// --- the page -----------------------------------------------------------------------------------
// data-head: a table cell's heading on a phone (CSS .reflow writes it before the cell)
const ATTRS = ["title", "aria-label", "placeholder", "data-head"];
/** Whether `node` is drawn by SVG (the stage, a chart), or said from a server's phrases ([data-said]):
 * its words are its drawer's, in the page's language already. An <svg> in the page's HTML is not:
 * its own name (the stage's aria-label) is the page's. */
const drawn = (node) => {
  const el = node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement;
  return !!(outerSvg(el) ? el.parentElement : el)?.closest("svg, [data-said]");
};
const outerSvg = (el) => el instanceof SVGSVGElement && !(el.parentElement instanceof SVGElement);

/** The picker in the header, the page in its language, and what the modules write later too. */
export class Languages {
  lang = "en";
  shown = new WeakMap(); // text node or element -> {en, now}: its English and what it shows

  constructor() {
    const picker = document.createElement("select");
    Object.assign(picker, { id: "lang", title: "language" });
    picker.setAttribute("aria-label", "language");
    picker.append(...Object.entries(LANGUAGES).map(([code, name]) => new Option(name, code)));
    // blurred: the page's keys work again at once
    picker.addEventListener("change", () => { this.set(picker.value); picker.blur(); });
    document.querySelector("header").append(picker);
    this.title = document.title;
    // the whole page, dialogs and overlays made later included; an English page does nothing
    new MutationObserver((records) => {
      if (!current.table) return;
      for (const r of records) {
        if (r.type === "attributes") { if (!drawn(r.target)) this.localizeAttrs(r.target); }
        else r.addedNodes.forEach((n) => this.localize(n));
      }
    }).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ATTRS });
    const asked = Object.hasOwn(LANGUAGES, new URLSearchParams(location.search).get("lang") ?? ""); // a pick
    /** Settled once the page is in its first language. */
    this.ready = this.set(pickLanguage({ search: location.search, session: sessionStorage, local: localStorage,
      languages: navigator.languages ?? [navigator.language] }), asked);
  }

  /** What a text node or attribute shows for English `en`: its English, or the page's words for it. A
   * refusal written beside its field (dom.js's refused: a [data-refused] element) says why by field. */
  say(en, node) {
    const bare = en.trim();
    if (!current.table || !bare || !/[A-Za-z]/.test(bare)) return en;
    const text = bare.replace(/\s+/g, " "), field = node?.parentElement?.dataset.refused;
    const said = field != null ? refused(field, text, current.table) : translate(text, current.table);
    return said == null ? en : en.replace(bare, said);
  }

  localizeText(node) {
    if (drawn(node)) return;
    const memo = this.shown.get(node), value = node.nodeValue;
    const en = memo && memo.now === value ? memo.en : value; // written since: the new text is English
    const now = this.say(en, node);
    this.shown.set(node, { en, now });
    if (now !== value) node.nodeValue = now;
  }

  localizeAttrs(el) {
    const memo = this.shown.get(el) ?? {};
    for (const a of ATTRS) {
      const value = el.getAttribute(a);
      if (value == null) continue;
      const en = memo[a] && memo[a].now === value ? memo[a].en : value;
      const now = this.say(en);
      memo[a] = { en, now };
      if (now !== value) el.setAttribute(a, now);
    }
    this.shown.set(el, memo);
  }

  /** Every text and title under `root` in the page's language. */
  localize(root) {
    if (root.nodeType === Node.TEXT_NODE) return this.localizeText(root);
    if (root.nodeType !== Node.ELEMENT_NODE || drawn(root)) return;
    this.localizeAttrs(root);
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT, {
      acceptNode: (n) => (n instanceof SVGElement ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT) });
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      if (n.nodeType === Node.TEXT_NODE) this.localizeText(n);
      else this.localizeAttrs(n);
    }
    for (const svg of root.querySelectorAll("svg")) if (!drawn(svg)) this.localizeAttrs(svg);
  }

  /** Switch the page to `next` (its table loaded first); picked, it is remembered for this tab and as
   * this browser's last pick. */
  async set(next, picked = true) {
    if (!Object.hasOwn(LANGUAGES, next)) throw new Error(`no language ${next}: en, ko or zh`);
    this.lang = next;
    if (picked) for (const store of [sessionStorage, localStorage]) store.setItem(KEY, next);
    document.getElementById("lang").value = next;
    const table = next === "en" ? null : (await LOAD[next]()).default;
    if (this.lang !== next) return; // picked again meanwhile: the later pick's
    current = { lang: next, table };
    document.documentElement.lang = next === "zh" ? "zh-CN" : next; // the fonts' CJK glyphs follow it
    document.title = this.say(this.title);
    this.localize(document.body);
    for (const listen of listeners) listen(next);
  }
}
