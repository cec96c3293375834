// Plain words shared by the mechanisms' respondent-facing texts (describe() in mrr.mjs, ldp_nb.mjs, gaussian.mjs,
// mixed.mjs, and each frequency oracle's describe() in oracles/, which the LDP modules reach through
// oracles/index.mjs).
// Every figure printed comes from the protocol as served (the p, q, θ, ε the browser really uses), rounded so that a
// rounded figure is never a false one: a probability below 1 never prints as 100 %, above 0 never as 0 %.
// A text block is a string (one paragraph) or an array of strings (a list).
// Every sentence goes through the catalogue (./i18n.mjs: English is the key; static/js/locale/de.mjs the German), and
// a German page writes decimals with a comma: the translations say the same as the English, figure for figure.
import { currentLanguage, t } from "./i18n.mjs";
import { findQuestion } from "./questions.mjs";

/** ``text`` in quotation marks as the page's language writes them (“…”, German „…“). */
export function quote(text) {
  return t("“{text}”", { text });
}

/** A decimal number as the page's language writes it ("0.5", German "0,5"). */
export function decimal(text) {
  return currentLanguage() === "de" ? text.replace(".", ",") : text;
}

/** The space before "%": a no-break space, so that a narrow screen never wraps "73.1" and "%" apart. */
const BEFORE_PERCENT = "\u00a0";

/** A probability as a percentage with up to 3 significant digits (0.731 → "73.1 %", 0.5 → "50 %", with
 * `BEFORE_PERCENT`). */
export function percent(x) {
  if (x >= 1) return `100${BEFORE_PERCENT}%`;
  if (x <= 0) return `0${BEFORE_PERCENT}%`;
  const text = Number((x * 100).toPrecision(3)).toString();
  if (text === "100") return t("more than {figure} %", { figure: decimal("99.9") }).replace(/ %$/, `${BEFORE_PERCENT}%`);
  return `${decimal(text)}${BEFORE_PERCENT}%`;
}

/** A number with up to 3 significant digits (1 → "1", 1/3 → "0.333", 4.0430 → "4.04"). */
export function figure(x) {
  return decimal(Number(Number(x).toPrecision(3)).toString());
}

/** "ε = 1", or the plain statement that no finite ε holds (null or non-finite figure). */
export function epsilonText(epsilon) {
  return epsilon !== null && epsilon !== undefined && Number.isFinite(Number(epsilon))
    ? `ε = ${figure(epsilon)}` : t("no finite ε (no limit on what can be learnt)");
}

/** The display text of the question named ``name`` (from the protocol API's "questions"), quoted. */
export function questionText(questions, name) {
  const q = findQuestion(questions, name);
  return quote(q && q.text ? q.text : name);
}

/** "your answer to “…”" for a feature of the engine: a question, or a published combination of the numeric
 * questions (PCA/DCA, SPEC §5c). */
export function answerTo(protocol, questions, name) {
  if ((protocol.questions || []).some((q) => q.name === name) || !protocol.projection) return t("your answer to {question}", { question: questionText(questions, name) });
  const numeric = protocol.questions.filter((q) => q.kind === "numeric").map((q) => questionText(questions, q.name));
  return t("a published combination (“{name}”) of your answers to {questions}", { name, questions: joinAnd(numeric) });
}

export const lowerFirst = (text) => text.charAt(0).toLowerCase() + text.slice(1);

export function joinAnd(items) {
  if (items.length <= 1) return items.join("");
  return t("{items} and {last}", { items: items.slice(0, -1).join(", "), last: items[items.length - 1] });
}

/** Whether the server's figures (the protocol API's "privacy") hold an ∞ for the respondent: the browser's bounded
 * noise (SHE/THE, Gaussian Approaches 1 and 3, mixed surveys) has outputs only one answer can give, so the level the
 * page states is the one with ideal noise. */
export function idealNoiseOnly(privacy) {
  return privacy != null && Number(privacy.epsilon_per_respondent) === Infinity && privacy.epsilon_edge_mass != null;
}

/** The sentence on that bounded noise in the page's language, naming exactly the questions whose figure is ∞ and the
 * largest chance of such an output per message (``epsilon_edge_mass``); null when there is none. */
export function boundedNoiseWords(privacy, questions) {
  if (!idealNoiseOnly(privacy)) return null;
  const infinite = Object.entries(privacy.epsilon_per_question || {})
    .filter(([, e]) => Number(e) === Infinity).map(([name]) => questionText(questions, name));
  if (!infinite.length) return null;
  return t("Your browser draws that noise from bounded random values: a value at the very edge of the noise can only come from one answer, so strictly no finite level holds for {questions}; such values have a chance of at most about {mass} per message.",
    { questions: joinAnd(infinite), mass: Number(privacy.epsilon_edge_mass).toExponential(0) });
}

/** The privacy figure line and the overview's closing sentence, with "with ideal noise" where the figures hold an ∞. */
export function levelWords(epsilon, privacy) {
  const ideal = idealNoiseOnly(privacy);
  const e = { epsilon: epsilonText(epsilon) };
  return {
    figure: ideal ? t("Privacy level: {epsilon} for everything you send, with ideal noise (smaller is more private).", e)
      : t("Privacy level: {epsilon} for everything you send (smaller is more private).", e),
    closing: ideal ? t("With ideal noise this gives {epsilon} for everything you send (smaller is more private): what is sent may reflect your true answers, but nobody can be sure that it does.", e)
      : t("This gives {epsilon} for everything you send (smaller is more private): what is sent may reflect your true answers, but nobody can be sure that it does.", e),
  };
}

/** "1 other value" / "5 other values". */
export function others(n, noun = "value") {
  if (noun === "value") return n === 1 ? t("the other possible value") : t("{n} other possible values", { n });
  return `${n === 1 ? "the" : n} other possible ${noun}${n === 1 ? "" : "s"}`;
}

/** The validation share (SPEC validation): how a respondent is drawn, in words, or null when there is none. */
export function validationShareText(protocol) {
  const share = protocol.validation ? protocol.validation.share : 0;
  return share > 0 ? t("a {percent} chance", { percent: percent(share) }) : null;
}

/** What an LDP validation respondent sends (survey_protocol ``encode_validation``): one randomized right/wrong bit
 * about the published model; the same words for ldp_nb.mjs and gaussian.mjs. */
export function ldpValidationWords(protocol, questions, version) {
  const oracle = protocol.validation.oracle;
  return t("You were drawn at random by your browser ({chance}) to check the current model instead of adding to it. Your browser ran model version {version} on your answers to guess your answer to {question}, and sends only one mark about it: 1 if the guess was right, 0 if it was wrong — kept with probability {p} and flipped otherwise. None of your answers is in this message.",
    { chance: validationShareText(protocol), version, question: questionText(questions, protocol.class.name), p: percent(oracle.p) });
}

export function ldpValidationOverview(protocol, questions) {
  const chance = validationShareText(protocol);
  if (!chance) return null;
  return t("When a model has already been published, your browser may instead ({chance}) check it: it runs the model on your answers to guess your answer to {question} and sends only whether the guess was right — one mark, itself randomized — instead of any of your answers.",
    { chance, question: questionText(questions, protocol.class.name) });
}

/** Numeric answers outside Gaussian NB are sent as the equal-width range they fall in (SPEC §5, EWD). */
export function binsText(protocol) {
  if (!protocol.features.some((f) => f.kind === "numeric")) return null;
  return protocol.projection
    ? t("Numbers are never sent as such: they are first combined as published (a projection), and only which of {bins} equal ranges between its published limits each combination falls in is used.", { bins: protocol.numeric.bins })
    : t("A number is never sent as such: only which of {bins} equal ranges between the question's limits it falls in is used.", { bins: protocol.numeric.bins });
}

// ---- The review step's summary (each mechanism's summarize(); shared pieces) ----

/** How many questions the respondent answered: the protocol's questions and the class question. */
export function answerCount(protocol) {
  const n = (protocol.questions || []).length + 1;
  return n === 1 ? t("1 answer") : t("{n} answers", { n });
}

/** Answer ``code`` of the engine's feature or class ``name``, in words: a choice's label (display label, else the
 * protocol's value), or for a binned number the equal range it stands for (SPEC §5, EWD). */
export function codeText(protocol, questions, name, code) {
  const q = findQuestion(questions, name);
  const spec = [...(protocol.features || []), protocol.class].find((f) => f && f.name === name);
  if (spec && spec.kind === "numeric" && protocol.numeric && protocol.numeric.bins) {
    const width = (spec.high - spec.low) / protocol.numeric.bins;
    return t("a number from {low} to {high}", { low: figure(spec.low + code * width), high: figure(spec.low + (code + 1) * width) });
  }
  if (q && q.labels && q.labels[code] !== undefined) return quote(q.labels[code]);
  if (spec && spec.values && spec.values[code] !== undefined) return quote(spec.values[code]);
  return t("choice number {code}", { code });
}

/** "“yes” for “Are you ill?”": answer ``code`` to ``name``. */
export function answerText(protocol, questions, name, code) {
  return t("{answer} for {question}", { answer: codeText(protocol, questions, name, code), question: questionText(questions, name) });
}

/** The summary of an LDP validation report (``encode_validation``): one randomized right/wrong mark. */
export function ldpValidationSummary(protocol, questions, validation) {
  const oracle = protocol.validation.oracle;
  const mark = validation.report === 1 ? t("1 (“right”)") : t("0 (“wrong”)");
  return t("None of your {answers} is sent. Only one mark is: whether the published model (version {version}), run in your browser on your answers, guessed your answer to {question} right. This report says {mark}, which is the truth with probability {p} and the opposite otherwise; so it may or may not be the truth.",
    { answers: answerCount(protocol), version: validation.version, question: questionText(questions, protocol.class.name), mark, p: percent(oracle.p) });
}
