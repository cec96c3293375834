// A report's idempotency nonce (static/js/memo.mjs reportNonce): 128 bits of crypto.getRandomValues as unpadded
// base64url, the form the report API takes (survey_app.models.NONCE_PATTERN); kept with the memo so a resend sends it.
import assert from "node:assert/strict";
import { test } from "node:test";

import * as memos from "../../static/js/memo.mjs";

const NONCE = /^[A-Za-z0-9_-]{21}[AQgw]$/;

test("a nonce is 16 bytes of the given source in unpadded base64url", () => {
  const bytes = Uint8Array.from({ length: 16 }, (_, i) => i * 17);
  const nonce = memos.reportNonce((buffer) => buffer.set(bytes));
  assert.equal(nonce, Buffer.from(bytes).toString("base64url"));
  assert.match(nonce, NONCE);
  assert.equal(memos.reportNonce((buffer) => buffer.fill(0xff)), "_____________________w");
});

test("the default source is crypto.getRandomValues: fresh nonces of the API's form", () => {
  const drawn = new Set(Array.from({ length: 200 }, () => memos.reportNonce()));
  assert.equal(drawn.size, 200);
  for (const nonce of drawn) assert.match(nonce, NONCE);
});

function memoryStorage() {
  const items = new Map();
  return { getItem: (k) => (items.has(k) ? items.get(k) : null), setItem: (k, v) => items.set(k, String(v)),
           removeItem: (k) => items.delete(k), items };
}

test("the memo keeps the nonce with its report, and a malformed one makes the memo unreadable", () => {
  const storage = memoryStorage();
  const bind = { key: memos.memoKey("s"), version: "v1" };
  const nonce = memos.reportNonce();
  assert.ok(memos.write(storage, bind, { input: 0, report: "AA==" }, Date.now(), { nonce }));
  assert.equal(memos.read(storage, bind).memo.nonce, nonce);
  const kept = JSON.parse(storage.getItem(bind.key));
  storage.setItem(bind.key, JSON.stringify({ ...kept, nonce: "not a nonce" }));
  assert.deepEqual(memos.read(storage, bind), { memo: null, discarded: "unreadable" });
});
