// The respondent-facing texts of every mechanism (describe() in mrr.mjs, ldp_nb.mjs, gaussian.mjs, via explain.mjs)
// and of the memo (memo.mjs) state what the browser really does, with the figures it really uses (issue 11 item 6).
// Protocols: the committed vectors (every mechanism family) plus hand-made variants.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { describe, mechanism } from "../../static/js/explain.mjs";
import * as gaussian from "../../static/js/gaussian.mjs";
import * as ldpNb from "../../static/js/ldp_nb.mjs";
import * as memos from "../../static/js/memo.mjs";
import * as mixed from "../../static/js/mixed.mjs";
import * as mrr from "../../static/js/mrr.mjs";
import { randomize, respond } from "../../static/js/protocol.mjs";
import { ByteSource } from "../../static/js/random.mjs";
import { percent } from "../../static/js/words.mjs";

const dir = new URL("./vectors/", import.meta.url);
const vectors = Object.fromEntries(readdirSync(dir).filter((f) => f.endsWith(".json")).sort()
  .map((f) => [f.replace(/\.json$/, ""), JSON.parse(readFileSync(new URL(f, dir), "utf8"))]));

const FORBIDDEN = [/averaged away/i, /true answers are not in/i, /true answers are never sent/i, /never left/i,
                   /nothing is kept/i, /not kept on this device/i, /\bundefined\b/, /\bNaN\b/, /\bnull\b/, /\[object/];

/** Display questions as the protocol API gives them: texts "Q-<name>?", labels from the protocol. */
function display(protocol, extra = {}) {
  return [...protocol.questions, protocol.class].map((q) => ({
    name: q.name, text: `Q-${q.name}?`, kind: q.kind, labels: q.values || [], ...(extra[q.name] || {}),
  }));
}

const flat = (blocks) => blocks.flat().join("\n");

/** Every text of a protocol: figure, overview and the review of reports drawn from the vector's cases. */
function allTexts(name, { protocol, cases, published }, privacy = { epsilon_per_respondent: 1.5 }) {
  const words = describe(protocol, privacy, display(protocol));
  const reviews = cases.map((c) => {
    const rng = ByteSource.fromBytes(Uint8Array.from(Buffer.from(c.bytes, "hex")));
    const report = name.startsWith("respond-") ? respond(protocol, c.answers, c.class, rng, { published })
      : randomize(protocol, c.answers, c.class, rng);
    return { report, text: flat(words.review({ report })) };
  });
  return { words, reviews, text: [words.figure, flat(words.overview), ...reviews.map((r) => r.text)].join("\n") };
}

test("each mechanism module describes itself, and explain.mjs picks the module that randomizes", () => {
  for (const m of [mrr, ldpNb, gaussian]) assert.equal(typeof m.describe, "function");
  assert.equal(mechanism(vectors["mrr-one-group"].protocol), mrr);
  assert.equal(mechanism(vectors["ldp-oue-one-report"].protocol), ldpNb);
  assert.equal(mechanism(vectors["gaussian-approach-1"].protocol), gaussian);
  assert.equal(mechanism(vectors["mixed-oue"].protocol), mixed);
  assert.equal(typeof mixed.describe, "function");
});

for (const [name, vector] of Object.entries(vectors)) {
  test(`${name}: no forbidden or empty phrase in any text`, () => {
    const { text, words } = allTexts(name, vector);
    for (const pattern of FORBIDDEN) assert.doesNotMatch(text, pattern, `${name}: ${pattern}`);
    assert.ok(words.figure.length > 20 && words.overview.length >= 3);
  });
}

test("percent never rounds a probability below 1 to 100 % or above 0 to 0 %", () => {
  assert.equal(percent(0.7), "70\u00a0%");
  assert.equal(percent(0.731058578630005), "73.1\u00a0%");
  assert.equal(percent(0.99999), "more than 99.9\u00a0%");
  assert.equal(percent(1e-7), "0.00001\u00a0%");
  assert.equal(percent(1), "100\u00a0%");
});

test("MRR, one group: the record is the true one with probability θ, and nobody can tell", () => {
  const { protocol } = vectors["mrr-one-group"];
  for (const theta of [0.3, 0.6, 0.85]) {
    const p = { ...protocol, mrr: { ...protocol.mrr, thetas: [theta] } };
    const words = describe(p, { epsilon_per_respondent: 2.5 }, display(p));
    const text = flat(words.overview);
    assert.match(words.figure, new RegExp(`holds your true answers with probability ${percent(theta)}`));
    assert.match(text, new RegExp(`with probability ${percent(theta)} the record it sends holds your true answers`));
    assert.match(text, /nobody — not even the survey's organisers — can tell whether the record sent is your true one/);
    assert.match(text, /ε = 2\.5/);
    assert.match(flat(words.review({ report: { answers: [0, 0, 0, 0] } })),
                 new RegExp(`With probability ${percent(theta)} these 4 codes are your true answers; otherwise they are stand-ins`));
  }
});

test("MRR: the stand-ins are named — picked at random (uniform or published chances) or the unrelated answer", () => {
  const { protocol } = vectors["mrr-one-group"];
  const uniform = describe(protocol, null, display(protocol));
  // smoker's declared distribution is not uniform in this vector; the other attributes are.
  assert.match(flat(uniform.overview), /for “Q-smoker\?”, an answer picked at random by your browser with the chances the survey publishes/);
  assert.match(flat(uniform.overview), /every possible answer equally likely/);
  const p = { ...protocol, mrr: { ...protocol.mrr, personal_mode: { ...protocol.mrr.personal_mode, smoker: "real" } } };
  const real = describe(p, { epsilon_per_respondent: 3 },
                        display(p, { smoker: { personal_mode: "real", personal_text: "Did your grandmother smoke?" } }));
  const text = flat(real.overview);
  assert.match(text, /for “Q-smoker\?”, your own answer to the unrelated question “Did your grandmother smoke\?”/);
  assert.match(text, /Someone who knows your answer to “Did your grandmother smoke\?” could tell/);
  assert.match(text, /against someone who does know them, no finite ε holds/);
  assert.doesNotMatch(text, /not even the survey's organisers/);  // it is not true against whoever knows the answer
});

test("MRR: a choice a stand-in never takes is said to be true when sent", () => {
  const { protocol } = vectors["mrr-one-group"];
  const personal = protocol.mrr.personal.map((d) => d.slice());
  personal[0] = [0.5, 0.5, 0];
  const p = { ...protocol, mrr: { ...protocol.mrr, personal } };
  const words = describe(p, { epsilon_per_respondent: Infinity }, display(p));
  const text = flat(words.overview);
  assert.match(text, /A stand-in for “Q-smoker\?” is never “daily”, so if that answer is sent, it is your true one/);
  assert.match(text, /no finite ε/);
  assert.match(words.figure, /except as said below/);
});

test("MRR, two groups: each group's θ and members are stated", () => {
  const { protocol } = vectors["mrr-two-groups"];
  const p = { ...protocol, mrr: { ...protocol.mrr, thetas: [0.4, 0.75] } };
  const text = flat(describe(p, null, display(p)).overview);
  assert.match(text, /in 2 groups/);
  assert.match(text, /“Q-smoker\?” and “Q-sick\?” \(true with probability 40\u00a0%\); “Q-diet\?” and “Q-age\?” \(true with probability 75\u00a0%\)/);
});

test("MRR: a single answer has its group's ε, as the server's exact figures say (issue 11 item 4)", () => {
  const one = vectors["mrr-one-group"].protocol;
  const privacy = { epsilon_per_respondent: 6.04, groups: [{ attributes: ["smoker", "diet", "age", "sick"], epsilon: 6.04 }] };
  assert.match(flat(describe(one, privacy, display(one)).overview),
               /A single answer has the same ε as the whole record, because the record is sent true or replaced as a whole/);
  const two = vectors["mrr-two-groups"].protocol;
  const groups = two.mrr.groups.map((members, g) => ({
    attributes: members.map((i) => [...two.features.map((f) => f.name), two.class.name][i]), epsilon: [1.25, "Infinity"][g] }));
  const text = flat(describe(two, { epsilon_per_respondent: "Infinity", groups }, display(two)).overview);
  assert.match(text, /A single answer has the ε of its group, because a group is sent true or replaced as a whole: “Q-smoker\?” and “Q-sick\?”, ε = 1\.25; “Q-diet\?” and “Q-age\?”, no finite ε/);
});

test("bounded noise (SHE/THE, Gaussian Approaches 1 and 3): said in the page's language, the level stated as the ideal one", () => {
  for (const name of ["ldp-she-one-report", "gaussian-approach-3", "gaussian-approach-1"]) {
    const { protocol } = vectors[name];
    const names = [protocol.class.name, ...protocol.features.map((f) => f.name)];
    const privacy = { epsilon_per_respondent: "Infinity", epsilon_edge_mass: 1.7e-16, epsilon_note: "English note",
                      epsilon_per_question: Object.fromEntries(names.map((n) => [n, "Infinity"])) };
    const words = describe(protocol, privacy, display(protocol));
    const text = flat(words.overview);
    assert.ok(text.includes(`strictly no finite level holds for “Q-${protocol.class.name}?”`), `${name}: ${text}`);
    assert.ok(text.includes("at most about 2e-16 per message"), `${name}: ${text}`);
    assert.doesNotMatch(text, /English note/, name);
    assert.match(words.figure, /for everything you send, with ideal noise/, name);
    assert.match(text, /With ideal noise this gives ε = /, name);
    // Finite figures: the plain wording, no sentence on bounded noise.
    const plain = describe(protocol, { epsilon_per_respondent: 1, epsilon_per_question: {} }, display(protocol));
    assert.doesNotMatch(plain.figure, /ideal noise/, name);
    assert.doesNotMatch(flat(plain.overview), /bounded random values/, name);
  }
});

test("MRR validation respondent: randomized like any record, used only to check accuracy", () => {
  const { protocol } = vectors["respond-mrr-one-group"];
  const words = describe(protocol, null, display(protocol));
  const text = flat(words.review({ report: { validation: { answers: [0, 0, 0, 0] } } }));
  assert.match(text, new RegExp(`drawn at random by your browser \\(a ${percent(protocol.validation.share)} chance\\) to help check the model's accuracy`));
  assert.match(text, /not to train the model/);
});

test("LDP one-report: ONE answer is reported, which one is named, with the oracle's real probabilities", () => {
  for (const name of ["ldp-de-one-report", "ldp-oue-one-report", "ldp-olh-one-report", "ldp-she-one-report"]) {
    const { protocol } = vectors[name];
    const words = describe(protocol, null, display(protocol));
    assert.match(flat(words.overview), /picks ONE part of your answers at random and sends only that part/);
    assert.match(words.figure, new RegExp(`ε = ${protocol.ldp.epsilon} for everything you send`));
    protocol.ldp.inputs.forEach((input, j) => {
      const review = flat(words.review({ report: { input: j, report: 0 } }));
      const part = j === 0 ? "your answer to “Q-sick\\?” \\(one" : `your answer to “Q-${protocol.features[j - 1].name}\\?” together with your answer to “Q-sick\\?”`;
      assert.match(review, new RegExp(`to send the part numbered ${j}: ${part}`), `${name} input ${j}`);
      assert.match(review, /None of your other answers is in it/);
      const e = Math.exp(input.epsilon), d = input.domain;
      if (input.name === "de") assert.ok(review.includes(`kept with probability ${percent(e / (e + d - 1))}`), review);
      if (input.name === "oue") assert.ok(review.includes(`“yes” with probability 50\u00a0%, and every other mark is “yes” with probability ${percent(1 / (e + 1))}`), review);
      if (input.name === "olh") assert.ok(review.includes(`into ${input.g} buckets, and sends the bucket of your value with probability ${percent(e / (e + input.g - 1))}`), review);
      if (input.name === "she") assert.ok(review.includes(`Laplace noise of scale ${2 / input.epsilon}`), review);
    });
  }
});

test("LDP split: every answer is reported, each part with its share of ε, the class answer in every part", () => {
  for (const name of ["ldp-de-split", "ldp-oue-split", "ldp-olh-split", "ldp-sue-split", "ldp-the-split"]) {
    const { protocol } = vectors[name];
    const n = protocol.ldp.inputs.length;
    const words = describe(protocol, null, display(protocol));
    const text = flat(words.overview);
    assert.match(text, new RegExp(`sends every one of your answers, in ${n} parts`));
    assert.match(text, new RegExp(`\\(ε = ${+((protocol.ldp.epsilon / n).toPrecision(3))} each\\)`));
    assert.match(text, new RegExp(`so for that answer the whole ε = ${protocol.ldp.epsilon} counts`));
    const review = words.review({ report: { reports: protocol.ldp.inputs.map(() => 0) } });
    assert.equal(review[1].length, n);  // one list item per part
    assert.doesNotMatch(flat(review), /None of your other answers/);
  }
});

test("LDP validation respondent: one randomized right/wrong mark about the model, kept with the real probability", () => {
  for (const name of ["respond-ldp-oue-one-report", "respond-gaussian-approach-2"]) {
    const { protocol } = vectors[name];
    const words = describe(protocol, null, display(protocol));
    const text = flat(words.review({ report: { validation: { version: 7, report: 1 } } }));
    const e = Math.exp(protocol.validation.oracle.epsilon);
    assert.ok(text.includes(`ran model version 7 on your answers to guess your answer to “Q-sick?”`), text);
    assert.ok(text.includes(`1 if the guess was right, 0 if it was wrong — kept with probability ${percent(e / (e + 1))} and flipped otherwise`), text);
    assert.match(text, /None of your answers is in this message/);
    assert.match(flat(words.overview), /sends only whether the guess was right/);
  }
});

test("Gaussian: the three things that can be sent with their chances; the approach's disguise", () => {
  for (const approach of [1, 2, 3]) {
    const { protocol } = vectors[`gaussian-approach-${approach}`];
    const [a, b, c] = protocol.ldp.shares.map(percent);
    const words = describe(protocol, null, display(protocol));
    const text = flat(words.overview);
    assert.ok(text.includes(`your answer to “Q-sick?” (a ${a} chance), your numbers (a ${b} chance), or your numbers squared (a ${c} chance)`), text);
    if (approach === 2) {
      const e = Math.exp(protocol.ldp.epsilon);
      assert.ok(text.includes(`+1 with a ${percent(1 / (e + 1))} chance when the entry is −1, rising to ${percent(e / (e + 1))}`), text);
      assert.match(flat(words.review({ report: { group: 1, report: [1, -1] } })), /only one entry: the one for your answer to “Q-age\?” in the column of the answer “yes”/);
    } else {
      assert.ok(text.includes(`Laplace noise of scale ${+protocol.ldp.laplace_scale.toPrecision(3)}`), text);
      assert.match(text, /multiple of 1\/1024/);
    }
    if (approach === 3) {
      assert.match(flat(words.review({ report: { group: 2, report: [1, [0, 0, 0]] } })), /only your answer to “Q-weight\?”, squared: its row/);
    }
    assert.match(flat(words.review({ report: { group: 0, report: "AA==" } })), /to send your answer to “Q-sick\?” \(one of 3 possible values\); none of your numbers is in it/);
  }
});

test("mixed survey: every part that can be sent, with its real chance; the review names the part really drawn", () => {
  for (const name of ["mixed-oue", "mixed-de", "mixed-olh", "mixed-oue-one-number", "respond-mixed-oue"]) {
    const { protocol, cases, published } = vectors[name];
    const params = protocol.ldp, p = params.inputs.length - 1, q = params.numeric.length;
    const words = describe(protocol, null, display(protocol));
    const [intro, list] = words.overview;
    assert.match(intro, /picks ONE part of your answers at random and sends only that part/);
    assert.equal(list.length, 1 + p + 2, `${name}: one item per kind of part`);
    assert.equal(list[0], `your answer to “Q-sick?” alone (a ${percent(params.assignment[0])} chance)`);
    params.categorical.forEach((position, i) => {
      assert.equal(list[i + 1], `your answer to “Q-${protocol.features[position].name}?” together with your answer to “Q-sick?” (a ${percent(params.assignment[i + 1])} chance)`);
    });
    const numbers = params.numeric.map((position) => `“Q-${protocol.features[position].name}?”`);
    if (q === 1) {
      assert.equal(list[p + 1], `your answer to ${numbers[0]}, as a number (a ${percent(params.assignment[p + 1])} chance)`);
    } else {
      assert.ok(list[p + 1].startsWith(`one number, picked at random with equal chances among ${numbers.map((n) => `your answer to ${n}`).join(" and ")}`), list[p + 1]);
      assert.ok(list[p + 1].endsWith(`(a ${percent(params.assignment[p + 1])} chance in all)`), list[p + 1]);
    }
    assert.ok(/squared|square of/.test(list[p + 2]) && list[p + 2].includes(`(a ${percent(params.assignment[p + 2])} chance`), list[p + 2]);
    const text = flat(words.overview);
    assert.ok(text.includes(`Laplace noise of scale ${+params.vectors.laplace_scale.toPrecision(3)}`), text);
    assert.doesNotMatch(text, /ONE of three things|equal ranges/);  // not the Gaussian-only or binned wording
    for (const c of cases) {
      const rng = ByteSource.fromBytes(Uint8Array.from(Buffer.from(c.bytes, "hex")));
      const report = name.startsWith("respond-") ? respond(protocol, c.answers, c.class, rng, { published }) : randomize(protocol, c.answers, c.class, rng);
      if (report.validation) continue;
      const review = flat(words.review({ report }));
      const j = report.input;
      assert.ok(review.includes(`to send the part numbered ${j}: `), review);
      if (j === 0) {
        assert.ok(review.includes(`numbered 0: your answer to “Q-sick?” (one of ${params.classes} possible values)`), review);
      } else if (j <= p) {
        const feature = protocol.features[params.categorical[j - 1]];
        assert.ok(review.includes(`numbered ${j}: your answer to “Q-${feature.name}?” together with your answer to “Q-sick?” (one of ${feature.values.length * params.classes} possible values)`), review);
      } else {
        const feature = protocol.features[params.numeric[report.report[0]]];
        assert.ok(review.includes(`numbered ${j}: your answer to “Q-${feature.name}?”, put on a scale from −1 to 1${j === p + 2 ? ", then squared," : ""} and placed in a row of ${params.classes} entries`), review);
        assert.ok(review.includes(`(${p + 1}: one of your numbers; ${p + 2}: one of your numbers squared)`), review);
      }
    }
  }
});

test("mixed survey: the bounded noise is stated in the page's language, naming exactly the questions with no finite level", () => {
  const { protocol } = vectors["mixed-oue"];
  const params = protocol.ldp;
  const numeric = params.numeric.map((position) => protocol.features[position].name);
  const categorical = params.categorical.map((position) => protocol.features[position].name);
  const perQuestion = { [protocol.class.name]: "Infinity" };
  numeric.forEach((name) => { perQuestion[name] = "Infinity"; });
  categorical.forEach((name) => { perQuestion[name] = 2.0000000000000004; });
  const privacy = { epsilon_per_question: perQuestion, epsilon_per_respondent: "Infinity", epsilon_edge_mass: 3.2e-16,
                    epsilon_note: "English sentence from the server" };
  const text = flat(describe(protocol, privacy, display(protocol)).overview);
  const names = [protocol.class.name, ...numeric].map((name) => `“Q-${name}?”`);
  assert.ok(text.includes(`so strictly no finite level holds for ${names.slice(0, -1).join(", ")}`), text);
  assert.ok(text.includes("at most about 3e-16 per message"), text);
  for (const name of categorical) assert.ok(!text.includes(`finite level holds for “Q-${name}?”`), text);
  assert.doesNotMatch(text, /English sentence from the server/);  // the server's note is not shown untranslated
  assert.match(describe(protocol, privacy, display(protocol)).figure, /with ideal noise/);
});

// ---- the memo ----

class Storage {
  constructor() { this.items = new Map(); }
  getItem(k) { return this.items.has(k) ? this.items.get(k) : null; }
  setItem(k, v) { this.items.set(k, String(v)); }
  removeItem(k) { this.items.delete(k); }
}

test("memo: bound to the protocol version (SHA-256 of its JSON); the report and, by invitation, its credential kept, never the token", async () => {
  const { protocol } = vectors["ldp-oue-one-report"];
  const storage = new Storage();
  const bind = await memos.binding("s1", protocol, false, storage);
  assert.equal(bind.key, "coinflip:report:s1");
  assert.match(bind.version, /^[0-9a-f]{64}$/);
  assert.ok(memos.write(storage, bind, { input: 1, report: "AA==" }, 1000));
  assert.deepEqual(Object.keys(JSON.parse(storage.getItem(bind.key))).sort(), ["protocol", "report", "saved"]);
  assert.deepEqual(memos.read(storage, bind, 2000), { memo: { report: { input: 1, report: "AA==" }, saved: 1000 }, discarded: null });

  const invited = await memos.binding("s1", protocol, true, storage);
  const pending = { spki: "S", value: "V", inv: "I", blindedMsg: "B", key_id: "K" };
  assert.ok(memos.write(storage, invited, { input: 1, report: "AA==" }, 1000, { pending }));
  assert.deepEqual(memos.read(storage, invited, 2000).memo, { report: { input: 1, report: "AA==" }, saved: 1000, pending });
  const credential = { value: "V", signature: "G", key_id: "K" };
  assert.ok(memos.write(storage, invited, { input: 1, report: "AA==" }, 1000, { pending, credential }));
  const stored = JSON.parse(storage.getItem(invited.key));
  assert.deepEqual(Object.keys(stored).sort(), ["credential", "protocol", "report", "saved"]);  // the pending state is dropped
  assert.deepEqual(memos.read(storage, invited, 2000).memo.credential, credential);
  // Redeemed at the first answer: the credential state alone, no report yet (and never the token).
  assert.ok(memos.write(storage, invited, null, 1000, { credential }));
  assert.deepEqual(memos.read(storage, invited, 2000).memo, { report: null, saved: 1000, credential });
  storage.setItem(invited.key, JSON.stringify({ protocol: invited.version, saved: 1000, report: null }));
  assert.equal(memos.read(storage, invited, 2000).discarded, "unreadable");  // neither report nor credential
  memos.clear(storage, bind);
  assert.equal(storage.getItem(bind.key), null);
});

test("memo: another protocol version, an expired, malformed or old-format memo is deleted, never returned", async () => {
  const { protocol } = vectors["ldp-oue-one-report"];
  const changed = { ...protocol, ldp: { ...protocol.ldp, epsilon: 3 } };
  const storage = new Storage();
  const old = await memos.binding("s1", protocol, false, storage);
  const now = await memos.binding("s1", changed, false, storage);
  assert.notEqual(old.version, now.version);
  memos.write(storage, old, { input: 0, report: "AA==" }, 0);
  assert.deepEqual(memos.read(storage, now, 10), { memo: null, discarded: "version" });
  assert.equal(storage.getItem(now.key), null);

  memos.write(storage, old, { input: 0, report: "AA==" }, 0);
  const day = 24 * 3600 * 1000;
  assert.ok(memos.read(storage, old, memos.MEMO_DAYS * day - 1).memo);
  assert.equal(memos.read(storage, old, memos.MEMO_DAYS * day).discarded, "expired");

  storage.setItem(old.key, JSON.stringify({ input: 0, report: "AA==" }));  // the memo of earlier pages: a bare report
  assert.equal(memos.read(storage, old, 10).discarded, "unreadable");
  assert.equal(storage.getItem(old.key), null);
  // the token-bound memo of earlier pages, and a credential missing its signature
  storage.setItem(old.key, JSON.stringify({ protocol: old.version, token: "ab", saved: 0, report: { input: 0 } }));
  assert.equal(memos.read(storage, old, 10).discarded, "unreadable");
  storage.setItem(old.key, JSON.stringify({ protocol: old.version, saved: 0, report: { input: 0 }, credential: { value: "V", key_id: "K" } }));
  assert.equal(memos.read(storage, old, 10).discarded, "unreadable");
});

test("memo words: purpose, content and deletion stated; never that nothing is kept when something may be", async () => {
  const { protocol } = vectors["ldp-oue-one-report"];
  const text = memos.words(await memos.binding("s1", protocol, false, new Storage()));
  assert.match(text, /only that report, never your true answers/);
  assert.match(text, /trying again sends that same report rather than a freshly randomized one, which would tell more/);
  assert.match(text, new RegExp(`deleted as soon as the report is received or refused, when the survey's settings change, or after ${memos.MEMO_DAYS} days`));
  const invited = memos.words(await memos.binding("s1", protocol, true, new Storage()));
  assert.match(invited, /once your invitation is redeemed \(when you give your first answer\), the credential/);
  assert.match(invited, /Only these, never your true answers, are saved/);
  assert.match(invited, /nothing in the report ties it to your invitation \(the survey's server still sees your network address and the time of each request\)/);
  assert.match(invited, /the invitation code itself is never kept, and once redeemed it is not needed again/);
  assert.doesNotMatch(text, /credential/);
  assert.doesNotMatch(text, /keeps: nothing/);
  assert.match(memos.words(null), /keeps: nothing/);  // only when no storage or no hashing is available
  assert.match(memos.discardedWords("version"), /earlier version of this survey's settings: it has been deleted and will not be sent/);
  assert.match(memos.keptWords({ saved: 0 }), /exactly the same report is sent again/);
});
