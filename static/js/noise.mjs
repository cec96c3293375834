// Additive noise on a fixed grid, mirroring aggregator/privacy/noise.py: discrete Laplace (difference of two
// geometric draws by inverse CDF) and unbiased randomized rounding. Never floating-point Laplace (Mironov 2012).

export const GRID = 2 ** -10;

/** n draws of γ·K, K discrete Laplace with P(K = k) ∝ exp(−|k|γ/scale); all u1 draws first, then all u2 draws. */
export function discreteLaplace(rng, scale, n, grid = GRID) {
  const logAlpha = Math.log(Math.exp(-grid / scale));
  const u1 = Array.from({ length: n }, () => 1 - rng.random());
  const u2 = Array.from({ length: n }, () => 1 - rng.random());
  return u1.map((u, i) => (Math.floor(Math.log(u) / logAlpha) - Math.floor(Math.log(u2[i]) / logAlpha)) * grid);
}

export function randomizedRound(rng, values, grid = GRID) {
  return values.map((x) => {
    const scaled = x / grid;
    const floor = Math.floor(scaled);
    const up = rng.random() < scaled - floor ? 1 : 0;
    return (floor + up) * grid;
  });
}

/** Grid Laplace of gaussian.py ``_laplace``: randomized rounding of every entry, then discrete Laplace noise of the
 * published scale Δ/ε (rounding keeps a class-hiding vector one, so Δ needs no widening). */
export function gridLaplace(rng, values, scale, grid = GRID) {
  const rounded = randomizedRound(rng, values, grid);
  const noise = discreteLaplace(rng, scale, values.length, grid);
  return rounded.map((x, i) => x + noise[i]);
}
