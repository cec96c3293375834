// LDP Gaussian Naive Bayes (aggregator/privacy/continuous/gaussian.py), one respondent.
// Group (public, by the shares CDF): 0 the class through the prior oracle, 1 the mean group (x̃), 2 the square
// group (x̃²), with class-hiding vectors: Approach 1 all m vectors + grid Laplace noise; Approach 2 one bit
// (Duchi et al.); Approach 3 one attribute's vector + grid Laplace noise.
import { discreteLaplace, randomizedRound } from "./noise.mjs";
import { findQuestion } from "./questions.mjs";
import { t } from "./i18n.mjs";
import * as oracles from "./oracles/index.mjs";
import { assign } from "./random.mjs";
import { answerCount, answerText, codeText, epsilonText, answerTo, figure as fig, ldpValidationOverview, ldpValidationSummary,
         ldpValidationWords, lowerFirst, percent, questionText, quote, boundedNoiseWords, levelWords } from "./words.mjs";

export function normalise(attribute, x) {
  const clipped = Math.min(Math.max(x, attribute.low), attribute.high);
  return (2.0 * (clipped - attribute.low)) / (attribute.high - attribute.low) - 1.0;
}

/** Grid Laplace of gaussian.py ``_laplace``: randomized rounding of every entry, then discrete Laplace noise of the
 * published scale Δ/ε (rounding keeps a class-hiding vector one, so Δ needs no widening). */
function gridLaplace(params, values, rng) {
  const rounded = randomizedRound(rng, values, params.grid);
  const noise = discreteLaplace(rng, params.laplace_scale, values.length, params.grid);
  return rounded.map((x, i) => x + noise[i]);
}

/** The class-hiding vector report of the approach (``params``: the published Gaussian parameters) for the normalised
 * entries ``z`` (x̃ or x̃²) and the class; a mixed survey's numeric groups use it too (./mixed.mjs). */
export function vectors(params, z, classCode, rng) {
  const m = params.attributes.length, k = params.classes;
  if (params.approach === 1) {
    const flat = new Array(m * k).fill(0);
    z.forEach((value, i) => { flat[i * k + classCode] = value; });
    const noisy = gridLaplace(params, flat, rng);
    return Array.from({ length: m }, (_, i) => noisy.slice(i * k, (i + 1) * k));
  }
  if (params.approach === 2) {
    const j = rng.integers(0, m * k);
    const attr = Math.floor(j / k), cls = j % k;
    const v = cls === classCode ? z[attr] : 0.0;
    const e = Math.exp(params.epsilon);
    const u = rng.random() < (v * (e - 1) + e + 1) / (2 * e + 2);
    return [j, u ? 1 : -1];
  }
  const attr = rng.integers(0, m);
  const vector = new Array(k).fill(0);
  vector[classCode] = z[attr];
  return [attr, gridLaplace(params, vector, rng)];
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
  const e = Math.exp(params.epsilon);
  const onebit = t("sent as a single +1 or −1: +1 with a {low} chance when the entry is −1, rising to {high} when it is 1 (50 % when it is 0)",
    { low: percent(1 / (e + 1)), high: percent(e / (e + 1)) });
  if (params.approach === 1) {
    overview.push(m === 1 ? t("When your number is the thing sent, the whole table is sent, {noise}.", { noise })
      : t("When your numbers are the thing sent, the whole table is sent, {noise}.", { noise }));
  } else if (params.approach === 3) {
    overview.push(m === 1 ? t("When your number is the thing sent, its row of the table is sent, {noise}.", { noise })
      : t("When your numbers are the thing sent, only one of them, picked at random (which one is visible in the message), is sent: its row of the table, {noise}.", { noise }));
  } else {
    overview.push(m === 1 ? t("When your number is the thing sent, only one entry of the table, picked at random (which one is visible in the message), is {onebit}.", { onebit })
      : t("When your numbers are the thing sent, only one entry of the table, picked at random (which one is visible in the message), is {onebit}.", { onebit }));
  }
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
    } else if (params.approach === 1) {
      out.push(m === 1
        ? t("This is the complete message that will be sent. Your browser chose, at random, to send {what}: the whole table (1 row of {k}), {noise}.", { what: what[report.group], k, noise })
        : t("This is the complete message that will be sent. Your browser chose, at random, to send {what}: the whole table ({m} rows of {k}), {noise}.", { what: what[report.group], m, k, noise }));
    } else if (params.approach === 3) {
      const [attr] = report.report;
      const part = answerTo(protocol, questions, params.attributes[attr].name);
      const one = report.group === 2 ? t("{part}, squared", { part }) : part;
      out.push(m === 1
        ? t("This is the complete message that will be sent. Your browser chose, at random, to send {one}: its row of the table ({k} entries), {noise}.", { one, k, noise })
        : t("This is the complete message that will be sent. Your browser chose, at random, to send {what}, and of them only {one}: its row of the table ({k} entries), {noise}.{others}",
          { what: what[report.group], one, k, noise, others: protocol.projection ? "" : ` ${t("Your other numbers are not in it.")}` }));
    } else {
      const [j] = report.report;
      const attr = Math.floor(j / k), c = j % k;
      out.push(t("This is the complete message that will be sent. Your browser chose, at random, to send {what}, and of the table only one entry: the one for {part} in the column of the answer {label} to {question} ({holds}), {onebit}.", {
        what: what[report.group], part: answerTo(protocol, questions, params.attributes[attr].name),
        label: classLabel(questions, protocol.class.name, c), question: cls, onebit,
        holds: report.group === 2 ? t("it holds your scaled number squared if that is your answer, 0 otherwise")
          : t("it holds your scaled number if that is your answer, 0 otherwise"),
      }));
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
  if (params.approach === 1) {
    return m === 1
      ? t("Of your {answers}, only {numbers} — chosen at random — is sent: {scaled} and placed in {table}; the whole table is sent, {noisy}. Nothing else is sent.", { answers, numbers, scaled, table, noisy })
      : t("Of your {answers}, only {numbers} — chosen at random — are sent: {scaled} and placed in {table}; the whole table is sent, {noisy}. Nothing else is sent.", { answers, numbers, scaled, table, noisy });
  }
  if (params.approach === 3) {
    const one = answerTo(protocol, questions, params.attributes[report.report[0]].name);
    const vars = { answers, one, scaled, question: cls, k, noisy };
    return m === 1
      ? t("Of your {answers}, only {one} — chosen at random — is sent: {scaled} and placed in the column of your answer to {question} in a row of {k} (zeros elsewhere), {noisy}. Nothing else is sent.", vars)
      : t("Of your {answers}, only one of your numbers, chosen at random (here {one}), is sent: {scaled} and placed in the column of your answer to {question} in a row of {k} (zeros elsewhere), {noisy}. Nothing else is sent.", vars);
  }
  const [j, bit] = report.report;
  const attr = Math.floor(j / k), c = j % k;
  const entry = t("{part} ({scaled}) if your answer to {question} is {answer}, 0 otherwise", {
    part: answerTo(protocol, questions, params.attributes[attr].name), scaled: scaled.replace(/,$/, ""), question: cls,
    answer: codeText(protocol, questions, protocol.class.name, c),
  });
  return t("Of your {answers}, only a single {sign} is sent, about one entry, picked at random, of {table}: here the entry that holds {entry}. The sign is drawn at random, +1 being the more likely the higher that entry is (50 % when it is 0), so it may or may not reflect your answers. Nothing else is sent.",
    { answers, sign: bit > 0 ? "+1" : "−1", table, entry });
}
