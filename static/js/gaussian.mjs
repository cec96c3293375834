// LDP Gaussian Naive Bayes (aggregator/privacy/continuous/gaussian.py), one respondent.
// Group (public, by the shares CDF): 0 the class through the prior oracle, 1 the mean group (x̃), 2 the square
// group (x̃²), with class-hiding vectors: Approach 1 all m vectors + grid Laplace noise; Approach 2 one bit
// (Duchi et al.); Approach 3 one attribute's vector + grid Laplace noise.
import { discreteLaplace, randomizedRound } from "./noise.mjs";
import * as oracles from "./oracles/index.mjs";
import { assign } from "./random.mjs";
import { answerCount, answerText, codeText, epsilonText, answerTo, figure as fig, ldpValidationOverview, ldpValidationSummary,
         ldpValidationWords, lowerFirst, percent, questionText } from "./words.mjs";

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

function vectors(params, z, classCode, rng) {
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
  const q = (questions || []).find((x) => x.name === name);
  return q && q.labels && q.labels[code] !== undefined ? `“${q.labels[code]}”` : `number ${code}`;
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
  const numbers = m === 1 ? "your number" : "your numbers";
  const what = { 1: numbers, 2: `${numbers} squared` };
  const figure = `Privacy level: ${epsilonText(epsilon)} for everything you send (smaller is more private).`;
  const overview = [];
  overview.push(`Your browser picks at random ONE of three things to send, disguised: your answer to ${cls} (a ${percent(prior)} chance), ${numbers} (a ${percent(mean)} chance), or ${numbers} squared (a ${percent(square)} chance). Nothing else is sent.`);
  overview.push(protocol.projection
    ? `Your numeric answers are first combined into ${m} published combination${m === 1 ? "" : "s"} (a projection), each put on a scale from −1 to 1 between its published limits (a value beyond a limit counts as the limit).`
    : `Each number is first put on a scale from −1 (the question's lowest value) to 1 (its highest); a number beyond a limit counts as the limit.`);
  overview.push(`The numbers sit in a table with one column per answer to ${cls} (${k} columns): yours go in the column of your answer, zeros in the others, so the disguise hides your answer to ${cls} as well.`);
  const grid = params.grid && Number.isInteger(1 / params.grid) ? `1/${1 / params.grid}` : fig(params.grid ?? 0);
  const noise = `each entry rounded at random to a multiple of ${grid} and given random noise (Laplace noise of scale ${fig(params.laplace_scale ?? 0)}, so typically about ${fig(params.laplace_scale ?? 0)} away from the exact value, on a scale where your numbers lie between −1 and 1)`;
  const e = Math.exp(params.epsilon);
  const onebit = `sent as a single +1 or −1: +1 with a ${percent(1 / (e + 1))} chance when the entry is −1, rising to ${percent(e / (e + 1))} when it is 1 (50 % when it is 0)`;
  const when = `When ${numbers} ${m === 1 ? "is" : "are"} the thing sent`;
  if (params.approach === 1) overview.push(`${when}, the whole table is sent, ${noise}.`);
  else if (params.approach === 3) overview.push(m === 1 ? `${when}, its row of the table is sent, ${noise}.` : `${when}, only one of them, picked at random (which one is visible in the message), is sent: its row of the table, ${noise}.`);
  else overview.push(`${when}, only one entry of the table, picked at random (which one is visible in the message), is ${onebit}.`);
  overview.push(`When your answer to ${cls} is the thing sent (${k} possible values): ${lowerFirst(oracles.describe(params.prior_oracle))}`);
  overview.push(`This gives ${epsilonText(epsilon)} for everything you send (smaller is more private): what is sent may reflect your true answers, but nobody can be sure that it does.`);
  const validation = ldpValidationOverview(protocol, questions);
  if (validation) overview.push(validation);

  function review(body) {
    const report = body.report;
    if (report.validation) return [ldpValidationWords(protocol, questions, report.validation.version)];
    const out = [];
    const groupKey = `“group” says which of the three your browser chose (0: your answer to ${cls}; 1: ${numbers}; 2: ${numbers} squared).`;
    if (report.group === 0) {
      out.push(`This is the complete message that will be sent. Your browser chose, at random, to send your answer to ${cls} (one of ${k} possible values); none of your numbers is in it.`);
      out.push(`How it is disguised: ${lowerFirst(oracles.describe(params.prior_oracle))}`);
    } else if (params.approach === 1) {
      out.push(`This is the complete message that will be sent. Your browser chose, at random, to send ${what[report.group]}: the whole table (${m} row${m === 1 ? "" : "s"} of ${k}), ${noise}.`);
    } else if (params.approach === 3) {
      const [attr] = report.report;
      const one = `${answerTo(protocol, questions, params.attributes[attr].name)}${report.group === 2 ? ", squared" : ""}`;
      out.push(`This is the complete message that will be sent. Your browser chose, at random, to send ${m === 1 ? one : `${what[report.group]}, and of them only ${one}`}: its row of the table (${k} entries), ${noise}.${m > 1 && !protocol.projection ? " Your other numbers are not in it." : ""}`);
    } else {
      const [j] = report.report;
      const attr = Math.floor(j / k), c = j % k;
      out.push(`This is the complete message that will be sent. Your browser chose, at random, to send ${what[report.group]}, and of the table only one entry: the one for ${answerTo(protocol, questions, params.attributes[attr].name)} in the column of the answer ${classLabel(questions, protocol.class.name, c)} to ${cls} (it holds your scaled number${report.group === 2 ? " squared" : ""} if that is your answer, 0 otherwise), ${onebit}.`);
    }
    out.push(`${groupKey} What is sent may reflect your true answers, but nobody can be sure that it does.`);
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
  const of = `Of your ${answerCount(protocol)}`;
  if (report.group === 0) {
    const valueText = (v) => answerText(protocol, questions, protocol.class.name, v);
    return `${of}, only your answer to ${cls} — chosen at random — is sent, in disguise, as ${oracles.summarize(params.prior_oracle, report.report, valueText)}. None of your numbers is sent.`;
  }
  const numbers = m === 1 ? "your number" : "your numbers";
  const squared = report.group === 2 ? " squared" : "";
  const table = `a table with one column per answer to ${cls} (${m === 1 ? "your number" : "your numbers"}${squared} in the column of your answer, zeros elsewhere)`;
  const scaled = `put on a scale from −1 to 1${squared ? ", then squared," : ""}`;
  const noisy = "each entry with random noise added, so it may reflect your true answers, but nobody can be sure that it does";
  if (params.approach === 1) {
    return `${of}, only ${numbers}${squared} — chosen at random — ${m === 1 ? "is" : "are"} sent: ${scaled} and placed in ${table}; the whole table is sent, ${noisy}. Nothing else is sent.`;
  }
  if (params.approach === 3) {
    const one = answerTo(protocol, questions, params.attributes[report.report[0]].name);
    return `${of}, only ${m === 1 ? `${one} — chosen at random —` : `one of your numbers, chosen at random (here ${one}),`} is sent: ${scaled} and placed in the column of your answer to ${cls} in a row of ${k} (zeros elsewhere), ${noisy}. Nothing else is sent.`;
  }
  const [j, bit] = report.report;
  const attr = Math.floor(j / k), c = j % k;
  const entry = `${answerTo(protocol, questions, params.attributes[attr].name)} (${scaled.replace(/,$/, "")}) if your answer to ${cls} is ${codeText(protocol, questions, protocol.class.name, c)}, 0 otherwise`;
  return `${of}, only a single ${bit > 0 ? "+1" : "−1"} is sent, about one entry, picked at random, of ${table}: here the entry that holds ${entry}. The sign is drawn at random, +1 being the more likely the higher that entry is (50 % when it is 0), so it may or may not reflect your answers. Nothing else is sent.`;
}
