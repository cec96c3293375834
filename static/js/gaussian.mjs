// LDP Gaussian Naive Bayes (aggregator/privacy/continuous/gaussian.py), one respondent.
// Group (public, by the shares CDF): 0 the class through the prior oracle, 1 the mean group (x̃), 2 the square
// group (x̃²), with the class-hiding vectors of the approach the server publishes (params.approach_name), whose own
// module (./approaches/) draws them and words them.
import { approach } from "./approaches/index.mjs";
import { findQuestion } from "./questions.mjs";
import { t } from "./i18n.mjs";
import * as oracles from "./oracles/index.mjs";
import { assign } from "./random.mjs";
import { answerCount, answerText, figure as fig, ldpValidationOverview, ldpValidationSummary,
         ldpValidationWords, lowerFirst, percent, questionText, quote, boundedNoiseWords, levelWords } from "./words.mjs";

export function normalise(attribute, x) {
  const clipped = Math.min(Math.max(x, attribute.low), attribute.high);
  return (2.0 * (clipped - attribute.low)) / (attribute.high - attribute.low) - 1.0;
}

/** The class-hiding vector report of the published approach (``params``: the published Gaussian parameters) for the
 * normalised entries ``z`` (x̃ or x̃²) and the class; a mixed survey's numeric groups use it too (./mixed.mjs). */
export function vectors(params, z, classCode, rng) {
  return approach(params).vectors(params, z, classCode, rng);
}

export function perturb(params, values, classCode, rng) {
  const group = assign(params.shares_cdf, rng);
  if (group === 0) return { group, report: oracles.perturb(params.prior_oracle, classCode, rng) };
  const z = params.attributes.map((a, i) => normalise(a, values[i]));
  const entries = group === 2 ? z.map((v) => v * v) : z;
  return { group, report: vectors(params, entries, classCode, rng) };
}

// ---- Respondent-facing words (survey.mjs shows them; tests/js/describe.test.mjs checks them) ----

function classLabel(questions, name, code) {
  const q = findQuestion(questions, name);
  return q && q.labels && q.labels[code] !== undefined ? quote(q.labels[code]) : t("number {code}", { code });
}

/** Approaches 1 and 3's disguise of each table entry, in words, with the published grid and Laplace scale. */
export function noiseWords(params) {
  const grid = params.grid && Number.isInteger(1 / params.grid) ? `1/${1 / params.grid}` : fig(params.grid ?? 0);
  return t("each entry rounded at random to a multiple of {grid} and given random noise (Laplace noise of scale {scale}, so typically about {scale} away from the exact value, on a scale where your numbers lie between −1 and 1)",
    { grid, scale: fig(params.laplace_scale ?? 0) });
}

/** Respondent-facing texts for a Gaussian Naive Bayes LDP survey (SPEC §5, Approaches 1–3), true for the protocol as
 * served: ``figure``, ``overview`` (text blocks) and ``review(body)``. ``questions``: the protocol API's display
 * questions; ``privacy``: its "privacy". */
export function describe(protocol, privacy, questions = []) {
  const params = protocol.ldp;
  const epsilon = params.epsilon ?? (privacy && privacy.epsilon_per_respondent);
  const cls = questionText(questions, protocol.class.name);
  const k = params.classes, m = params.attributes.length;
  const [prior, mean, square] = params.shares;
  const numbers = m === 1 ? t("your number") : t("your numbers");
  const what = { 1: numbers, 2: m === 1 ? t("your number squared") : t("your numbers squared") };
  const level = levelWords(epsilon, privacy);
  const figure = level.figure;
  const overview = [];
  const chance = (x) => t("a {percent} chance", { percent: percent(x) });
  overview.push(t("Your browser picks at random ONE of three things to send, disguised: your answer to {question} ({prior}), {numbers} ({mean}), or {squared} ({square}). Nothing else is sent.",
    { question: cls, prior: chance(prior), numbers, mean: chance(mean), squared: what[2], square: chance(square) }));
  overview.push(protocol.projection
    ? (m === 1
      ? t("Your numeric answers are first combined into 1 published combination (a projection), put on a scale from −1 to 1 between its published limits (a value beyond a limit counts as the limit).")
      : t("Your numeric answers are first combined into {m} published combinations (a projection), each put on a scale from −1 to 1 between its published limits (a value beyond a limit counts as the limit).", { m }))
    : t("Each number is first put on a scale from −1 (the question's lowest value) to 1 (its highest); a number beyond a limit counts as the limit."));
  overview.push(t("The numbers sit in a table with one column per answer to {question} ({k} columns): yours go in the column of your answer, zeros in the others, so the disguise hides your answer to {question} as well.", { question: cls, k }));
  const noise = noiseWords(params);
  const words = { protocol, questions, params, m, k, cls, noise, what,
                  classLabel: (code) => classLabel(questions, protocol.class.name, code) };
  const module = approach(params);
  overview.push(module.overview(words));
  overview.push(t("When your answer to {question} is the thing sent ({k} possible values): {disguise}",
    { question: cls, k, disguise: lowerFirst(oracles.describe(params.prior_oracle)) }));
  overview.push(level.closing);
  const bounded = boundedNoiseWords(privacy, questions);  // Approaches 1 and 3: the noise the browser draws is bounded
  if (bounded) overview.push(bounded);
  const validation = ldpValidationOverview(protocol, questions);
  if (validation) overview.push(validation);

  function review(body) {
    const report = body.report;
    if (report.validation) return [ldpValidationWords(protocol, questions, report.validation.version)];
    const out = [];
    const groupKey = t("“group” says which of the three your browser chose (0: your answer to {question}; 1: {numbers}; 2: {squared}).",
      { question: cls, numbers, squared: what[2] });
    if (report.group === 0) {
      out.push(t("This is the complete message that will be sent. Your browser chose, at random, to send your answer to {question} (one of {k} possible values); none of your numbers is in it.", { question: cls, k }));
      out.push(t("How it is disguised: {disguise}", { disguise: lowerFirst(oracles.describe(params.prior_oracle)) }));
    } else {
      out.push(module.review(words, report));
    }
    out.push(t("{key} What is sent may reflect your true answers, but nobody can be sure that it does.", { key: groupKey }));
    return out;
  }
  return { figure, overview, review };
}

/** The review step's plain summary of ``report`` (what this message says), true for the protocol as served. */
export function summarize(report, protocol, questions = []) {
  if (report.validation) return ldpValidationSummary(protocol, questions, report.validation);
  const params = protocol.ldp;
  const cls = questionText(questions, protocol.class.name);
  const k = params.classes, m = params.attributes.length;
  const answers = answerCount(protocol);
  if (report.group === 0) {
    const valueText = (v) => answerText(protocol, questions, protocol.class.name, v);
    return t("Of your {answers}, only your answer to {question} — chosen at random — is sent, in disguise, as {report}. None of your numbers is sent.",
      { answers, question: cls, report: oracles.summarize(params.prior_oracle, report.report, valueText) });
  }
  const squared = report.group === 2;
  const numbers = squared ? (m === 1 ? t("your number squared") : t("your numbers squared")) : (m === 1 ? t("your number") : t("your numbers"));
  const table = t("a table with one column per answer to {question} ({numbers} in the column of your answer, zeros elsewhere)", { question: cls, numbers });
  const scaled = squared ? t("put on a scale from −1 to 1, then squared,") : t("put on a scale from −1 to 1");
  const noisy = t("each entry with random noise added, so it may reflect your true answers, but nobody can be sure that it does");
  return approach(params).summary({ protocol, questions, params, m, k, cls, answers, numbers, scaled, table, noisy },
    report);
}

/** One respondent's training report (protocol.mjs ``randomize``): numbers as answered (projected). */
export function randomize(protocol, answers, classCode, rng) {
  return perturb(protocol.ldp, answers, classCode, rng);
}

/** The published model's input: the numbers themselves (Gaussian NB). */
export function modelInput(protocol, answers) {
  return answers;
}
