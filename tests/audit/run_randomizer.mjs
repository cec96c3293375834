// The ε audit's sampler (docs/epsilon-audit.md): runs the REAL browser randomizers of static/js/ on two neighbouring
// inputs, each `n` times per half, with the real crypto.getRandomValues (a fresh `new ByteSource()` per job: the
// default source, never a seeded one), and prints, per job and input, the counts of a coarse output key ("cell").
// The cells are a sufficient (or nearly sufficient) statistic for telling the two inputs apart; the Python side
// (tests/audit/epsilon_audit.py) picks the most distinguishing event — a union of cells — on the "select" half and
// bounds ε on the "test" half.
//
// stdin:  {"jobs": [{"id", "kind": "oracle" | "protocol", "n", "inputs": [x0, x1], "params" | "protocol",
//                    "module"?: path of a replacement oracle module (test-only, e.g. the broken randomizer)}]}
//   oracle:   x = a value of the domain; perturbed by static/js/oracles/index.mjs (or `module`'s perturb).
//   protocol: x = {"answers": [...], "classCode": c, "realPersonal"?: {index: value}}; perturbed by
//             static/js/protocol.mjs respond() with the published protocol (GET /api/surveys/<slug>/protocol/).
// stdout: {"<id>": {"select": [counts0, counts1], "test": [counts0, counts1], "seconds": t}}, counts = {cell: count}.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

import { fromBase64, unpack } from "../../static/js/bits.mjs";
import { normalise } from "../../static/js/gaussian.mjs";
import { inputValue } from "../../static/js/ldp_nb.mjs";
import * as oracles from "../../static/js/oracles/index.mjs";
import { hash } from "../../static/js/oracles/olh.mjs";
import { engineCodes, featureValues, respond } from "../../static/js/protocol.mjs";
import { ByteSource } from "../../static/js/random.mjs";

/** Where a noisy number y lies against the two noiseless values lo < hi: "L" y ≤ lo, "H" y ≥ hi, "M" between.
 * For (discrete) Laplace noise the likelihood ratio is constant on "L" and on "H" (its two extremes). */
function side(y, a, b) {
  const lo = Math.min(a, b), hi = Math.max(a, b);
  return y <= lo ? "L" : y >= hi ? "H" : "M";
}

/** Cell of one frequency-oracle report, for telling input values u0 and u1 apart ("=" when they are equal: the
 * report's law is then the same under both inputs). DE: is y u0, u1 or another value (all others have probability q
 * under both); SUE/OUE: bits u0 and u1 (the other bits are independent of the input); SS: whether u0 and u1 are in the
 * set (given that, the rest of the set is uniform under both inputs); OLH: does y equal h(u0), h(u1);
 * SHE/THE: components u0 and u1 against their noiseless values 0 and 1. */
export function oracleCell(params, report, u0, u1) {
  if (u0 === u1) return "=";
  switch (params.name) {
    case "de":
      return report === u0 ? "0" : report === u1 ? "1" : "o";
    case "sue":
    case "oue":
    case "ss": {
      const bits = unpack(fromBase64(report), params.domain);
      return `${bits[u0]}${bits[u1]}`;
    }
    case "olh": {
      const [a, b, y] = report;
      return `${y === hash(a, b, u0, params.g, params.prime) ? 1 : 0}${y === hash(a, b, u1, params.g, params.prime) ? 1 : 0}`;
    }
    case "she":
    case "the":
      return side(report[u0], 0, 1) + side(report[u1], 0, 1);
    default:
      throw new Error(`no cell for oracle ${params.name}`);
  }
}

/** MRR: per group, is the group's part of the record x0's ("A"), x1's ("B") or another ("o"). P(R | x) depends on x
 * only through these (the record is the true one with θ, else the personal one). */
function mrrCell(protocol, report, inputs) {
  const [r0, r1] = inputs.map((x) => [...engineCodes(protocol, featureValues(protocol, x.answers)), x.classCode]);
  return protocol.mrr.groups.map((members) => {
    const same = (row) => members.every((i) => report.answers[i] === row[i]);
    return same(r0) ? "A" : same(r1) ? "B" : "o";
  }).join("");
}

/** LDP Naive Bayes (discrete): the (public) input j of a one-report report, and the oracle cell of every report for
 * the two inputs' values of that input (class: c; feature i: a·k + c). */
function ldpCell(protocol, report, inputs) {
  const ldp = protocol.ldp;
  const values = inputs.map((x) => engineCodes(protocol, featureValues(protocol, x.answers)));
  const cell = (j, r) => oracleCell(ldp.inputs[j], r,
    inputValue(j, values[0], inputs[0].classCode, ldp.classes), inputValue(j, values[1], inputs[1].classCode, ldp.classes));
  if (ldp.strategy === "one-report") return `${report.input}:${cell(report.input, report.report)}`;
  return report.reports.map((r, j) => cell(j, r)).join("|");
}

/** The noiseless class-hiding entries of a Gaussian NB respondent in group g (1: x̃, 2: x̃²), flattened m×k. */
function gaussianEntries(ldp, x, group) {
  const m = ldp.attributes.length, k = ldp.classes;
  const flat = new Array(m * k).fill(0);
  x.answers.forEach((value, i) => {
    const z = normalise(ldp.attributes[i], value);
    flat[i * k + x.classCode] = group === 2 ? z * z : z;
  });
  return flat;
}

/** LDP Gaussian NB: the public group; group 0 the prior oracle's cell; Approach 1 every entry whose noiseless values
 * differ, against them; Approach 2 the whole report [j, ±1]; Approach 3 the (public) attribute and its differing
 * entries. */
function gaussianCell(protocol, report, inputs) {
  const ldp = protocol.ldp, k = ldp.classes;
  const g = report.group;
  if (g === 0) return `0:${oracleCell(ldp.prior_oracle, report.report, inputs[0].classCode, inputs[1].classCode)}`;
  const [e0, e1] = inputs.map((x) => gaussianEntries(ldp, x, g));
  const differing = (entries, offset) => entries.map((y, i) => (e0[offset + i] === e1[offset + i] ? "" : side(y, e0[offset + i], e1[offset + i]))).join("");
  if (ldp.approach === 1) return `${g}:${differing(report.report.flat(), 0)}`;
  if (ldp.approach === 2) return `${g}:${report.report[0]},${report.report[1]}`;
  const [attr, vector] = report.report;
  return `${g}:${attr}:${differing(vector, attr * k)}`;
}

function protocolCell(protocol, report, inputs) {
  if (protocol.mode === "mrr") return mrrCell(protocol, report, inputs);
  if (protocol.numeric.handling === "gaussian") return gaussianCell(protocol, report, inputs);
  return ldpCell(protocol, report, inputs);
}

async function sampler(job) {
  if (job.kind === "oracle") {
    const perturb = job.module
      ? (await import(pathToFileURL(path.resolve(job.module)).href)).perturb
      : oracles.perturb;
    const [u0, u1] = job.inputs;
    return (x, rng) => oracleCell(job.params, perturb(job.params, x, rng), u0, u1);
  }
  if (job.kind === "protocol") {
    return (x, rng) => protocolCell(job.protocol,
      respond(job.protocol, x.answers, x.classCode, rng, { realPersonal: x.realPersonal ?? {} }), job.inputs);
  }
  throw new Error(`unknown job kind ${job.kind}`);
}

async function run(job) {
  const started = performance.now();
  const draw = await sampler(job);
  const rng = new ByteSource();  // crypto.getRandomValues
  const half = () => job.inputs.map((x) => {
    const counts = {};
    for (let i = 0; i < job.n; i++) {
      const cell = draw(x, rng);
      counts[cell] = (counts[cell] ?? 0) + 1;
    }
    return counts;
  });
  const select = half();
  const test = half();
  return { select, test, seconds: (performance.now() - started) / 1000 };
}

const { jobs } = JSON.parse(readFileSync(0, "utf8"));
const out = {};
for (const job of jobs) out[job.id] = await run(job);
process.stdout.write(JSON.stringify(out));
