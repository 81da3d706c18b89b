// For tests/test_i18n.py: reads {"captions": [[phase, caption], ...], "texts": [...], "predictions":
// [answer, ...], "mistakes": [a poll's Mistake, ...]} on stdin (an answer: GET /api/model/predict's, whose sentences predict.js writes) and
// writes, per language, every step or text that the page would not show wholly in that language (a
// template missing, or English left).
import "./rs.mjs";

const { translate } = await import("rs/i18n/i18n.js");
const { describe } = await import("rs/panels/predict.js");
const { mistakeWords } = await import("rs/lecture/poll-card.js");
const tables = { ko: (await import("rs/i18n/ko.js")).default, zh: (await import("rs/i18n/zh.js")).default };
// What stays as it is in every language: op (SUM, XOR) and phase names, files, symbols; and "rank" as zh writes it
// (the seed's word), which ko writes 랭크.
const KEPT =
  "reduce-scatter|all-gather|broadcast|reduce|scatter|gather|SUM|XOR|PRODUCT|MAX|MIN|AVG|BAND|BOR|fan-out|fan-in|pull|push|" +
  "KiB|MiB|log2|\\S+\\.py";
const kept = { ko: new RegExp(KEPT, "g"), zh: new RegExp(`rank|${KEPT}`, "g") };
// and in a prediction's sentences the names of hardware, protocols, NCCL's sources, algorithms and presets
const NAMES =
  "NCCL|NVLink|InfiniBand|HDR|EDR|NIC|GPU|HBM2|DGX|PCIe|PCI|IEEE|802\\.3ba|GB/s|Gb/s|LL128|LL|Simple|baseLat|hwLat|" +
  "ring|tree|native|chunks: auto|ns|µs|ms|x16|\\S+\\.cc|[a-z0-9]+(?:-[a-z0-9]+)+";
const named = Object.fromEntries(
  Object.entries(kept).map(([lang, re]) => [lang, new RegExp(`${NAMES}|${re.source}`, "g")]),
);

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { captions = [], texts: said = [], predictions = [], mistakes = [] } = JSON.parse(input);
// a poll's wrong choices' mistakes as the card says them (none unsaid: null fails below)
const texts = [...said, ...mistakes.map((m) => mistakeWords(m) ?? `no words for ${m.kind}`)];
const missed = {};
for (const [lang, table] of Object.entries(tables)) {
  missed[lang] = [];
  const english = (s) => /[A-Za-z]{2,}/.test(s.replace(kept[lang], ""));
  for (const [phase, caption] of captions) {
    const shown = `Step 1 of 4 · ${phase}: ${caption}`,
      done = translate(shown, table) ?? shown;
    const phaseDone = translate(phase, table) ?? phase,
      captionDone = translate(caption, table);
    if (captionDone == null || english(done) || english(phaseDone)) {
      missed[lang].push(`${phase}: ${caption} -> ${done}`);
    }
  }
  for (const text of texts) {
    // the page's own sentences, as they are shown
    const done = translate(text, table);
    if (done == null || english(done)) missed[lang].push(`${text} -> ${done}`);
  }
  for (const text of predictions.flatMap(describe)) {
    const done = translate(text, table);
    if (done == null || /[A-Za-z]{2,}/.test(done.replace(named[lang], "")))
      missed[lang].push(`${text} -> ${done}`);
  }
}
process.stdout.write(JSON.stringify(missed));
