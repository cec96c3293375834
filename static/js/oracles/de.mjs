// Direct encoding (aggregator/privacy/oracles/de.py): keep v with probability p, else another value uniformly.
// Draws: random() for keep, then integers(0, d − 1) for the other value (always drawn).
export function perturb(params, value, rng) {
  const keep = rng.random() < params.p;
  let other = rng.integers(0, params.domain - 1);
  if (other >= value) other += 1;
  return keep ? value : other;
}
