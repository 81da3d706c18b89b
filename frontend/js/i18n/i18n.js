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
// The page's words are translated in place: the text and titles under a few containers, watched for
// what the modules write later, so that modules keep writing English and nothing re-renders on a
// switch. The stage's SVG is not watched (thousands of cells change per frame): its ranks and values
// stay as they are, and so do its few words (a card's "root" or "server", a cell's "not output").

import ko from "rs/i18n/ko.js";
import zh from "rs/i18n/zh.js";

const TABLES = { ko, zh };
export const LANGUAGES = { en: "English", ko: "한국어", zh: "中文" };
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
// caption stays English).
const SLOT = /\{([nrstc]\d*)\}/g;
const CATCH = { n: "(\\d+)", r: "rank (\\d+)", s: "([^;]+?)", t: "(.+?)", c: "(.+?)" };
const PAIRS = /^(.*) \((rank \d+ to rank \d+(?:(?:, | and )rank \d+ to rank \d+)*)\)$/;
const compiled = new WeakMap();
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
  return value;
}

// --- the page -----------------------------------------------------------------------------------
const ATTRS = ["title", "aria-label", "placeholder"];
const WATCHED = ["header", "#left", "#right", "#title", "#pick", "#caption", "#player", "#phases", "#poll",
  "#bottom", "#keys", "#hall", "#formula"];
const roots = () => WATCHED.map((s) => document.querySelector(s)).filter(Boolean);

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
    const watch = new MutationObserver((records) => {
      if (this.lang === "en") return;
      for (const r of records) r.addedNodes.forEach((n) => this.localize(n));
    });
    const observe = (root) => watch.observe(root, { childList: true, subtree: true });
    roots().forEach(observe);
    // #formula is made on first use, beside the stage: watched from then on (the stage's own nodes are not)
    new MutationObserver((records) => records.forEach((r) => r.addedNodes.forEach((n) => {
      if (n.matches?.(WATCHED.join())) { this.localize(n); observe(n); }
    }))).observe(document.getElementById("center"), { childList: true });
    const asked = Object.hasOwn(LANGUAGES, new URLSearchParams(location.search).get("lang") ?? ""); // a pick
    this.set(pickLanguage({ search: location.search, session: sessionStorage, local: localStorage,
      languages: navigator.languages ?? [navigator.language] }), asked);
  }

  /** `text` in the page's language (English where no template matches it). */
  tr(text) { return translate(text, TABLES[this.lang]) ?? text; }

  localizeText(node) {
    const memo = this.shown.get(node), value = node.nodeValue;
    const en = memo && memo.now === value ? memo.en : value; // written since: the new text is English
    const bare = en.trim();
    if (!bare || !/[A-Za-z]/.test(bare)) return;
    const now = this.lang === "en" ? en : en.replace(bare, this.tr(bare.replace(/\s+/g, " ")));
    this.shown.set(node, { en, now });
    if (now !== value) node.nodeValue = now;
  }

  localizeAttrs(el) {
    const memo = this.shown.get(el) ?? {};
    for (const a of ATTRS) {
      const value = el.getAttribute(a);
      if (value == null) continue;
      const en = memo[a] && memo[a].now === value ? memo[a].en : value;
      const now = this.lang === "en" ? en : this.tr(en);
      memo[a] = { en, now };
      if (now !== value) el.setAttribute(a, now);
    }
    this.shown.set(el, memo);
  }

  /** Every text and title under `root` in the page's language. */
  localize(root) {
    if (root.nodeType === Node.TEXT_NODE) return this.localizeText(root);
    if (root.nodeType !== Node.ELEMENT_NODE || root instanceof SVGElement) return;
    this.localizeAttrs(root);
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT, {
      acceptNode: (n) => (n instanceof SVGElement ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT) });
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      if (n.nodeType === Node.TEXT_NODE) this.localizeText(n);
      else this.localizeAttrs(n);
    }
  }

  /** Switch the page to `next`; picked, it is remembered for this tab and as this browser's last pick. */
  set(next, picked = true) {
    if (!Object.hasOwn(LANGUAGES, next)) throw new Error(`no language ${next}: en, ko or zh`);
    this.lang = next;
    if (picked) for (const store of [sessionStorage, localStorage]) store.setItem(KEY, next);
    document.documentElement.lang = next === "zh" ? "zh-CN" : next; // the fonts' CJK glyphs follow it
    document.getElementById("lang").value = next;
    roots().forEach((root) => this.localize(root));
  }
}
