// Optimized local hashing (aggregator/privacy/oracles/olh.py): h(v) = ((a·v + b) mod P) mod g with a ∈ [1, P),
// b ∈ [0, P) per report, then DE over [g]. a·v + b can exceed 2^53, so the hash uses BigInt.
// Draws: a, b, keep, other — in that order (other always drawn). Wire: [a, b, y].
import { t } from "../i18n.mjs";
import { percent } from "../words.mjs";

export function hash(a, b, value, g, prime) {
  return Number(((BigInt(a) * BigInt(value) + BigInt(b)) % BigInt(prime)) % BigInt(g));
}

export function perturb(params, value, rng) {
  const { prime, g, p } = params;
  const a = rng.integers(1, prime);
  const b = rng.integers(0, prime);
  const hashed = hash(a, b, value, g, prime);
  const keep = rng.random() < p;
  let other = rng.integers(0, g - 1);
  if (other >= hashed) other += 1;
  return [a, b, keep ? hashed : other];
}

/** The disguise of ONE value, in plain words with the published p and g (words.mjs's conventions). */
export function describe(params) {
  return t("Your browser picks a random hash function (its two numbers are in the report) that sorts the {domain} possible values into {g} buckets, and sends the bucket of your value with probability {p}; otherwise one of the {others} other buckets, picked at random.",
    { domain: params.domain, g: params.g, p: percent(params.p), others: params.g - 1 });
}

/** How the wire form of a report reads. */
export function describeWire() {
  return t("the hash function's two numbers, then the bucket sent");
}

/** This report in a few plain words (a noun phrase): the bucket sent and how likely it is the respondent's (review
 * step's summary, explain.mjs ``summarize``). */
export function summarize(params, report) {
  const [, , bucket] = report;
  return t("a random hash function (its two numbers) that sorts the {domain} possible values into {g} buckets, and one bucket (here number {bucket}), which is the bucket of your value with probability {p} and otherwise one of the {others} others, picked at random; so it may or may not be yours",
    { domain: params.domain, g: params.g, bucket, p: percent(params.p), others: params.g - 1 });
}
