// TEST-ONLY: a deliberately broken unary encoding, to show that the ε audit (tests/audit/test_epsilon_audit.py) catches
// a real bug. It reproduces pure-LDP issue #11 (UEClient._perturb before commit fc622e3, fixed in pure-LDP 1.2.0):
// every bit is drawn 1 with probability q — the own bit included — and then the own bit is set to 1 with probability
// p, but is NOT reset to 0 otherwise. The own bit is therefore 1 with probability p' = p + (1 − p)·q instead of p,
// and the output event "bit u0 = 1, bit u1 = 0" has likelihood ratio p'(1 − q) / (q(1 − p')) = p' / (q(1 − p)):
// OUE (p = ½, q = 1/(e^ε + 1)): ln(e^ε + 2) — 1.55 at ε = 1; SUE (p = 1 − q = e^{ε/2}/(e^{ε/2} + 1)):
// ln(1 + p/(1 − p)²) — 1.68 at ε = 1. Never import this from static/.
import { pack, toBase64 } from "../../static/js/bits.mjs";

export function perturb(params, value, rng) {
  const bits = Array.from({ length: params.domain }, () => (rng.random() < params.q ? 1 : 0));
  if (rng.random() < params.p) bits[value] = 1;
  return toBase64(pack(bits));
}
