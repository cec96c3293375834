// The review step's plain summary of the report about to be sent (issue 12 item 6): summarize(report, protocol,
// questions) of each mechanism module (mrr.mjs, ldp_nb.mjs, gaussian.mjs, reached through explain.mjs), with the
// frequency oracles' summarize() for the disguise of one value. Every sentence must be true of THIS report under the
// protocol as served: which part was chosen, what value or set it names, with the real probabilities.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { fromBase64, unpack } from "../../static/js/bits.mjs";
import { mechanism, summarize } from "../../static/js/explain.mjs";
import * as gaussian from "../../static/js/gaussian.mjs";
import * as ldpNb from "../../static/js/ldp_nb.mjs";
import * as mixed from "../../static/js/mixed.mjs";
import * as mrr from "../../static/js/mrr.mjs";
import * as oracles from "../../static/js/oracles/index.mjs";
import { randomize, respond } from "../../static/js/protocol.mjs";
import { ByteSource } from "../../static/js/random.mjs";
import { percent } from "../../static/js/words.mjs";

const dir = new URL("./vectors/", import.meta.url);
const vectors = Object.fromEntries(readdirSync(dir).filter((f) => f.endsWith(".json")).sort()
  .map((f) => [f.replace(/\.json$/, ""), JSON.parse(readFileSync(new URL(f, dir), "utf8"))]));

const FORBIDDEN = [/averaged away/i, /true answers are not in/i, /never left/i, /\bundefined\b/, /\bNaN\b/,
                   /\bnull\b/, /\[object/, /  /];

function display(protocol, extra = {}) {
  return [...protocol.questions, protocol.class].map((q) => ({
    name: q.name, text: `Q-${q.name}?`, kind: q.kind, labels: q.values || [], ...(extra[q.name] || {}),
  }));
}

/** The reports of a vector's cases, as the browser draws them. */
function reports(name, { protocol, cases, published }) {
  return cases.map((c) => {
    const rng = ByteSource.fromBytes(Uint8Array.from(Buffer.from(c.bytes, "hex")));
    return name.startsWith("respond-") ? respond(protocol, c.answers, c.class, rng, { published })
      : randomize(protocol, c.answers, c.class, rng);
  });
}

const label = (protocol, name, code) => {
  const spec = [...protocol.features, protocol.class].find((f) => f.name === name);
  return spec.kind === "numeric" ? "a number from" : `“${spec.values[code]}” for “Q-${name}?”`;
};

test("every mechanism module has summarize() next to describe(), and explain.mjs dispatches to it", () => {
  for (const m of [mrr, ldpNb, gaussian, mixed]) assert.equal(typeof m.summarize, "function");
  for (const name of ["de", "sue", "oue", "olh", "ss", "she", "the"]) {
    assert.equal(typeof oracles.summarize({ name, domain: 2, p: 0.7, q: 0.3, g: 2, subset_size: 1, laplace_scale: 1 },
                                          { olh: [1, 2, 0], de: 0, she: [0, 1], the: [0, 1] }[name] ?? "AQ=="), "string");
  }
  assert.equal(mechanism(vectors["mrr-one-group"].protocol).summarize, mrr.summarize);
});

test("mixed survey: the summary names the part drawn — the class, a categorical question with the class, or one number (squared or not) — and none other", () => {
  for (const name of ["mixed-oue", "mixed-de", "mixed-olh", "mixed-oue-one-number", "respond-mixed-oue"]) {
    const { protocol } = vectors[name];
    const params = protocol.ldp, p = params.inputs.length - 1;
    assert.equal(mechanism(protocol).summarize, mixed.summarize);
    for (const report of reports(name, vectors[name])) {
      if (report.validation) continue;
      const text = summarize(report, protocol, display(protocol));
      const j = report.input;
      assert.ok(text.startsWith(`Of your ${protocol.questions.length + 1} answers, one part — chosen at random: `), text);
      assert.match(text, /None of your other answers is sent\.$/);
      if (j === 0) {
        assert.ok(text.includes("chosen at random: your answer to “Q-sick?” — is sent in disguise"), text);
      } else if (j <= p) {
        const feature = protocol.features[params.categorical[j - 1]].name;
        assert.ok(text.includes(`chosen at random: your answer to “Q-${feature}?” together with your answer to “Q-sick?” — is sent in disguise`), text);
      } else {
        const feature = protocol.features[params.numeric[report.report[0]]].name;
        const squared = j === p + 2;
        assert.ok(text.includes(`chosen at random: your answer to “Q-${feature}?”${squared ? ", squared" : ""} — is sent: put on a scale from −1 to 1${squared ? ", then squared," : ""} and placed in the entry of your answer to “Q-sick?” in a row of ${params.classes}`), text);
      }
    }
  }
});

for (const [name, vector] of Object.entries(vectors)) {
  test(`${name}: a summary for every drawn report, no forbidden or empty phrase`, () => {
    for (const report of reports(name, vector)) {
      const text = summarize(report, vector.protocol, display(vector.protocol));
      assert.ok(text.length > 60, text);
      for (const pattern of FORBIDDEN) assert.doesNotMatch(text, pattern, `${name}: ${pattern} in ${text}`);
    }
  });
}

test("LDP one-report: the number of answers, the part chosen, and none of the others", () => {
  for (const name of ["ldp-de-one-report", "ldp-oue-one-report", "ldp-sue-one-report", "ldp-olh-one-report",
                      "ldp-ss-one-report", "ldp-she-one-report", "ldp-the-one-report"]) {
    const { protocol } = vectors[name];
    for (const report of reports(name, vectors[name])) {
      const text = summarize(report, protocol, display(protocol));
      const j = report.input;
      assert.ok(text.startsWith(`Of your ${protocol.questions.length + 1} answers, one part — chosen at random: `), text);
      const part = j === 0 ? "your answer to “Q-sick?” —" : `your answer to “Q-${protocol.features[j - 1].name}?” together with your answer to “Q-sick?” —`;
      assert.ok(text.includes(part), `${name}: ${text}`);
      assert.match(text, /None of your other answers is sent\.$/);
    }
  }
});

test("DE: the value named is the one in the report, true with probability p", () => {
  const { protocol } = vectors["ldp-de-one-report"];
  const k = protocol.ldp.classes;
  for (const report of reports("ldp-de-one-report", vectors["ldp-de-one-report"])) {
    const text = summarize(report, protocol, display(protocol));
    const input = protocol.ldp.inputs[report.input];
    const v = report.report;
    const named = report.input === 0 ? label(protocol, "sick", v)
      : `${label(protocol, protocol.features[report.input - 1].name, Math.floor(v / k))}`;
    assert.ok(text.includes(`(here ${named}`), `${named} in ${text}`);
    if (report.input > 0) assert.ok(text.includes(`with ${label(protocol, "sick", v % k)})`), text);
    assert.ok(text.includes(`which is your true one with probability ${percent(input.p)}`), text);
    assert.match(text, /so it may or may not be yours/);
  }
});

test("SUE/OUE: the count of 1s is this report's, with the real p and q", () => {
  for (const name of ["ldp-sue-one-report", "ldp-oue-one-report"]) {
    const { protocol } = vectors[name];
    for (const report of reports(name, vectors[name])) {
      const input = protocol.ldp.inputs[report.input];
      const ones = unpack(fromBase64(report.report), input.domain).reduce((a, b) => a + b, 0);
      const text = summarize(report, protocol, display(protocol));
      assert.ok(text.includes(`a row of ${input.domain} 0s and 1s`), text);
      assert.ok(text.includes(ones === 0 ? "no 1s" : ones === 1 ? "a single 1" : `${ones} 1s`), text);
      assert.ok(text.includes(`is 1 with probability ${percent(input.p)} and every other position is 1 with probability ${percent(input.q)}`), text);
    }
  }
});

test("SS: the set of ω values, listed from the report's bits, contains the true value with probability p", () => {
  const { protocol } = vectors["ldp-ss-one-report"];
  const input = protocol.ldp.inputs[2];  // ω = 4 of 33
  const report = { input: 2, report: Buffer.from(Uint8Array.from([0b00100001, 0b00000010, 0, 0b10000000, 0])).toString("base64") };
  const text = summarize(report, protocol, display(protocol));
  assert.ok(text.includes(`a set of 4 of the 33 possible values (here “d0” for “Q-diet?” with “no” for “Q-sick?”; “d1” for “Q-diet?” with “unsure” for “Q-sick?”; “d3” for “Q-diet?” with “no” for “Q-sick?”; “d10” for “Q-diet?” with “yes” for “Q-sick?”)`), text);
  assert.ok(text.includes(`contains your true value with probability ${percent(input.p)}`), text);
  const one = summarize({ input: 0, report: "AQ==" }, protocol, display(protocol));  // ω = 1: a single value
  assert.ok(one.includes(`a single one of the 3 possible values (here “no” for “Q-sick?”), which is your true one with probability ${percent(protocol.ldp.inputs[0].p)}`), one);
});

test("OLH: the bucket sent is the report's, the bucket of the value with probability p", () => {
  const { protocol } = vectors["ldp-olh-one-report"];
  const text = summarize({ input: 1, report: [5, 7, 3] }, protocol, display(protocol));
  const input = protocol.ldp.inputs[1];
  assert.ok(text.includes(`into ${input.g} buckets, and one bucket (here number 3), which is the bucket of your value with probability ${percent(input.p)}`), text);
});

test("SHE/THE: a list of noisy numbers with the published scale", () => {
  for (const name of ["ldp-she-one-report", "ldp-the-one-report"]) {
    const { protocol } = vectors[name];
    const input = protocol.ldp.inputs[0];
    const text = summarize({ input: 0, report: [0.5, 1.25, -0.25] }, protocol, display(protocol));
    assert.ok(text.includes(`a list of ${input.domain} numbers, one per possible value — 1 for your value and 0 for the others — each with random noise added (typically about ${+input.laplace_scale.toPrecision(3)} away`), text);
  }
});

test("LDP split: all answers sent, in parts, each disguised", () => {
  const { protocol } = vectors["ldp-oue-split"];
  const text = summarize({ reports: protocol.ldp.inputs.map(() => "AA==") }, protocol, display(protocol));
  assert.ok(text.startsWith(`All of your 4 answers are sent, in ${protocol.ldp.inputs.length} parts, each disguised separately`), text);
  assert.doesNotMatch(text, /None of your other answers/);
});

test("LDP validation: only the randomized right/wrong mark, read from the report, true with probability p", () => {
  for (const name of ["respond-ldp-oue-one-report", "respond-gaussian-approach-2"]) {
    const { protocol } = vectors[name];
    const p = percent(protocol.validation.oracle.p);
    for (const [mark, says] of [[1, "1 (“right”)"], [0, "0 (“wrong”)"]]) {
      const text = summarize({ validation: { version: 7, report: mark } }, protocol, display(protocol));
      assert.ok(text.startsWith(`None of your ${protocol.questions.length + 1} answers is sent.`), text);
      assert.ok(text.includes(`whether the published model (version 7), run in your browser on your answers, guessed your answer to “Q-sick?” right`), text);
      assert.ok(text.includes(`This report says ${says}, which is the truth with probability ${p}`), text);
    }
  }
});

test("MRR: the whole record, true with probability θ, stand-ins otherwise; caveats of describe() kept", () => {
  const { protocol } = vectors["mrr-one-group"];
  for (const theta of [0.3, 0.7]) {
    const p = { ...protocol, mrr: { ...protocol.mrr, thetas: [theta] } };
    assert.equal(summarize({ answers: [0, 0, 0, 0] }, p, display(p)),
                 `Your whole record of 4 answers is sent: with probability ${percent(theta)} it is your true answers, otherwise answers drawn at random; nobody, the survey included, can tell which.`);
  }
  const real = { ...protocol, mrr: { ...protocol.mrr } };
  const text = summarize({ answers: [0, 0, 0, 0] }, real,
                         display(real, { smoker: { personal_mode: "real", personal_text: "Did your grandmother smoke?" } }));
  assert.match(text, /otherwise stand-ins \(answers drawn at random, or your answers to the unrelated questions\); nobody who does not know your answers to the unrelated questions can tell which/);
  const personal = protocol.mrr.personal.map((d) => d.slice());
  personal[0] = [0.5, 0.5, 0];
  const never = { ...protocol, mrr: { ...protocol.mrr, personal } };
  assert.match(summarize({ answers: [0, 0, 0, 0] }, never, display(never)), /except for the answers a stand-in never takes/);
  const two = vectors["mrr-two-groups"].protocol;
  const groups = { ...two, mrr: { ...two.mrr, thetas: [0.4, 0.75] } };
  assert.match(summarize({ answers: [0, 0, 0, 0] }, groups, display(groups)), /in 2 groups: each group is your true answers with its own probability \(40\u00a0%, 75\u00a0%, in order\)/);
  const validation = vectors["respond-mrr-one-group"].protocol;
  assert.match(summarize({ validation: { answers: [0, 0, 0, 0] } }, validation, display(validation)),
               /used only to check the model's accuracy, not to train it\.$/);
});

test("Gaussian: the thing chosen (class, numbers, squares) and the approach's disguise", () => {
  const one = vectors["gaussian-approach-1"].protocol;
  assert.match(summarize({ group: 1, report: [[0, 0, 0], [0, 0, 0]] }, one, display(one)),
               /only your numbers — chosen at random — are sent: put on a scale from −1 to 1 and placed in a table .* the whole table is sent, each entry with random noise added/);
  assert.match(summarize({ group: 0, report: "AQ==" }, one, display(one)), /only your answer to “Q-sick\?” — chosen at random — is sent, in disguise.*None of your numbers is sent\./);
  const two = vectors["gaussian-approach-2"].protocol;
  const text = summarize({ group: 2, report: [1 * two.ldp.classes + 1, -1] }, two, display(two));
  assert.match(text, /only a single −1 is sent/);
  assert.match(text, /the entry that holds your answer to “Q-weight\?” \(put on a scale from −1 to 1, then squared\) if your answer to “Q-sick\?” is “yes”, 0 otherwise/);
  const three = vectors["gaussian-approach-3"].protocol;
  assert.match(summarize({ group: 1, report: [0, [0, 0, 0]] }, three, display(three)),
               /only one of your numbers, chosen at random \(here your answer to “Q-age\?”\), is sent: put on a scale from −1 to 1 and placed in the column of your answer to “Q-sick\?” in a row of 3/);
});

test("MRR with θ = 1: the summary says the true record is sent, never that nobody can tell", () => {
  const { protocol } = vectors["mrr-one-group"];
  const p = { ...protocol, mrr: { ...protocol.mrr, thetas: [1] } };
  const text = summarize({ answers: [0, 0, 0, 0] }, p, display(p));
  assert.match(text, /is sent as it is: this survey's setting \(θ = 1\) never replaces your true answers/);
  assert.doesNotMatch(text, /can tell which/);
  const two = vectors["mrr-two-groups"].protocol;
  const mixed = { ...two, mrr: { ...two.mrr, thetas: [0.5, 1] } };
  assert.match(summarize({ answers: [0, 0, 0, 0] }, mixed, display(mixed)), /a group sent true with probability 100 % is always your true answers/);
});

test("MRR with θ = 1: the page's figure, overview and review say nothing is randomized, never that nobody can tell", () => {
  const { protocol } = vectors["mrr-one-group"];
  const p = { ...protocol, mrr: { ...protocol.mrr, thetas: [1] } };
  const words = mrr.describe(p, { epsilon_per_respondent: "Infinity" }, display(p));
  assert.match(words.figure, /^No privacy: with this survey's setting \(θ = 1\) your browser sends your true answers as they are/);
  const all = [words.figure, ...words.overview, ...words.review({ report: { answers: [0, 0, 0, 0] } })].join(" ");
  assert.match(all, /anyone who reads it learns them/);
  assert.doesNotMatch(all, /can tell which|randomizes|stand-in answer is|biased coin/);
  assert.doesNotMatch(all, /Q-[a-z]+__/);  // questions by their texts
});
