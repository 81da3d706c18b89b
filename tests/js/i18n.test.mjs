import "./rs.mjs";
import assert from "node:assert/strict";
import { test } from "node:test";

const { pickLanguage, translate } = await import("rs/i18n/i18n.js");
const { default: ko } = await import("rs/i18n/ko.js");
const { default: zh } = await import("rs/i18n/zh.js");

const store = (v) => ({ getItem: () => v });

test("a page opens in ?lang=, else this tab's pick, else the browser's last pick, else its language, else English", () => {
  assert.equal(pickLanguage({ search: "?lang=ko", session: store("zh"), languages: ["zh-CN"] }), "ko");
  assert.equal(
    pickLanguage({ search: "?lang=fr", session: store("zh"), local: store("ko") }),
    "zh",
    "an unknown ?lang= is passed over",
  );
  assert.equal(pickLanguage({ session: store(null), local: store("ko"), languages: ["zh-TW"] }), "ko");
  assert.equal(
    pickLanguage({ languages: ["de-DE", "zh-TW", "ko"] }),
    "zh",
    "the first of the browser's that the page has",
  );
  assert.equal(pickLanguage({ languages: ["KO-kr"] }), "ko");
  assert.equal(pickLanguage({ languages: ["de", "fr"] }), "en");
  assert.equal(pickLanguage(), "en");
});

test("a caption keeps its ranks and numbers, and who sends to whom, in each language", () => {
  const caption =
    "every rank at depth 1 sends its partial result to its parent, which combines it with its own (rank 1 to rank 0 and rank 3 to rank 2)";
  assert.equal(
    translate(caption, ko),
    "깊이 1의 모든 랭크가 부분 결과를 부모에게 보내고, 부모는 그것을 자기 것과 합칩니다 (랭크 1 → 랭크 0, 랭크 3 → 랭크 2)",
  );
  assert.equal(
    translate(caption, zh),
    "深度 1 的每个 rank 把部分结果发给父节点，父节点把它与自己的合并 (rank 1 → rank 0，rank 3 → rank 2)",
  );
  assert.equal(translate("rank 5 sends its buffer to rank 12", ko), "랭크 5에서 랭크 12에게 버퍼를 보냅니다");
});

test("a pipelined step's pieces and a step's sentence around its caption are translated part by part", () => {
  const piped =
    "piece 0: every rank sends its block to rank 2; piece 1: rank 2 sends every rank its own block";
  assert.equal(
    translate(piped, zh),
    "第 0 片：每个 rank 把自己的块发给 rank 2；第 1 片：rank 2 把每个 rank 各自的块发给它",
  );
  assert.equal(
    translate("Step 2 of 6 · reduce-scatter + fold: every rank keeps the block addressed to itself", ko),
    "6단계 중 2단계 · reduce-scatter + 접기: 모든 랭크가 자신에게 온 블록을 그대로 둡니다",
  );
});

test("a caption no template knows (a user's) is not translated, and the sentence around it still is", () => {
  assert.equal(translate("my own zig-zag, rank 3 first", ko), null);
  assert.equal(
    translate("piece 0: every rank keeps the block addressed to itself; piece 1: my own", ko),
    null,
    "all of it or none",
  );
  assert.equal(translate("Step 1 of 2 · zig: my own zig-zag", zh), "第 1 步（共 2 步）· zig：my own zig-zag");
});

test("the tables say the same things: every template and word has both languages, with the same placeholders", () => {
  const slots = (s) =>
    [...s.matchAll(/\{([nrstc]\d*)\}/g)]
      .map((m) => m[1])
      .sort()
      .join();
  for (const [name, table] of [
    ["ko", ko],
    ["zh", zh],
  ]) {
    const other = table === ko ? zh : ko;
    assert.deepEqual(Object.keys(table.templates).sort(), Object.keys(other.templates).sort(), name);
    assert.deepEqual(Object.keys(table.words).sort(), Object.keys(other.words).sort(), name);
    for (const [en, into] of Object.entries(table.templates))
      assert.equal(slots(into), slots(en), `${name}: ${en}`);
  }
});
