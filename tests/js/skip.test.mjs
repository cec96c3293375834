// Skip logic in the browser agrees with aggregator/privacy/skip.py: from the answers the page's fields hold (hidden
// questions too), the same record is sent and the same random bytes randomize it into the same report; the rules come
// from the display questions' "show_if" (tests/js/skip_vectors.json, made by tests/js/make_vectors.py).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { randomize } from "../../static/js/protocol.mjs";
import { ByteSource } from "../../static/js/random.mjs";
import { applySkips, isHidden, rulesOf } from "../../static/js/skip.mjs";

const vectors = JSON.parse(readFileSync(new URL("./skip_vectors.json", import.meta.url), "utf8"));

function displayQuestions(protocol) {
  return protocol.questions.map((f) => ({ name: f.name, show_if: vectors.show_if[f.name] || null }));
}

for (const [name, { protocol, cases }] of Object.entries(vectors.files)) {
  test(`skip vectors ${name}: the record sent and its report`, () => {
    const questions = displayQuestions(protocol);
    assert.deepStrictEqual(rulesOf(protocol, questions), vectors.rules);
    assert.ok(cases.some((c) => c.sent.includes(4)) && cases.some((c) => c.sent[1] !== 4), "both branches");
    cases.forEach((c, i) => {
      const sent = applySkips(c.answers, rulesOf(protocol, questions));
      assert.deepStrictEqual(sent, c.sent, `${name} case ${i}: record differs`);
      // The page's own reading: a question is hidden exactly when the record sends its "Not asked".
      const codeOf = (q) => sent[questions.indexOf(q)];
      questions.forEach((q, k) => {
        assert.equal(isHidden(q, questions, codeOf), Boolean(q.show_if) && sent[k] === q.show_if.not_asked);
      });
      const rng = ByteSource.fromBytes(Uint8Array.from(Buffer.from(c.bytes, "hex")));
      const report = randomize(protocol, sent, c.class, rng);
      assert.deepStrictEqual(JSON.parse(JSON.stringify(report)), c.report, `${name} case ${i}: report differs`);
      assert.equal(rng.consumed, c.consumed, `${name} case ${i}: bytes consumed`);
    });
  });
}
