import "./rs.mjs";
import assert from "node:assert/strict";
import { test } from "node:test";

const { pickLanguage, refused, translate } = await import("rs/i18n/i18n.js");
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

test("the tables refuse alike: a sentence for every field either has", () => {
  assert.deepEqual(Object.keys(ko.refusals).sort(), Object.keys(zh.refusals).sort());
  assert.ok(Object.hasOwn(ko.refusals, "*"), "the sentence for a field no other names");
});

test("a server's refusal is said by its message where a template knows it, else by its field", () => {
  assert.equal(
    refused("op", "AVG needs a floating dtype, not int32", ko),
    "AVG에는 부동소수점 자료형이 필요합니다 (int32은(는) 안 됩니다)",
  );
  assert.equal(
    refused("op", "AVG needs a floating dtype, not int32", zh),
    "AVG 需要浮点数据类型，不能是 int32",
  );
  assert.equal(
    refused("count", "a reason no template knows, for 'x-1'", ko),
    "받아들여지지 않았습니다 ('x-1')",
    "the language's sentence and the quoted data beside it, no English prose",
  );
  assert.equal(refused("cluster", "r-000004 keeps it, in words no template has", zh), "集群正被其他任务占用");
  assert.equal(refused("", "502 Bad Gateway", ko), "요청이 실패했습니다", "a failure that names no field");
  assert.equal(
    refused("schedule", "not JSON: Unexpected token 'o'", ko),
    "JSON이 아닙니다",
    "a browser's detail left out",
  );
  assert.equal(refused("", "no answer from the server", zh), "服务器没有应答");
  assert.equal(
    translate("Could not open run r-000004:", ko),
    "실행 r-000004 열기 실패:",
    "the sentence it follows",
  );
});

test("a word or a measure in a server's sentence never swallows the page's words around it", () => {
  // {w1} needs a floating dtype: "the pick: AVG" is no one word
  assert.equal(translate("the pick: AVG needs a floating dtype, not int32", ko), null);
  assert.equal(translate("step 2: rank 1 last (+1.5 ms)", ko), "2단계: 랭크 1 가장 늦음 (+1.5 ms)");
  assert.equal(translate("step 2: rank 1 last (+1.5 ms, 3 more)", ko), null);
});

test("a list is said item by item, every item or none", () => {
  assert.equal(
    translate("· 1 waited 0.3 µs for 0, 2 waited 1.2 ms for 1", zh),
    "· rank 1 等了 rank 0 0.3 µs，rank 2 等了 rank 1 1.2 ms",
  );
  assert.equal(
    translate("send chunk 1 to rank 2 and chunk 3 to rank 0", ko),
    "보내기: 청크 1 → 랭크 2, 청크 3 → 랭크 0",
  );
  assert.equal(translate("1 waited 0.3 µs for 0, and a user's words", ko), null);
  assert.equal(
    translate("rank 0, the sender, waited: blocking 205.77 ms · isend 1.78 ms", ko),
    "보내는 쪽 랭크 0의 대기: blocking 205.77 ms · isend 1.78 ms",
    "an item no pattern knows is kept where it is a name and a measure",
  );
  assert.equal(translate("ranks pass every block they hold", ko), null, "never a sentence");
});

test("every word the stage and the charts ask for by name is in both tables", async () => {
  const { readdir, readFile } = await import("node:fs/promises");
  const root = new URL("../../frontend/js/", import.meta.url);
  const asked = [];
  for (const dir of await readdir(root)) {
    if (dir.endsWith(".js") || dir === "i18n") continue;
    for (const file of await readdir(new URL(`${dir}/`, root))) {
      const code = await readFile(new URL(`${dir}/${file}`, root), "utf8");
      for (const m of code.matchAll(/\b(fill|tr)\("((?:[^"\\]|\\.)*)"/g))
        asked.push([`${dir}/${file}`, m[1], m[2]]);
    }
  }
  assert.ok(asked.length > 15, `${asked.length} asked`); // the stage's, the marks', the charts'
  for (const [file, how, english] of asked) {
    for (const [name, table] of [
      ["ko", ko],
      ["zh", zh],
    ]) {
      const has =
        how === "fill" ? Object.hasOwn(table.templates, english) : translate(english, table) != null;
      assert.ok(has, `${name}: ${file} asks for ${how}("${english}")`);
    }
  }
});
