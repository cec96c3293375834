// One randomization per answer set (static/js/permanent.mjs): the first report is exactly ./protocol.mjs respond() for
// the same bytes (every committed vector, bytes consumed included); the same answers again give the same report and
// draw nothing; changing one answer changes only the part of the report that answer enters, and changing it back
// gives the first report again.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { PermanentResponse } from "../../static/js/permanent.mjs";
import { randomize, respond } from "../../static/js/protocol.mjs";
import { ByteSource } from "../../static/js/random.mjs";
import { seeded } from "./seeded_source.mjs";

const dir = new URL("./vectors/", import.meta.url);
const vectors = readdirSync(dir).filter((f) => f.endsWith(".json")).sort()
  .map((file) => ({ file, ...JSON.parse(readFileSync(new URL(file, dir), "utf8")) }));
const plain = (x) => JSON.parse(JSON.stringify(x));

/** A source that replays ``hex`` and then throws: a memoized report must draw nothing more. */
const replay = (hex) => ByteSource.fromBytes(Uint8Array.from(Buffer.from(hex, "hex")));


for (const { file, protocol, cases, published } of vectors) {
  test(`the first report is respond()'s, byte for byte: ${file}`, () => {
    cases.forEach((c, i) => {
      const rng = replay(c.bytes);
      const permanent = new PermanentResponse(protocol, rng);
      const report = file.startsWith("respond-")
        ? permanent.respond(c.answers, c.class, { published })
        : permanent.randomize(c.answers, c.class);
      assert.deepStrictEqual(plain(report), c.report, `${file} case ${i}`);
      assert.equal(rng.consumed, c.consumed, `${file} case ${i}: bytes consumed`);
      // The same answers again: the same report, and not one byte more drawn (the source would throw).
      const again = file.startsWith("respond-")
        ? permanent.respond([...c.answers], c.class, { published })
        : permanent.randomize([...c.answers], c.class);
      assert.deepStrictEqual(plain(again), c.report, `${file} case ${i}: reviewed again`);
      assert.equal(rng.consumed, c.consumed);
    });
  });
}

/** The answers with question ``q`` (protocol.questions order) changed to another value of it. */
function changed(protocol, answers, q) {
  const question = protocol.questions[q];
  const out = [...answers];
  if (question.kind === "numeric") {
    const span = question.high - question.low;
    out[q] = answers[q] - question.low < span / 2 ? question.high - span / 10 : question.low + span / 10;
  } else {
    out[q] = (answers[q] + 1) % question.values.length;
  }
  return out;
}

/** The parts of the report (by name) that question ``q`` does not enter, read from the mechanism's structure: their
 * reports must not change when only that answer changes. Null when the question enters every part (a projection). */
function untouched(protocol, q) {
  const name = protocol.questions[q].name;
  const f = protocol.features.findIndex((feature) => feature.name === name);
  if (protocol.mode === "mrr") {
    const g = protocol.mrr.groups.findIndex((members) => members.includes(f));
    return protocol.mrr.groups.map((_, h) => h).filter((h) => h !== g).map((h) => `group ${h}`);
  }
  const params = protocol.ldp;
  if (params.mixed) {
    const c = params.categorical.indexOf(f);
    const mean = params.inputs.length;
    const parts = [...params.inputs.keys(), mean, mean + 1];
    return parts.filter((j) => (c >= 0 ? j !== c + 1 : j < mean)).map((j) => `input ${j}`);
  }
  if (protocol.numeric.handling === "gaussian") return ["group 0"];
  if (f < 0) return null;  // a numeric question folded into projected components
  return [...params.inputs.keys()].filter((j) => j !== f + 1).map((j) => `input ${j}`);
}

/** The report's parts by name: {"input j": …} / {"group g": …}. */
function parts(protocol, report) {
  if (protocol.mode === "mrr") {
    return Object.fromEntries(protocol.mrr.groups.map((members, g) => [`group ${g}`, members.map((i) => report.answers[i])]));
  }
  if (report.reports) return Object.fromEntries(report.reports.map((r, j) => [`input ${j}`, r]));
  return report.input !== undefined ? { [`input ${report.input}`]: report.report } : { [`group ${report.group}`]: report.report };
}

for (const { file, protocol, cases } of vectors.filter((v) => !v.file.startsWith("respond-"))) {
  test(`changing one answer re-randomizes only the parts it enters, and changing it back restores the report: ${file}`, () => {
    let checkedUnchanged = 0;
    for (const c of cases) {
      for (let q = 0; q < protocol.questions.length; q += 1) {
        const permanent = new PermanentResponse(protocol, seeded(1 + 101 * cases.indexOf(c) + q));
        const first = plain(permanent.randomize(c.answers, c.class));
        const other = changed(protocol, c.answers, q);
        const second = plain(permanent.randomize(other, c.class));
        // One-part-per-respondent mechanisms keep their sampled part.
        assert.equal(second.input, first.input, `${file}: the sampled input is kept`);
        assert.equal(second.group, first.group, `${file}: the sampled group is kept`);
        const keep = untouched(protocol, q);
        if (keep) {
          const before = parts(protocol, first), after = parts(protocol, second);
          for (const part of keep) {
            if (part in before) {
              assert.deepStrictEqual(after[part], before[part], `${file}: question ${q} changed ${part}`);
              checkedUnchanged += 1;
            }
          }
        }
        assert.deepStrictEqual(plain(permanent.randomize(c.answers, c.class)), first, `${file}: changed back`);
        assert.deepStrictEqual(plain(permanent.randomize(other, c.class)), second, `${file}: changed again`);
      }
    }
    const separable = protocol.questions.some((_, q) => (untouched(protocol, q) || []).length > 0);
    assert.ok(checkedUnchanged > 0 || !separable, `${file}: no part checked`);
  });
}

test("a part's report changes with its value: a changed answer that enters the report is randomized afresh", () => {
  // OUE over 33 values with p = 1/2: two different inputs give different bit vectors almost surely over 200 tries.
  const { protocol, cases } = vectors.find((v) => v.file === "ldp-oue-split.json");
  let differs = 0;
  for (let trial = 0; trial < 200; trial += 1) {
    const permanent = new PermanentResponse(protocol, new ByteSource());
    const first = plain(permanent.randomize(cases[0].answers, cases[0].class));
    const second = plain(permanent.randomize(changed(protocol, cases[0].answers, 1), cases[0].class));
    if (JSON.stringify(second.reports[2]) !== JSON.stringify(first.reports[2])) differs += 1;
  }
  assert.ok(differs > 150, `the diet part changed in ${differs} of 200`);
});

test("an adaptive allocation draws the part again when the published chances change, and keeps reports per value", () => {
  const { protocol, cases } = vectors.find((v) => v.file === "ldp-oue-one-report.json");
  const live = structuredClone(protocol);
  const permanent = new PermanentResponse(live, new ByteSource());
  const first = plain(permanent.randomize(cases[0].answers, cases[0].class));
  const only = first.input === 0 ? 1 : 0;
  live.ldp.assignment_cdf = live.ldp.inputs.map((_, j) => (j >= only ? 1 : 0));
  const moved = plain(permanent.randomize(cases[0].answers, cases[0].class));
  assert.equal(moved.input, only);
  live.ldp.assignment_cdf = protocol.ldp.assignment_cdf.map((_, j) => (j >= first.input ? 1 : 0));
  assert.deepStrictEqual(plain(permanent.randomize(cases[0].answers, cases[0].class)), first);
});

test("with the validation share, whether this page validates is drawn once", () => {
  const { protocol, cases, published } = vectors.find((v) => v.file === "respond-ldp-oue-one-report.json");
  for (let trial = 0; trial < 50; trial += 1) {
    const permanent = new PermanentResponse(protocol, new ByteSource());
    const first = plain(permanent.respond(cases[0].answers, cases[0].class, { published }));
    const again = plain(permanent.respond(changed(protocol, cases[0].answers, 0), cases[0].class, { published }));
    assert.equal("validation" in again, "validation" in first);
  }
});

test("the reference randomize() is unchanged by the memo (it still draws afresh)", () => {
  const { protocol, cases } = vectors.find((v) => v.file === "mrr-two-groups.json");
  const rng = replay(cases[0].bytes);
  assert.deepStrictEqual(plain(randomize(protocol, cases[0].answers, cases[0].class, rng)), cases[0].report);
  assert.equal(typeof respond, "function");
});

// A reload (./resume.mjs keeps state() as JSON in the tab until "Send"): the restored object gives the same report for
// the same answers and draws nothing (its source is empty and would throw).
for (const { file, protocol, cases, published } of vectors) {
  test(`a state kept as JSON gives the same report after a reload and draws nothing: ${file}`, () => {
    cases.forEach((c, i) => {
      const answer = (permanent) => (file.startsWith("respond-")
        ? permanent.respond([...c.answers], c.class, { published })
        : permanent.randomize([...c.answers], c.class));
      const first = answer(new PermanentResponse(protocol, replay(c.bytes)));
      const kept = new PermanentResponse(protocol, replay(c.bytes));
      answer(kept);
      const restored = PermanentResponse.restore(protocol, ByteSource.fromBytes(new Uint8Array(0)),
        JSON.parse(JSON.stringify(kept.state())));
      assert.deepStrictEqual(plain(answer(restored)), plain(first), `${file} case ${i}`);
    });
  });
}
