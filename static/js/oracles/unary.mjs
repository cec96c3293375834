// SUE / OUE (aggregator/privacy/oracles/unary.py): every bit 1 with probability q (d draws, bit order),
// then the own bit 1 with probability p (one draw). Wire: base64 of the packed bits.
import { pack, toBase64 } from "../bits.mjs";

export function perturbBits(params, value, rng) {
  const bits = Array.from({ length: params.domain }, () => (rng.random() < params.q ? 1 : 0));
  bits[value] = rng.random() < params.p ? 1 : 0;
  return bits;
}

export function perturb(params, value, rng) {
  return toBase64(pack(perturbBits(params, value, rng)));
}
