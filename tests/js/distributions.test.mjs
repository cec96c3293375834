// The mechanisms' output distributions with the REAL crypto.getRandomValues (Node's Web Crypto).
// Chi-square statistics are turned into z-scores with the Wilson–Hilferty cube-root approximation
// (z = ((X/k)^(1/3) − (1 − 2/(9k))) / √(2/(9k))); a test fails at z > 4.75, i.e. p < 1e-6 — no flakiness in practice,
// yet a wrong probability (e.g. p and q swapped, an off-by-one in rejection sampling) fails by hundreds of sigmas.
import assert from "node:assert/strict";
import { test } from "node:test";

import { discreteLaplace } from "../../static/js/noise.mjs";
import * as de from "../../static/js/oracles/de.mjs";
import * as olh from "../../static/js/oracles/olh.mjs";
import { perturbBits } from "../../static/js/oracles/unary.mjs";
import * as mrr from "../../static/js/mrr.mjs";
import { assign, ByteSource } from "../../static/js/random.mjs";

const N = 20000;
const Z_MAX = 4.75;

function chiSquareZ(observed, expected) {
  const x = observed.reduce((acc, o, i) => acc + (o - expected[i]) ** 2 / expected[i], 0);
  const k = observed.length - 1;
  return (Math.cbrt(x / k) - (1 - 2 / (9 * k))) / Math.sqrt(2 / (9 * k));
}

test("crypto is required: no Math.random fallback", () => {
  const saved = globalThis.crypto;
  Object.defineProperty(globalThis, "crypto", { value: undefined, configurable: true });
  try {
    assert.throws(() => new ByteSource(), /getRandomValues/);
  } finally {
    Object.defineProperty(globalThis, "crypto", { value: saved, configurable: true });
  }
});

test("integers() is uniform (rejection sampling) for a range that does not divide 2^32", () => {
  const rng = new ByteSource();
  const counts = new Array(7).fill(0);
  for (let i = 0; i < N; i++) counts[rng.integers(0, 7)] += 1;
  assert.ok(chiSquareZ(counts, new Array(7).fill(N / 7)) < Z_MAX);
});

test("DE keeps the value with p and spreads q uniformly", () => {
  const e = Math.exp(1), d = 5;
  const params = { name: "de", domain: d, p: e / (e + d - 1), q: 1 / (e + d - 1) };
  const rng = new ByteSource();
  const counts = new Array(d).fill(0);
  for (let i = 0; i < N; i++) counts[de.perturb(params, 2, rng)] += 1;
  const expected = counts.map((_, v) => N * (v === 2 ? params.p : params.q));
  assert.ok(chiSquareZ(counts, expected) < Z_MAX);
});

test("OUE bits are set with p (own) and q (others)", () => {
  const d = 8, e = Math.exp(1);
  const params = { name: "oue", domain: d, p: 0.5, q: 1 / (e + 1) };
  const rng = new ByteSource();
  const ones = new Array(d).fill(0);
  for (let i = 0; i < N; i++) perturbBits(params, 3, rng).forEach((b, v) => { ones[v] += b; });
  // Independent binomial bits: Σ (c − Nπ)² / (Nπ(1−π)) ~ χ²_d.
  const x = ones.reduce((acc, c, v) => {
    const pi = v === 3 ? params.p : params.q;
    return acc + (c - N * pi) ** 2 / (N * pi * (1 - pi));
  }, 0);
  const z = (Math.cbrt(x / d) - (1 - 2 / (9 * d))) / Math.sqrt(2 / (9 * d));
  assert.ok(z < Z_MAX, `z = ${z}`);
});

test("OLH reports the hashed value with probability p", () => {
  const e = Math.exp(2), g = Math.round(e + 1), prime = 2 ** 31 - 1;
  const params = { name: "olh", domain: 100, p: e / (e + g - 1), q: 1 / g, g, prime };
  const rng = new ByteSource();
  let hits = 0;
  for (let i = 0; i < N; i++) {
    const [a, b, y] = olh.perturb(params, 42, rng);
    if (y === olh.hash(a, b, 42, g, prime)) hits += 1;
  }
  const z = Math.abs(hits - N * params.p) / Math.sqrt(N * params.p * (1 - params.p));
  assert.ok(z < 5, `z = ${z}`);
});

test("MRR sends the true answer with probability θ + (1 − θ)·P_Y(true)", () => {
  const params = { thetas: [0.6], groups: [[0, 1]], personal_cdf: [[1 / 3, 2 / 3, 1], [0.5, 1]] };
  const rng = new ByteSource();
  let same = 0;
  for (let i = 0; i < N; i++) if (mrr.perturb(params, [1, 0], rng)[0] === 1) same += 1;
  const p = 0.6 + 0.4 / 3;
  assert.ok(Math.abs(same - N * p) / Math.sqrt(N * p * (1 - p)) < 5);
});

test("assign() follows the published CDF", () => {
  const cdf = [0.2, 0.5, 1.0];
  const rng = new ByteSource();
  const counts = [0, 0, 0];
  for (let i = 0; i < N; i++) counts[assign(cdf, rng)] += 1;
  assert.ok(chiSquareZ(counts, [0.2 * N, 0.3 * N, 0.5 * N]) < Z_MAX);
});

test("discrete Laplace noise is centred, on the grid, with the variance of noise.py", () => {
  const scale = 2, grid = 2 ** -10;
  const draws = discreteLaplace(new ByteSource(), scale, N, grid);
  assert.ok(draws.every((x) => Number.isInteger(x / grid)));
  const alpha = Math.exp(-grid / scale);
  const variance = (grid ** 2 * 2 * alpha) / (1 - alpha) ** 2;
  const mean = draws.reduce((a, b) => a + b, 0) / N;
  assert.ok(Math.abs(mean) / Math.sqrt(variance / N) < 5);
  const s2 = draws.reduce((a, b) => a + (b - mean) ** 2, 0) / (N - 1);
  // Laplace has excess kurtosis 3: Var(s²) ≈ σ⁴(2/(N−1) + 3/N).
  const se = variance * Math.sqrt(2 / (N - 1) + 3 / N);
  assert.ok(Math.abs(s2 - variance) / se < 5, `s2 = ${s2}, variance = ${variance}`);
});
