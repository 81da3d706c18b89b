// For tests/unit/test_watch_words.py: reads {"words": [[phrase, ...], ...]} on stdin (what a watched job's
// server said) and writes each language's phrase table and every one of them rendered in each language.
import "./rs.mjs";

const { render } = await import("rs/i18n/phrases.js");
const tables = {
  en: null,
  ko: (await import("rs/i18n/ko.js")).default,
  zh: (await import("rs/i18n/zh.js")).default,
};
const en = (await import("rs/i18n/en.js")).default;

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { words } = JSON.parse(input);
const out = { tables: {}, rendered: {} };
for (const [lang, table] of Object.entries(tables)) {
  out.tables[lang] = (table ?? en).phrases;
  out.rendered[lang] = words.map((w) => render(w, table));
}
process.stdout.write(JSON.stringify(out));
