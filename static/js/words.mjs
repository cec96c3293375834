// Plain words shared by the mechanisms' respondent-facing texts (describe() in mrr.mjs, ldp_nb.mjs, gaussian.mjs,
// and each frequency oracle's describe() in oracles/, which ldp_nb.mjs and gaussian.mjs reach through oracles/index.mjs).
// Every figure printed comes from the protocol as served (the p, q, θ, ε the browser really uses), rounded so that a
// rounded figure is never a false one: a probability below 1 never prints as 100 %, above 0 never as 0 %.
// A text block is a string (one paragraph) or an array of strings (a list).

/** A probability as a percentage with up to 3 significant digits (0.731 → "73.1 %", 0.5 → "50 %"). */
export function percent(x) {
  if (x >= 1) return "100 %";
  if (x <= 0) return "0 %";
  const text = Number((x * 100).toPrecision(3)).toString();
  if (text === "100") return "more than 99.9 %";
  return `${text} %`;
}

/** A number with up to 3 significant digits (1 → "1", 1/3 → "0.333", 4.0430 → "4.04"). */
export function figure(x) {
  return Number(Number(x).toPrecision(3)).toString();
}

/** "ε = 1", or the plain statement that no finite ε holds (null or non-finite figure). */
export function epsilonText(epsilon) {
  return epsilon !== null && epsilon !== undefined && Number.isFinite(Number(epsilon))
    ? `ε = ${figure(epsilon)}` : "no finite ε (no limit on what can be learnt)";
}

/** The display text of the question named ``name`` (from the protocol API's "questions"), quoted. */
export function questionText(questions, name) {
  const q = (questions || []).find((x) => x.name === name);
  return `“${q && q.text ? q.text : name}”`;
}

/** "your answer to “…”" for a feature of the engine: a question, or a published combination of the numeric
 * questions (PCA/DCA, SPEC §5c). */
export function answerTo(protocol, questions, name) {
  if ((protocol.questions || []).some((q) => q.name === name) || !protocol.projection) return `your answer to ${questionText(questions, name)}`;
  const numeric = protocol.questions.filter((q) => q.kind === "numeric").map((q) => questionText(questions, q.name));
  return `a published combination (“${name}”) of your answers to ${joinAnd(numeric)}`;
}

export const lowerFirst = (text) => text.charAt(0).toLowerCase() + text.slice(1);

export function joinAnd(items) {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** "1 other value" / "5 other values". */
export function others(n, noun = "value") {
  return `${n === 1 ? "the" : n} other possible ${noun}${n === 1 ? "" : "s"}`;
}

/** The validation share (SPEC validation): how a respondent is drawn, in words, or null when there is none. */
export function validationShareText(protocol) {
  const share = protocol.validation ? protocol.validation.share : 0;
  return share > 0 ? `a ${percent(share)} chance` : null;
}

/** What an LDP validation respondent sends (survey_protocol ``encode_validation``): one randomized right/wrong bit
 * about the published model; the same words for ldp_nb.mjs and gaussian.mjs. */
export function ldpValidationWords(protocol, questions, version) {
  const oracle = protocol.validation.oracle;
  return `You were drawn at random by your browser (${validationShareText(protocol)}) to check the current model instead of adding to it. Your browser ran model version ${version} on your answers to guess your answer to ${questionText(questions, protocol.class.name)}, and sends only one mark about it: 1 if the guess was right, 0 if it was wrong — kept with probability ${percent(oracle.p)} and flipped otherwise. None of your answers is in this message.`;
}

export function ldpValidationOverview(protocol, questions) {
  const chance = validationShareText(protocol);
  if (!chance) return null;
  return `When a model has already been published, your browser may instead (${chance}) check it: it runs the model on your answers to guess your answer to ${questionText(questions, protocol.class.name)} and sends only whether the guess was right — one mark, itself randomized — instead of any of your answers.`;
}

/** Numeric answers outside Gaussian NB are sent as the equal-width range they fall in (SPEC §5, EWD). */
export function binsText(protocol) {
  if (!protocol.features.some((f) => f.kind === "numeric")) return null;
  return protocol.projection
    ? `Numbers are never sent as such: they are first combined as published (a projection), and only which of ${protocol.numeric.bins} equal ranges between its published limits each combination falls in is used.`
    : `A number is never sent as such: only which of ${protocol.numeric.bins} equal ranges between the question's limits it falls in is used.`;
}

// ---- The review step's summary (each mechanism's summarize(); shared pieces) ----

/** How many questions the respondent answered: the protocol's questions and the class question. */
export function answerCount(protocol) {
  const n = (protocol.questions || []).length + 1;
  return `${n} answer${n === 1 ? "" : "s"}`;
}

/** Answer ``code`` of the engine's feature or class ``name``, in words: a choice's label (display label, else the
 * protocol's value), or for a binned number the equal range it stands for (SPEC §5, EWD). */
export function codeText(protocol, questions, name, code) {
  const q = (questions || []).find((x) => x.name === name);
  const spec = [...(protocol.features || []), protocol.class].find((f) => f && f.name === name);
  if (spec && spec.kind === "numeric" && protocol.numeric && protocol.numeric.bins) {
    const width = (spec.high - spec.low) / protocol.numeric.bins;
    return `a number from ${figure(spec.low + code * width)} to ${figure(spec.low + (code + 1) * width)}`;
  }
  if (q && q.labels && q.labels[code] !== undefined) return `“${q.labels[code]}”`;
  if (spec && spec.values && spec.values[code] !== undefined) return `“${spec.values[code]}”`;
  return `choice number ${code}`;
}

/** "“yes” for “Are you ill?”": answer ``code`` to ``name``. */
export function answerText(protocol, questions, name, code) {
  return `${codeText(protocol, questions, name, code)} for ${questionText(questions, name)}`;
}

/** The summary of an LDP validation report (``encode_validation``): one randomized right/wrong mark. */
export function ldpValidationSummary(protocol, questions, validation) {
  const oracle = protocol.validation.oracle;
  const mark = validation.report === 1 ? "1 (“right”)" : "0 (“wrong”)";
  return `None of your ${answerCount(protocol)} is sent. Only one mark is: whether the published model (version ${validation.version}), run in your browser on your answers, guessed your answer to ${questionText(questions, protocol.class.name)} right. This report says ${mark}, which is the truth with probability ${percent(oracle.p)} and the opposite otherwise; so it may or may not be the truth.`;
}
