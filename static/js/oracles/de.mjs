// Direct encoding (aggregator/privacy/oracles/de.py): keep v with probability p, else another value uniformly.
// Draws: random() for keep, then integers(0, d − 1) for the other value (always drawn).
import { percent } from "../words.mjs";
export function perturb(params, value, rng) {
  const keep = rng.random() < params.p;
  let other = rng.integers(0, params.domain - 1);
  if (other >= value) other += 1;
  return keep ? value : other;
}

/** The disguise of ONE value, in plain words with the published p (words.mjs's conventions). */
export function describe(params) {
  const d = params.domain;
  return `It is kept with probability ${percent(params.p)}; otherwise your browser sends instead ${d === 2 ? "the other possible value" : `one of the ${d - 1} other possible values, picked at random`}.`;
}

/** How the wire form of a report reads. */
export function describeWire() {
  return "the disguised value, as a number counting from 0";
}

/** This report in a few plain words (a noun phrase): the value it names, via ``valueText(v)``, and how likely that is
 * the respondent's own (review step's summary, explain.mjs ``summarize``). */
export function summarize(params, report, valueText = (v) => `value number ${v}`) {
  const d = params.domain;
  return `a single one of the ${d} possible values (here ${valueText(report)}), which is your true one with probability ${percent(params.p)} and otherwise ${d === 2 ? "the other one" : `one of the ${d - 1} others, picked at random`}; so it may or may not be yours`;
}
