// SUE / OUE (aggregator/privacy/oracles/unary.py): every bit 1 with probability q (d draws, bit order),
// then the own bit 1 with probability p (one draw). Wire: base64 of the packed bits.
import { fromBase64, pack, toBase64, unpack } from "../bits.mjs";
import { t } from "../i18n.mjs";
import { percent } from "../words.mjs";

export function perturbBits(params, value, rng) {
  const bits = Array.from({ length: params.domain }, () => (rng.random() < params.q ? 1 : 0));
  bits[value] = rng.random() < params.p ? 1 : 0;
  return bits;
}

export function perturb(params, value, rng) {
  return toBase64(pack(perturbBits(params, value, rng)));
}

/** The disguise of ONE value, in plain words with the published p and q (words.mjs's conventions). */
export function describe(params) {
  return t("It is sent as a row of {domain} yes/no marks, one per possible value: the mark of your value is “yes” with probability {p}, and every other mark is “yes” with probability {q}, each drawn separately.",
    { domain: params.domain, p: percent(params.p), q: percent(params.q) });
}

/** How the wire form of a report reads. */
export function describeWire() {
  return t("the yes/no marks, packed into bytes and written in base64");
}

/** This report in a few plain words (a noun phrase): how many marks it sets, and what each means (review step's
 * summary, explain.mjs ``summarize``). */
export function summarize(params, report) {
  const ones = unpack(fromBase64(report), params.domain).reduce((a, b) => a + b, 0);
  const has = ones === 0 ? t("no 1s") : ones === 1 ? t("a single 1") : t("{n} 1s", { n: ones });
  return t("a row of {domain} 0s and 1s, one per possible value (this one has {ones}), in which the position of your value is 1 with probability {p} and every other position is 1 with probability {q}, each drawn separately; so it may or may not point at your answer",
    { domain: params.domain, ones: has, p: percent(params.p), q: percent(params.q) });
}
