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
