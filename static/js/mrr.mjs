// Unrelated-question MRR (aggregator/privacy/mrr.py MRRScheme.perturb), one respondent.
// Draws: one random() per group (group order: true answers sent if u < θ_g), then one random() per attribute
// (attribute order) for the personal answer by inverse CDF of the declared P_Y — drawn for every attribute.
// ``answers``: codes of every attribute, the class included, in the scheme's order. ``realPersonal`` (optional):
// answers to real unrelated questions, by attribute index, which replace the simulated ones.
import { assign } from "./random.mjs";
import { answerCount, epsilonText, joinAnd, percent, questionText, validationShareText } from "./words.mjs";

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
    const q = (questions || []).find((x) => x.name === name);
    if (asksPersonal(protocol, q)) return { name, real: true, text: `your own answer to the unrelated question “${q.personal_text}”` };
    const dist = protocol.mrr.personal[i];
    const uniform = dist.every((p) => Math.abs(p - dist[0]) < 1e-12);
    const never = dist.map((p, code) => (p <= 0 ? code : -1)).filter((code) => code >= 0);
    return { name, real: false, uniform, never,
             text: uniform ? "an answer picked at random by your browser, every possible answer equally likely"
               : "an answer picked at random by your browser with the chances the survey publishes for each choice" };
  });
}

function labelOf(protocol, questions, name, code) {
  const q = (questions || []).find((x) => x.name === name);
  return q && q.labels && q.labels[code] !== undefined ? `“${q.labels[code]}”` : `choice ${code}`;
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
  const except = anyNever ? " (except as said below)" : "";
  const oneGroup = params.groups.length === 1;
  const thetas = params.thetas.map(percent);
  const overview = [];
  if (oneGroup) {
    overview.push(`Your browser flips one secret, biased coin for your whole record: with probability ${thetas[0]} the record it sends holds your true answers; otherwise every answer in it is replaced by a stand-in answer. The record looks the same either way, so ${anyReal ? "nobody who does not know your answers to the unrelated questions" : "nobody — not even the survey's organisers —"} can tell whether the record sent is your true one${except}.`);
  } else {
    const groups = params.groups.map((members, g) => `${joinAnd(members.map((i) => questionText(questions, names[i])))} (true with probability ${thetas[g]})`);
    overview.push(`Your answers are sent in ${params.groups.length} groups, and your browser flips one secret, biased coin for each group: heads, the group's answers sent are your true ones; tails, every answer in the group is replaced by a stand-in answer. The groups: ${groups.join("; ")}. ${anyReal ? "Nobody who does not know your answers to the unrelated questions" : "Nobody — not even the survey's organisers —"} can tell from the record which groups hold your true answers${except}.`);
  }
  const simulated = stand.filter((s) => !s.real);
  const real = stand.filter((s) => s.real);
  const standParts = real.map((s) => `for ${questionText(questions, s.name)}, ${s.text}`);
  const texts = [...new Set(simulated.map((s) => s.text))];
  if (texts.length === 1) {
    standParts.push(`${real.length ? "for the other questions" : "for every question"}, ${texts[0]}`);
  } else {
    for (const text of texts) {
      standParts.push(`for ${joinAnd(simulated.filter((s) => s.text === text).map((s) => questionText(questions, s.name)))}, ${text}`);
    }
  }
  overview.push(`The stand-in answer is: ${standParts.join("; ")}.`);
  for (const s of real) {
    overview.push(`Someone who knows your answer to “${(questions.find((q) => q.name === s.name) || {}).personal_text}” could tell, whenever the answer sent for ${questionText(questions, s.name)} differs from it, that the answer sent is your true one.`);
  }
  for (const s of simulated.filter((x) => x.never.length)) {
    overview.push(`A stand-in for ${questionText(questions, s.name)} is never ${joinAnd(s.never.map((c) => labelOf(protocol, questions, s.name, c)))}, so if that answer is sent, it is your true one.`);
  }
  if (protocol.features.some((f) => f.kind === "numeric")) {
    overview.push(`A number is never sent as such: only which of ${protocol.numeric.bins} equal ranges between the question's limits it falls in.`);
  }
  const eps = privacy ? privacy.epsilon_per_respondent : null;
  overview.push(anyReal
    ? `In the terms of local differential privacy, the whole record has ${epsilonText(eps)} against someone who does not know your answers to the unrelated questions (smaller is more private); against someone who does know them, no finite ε holds.`
    : `In the terms of local differential privacy, the whole record has ${epsilonText(eps)} (smaller is more private).`);
  if (privacy && privacy.groups) {
    // ε per question (issue 11 item 4): changing one answer moves its whole group, so an answer has its group's ε
    overview.push(oneGroup
      ? "A single answer has the same ε as the whole record, because the record is sent true or replaced as a whole."
      : `A single answer has the ε of its group, because a group is sent true or replaced as a whole: ${privacy.groups.map((g) => `${joinAnd(g.attributes.map((n) => questionText(questions, n)))}, ${epsilonText(g.epsilon)}`).join("; ")}${anyReal ? " (against someone who does not know your answers to the unrelated questions)" : ""}.`);
  }
  const chance = validationShareText(protocol);
  if (chance) {
    overview.push(`Your browser may also draw you (${chance}) to help check the model's accuracy: your record is then randomized exactly as above and used only for that check, not to train the model.`);
  }
  const figure = oneGroup
    ? `Privacy: the record your browser sends holds your true answers with probability ${thetas[0]}, stand-in answers otherwise, and ${anyReal ? "someone who does not know your answers to the unrelated questions" : "nobody"} can tell which${except}.`
    : `Privacy: each of ${params.groups.length} groups of answers is sent true with probability ${joinAnd([...new Set(thetas)])}, as stand-in answers otherwise, and ${anyReal ? "someone who does not know your answers to the unrelated questions" : "nobody"} can tell which${except}.`;

  function review(body) {
    const report = body.report;
    const out = [];
    if (report.validation) {
      out.push(`You were drawn at random by your browser (${chance}) to help check the model's accuracy: this record is randomized exactly like any other and is used only for that check, not to train the model.`);
    }
    const answers = (report.validation || report).answers;
    out.push(`This is the complete message that will be sent: the record below, one code per question (the number of the choice, counting from 0${protocol.features.some((f) => f.kind === "numeric") ? ", or of the range a number falls in" : ""}), in this order: ${joinAnd(names.map((n) => questionText(questions, n)))}.`);
    out.push(oneGroup
      ? `With probability ${thetas[0]} these ${answers.length} codes are your true answers; otherwise they are stand-ins. Your browser does not show which — the message must look the same either way.`
      : `Each group's codes are your true answers with its probability (${thetas.join(", ")}) and stand-ins otherwise; your browser does not show which — the message must look the same either way.`);
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
  const standText = anyReal && anySimulated ? "stand-ins (answers drawn at random, or your answers to the unrelated questions)"
    : anyReal ? "your answers to the unrelated questions" : "answers drawn at random";
  const who = anyReal ? "nobody who does not know your answers to the unrelated questions" : "nobody, the survey included,";
  const except = anyNever ? " — except for the answers a stand-in never takes (see “How your answers stay private”), which are true when sent" : "";
  const thetas = params.thetas.map(percent);
  const always = params.thetas.some((theta) => theta >= 1)
    ? " (a group sent true with probability 100 % is always your true answers, so for it anyone can tell)" : "";
  const whole = params.thetas.every((theta) => theta >= 1)
    ? `Your whole record of ${answerCount(protocol)} is sent as it is: this survey's setting (θ = 1) never replaces your true answers by stand-ins.`
    : params.groups.length === 1
    ? `Your whole record of ${answerCount(protocol)} is sent: with probability ${thetas[0]} it is your true answers, otherwise ${standText}; ${who} can tell which${except}.`
    : `Your whole record of ${answerCount(protocol)} is sent, in ${params.groups.length} groups: each group is your true answers ${new Set(thetas).size === 1 ? `with probability ${thetas[0]}` : `with its own probability (${thetas.join(", ")}, in order)`}, otherwise ${standText}; ${who} can tell which${except}${always}.`;
  return report.validation
    ? `${whole} It is used only to check the model's accuracy, not to train it.`
    : whole;
}
