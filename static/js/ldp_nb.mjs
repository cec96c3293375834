// LDP Naive Bayes, discrete (aggregator/privacy/naive_bayes/ldp.py), one respondent.
// Input 0 is the class (value c); input i + 1 is feature i jointly encoded as a·k + c.
// One-report: draw the input by the published assignment CDF, report it with the full ε.
// Split: report every input, in order, each with ε/(m+1).
import { engineCodes } from "./inputs.mjs";
import { t } from "./i18n.mjs";
import * as oracles from "./oracles/index.mjs";
import { assign } from "./random.mjs";
import { answerCount, answerText, binsText, epsilonText, answerTo, figure as fig, ldpValidationOverview,
         ldpValidationSummary, ldpValidationWords, lowerFirst, percent, questionText, boundedNoiseWords,
         levelWords } from "./words.mjs";

export function inputValue(j, codes, classCode, k) {
  return j === 0 ? classCode : codes[j - 1] * k + classCode;
}

export function perturb(params, codes, classCode, rng) {
  const k = params.classes;
  if (params.strategy === "one-report") {
    const j = assign(params.assignment_cdf, rng);
    return { input: j, report: oracles.perturb(params.inputs[j], inputValue(j, codes, classCode, k), rng) };
  }
  return { reports: params.inputs.map((input, j) => oracles.perturb(input, inputValue(j, codes, classCode, k), rng)) };
}

// ---- Respondent-facing words (survey.mjs shows them; tests/js/describe.test.mjs checks them) ----

/** Input j in words: the class answer alone (j = 0), or feature j − 1 together with the class answer. */
function partText(protocol, questions, j) {
  const cls = questionText(questions, protocol.class.name);
  if (j === 0) return t("your answer to {question}", { question: cls });
  return t("{part} together with your answer to {question}", { part: answerTo(protocol, questions, protocol.features[j - 1].name), question: cls });
}

function chances(values) {
  const lo = Math.min(...values), hi = Math.max(...values);
  return hi - lo < 1e-12 ? t("{percent} each", { percent: percent(lo) })
    : t("between {low} and {high}, depending on the question", { low: percent(lo), high: percent(hi) });
}

/** Respondent-facing texts for a discrete LDP Naive Bayes survey (SPEC §3–§4: one-report or split), true for the
 * protocol as served: ``figure``, ``overview`` (text blocks) and ``review(body)``. A text block is a string or a list
 * of strings. ``questions``: the protocol API's display questions; ``privacy``: its "privacy". */
export function describe(protocol, privacy, questions = []) {
  const params = protocol.ldp;
  const epsilon = params.epsilon ?? (privacy && privacy.epsilon_per_respondent);
  const cls = questionText(questions, protocol.class.name);
  const n = params.inputs.length;
  const level = levelWords(epsilon, privacy);
  const figure = level.figure;
  const overview = [];
  if (params.strategy === "one-report") {
    overview.push(t("Your browser picks ONE part of your answers at random and sends only that part, disguised; none of your other answers is sent. The part is either your answer to {question} alone (a {chance} chance), or your answer to one other question together with your answer to {question} ({parts} such parts, a chance of {chances}).",
      { question: cls, chance: percent(params.assignment[0]), parts: n - 1, chances: chances(params.assignment.slice(1)) }));
    if (params.allocation === "adaptive") {
      overview.push({
        model: t("These chances are set each day (UTC) from the newest model published before that day, so that more people answer where the model needs it most; they are the same for everyone that day and do not depend on your answers."),
        sample: t("Until the survey's first model, these chances are set from a public sample of example answers, so that more people answer where the model will need it most; they are the same for everyone that day and do not depend on your answers."),
      }[params.assignment_source] || t("Until the survey's first model every part has the same chance; after that, the chances are set each day (UTC) from the newest model, the same for everyone that day and independent of your answers."));
    }
    overview.push(t("The part is disguised in your browser before it is sent; how depends on the part. For example, your answer to {question} alone has {domain} possible values. {disguise} The last step shows the exact disguise of the part chosen.",
      { question: cls, domain: params.inputs[0].domain, disguise: oracles.describe(params.inputs[0]) }));
  } else {
    const eps = params.inputs.map((input) => input.epsilon);
    const lo = Math.min(...eps), hi = Math.max(...eps);
    overview.push(t("Your browser sends every one of your answers, in {n} parts, each disguised separately: your answer to {question} alone, and your answer to each other question together with your answer to {question}.", { n, question: cls }));
    overview.push(t("The privacy budget ({epsilon}) is shared among the parts ({shares}). Your answer to {question} is in every part, so for that answer the whole {epsilon} counts.", {
      epsilon: epsilonText(epsilon), question: cls,
      shares: hi - lo < 1e-12 ? t("ε = {epsilon} each", { epsilon: fig(lo) }) : t("ε between {low} and {high}", { low: fig(lo), high: fig(hi) }),
    }));
    overview.push(t("How a part is disguised depends on it. For example, your answer to {question} alone has {domain} possible values. {disguise} The last step shows the exact disguise of every part.",
      { question: cls, domain: params.inputs[0].domain, disguise: oracles.describe(params.inputs[0]) }));
  }
  overview.push(level.closing);
  const bounded = boundedNoiseWords(privacy, questions);  // SHE/THE: the noise the browser really draws is bounded
  if (bounded) overview.push(bounded);
  const bins = binsText(protocol);
  if (bins) overview.push(bins);
  const validation = ldpValidationOverview(protocol, questions);
  if (validation) overview.push(validation);

  function review(body) {
    const report = body.report;
    if (report.validation) return [ldpValidationWords(protocol, questions, report.validation.version)];
    if (params.strategy === "one-report") {
      const j = report.input, input = params.inputs[j];
      return [
        t("This is the complete message that will be sent. Your browser chose, at random, to send the part numbered {j}: {part} (one of {domain} possible values). None of your other answers is in it.",
          { j, part: partText(protocol, questions, j), domain: input.domain }),
        t("How it is disguised: {disguise}", { disguise: lowerFirst(oracles.describe(input)) }),
        t("In the message, “input” is the number of the part chosen and “report” is {wire}. It may reflect your true answer, but nobody can be sure that it does.", { wire: oracles.describeWire(input) }),
      ];
    }
    return [
      t("This is the complete message that will be sent: under “reports”, one disguised part for each of your answers, in this order ({epsilon} in total):", { epsilon: epsilonText(epsilon) }),
      params.inputs.map((input, j) => t("{part} ({domain} possible values, ε = {epsilon}): {disguise} Sent as {wire}.", {
        part: partText(protocol, questions, j), domain: input.domain, epsilon: fig(input.epsilon),
        disguise: lowerFirst(oracles.describe(input)), wire: oracles.describeWire(input),
      })),
      t("Each part may reflect your true answers, but nobody can be sure that it does."),
    ];
  }
  return { figure, overview, review };
}

/** Value v of input j in words: the class answer (j = 0), or the feature answer a and class answer c of v = a·k + c. */
function valueText(protocol, questions, j) {
  const k = protocol.ldp.classes, cls = protocol.class.name;
  if (j === 0) return (v) => answerText(protocol, questions, cls, v);
  const feature = protocol.features[j - 1].name;
  return (v) => t("{answer} with {classAnswer}", { answer: answerText(protocol, questions, feature, Math.floor(v / k)), classAnswer: answerText(protocol, questions, cls, v % k) });
}

/** The review step's plain summary of ``report`` (what this message says), true for the protocol as served. */
export function summarize(report, protocol, questions = []) {
  if (report.validation) return ldpValidationSummary(protocol, questions, report.validation);
  const params = protocol.ldp;
  const cls = questionText(questions, protocol.class.name);
  if (params.strategy === "one-report") {
    const j = report.input;
    return t("Of your {answers}, one part — chosen at random: {part} — is sent in disguise, as {report}. None of your other answers is sent.", {
      answers: answerCount(protocol), part: partText(protocol, questions, j),
      report: oracles.summarize(params.inputs[j], report.report, valueText(protocol, questions, j)),
    });
  }
  const n = params.inputs.length;
  const pairs = protocol.projection ? t("one other answer of yours (or a published combination of your numbers)") : t("your answer to one other question");
  const vars = { answers: answerCount(protocol), n, m: n - 1, question: cls, pairs };
  return n - 1 === 1
    ? t("All of your {answers} are sent, in {n} parts, each disguised separately: your answer to {question} alone, and {m} part pairing your answer to {question} with {pairs}. Each part may reflect your true answers, but nobody can be sure that it does; the list below says how each is disguised.", vars)
    : t("All of your {answers} are sent, in {n} parts, each disguised separately: your answer to {question} alone, and {m} parts pairing your answer to {question} with {pairs}. Each part may reflect your true answers, but nobody can be sure that it does; the list below says how each is disguised.", vars);
}

/** One respondent's training report (protocol.mjs ``randomize``) from the bin codes. */
export function randomize(protocol, answers, classCode, rng) {
  return perturb(protocol.ldp, engineCodes(protocol, answers), classCode, rng);
}

/** The published model's input: numeric features binned. */
export function modelInput(protocol, answers) {
  return engineCodes(protocol, answers);
}
