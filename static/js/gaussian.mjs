// LDP Gaussian Naive Bayes (aggregator/privacy/continuous/gaussian.py), one respondent.
// Group (public, by the shares CDF): 0 the class through the prior oracle, 1 the mean group (x̃), 2 the square
// group (x̃²), with class-hiding vectors: Approach 1 all m vectors + grid Laplace noise; Approach 2 one bit
// (Duchi et al.); Approach 3 one attribute's vector + grid Laplace noise.
import { discreteLaplace, randomizedRound } from "./noise.mjs";
import * as oracles from "./oracles/index.mjs";
import { assign } from "./random.mjs";

export function normalise(attribute, x) {
  const clipped = Math.min(Math.max(x, attribute.low), attribute.high);
  return (2.0 * (clipped - attribute.low)) / (attribute.high - attribute.low) - 1.0;
}

/** Grid Laplace of gaussian.py ``_laplace``: randomized rounding of every entry, then discrete Laplace noise of the
 * published scale Δ/ε (rounding keeps a class-hiding vector one, so Δ needs no widening). */
function gridLaplace(params, values, rng) {
  const rounded = randomizedRound(rng, values, params.grid);
  const noise = discreteLaplace(rng, params.laplace_scale, values.length, params.grid);
  return rounded.map((x, i) => x + noise[i]);
}

function vectors(params, z, classCode, rng) {
  const m = params.attributes.length, k = params.classes;
  if (params.approach === 1) {
    const flat = new Array(m * k).fill(0);
    z.forEach((value, i) => { flat[i * k + classCode] = value; });
    const noisy = gridLaplace(params, flat, rng);
    return Array.from({ length: m }, (_, i) => noisy.slice(i * k, (i + 1) * k));
  }
  if (params.approach === 2) {
    const j = rng.integers(0, m * k);
    const attr = Math.floor(j / k), cls = j % k;
    const v = cls === classCode ? z[attr] : 0.0;
    const e = Math.exp(params.epsilon);
    const u = rng.random() < (v * (e - 1) + e + 1) / (2 * e + 2);
    return [j, u ? 1 : -1];
  }
  const attr = rng.integers(0, m);
  const vector = new Array(k).fill(0);
  vector[classCode] = z[attr];
  return [attr, gridLaplace(params, vector, rng)];
}

export function perturb(params, values, classCode, rng) {
  const group = assign(params.shares_cdf, rng);
  if (group === 0) return { group, report: oracles.perturb(params.prior_oracle, classCode, rng) };
  const z = params.attributes.map((a, i) => normalise(a, values[i]));
  const entries = group === 2 ? z.map((v) => v * v) : z;
  return { group, report: vectors(params, entries, classCode, rng) };
}
