// SHE / THE (aggregator/privacy/oracles/histogram.py): one-hot vector plus discrete Laplace noise of scale 2/ε on
// every component (on the 2^-10 grid); the server sums (SHE) or thresholds (THE). Wire: list of d numbers.
import { discreteLaplace } from "../noise.mjs";

export function perturb(params, value, rng) {
  const noisy = discreteLaplace(rng, params.laplace_scale, params.domain, params.grid);
  noisy[value] += 1;
  return noisy;
}
