// Classifying with a published Naive Bayes model (aggregator/privacy/naive_bayes/model.py, SPEC §1), as the
// validation share does on the respondent's own answers: argmax_c log P(c) + Σ_i log P(x_i | c), the same floors
// (probabilities at 1e-6, σ at 1e-3 of the public range), the same order of additions, ties to the lowest class.
const PROB_FLOOR = 1e-6;
const SIGMA_FLOOR_FRACTION = 1e-3;
const LOG_SQRT_2PI = Math.log(Math.sqrt(2 * Math.PI));

/** log P(c) + Σ_i log P(x_i | c) for every class c; ``x`` holds the model's inputs (codes, or numbers). */
export function logJoint(model, x) {
  const out = model.prior.map((p) => Math.log(Math.max(p, PROB_FLOOR)));
  model.attributes.forEach((attribute, i) => {
    const table = model.conditionals[i];
    out.forEach((_, c) => {
      if (attribute.kind === "numeric") {
        const sigma = Math.max(table[1][c], SIGMA_FLOOR_FRACTION * (attribute.high - attribute.low));
        const z = (x[i] - table[0][c]) / sigma;
        out[c] += (-(z ** 2) / 2 - LOG_SQRT_2PI) - Math.log(sigma);
      } else {
        out[c] += Math.log(Math.max(table[x[i]][c], PROB_FLOOR));
      }
    });
  });
  return out;
}

/** The predicted class code. */
export function predict(model, x) {
  const scores = logJoint(model, x);
  let best = 0;
  scores.forEach((s, c) => { if (s > scores[best]) best = c; });
  return best;
}
