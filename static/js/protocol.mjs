// A survey's randomization in the browser: mirrors aggregator/privacy/survey_protocol.py (encode, one respondent).
// ``protocol`` is the JSON of GET /api/surveys/<slug>/protocol/ ("protocol" key); ``answers`` holds one answer per
// feature question in protocol.features order (a choice index, or a number for numeric questions); ``classCode``
// the class answer's index. Returns the report to POST — nothing else of the answers leaves the page.
import * as gaussian from "./gaussian.mjs";
import * as ldpNb from "./ldp_nb.mjs";
import * as mrr from "./mrr.mjs";

/** Equal-width bin of x over the public bounds (aggregator/privacy/continuous/discretize.ewd_codes). */
export function ewdCode(attribute, x, bins) {
  const width = (attribute.high - attribute.low) / bins;
  return Math.min(Math.max(Math.floor((x - attribute.low) / width), 0), bins - 1);
}

export function engineCodes(protocol, answers) {
  return protocol.features.map((f, i) => (f.kind === "numeric" ? ewdCode(f, answers[i], protocol.numeric.bins) : answers[i]));
}

export function randomize(protocol, answers, classCode, rng, realPersonal = {}) {
  if (protocol.mode === "mrr") {
    // realPersonal: answers to real unrelated questions by attribute index (features in order, then the class).
    return { answers: mrr.perturb(protocol.mrr, [...engineCodes(protocol, answers), classCode], rng, realPersonal) };
  }
  if (protocol.numeric.handling === "gaussian") {
    return gaussian.perturb(protocol.ldp, answers, classCode, rng);
  }
  return ldpNb.perturb(protocol.ldp, engineCodes(protocol, answers), classCode, rng);
}
