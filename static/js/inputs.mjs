// A respondent's answers as the engine's inputs (aggregator/privacy/protocol/base.py): projected numbers (SPEC §5c)
// and equal-width bin codes (SPEC §5a). Shared by the mechanism modules and protocol.mjs.

/** Equal-width bin of x over the public bounds (aggregator/privacy/continuous/discretize.ewd_codes). */
export function ewdCode(attribute, x, bins) {
  const width = (attribute.high - attribute.low) / bins;
  return Math.min(Math.max(Math.floor((x - attribute.low) / width), 0), bins - 1);
}

/** Question-order answers → feature order: categorical answers, then the published projection's components
 * (standardise with the reference mean and scale, multiply by W, clip to the public bounds; SPEC §5c). */
export function featureValues(protocol, answers) {
  const projection = protocol.projection;
  if (!projection) return answers;
  const numeric = [], categorical = [];
  protocol.questions.forEach((q, i) => (q.kind === "numeric" ? numeric : categorical).push(answers[i]));
  const z = numeric.map((x, j) => (x - projection.mean[j]) / projection.scale[j]);
  const components = projection.low.map((low, c) => {
    let sum = 0;
    z.forEach((value, j) => { sum += value * projection.W[j][c]; });
    return Math.min(Math.max(sum, low), projection.high[c]);
  });
  return [...categorical, ...components];
}

/** Feature values → codes: numeric features binned (SPEC §5a), categorical ones as answered. */
export function engineCodes(protocol, answers) {
  return protocol.features.map((f, i) => (f.kind === "numeric" ? ewdCode(f, answers[i], protocol.numeric.bins) : answers[i]));
}
