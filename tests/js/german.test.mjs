// The respondent-facing texts in German (issue 12 item 3): static/js/i18n.mjs with static/js/locale/de.mjs. Every
// text of every mechanism (describe() and summarize(), reached through explain.mjs) and of the memo, for every
// committed vector, is German — no English sentence left, no placeholder unfilled — and states the same figures as
// the English: each probability of the English text appears in the German one, written with a decimal comma.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { describe, summarize } from "../../static/js/explain.mjs";
import { setLanguage, t } from "../../static/js/i18n.mjs";
import de from "../../static/js/locale/de.mjs";
import * as memos from "../../static/js/memo.mjs";
import { randomize, respond } from "../../static/js/protocol.mjs";
import { ByteSource } from "../../static/js/random.mjs";
import { percent } from "../../static/js/words.mjs";

const dir = new URL("./vectors/", import.meta.url);
const vectors = Object.fromEntries(readdirSync(dir).filter((f) => f.endsWith(".json")).sort()
  .map((f) => [f.replace(/\.json$/, ""), JSON.parse(readFileSync(new URL(f, dir), "utf8"))]));

function display(protocol) {
  return [...protocol.questions, protocol.class].map((q) => ({
    name: q.name, text: `Q-${q.name}?`, kind: q.kind, labels: q.values || [],
  }));
}

/** Every text of a vector in ``language``: figure, overview, and each case's review and summary. */
function texts(name, { protocol, cases, published }, language) {
  setLanguage(language);
  try {
    const questions = display(protocol);
    const words = describe(protocol, { epsilon_per_respondent: 1.5 }, questions);
    const out = [words.figure, ...words.overview.flat()];
    for (const c of cases) {
      const rng = ByteSource.fromBytes(Uint8Array.from(Buffer.from(c.bytes, "hex")));
      const report = name.startsWith("respond-") ? respond(protocol, c.answers, c.class, rng, { published })
        : randomize(protocol, c.answers, c.class, rng);
      out.push(...words.review({ report }).flat(), summarize(report, protocol, questions));
    }
    return out;
  } finally {
    setLanguage("en");
  }
}

// Words that only an English sentence has (the question texts "Q-…?" and the wire names are not translated).
const ENGLISH = /\b(the|your|is|are|with|probability|answers?|sent|which|nobody)\b/;

for (const [name, vector] of Object.entries(vectors)) {
  test(`${name}: every text is German, complete, with the English text's figures`, () => {
    const english = texts(name, vector, "en");
    const german = texts(name, vector, "de");
    assert.equal(german.length, english.length);
    german.forEach((text, i) => {
      const bare = text.replace(/“Q-[^”]*”|„[^“]*“|“[^”]*”/g, "");
      assert.doesNotMatch(bare, ENGLISH, `${name}: English left in ${JSON.stringify(text)}`);
      assert.doesNotMatch(text, /\{\w+\}|\bundefined\b|\bNaN\b|\[object/, `${name}: ${text}`);
      // Every percentage of the English text, with a decimal comma, is in the German one.
      for (const [figure] of english[i].matchAll(/\d+(?:\.\d+)? %/g)) {
        assert.ok(text.includes(figure.replace(".", ",")), `${name}: ${figure} missing from ${JSON.stringify(text)}`);
      }
    });
  });
}

test("the memo's words in German", () => {
  setLanguage("de");
  try {
    for (const bind of [null, { invited: false }, { invited: true }]) {
      assert.match(memos.words(bind), /^Was dieser Browser speichert: /);
    }
    assert.match(memos.words({ invited: false }), /nach 7 Tagen/);
    for (const reason of ["version", "expired", "unreadable"]) assert.match(memos.discardedWords(reason), /gelöscht/);
    assert.match(memos.keptWords({ saved: 0 }), /1970-01-01 00:00 UTC/);
  } finally {
    setLanguage("en");
  }
});

test("t(): placeholders filled, English for a missing key or language, German percentages with a comma", () => {
  assert.equal(t("Step {n} of {total}", { n: 1, total: 3 }), "Step 1 of 3");
  setLanguage("de-DE");
  try {
    assert.equal(t("Step {n} of {total}", { n: 1, total: 3 }), "Schritt 1 von 3");
    assert.equal(t("No such key {x}", { x: 2 }), "No such key 2");
    assert.equal(percent(0.731058578630005), "73,1\u00a0%");
    assert.equal(percent(0.99999), "mehr als 99,9\u00a0%");
  } finally {
    setLanguage("fr");
  }
  assert.equal(t("Next"), "Next");
  setLanguage("en");
  for (const [key, text] of Object.entries(de)) {
    const names = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    assert.deepEqual(names(text), names(key), `placeholders of ${key}`);
  }
});
