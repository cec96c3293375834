// LDP Naive Bayes, discrete (aggregator/privacy/naive_bayes/ldp.py), one respondent.
// Input 0 is the class (value c); input i + 1 is feature i jointly encoded as a·k + c.
// One-report: draw the input by the published assignment CDF, report it with the full ε.
// Split: report every input, in order, each with ε/(m+1).
import * as oracles from "./oracles/index.mjs";
import { assign } from "./random.mjs";
import { answerCount, answerText, binsText, epsilonText, answerTo, figure as fig, ldpValidationOverview,
         ldpValidationSummary, ldpValidationWords, lowerFirst, percent, questionText } from "./words.mjs";

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
  if (j === 0) return `your answer to ${cls}`;
  return `${answerTo(protocol, questions, protocol.features[j - 1].name)} together with your answer to ${cls}`;
}

function chances(values) {
  const lo = Math.min(...values), hi = Math.max(...values);
  return hi - lo < 1e-12 ? `${percent(lo)} each` : `between ${percent(lo)} and ${percent(hi)}, depending on the question`;
}

/** Respondent-facing texts for a discrete LDP Naive Bayes survey (SPEC §3–§4: one-report or split), true for the
 * protocol as served: ``figure``, ``overview`` (text blocks) and ``review(body)``. A text block is a string or a list
 * of strings. ``questions``: the protocol API's display questions; ``privacy``: its "privacy". */
export function describe(protocol, privacy, questions = []) {
  const params = protocol.ldp;
  const epsilon = params.epsilon ?? (privacy && privacy.epsilon_per_respondent);
  const cls = questionText(questions, protocol.class.name);
  const n = params.inputs.length;
  const figure = `Privacy level: ${epsilonText(epsilon)} for everything you send (smaller is more private).`;
  const overview = [];
  if (params.strategy === "one-report") {
    overview.push(`Your browser picks ONE part of your answers at random and sends only that part, disguised; none of your other answers is sent. The part is either your answer to ${cls} alone (a ${percent(params.assignment[0])} chance), or your answer to one other question together with your answer to ${cls} (${n - 1} such parts, a chance of ${chances(params.assignment.slice(1))}).`);
    overview.push(`The part is disguised in your browser before it is sent; how depends on the part. For example, your answer to ${cls} alone has ${params.inputs[0].domain} possible values. ${oracles.describe(params.inputs[0])} The last step shows the exact disguise of the part chosen.`);
  } else {
    const eps = params.inputs.map((input) => input.epsilon);
    const lo = Math.min(...eps), hi = Math.max(...eps);
    overview.push(`Your browser sends every one of your answers, in ${n} parts, each disguised separately: your answer to ${cls} alone, and your answer to each other question together with your answer to ${cls}.`);
    overview.push(`The privacy budget (${epsilonText(epsilon)}) is shared among the parts (${hi - lo < 1e-12 ? `ε = ${fig(lo)} each` : `ε between ${fig(lo)} and ${fig(hi)}`}). Your answer to ${cls} is in every part, so for that answer the whole ${epsilonText(epsilon)} counts.`);
    overview.push(`How a part is disguised depends on it. For example, your answer to ${cls} alone has ${params.inputs[0].domain} possible values. ${oracles.describe(params.inputs[0])} The last step shows the exact disguise of every part.`);
  }
  overview.push(`This gives ${epsilonText(epsilon)} for everything you send (smaller is more private): what is sent may reflect your true answers, but nobody can be sure that it does.`);
  if (privacy && privacy.epsilon_note) overview.push(`${privacy.epsilon_note}.`);  // e.g. SHE/THE's bounded noise
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
        `This is the complete message that will be sent. Your browser chose, at random, to send the part numbered ${j}: ${partText(protocol, questions, j)} (one of ${input.domain} possible values). None of your other answers is in it.`,
        `How it is disguised: ${lowerFirst(oracles.describe(input))}`,
        `In the message, “input” is the number of the part chosen and “report” is ${oracles.describeWire(input)}. It may reflect your true answer, but nobody can be sure that it does.`,
      ];
    }
    return [
      `This is the complete message that will be sent: under “reports”, one disguised part for each of your answers, in this order (${epsilonText(epsilon)} in total):`,
      params.inputs.map((input, j) => `${partText(protocol, questions, j)} (${input.domain} possible values, ε = ${fig(input.epsilon)}): ${lowerFirst(oracles.describe(input))} Sent as ${oracles.describeWire(input)}.`),
      "Each part may reflect your true answers, but nobody can be sure that it does.",
    ];
  }
  return { figure, overview, review };
}

/** Value v of input j in words: the class answer (j = 0), or the feature answer a and class answer c of v = a·k + c. */
function valueText(protocol, questions, j) {
  const k = protocol.ldp.classes, cls = protocol.class.name;
  if (j === 0) return (v) => answerText(protocol, questions, cls, v);
  const feature = protocol.features[j - 1].name;
  return (v) => `${answerText(protocol, questions, feature, Math.floor(v / k))} with ${answerText(protocol, questions, cls, v % k)}`;
}

/** The review step's plain summary of ``report`` (what this message says), true for the protocol as served. */
export function summarize(report, protocol, questions = []) {
  if (report.validation) return ldpValidationSummary(protocol, questions, report.validation);
  const params = protocol.ldp;
  const cls = questionText(questions, protocol.class.name);
  if (params.strategy === "one-report") {
    const j = report.input;
    return `Of your ${answerCount(protocol)}, one part — chosen at random: ${partText(protocol, questions, j)} — is sent in disguise, as ${oracles.summarize(params.inputs[j], report.report, valueText(protocol, questions, j))}. None of your other answers is sent.`;
  }
  const n = params.inputs.length;
  const pairs = protocol.projection ? "one other answer of yours (or a published combination of your numbers)" : "your answer to one other question";
  return `All of your ${answerCount(protocol)} are sent, in ${n} parts, each disguised separately: your answer to ${cls} alone, and ${n - 1} part${n - 1 === 1 ? "" : "s"} pairing your answer to ${cls} with ${pairs}. Each part may reflect your true answers, but nobody can be sure that it does; the list below says how each is disguised.`;
}
