// Optimized local hashing (aggregator/privacy/oracles/olh.py): h(v) = ((a·v + b) mod P) mod g with a ∈ [1, P),
// b ∈ [0, P) per report, then DE over [g]. a·v + b can exceed 2^53, so the hash uses BigInt.
// Draws: a, b, keep, other — in that order (other always drawn). Wire: [a, b, y].

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
