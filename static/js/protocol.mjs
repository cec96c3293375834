// A survey's randomization in the browser: mirrors aggregator/privacy/protocol/ (encode, one respondent).
// ``protocol`` is the JSON of GET /api/surveys/<slug>/protocol/ ("protocol" key); ``questionAnswers`` holds one answer
// per feature question in protocol.questions order (a choice index, or a number for numeric questions); ``classCode``
// the class answer's index. Returns the report to POST — nothing else of the answers leaves the page.
import * as gaussian from "./gaussian.mjs";
import * as ldpNb from "./ldp_nb.mjs";
import * as mixed from "./mixed.mjs";
import * as mrr from "./mrr.mjs";
import { predict } from "./nb_model.mjs";
import * as oracles from "./oracles/index.mjs";

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

export function engineCodes(protocol, answers) {
  return protocol.features.map((f, i) => (f.kind === "numeric" ? ewdCode(f, answers[i], protocol.numeric.bins) : answers[i]));
}

export function randomize(protocol, questionAnswers, classCode, rng, realPersonal = {}) {
  const answers = featureValues(protocol, questionAnswers);
  if (protocol.mode === "mrr") {
    // realPersonal: answers to real unrelated questions by attribute index (features in order, then the class).
    return { answers: mrr.perturb(protocol.mrr, [...engineCodes(protocol, answers), classCode], rng, realPersonal) };
  }
  if (protocol.ldp && protocol.ldp.mixed) {
    // Categorical and numeric questions in one survey (Gaussian handling): one report, codes and numbers as answered.
    return mixed.perturb(protocol.ldp, answers, classCode, rng);
  }
  if (protocol.numeric.handling === "gaussian") {
    return gaussian.perturb(protocol.ldp, answers, classCode, rng);
  }
  return ldpNb.perturb(protocol.ldp, engineCodes(protocol, answers), classCode, rng);
}

/** The published model's input for these answers (privacy.protocol to_model_input): projected; numeric features binned
 * unless the survey keeps them numeric (Gaussian NB). */
export function modelInput(protocol, questionAnswers) {
  const answers = featureValues(protocol, questionAnswers);
  return protocol.numeric.handling === "gaussian" ? answers : engineCodes(protocol, answers);
}

/** A validation respondent's report (privacy.protocol ``encode_validation``). MRR: the randomized record, marked.
 * LDP: was the published model right on my true answers? — only that bit, through binary randomized response. */
export function validate(protocol, questionAnswers, classCode, rng, published, realPersonal = {}) {
  if (protocol.mode === "mrr") return { validation: randomize(protocol, questionAnswers, classCode, rng, realPersonal) };
  const right = predict(published.model, modelInput(protocol, questionAnswers)) === classCode ? 1 : 0;
  return { validation: { version: published.version, report: oracles.perturb(protocol.validation.oracle, right, rng) } };
}

/** One respondent's payload (privacy.protocol ``respond``): with a validation share, u = random() first; u < share
 * makes this respondent validate — for LDP only when a model is published ({version, model}). */
export function respond(protocol, questionAnswers, classCode, rng, { realPersonal = {}, published = null } = {}) {
  const share = protocol.validation ? protocol.validation.share : 0;
  if (share > 0) {
    const u = rng.random();
    if (u < share && (protocol.mode === "mrr" || published)) {
      return validate(protocol, questionAnswers, classCode, rng, published, realPersonal);
    }
  }
  return randomize(protocol, questionAnswers, classCode, rng, realPersonal);
}
