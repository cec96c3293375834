// A survey's randomization in the browser: mirrors aggregator/privacy/survey_protocol.py (encode, one respondent).
// ``protocol`` is the JSON of GET /api/surveys/<slug>/protocol/ ("protocol" key); ``questionAnswers`` holds one answer
// per feature question in protocol.questions order (a choice index, or a number for numeric questions); ``classCode``
// the class answer's index. Returns the report to POST — nothing else of the answers leaves the page.
import { engineCodes, ewdCode, featureValues } from "./inputs.mjs";
import { mechanism } from "./mechanisms.mjs";
import { predict } from "./nb_model.mjs";
import * as oracles from "./oracles/index.mjs";

export { engineCodes, ewdCode, featureValues };

/** One respondent's training report, by the module of the mechanism the server publishes (mechanisms.mjs). */
export function randomize(protocol, questionAnswers, classCode, rng, realPersonal = {}) {
  return mechanism(protocol).randomize(protocol, featureValues(protocol, questionAnswers), classCode, rng, realPersonal);
}

/** The published model's input for these answers (survey_protocol.to_model_input), as the mechanism shapes it:
 * projected; numeric features binned unless the survey keeps them numeric (Gaussian NB). */
export function modelInput(protocol, questionAnswers) {
  return mechanism(protocol).modelInput(protocol, featureValues(protocol, questionAnswers));
}

/** A validation respondent's report (survey_protocol ``encode_validation``). Without a published validation oracle
 * (MRR): the randomized record, marked. With one (LDP): was the published model right on my true answers? — only
 * that bit, through the published binary randomized response. */
export function validate(protocol, questionAnswers, classCode, rng, published, realPersonal = {}) {
  if (!protocol.validation.oracle) return { validation: randomize(protocol, questionAnswers, classCode, rng, realPersonal) };
  const right = predict(published.model, modelInput(protocol, questionAnswers)) === classCode ? 1 : 0;
  return { validation: { version: published.version, report: oracles.perturb(protocol.validation.oracle, right, rng) } };
}

/** One respondent's payload (survey_protocol ``respond``): with a validation share, u = random() first; u < share
 * makes this respondent validate — with a validation oracle (LDP) only when a model is published ({version, model}). */
export function respond(protocol, questionAnswers, classCode, rng, { realPersonal = {}, published = null } = {}) {
  const share = protocol.validation ? protocol.validation.share : 0;
  if (share > 0) {
    const u = rng.random();
    if (u < share && (!protocol.validation.oracle || published)) {
      return validate(protocol, questionAnswers, classCode, rng, published, realPersonal);
    }
  }
  return randomize(protocol, questionAnswers, classCode, rng, realPersonal);
}
