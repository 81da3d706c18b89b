import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { sha256 } from "../../frontend/js/export/sha256.js";

const node = (text) => createHash("sha256").update(text, "utf8").digest("base64");

test("sha256 is SHA-256 in base64, for any length and any script", () => {
  assert.equal(sha256("abc"), "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
  for (const text of [
    "",
    "a".repeat(55),
    "b".repeat(56),
    "c".repeat(64),
    "랭크 · 通信组 · ½",
    "x".repeat(100_000),
  ]) {
    assert.equal(sha256(text), node(text), `${text.length} characters`);
  }
});
