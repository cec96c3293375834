// SUE / OUE (aggregator/privacy/oracles/unary.py): every bit 1 with probability q (d draws, bit order),
// then the own bit 1 with probability p (one draw). Wire: base64 of the packed bits.
import { pack, toBase64 } from "../bits.mjs";
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
  return `It is sent as a row of ${params.domain} yes/no marks, one per possible value: the mark of your value is “yes” with probability ${percent(params.p)}, and every other mark is “yes” with probability ${percent(params.q)}, each drawn separately.`;
}

/** How the wire form of a report reads. */
export function describeWire() {
  return "the yes/no marks, packed into bytes and written in base64";
}
