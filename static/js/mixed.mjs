// LDP Naive Bayes over a survey that mixes categorical and numeric questions (aggregator/privacy/protocol/mixed.py),
// one respondent, one report. Inputs (public, drawn by the published assignment CDF): 0 the class; 1 … p each
// categorical feature jointly with the class (a·k + c, as ./ldp_nb.mjs), through its frequency oracle; p + 1 the mean
// group (x̃) and p + 2 the square group (x̃²) of the q numeric features, through Approach 3's class-hiding vector
// (./gaussian.mjs: one numeric feature drawn uniformly, its vector + grid Laplace noise).
// Randomness, in the order of MixedProtocol.perturb for one respondent: the input (one random()), then either the
// oracle's draws or the vector's (the attribute, then the grid Laplace noise).
import * as gaussian from "./gaussian.mjs";
import { t } from "./i18n.mjs";
import { inputValue } from "./ldp_nb.mjs";
import * as oracles from "./oracles/index.mjs";
import { assign } from "./random.mjs";
import { answerCount, answerText, answerTo, boundedNoiseWords, epsilonText, joinAnd, ldpValidationOverview,
         ldpValidationSummary, ldpValidationWords, levelWords, lowerFirst, percent, questionText } from "./words.mjs";

/** The public input of the mean group (p + 1); the square group's is one more. */
export function meanInput(params) {
  return params.inputs.length;
}

/** One respondent's report: ``values`` in feature order (categorical codes, numbers in their units). */
export function perturb(params, values, classCode, rng) {
  const j = assign(params.assignment_cdf, rng);
  const mean = meanInput(params);
  if (j < mean) {
    const codes = params.categorical.map((position) => values[position]);
    return { input: j, report: oracles.perturb(params.inputs[j], inputValue(j, codes, classCode, params.classes), rng) };
  }
  const vectors = params.vectors;
  const z = params.numeric.map((position, i) => gaussian.normalise(vectors.attributes[i], values[position]));
  const entries = j === mean + 1 ? z.map((v) => v * v) : z;
  return { input: j, report: gaussian.vectors(vectors, entries, classCode, rng) };
}

// ---- Respondent-facing words (survey.mjs shows them through explain.mjs; tests/js/describe.test.mjs checks them) ----

/** The feature of oracle input j ≥ 1 (a categorical question), by name. */
const categoricalName = (protocol, j) => protocol.features[protocol.ldp.categorical[j - 1]].name;

/** The numeric feature of an Approach 3 report's attribute index, by name. */
const numericName = (protocol, attr) => protocol.ldp.vectors.attributes[attr].name;

/** Oracle input j in words: the class answer alone (j = 0), or a categorical answer together with the class answer. */
function partText(protocol, questions, j) {
  const cls = questionText(questions, protocol.class.name);
  if (j === 0) return t("your answer to {question}", { question: cls });
  return t("{part} together with your answer to {question}", { part: answerTo(protocol, questions, categoricalName(protocol, j)), question: cls });
}

/** An Approach 3 report's number in words: "your answer to “…”", squared for the square group. */
function numberText(protocol, questions, input, attr) {
  const part = answerTo(protocol, questions, numericName(protocol, attr));
  return input === meanInput(protocol.ldp) + 1 ? t("{part}, squared", { part }) : part;
}

/** Value v of oracle input j in words (the class answer, or the categorical answer a and class answer c of a·k + c). */
function valueText(protocol, questions, j) {
  const k = protocol.ldp.classes, cls = protocol.class.name;
  if (j === 0) return (v) => answerText(protocol, questions, cls, v);
  const feature = categoricalName(protocol, j);
  return (v) => t("{answer} with {classAnswer}", { answer: answerText(protocol, questions, feature, Math.floor(v / k)), classAnswer: answerText(protocol, questions, cls, v % k) });
}

/** Respondent-facing texts for a mixed survey, true for the protocol as served: ``figure``, ``overview`` (text
 * blocks: a string is a paragraph, an array a list) and ``review(body)``. ``questions``: the protocol API's display
 * questions; ``privacy``: its "privacy". */
export function describe(protocol, privacy, questions = []) {
  const params = protocol.ldp, vectors = params.vectors;
  const epsilon = params.epsilon ?? (privacy && privacy.epsilon_per_respondent);
  const cls = questionText(questions, protocol.class.name);
  const k = params.classes, q = params.numeric.length;
  const mean = meanInput(params), chance = (x) => t("a {percent} chance", { percent: percent(x) });
  const numbers = params.numeric.map((position) => answerTo(protocol, questions, protocol.features[position].name));
  const noise = gaussian.noiseWords(vectors);
  const level = levelWords(epsilon, privacy);
  const figure = level.figure;
  const overview = [
    t("Your browser picks ONE part of your answers at random and sends only that part, disguised; none of your other answers is sent. The part is one of these (the part chosen is visible in the message):"),
    [
      t("your answer to {question} alone ({chance})", { question: cls, chance: chance(params.assignment[0]) }),
      ...params.categorical.map((_, i) => t("{part} ({chance})", { part: partText(protocol, questions, i + 1), chance: chance(params.assignment[i + 1]) })),
      ...(q === 1
        ? [t("{part}, as a number ({chance})", { part: numbers[0], chance: chance(params.assignment[mean]) }),
           t("{part}, as a number squared ({chance})", { part: numbers[0], chance: chance(params.assignment[mean + 1]) })]
        : [t("one number, picked at random with equal chances among {parts} ({chance} in all)", { parts: joinAnd(numbers), chance: chance(params.assignment[mean]) }),
           t("the square of one number, picked at random with equal chances among the same {q} ({chance} in all)", { q, chance: chance(params.assignment[mean + 1]) })]),
    ],
    protocol.projection
      ? (q === 1
        ? t("Your numeric answers are first combined into 1 published combination (a projection), put on a scale from −1 to 1 between its published limits (a value beyond a limit counts as the limit).")
        : t("Your numeric answers are first combined into {m} published combinations (a projection), each put on a scale from −1 to 1 between its published limits (a value beyond a limit counts as the limit).", { m: q }))
      : t("Each number is first put on a scale from −1 (the question's lowest value) to 1 (its highest); a number beyond a limit counts as the limit."),
    t("When a number is the part sent, it is placed in a row with one entry per answer to {question} ({k} entries): yours in the entry of your answer, zeros in the others, so the disguise hides your answer to {question} as well. The row is sent, {noise}.",
      { question: cls, k, noise }),
    t("The part is disguised in your browser before it is sent; how depends on the part. For example, your answer to {question} alone has {domain} possible values. {disguise} The last step shows the exact disguise of the part chosen.",
      { question: cls, domain: params.inputs[0].domain, disguise: oracles.describe(params.inputs[0]) }),
    level.closing,
  ];
  const bounded = boundedNoiseWords(privacy, questions);  // the noise the browser really draws is bounded
  if (bounded) overview.push(bounded);
  const validation = ldpValidationOverview(protocol, questions);
  if (validation) overview.push(validation);

  function review(body) {
    const report = body.report;
    if (report.validation) return [ldpValidationWords(protocol, questions, report.validation.version)];
    const j = report.input;
    if (j < mean) {
      const input = params.inputs[j];
      return [
        t("This is the complete message that will be sent. Your browser chose, at random, to send the part numbered {j}: {part} (one of {domain} possible values). None of your other answers is in it.",
          { j, part: partText(protocol, questions, j), domain: input.domain }),
        t("How it is disguised: {disguise}", { disguise: lowerFirst(oracles.describe(input)) }),
        t("In the message, “input” is the number of the part chosen and “report” is {wire}. It may reflect your true answer, but nobody can be sure that it does.", { wire: oracles.describeWire(input) }),
      ];
    }
    const vars = { j, part: answerTo(protocol, questions, numericName(protocol, report.report[0])), k, question: cls, noise };
    return [
      j === mean
        ? t("This is the complete message that will be sent. Your browser chose, at random, to send the part numbered {j}: {part}, put on a scale from −1 to 1 and placed in a row of {k} entries (zeros except in the entry of your answer to {question}), {noise}. None of your other answers is in it.", vars)
        : t("This is the complete message that will be sent. Your browser chose, at random, to send the part numbered {j}: {part}, put on a scale from −1 to 1, then squared, and placed in a row of {k} entries (zeros except in the entry of your answer to {question}), {noise}. None of your other answers is in it.", vars),
      t("In the message, “input” is the number of the part chosen ({mean}: one of your numbers; {square}: one of your numbers squared) and “report” is the position of that number's question among the numeric questions (counting from 0), then the {k} entries of the row. What is sent may reflect your true answers, but nobody can be sure that it does.",
        { mean, square: mean + 1, k }),
    ];
  }
  return { figure, overview, review };
}

/** The review step's plain summary of ``report`` (what this message says), true for the protocol as served. */
export function summarize(report, protocol, questions = []) {
  if (report.validation) return ldpValidationSummary(protocol, questions, report.validation);
  const params = protocol.ldp;
  const j = report.input;
  if (j < meanInput(params)) {
    return t("Of your {answers}, one part — chosen at random: {part} — is sent in disguise, as {report}. None of your other answers is sent.", {
      answers: answerCount(protocol), part: partText(protocol, questions, j),
      report: oracles.summarize(params.inputs[j], report.report, valueText(protocol, questions, j)),
    });
  }
  const squared = j === meanInput(params) + 1;
  return t("Of your {answers}, one part — chosen at random: {one} — is sent: {scaled} and placed in the entry of your answer to {question} in a row of {k} (zeros elsewhere), {noisy}. None of your other answers is sent.", {
    answers: answerCount(protocol), one: numberText(protocol, questions, j, report.report[0]),
    scaled: squared ? t("put on a scale from −1 to 1, then squared,") : t("put on a scale from −1 to 1"),
    question: questionText(questions, protocol.class.name), k: params.classes,
    noisy: t("each entry with random noise added, so it may reflect your true answers, but nobody can be sure that it does"),
  });
}

/** One respondent's training report (protocol.mjs ``randomize``): codes and numbers as answered, one report. */
export function randomize(protocol, answers, classCode, rng) {
  return perturb(protocol.ldp, answers, classCode, rng);
}

/** The published model's input: codes and numbers as answered (Gaussian NB for the numbers). */
export function modelInput(protocol, answers) {
  return answers;
}
