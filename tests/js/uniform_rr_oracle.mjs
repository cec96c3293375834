// A throwaway frequency oracle for tests/engine/test_adding_an_oracle.py (issue 10: adding an oracle is one Python
// class and one JavaScript module): uniform-mix randomized response, the Python class ``UniformMixRR`` of that test.
// Keep the true value with probability λ (published as params.lambda), else send a value drawn uniformly from all d.
// Draws: random() for keep, then integers(0, d) (always drawn). Wire: {"v": value}.
import { percent } from "../../static/js/words.mjs";

export function perturb(params, value, rng) {
  const keep = rng.random() < params.lambda;
  const uniform = rng.integers(0, params.domain);
  return { v: keep ? value : uniform };
}

export function describe(params) {
  return `It is kept with probability ${percent(params.lambda)}; otherwise your browser sends one of the ${params.domain} possible values, picked at random (possibly your own).`;
}

export function describeWire() {
  return "the value sent, as a number counting from 0";
}
