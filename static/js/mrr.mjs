// Unrelated-question MRR (aggregator/privacy/mrr.py MRRScheme.perturb), one respondent.
// Draws: one random() per group (group order: true answers sent if u < θ_g), then one random() per attribute
// (attribute order) for the personal answer by inverse CDF of the declared P_Y — drawn for every attribute.
// ``answers``: codes of every attribute, the class included, in the scheme's order. ``realPersonal`` (optional):
// answers to real unrelated questions, by attribute index, which replace the simulated ones.
import { t } from "./i18n.mjs";
import { engineCodes } from "./inputs.mjs";
import { findQuestion } from "./questions.mjs";
import { assign } from "./random.mjs";
import { answerCount, epsilonText, joinAnd, percent, questionText, quote, validationShareText } from "./words.mjs";

export function perturb(params, answers, rng, realPersonal = {}) {
  const truth = params.thetas.map((theta) => rng.random() < theta);
  const personal = params.personal_cdf.map((cdf) => assign(cdf, rng));
  for (const [i, value] of Object.entries(realPersonal)) personal[Number(i)] = value;
  const groupOf = [];
  params.groups.forEach((members, g) => members.forEach((i) => { groupOf[i] = g; }));
  return answers.map((value, i) => (truth[groupOf[i]] ? value : personal[i]));
}

// ---- Respondent-facing words (survey.mjs shows them; tests/js/describe.test.mjs checks them) ----

/** The attributes of the MRR record, in the scheme's order (features, then the class), as display texts. */
function attributeNames(protocol) {
  return [...protocol.features.map((f) => f.name), protocol.class.name];
}

/** Whether the page asks the real unrelated question of display question ``q`` (the protocol API's "questions"): a
 * choice question whose personal mode is "real" and that has the unrelated question's text. */
export function asksPersonal(protocol, q) {
  return Boolean(q && q.kind !== "numeric" && q.personal_text && q.personal_mode === "real");
}

/** What replaces an answer when its group's coin says "stand-in", for each attribute. */
function standIns(protocol, questions) {
  return attributeNames(protocol).map((name, i) => {
    const q = findQuestion(questions, name);
    if (asksPersonal(protocol, q)) return { name, real: true, text: t("your own answer to the unrelated question “{text}”", { text: q.personal_text }) };
    const dist = protocol.mrr.personal[i];
    const uniform = dist.every((p) => Math.abs(p - dist[0]) < 1e-12);
    const never = dist.map((p, code) => (p <= 0 ? code : -1)).filter((code) => code >= 0);
    return { name, real: false, uniform, never,
             text: uniform ? t("an answer picked at random by your browser, every possible answer equally likely")
               : t("an answer picked at random by your browser with the chances the survey publishes for each choice") };
  });
}

function labelOf(protocol, questions, name, code) {
  const q = findQuestion(questions, name);
  return q && q.labels && q.labels[code] !== undefined ? quote(q.labels[code]) : t("choice {code}", { code });
}

/** Respondent-facing texts for an MRR survey (unrelated-question model, SPEC §2), true for the protocol as served:
 * ``figure`` (one line), ``overview`` (text blocks) and ``review(body)`` (text blocks for the report about to be sent).
 * ``questions``: the protocol API's "questions" (display texts); ``privacy``: its "privacy". */
export function describe(protocol, privacy, questions = []) {
  const params = protocol.mrr;
  const names = attributeNames(protocol);
  const stand = standIns(protocol, questions);
  const anyReal = stand.some((s) => s.real);
  const anyNever = stand.some((s) => !s.real && s.never.length);
  const except = anyNever ? ` ${t("(except as said below)")}` : "";
  const oneGroup = params.groups.length === 1;
  const thetas = params.thetas.map(percent);
  if (params.thetas.every((theta) => theta >= 1)) {
    // θ = 1: the true record every time. Such a survey cannot open (its ε is ∞ against everyone); a preview shows it.
    const order = { questions: joinAnd(names.map((n) => questionText(questions, n))) };
    return {
      figure: t("No privacy: with this survey's setting (θ = 1) your browser sends your true answers as they are — nothing is randomized."),
      overview: [t("This survey's setting (θ = 1) never replaces your answers by stand-ins: the record your browser would send is your true answers, so anyone who reads it learns them (no finite ε holds). A survey with this setting cannot be opened.")],
      review: () => [t("This is the complete message that would be sent: your true answers, one code per question, in this order: {questions}. Nothing in it is randomized.", order)],
    };
  }
  const overview = [];
  if (oneGroup) {
    overview.push(t("Your browser flips one secret, biased coin for your whole record: with probability {theta} the record it sends holds your true answers; otherwise every answer in it is replaced by a stand-in answer. The record looks the same either way, so {who} can tell whether the record sent is your true one{except}.", {
      theta: thetas[0], except,
      who: anyReal ? t("nobody who does not know your answers to the unrelated questions") : t("nobody — not even the survey's organisers —"),
    }));
  } else {
    const groups = params.groups.map((members, g) => t("{questions} (true with probability {theta})", { questions: joinAnd(members.map((i) => questionText(questions, names[i]))), theta: thetas[g] }));
    overview.push(t("Your answers are sent in {n} groups, and your browser flips one secret, biased coin for each group: heads, the group's answers sent are your true ones; tails, every answer in the group is replaced by a stand-in answer. The groups: {groups}. {who} can tell from the record which groups hold your true answers{except}.", {
      n: params.groups.length, groups: groups.join("; "), except,
      who: anyReal ? t("Nobody who does not know your answers to the unrelated questions") : t("Nobody — not even the survey's organisers —"),
    }));
  }
  const simulated = stand.filter((s) => !s.real);
  const real = stand.filter((s) => s.real);
  const standParts = real.map((s) => t("for {questions}, {text}", { questions: questionText(questions, s.name), text: s.text }));
  const texts = [...new Set(simulated.map((s) => s.text))];
  if (texts.length === 1) {
    standParts.push(real.length ? t("for the other questions, {text}", { text: texts[0] }) : t("for every question, {text}", { text: texts[0] }));
  } else {
    for (const text of texts) {
      standParts.push(t("for {questions}, {text}", { questions: joinAnd(simulated.filter((s) => s.text === text).map((s) => questionText(questions, s.name))), text }));
    }
  }
  overview.push(t("The stand-in answer is: {parts}.", { parts: standParts.join("; ") }));
  for (const s of real) {
    overview.push(t("Someone who knows your answer to “{personal}” could tell, whenever the answer sent for {question} differs from it, that the answer sent is your true one.",
      { personal: (questions.find((q) => q.name === s.name) || {}).personal_text, question: questionText(questions, s.name) }));
  }
  for (const s of simulated.filter((x) => x.never.length)) {
    overview.push(t("A stand-in for {question} is never {answers}, so if that answer is sent, it is your true one.",
      { question: questionText(questions, s.name), answers: joinAnd(s.never.map((c) => labelOf(protocol, questions, s.name, c))) }));
  }
  if (protocol.features.some((f) => f.kind === "numeric")) {
    overview.push(t("A number is never sent as such: only which of {bins} equal ranges between the question's limits it falls in.", { bins: protocol.numeric.bins }));
  }
  const eps = privacy ? privacy.epsilon_per_respondent : null;
  overview.push(anyReal
    ? t("In the terms of local differential privacy, the whole record has {epsilon} against someone who does not know your answers to the unrelated questions (smaller is more private); against someone who does know them, no finite ε holds.", { epsilon: epsilonText(eps) })
    : t("In the terms of local differential privacy, the whole record has {epsilon} (smaller is more private).", { epsilon: epsilonText(eps) }));
  if (privacy && privacy.groups) {
    // ε per question (issue 11 item 4): changing one answer moves its whole group, so an answer has its group's ε
    overview.push(oneGroup
      ? t("A single answer has the same ε as the whole record, because the record is sent true or replaced as a whole.")
      : t("A single answer has the ε of its group, because a group is sent true or replaced as a whole: {groups}{against}.", {
        groups: privacy.groups.map((g) => `${joinAnd(g.attributes.map((n) => questionText(questions, n)))}, ${epsilonText(g.epsilon)}`).join("; "),
        against: anyReal ? ` ${t("(against someone who does not know your answers to the unrelated questions)")}` : "",
      }));
  }
  const chance = validationShareText(protocol);
  if (chance) {
    overview.push(t("Your browser may also draw you ({chance}) to help check the model's accuracy: your record is then randomized exactly as above and used only for that check, not to train the model.", { chance }));
  }
  const figure = oneGroup
    ? (anyReal
      ? t("Privacy: the record your browser sends holds your true answers with probability {theta}, stand-in answers otherwise, and someone who does not know your answers to the unrelated questions cannot tell which{except}.", { theta: thetas[0], except })
      : t("Privacy: the record your browser sends holds your true answers with probability {theta}, stand-in answers otherwise, and nobody can tell which{except}.", { theta: thetas[0], except }))
    : (anyReal
      ? t("Privacy: each of {n} groups of answers is sent true with probability {thetas}, as stand-in answers otherwise, and someone who does not know your answers to the unrelated questions cannot tell which{except}.", { n: params.groups.length, thetas: joinAnd([...new Set(thetas)]), except })
      : t("Privacy: each of {n} groups of answers is sent true with probability {thetas}, as stand-in answers otherwise, and nobody can tell which{except}.", { n: params.groups.length, thetas: joinAnd([...new Set(thetas)]), except }));

  function review(body) {
    const report = body.report;
    const out = [];
    if (report.validation) {
      out.push(t("You were drawn at random by your browser ({chance}) to help check the model's accuracy: this record is randomized exactly like any other and is used only for that check, not to train the model.", { chance }));
    }
    const answers = (report.validation || report).answers;
    const order = { questions: joinAnd(names.map((n) => questionText(questions, n))) };
    out.push(protocol.features.some((f) => f.kind === "numeric")
      ? t("This is the complete message that will be sent: the record below, one code per question (the number of the choice, counting from 0, or of the range a number falls in), in this order: {questions}.", order)
      : t("This is the complete message that will be sent: the record below, one code per question (the number of the choice, counting from 0), in this order: {questions}.", order));
    out.push(oneGroup
      ? t("With probability {theta} these {n} codes are your true answers; otherwise they are stand-ins. Your browser does not show which — the message must look the same either way.", { theta: thetas[0], n: answers.length })
      : t("Each group's codes are your true answers with its probability ({thetas}) and stand-ins otherwise; your browser does not show which — the message must look the same either way.", { thetas: thetas.join(", ") }));
    return out;
  }
  return { figure, overview, review };
}

/** The review step's plain summary of ``report`` (what this message says), true for the protocol as served: the
 * same caveats as describe() (real unrelated questions, a choice a stand-in never takes). */
export function summarize(report, protocol, questions = []) {
  const params = protocol.mrr;
  const stand = standIns(protocol, questions);
  const anyReal = stand.some((s) => s.real), anySimulated = stand.some((s) => !s.real);
  const anyNever = stand.some((s) => !s.real && s.never.length);
  const standText = anyReal && anySimulated ? t("stand-ins (answers drawn at random, or your answers to the unrelated questions)")
    : anyReal ? t("your answers to the unrelated questions") : t("answers drawn at random");
  const who = anyReal ? t("nobody who does not know your answers to the unrelated questions") : t("nobody, the survey included,");
  const except = anyNever ? ` ${t("— except for the answers a stand-in never takes (see “How your answers stay private”), which are true when sent")}` : "";
  const thetas = params.thetas.map(percent);
  const always = params.thetas.some((theta) => theta >= 1)
    ? ` ${t("(a group sent true with probability 100 % is always your true answers, so for it anyone can tell)")}` : "";
  const whole = params.thetas.every((theta) => theta >= 1)
    ? t("Your whole record of {answers} is sent as it is: this survey's setting (θ = 1) never replaces your true answers by stand-ins.", { answers: answerCount(protocol) })
    : params.groups.length === 1
    ? t("Your whole record of {answers} is sent: with probability {theta} it is your true answers, otherwise {stand}; {who} can tell which{except}.",
      { answers: answerCount(protocol), theta: thetas[0], stand: standText, who, except })
    : t("Your whole record of {answers} is sent, in {n} groups: each group is your true answers {chance}, otherwise {stand}; {who} can tell which{except}{always}.", {
      answers: answerCount(protocol), n: params.groups.length, stand: standText, who, except, always,
      chance: new Set(thetas).size === 1 ? t("with probability {theta}", { theta: thetas[0] })
        : t("with its own probability ({thetas}, in order)", { thetas: thetas.join(", ") }),
    });
  return report.validation
    ? `${whole} ${t("It is used only to check the model's accuracy, not to train it.")}`
    : whole;
}

/** One respondent's training report (protocol.mjs ``randomize``): the record of bin codes and the class, randomized.
 * ``realPersonal``: answers to real unrelated questions by attribute index (features in order, then the class). */
export function randomize(protocol, answers, classCode, rng, realPersonal = {}) {
  return { answers: perturb(protocol.mrr, [...engineCodes(protocol, answers), classCode], rng, realPersonal) };
}

/** The published model's input: numeric features binned. */
export function modelInput(protocol, answers) {
  return engineCodes(protocol, answers);
}
