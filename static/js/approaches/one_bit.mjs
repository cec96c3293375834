// Gaussian Approach 2 (continuous/approaches.py OneBit, Duchi et al.): one entry j of the m × k table drawn uniformly,
// then one bit, +1 with probability 1/2 + v·h — h published by the server (onebit_half_gap), never recomputed here.
import { t } from "../i18n.mjs";
import { answerTo, codeText, percent } from "../words.mjs";

export function vectors(params, z, classCode, rng) {
  const m = params.attributes.length, k = params.classes;
  const j = rng.integers(0, m * k);
  const attr = Math.floor(j / k), cls = j % k;
  const v = cls === classCode ? z[attr] : 0.0;
  return [j, rng.random() < 0.5 + v * params.onebit_half_gap ? 1 : -1];
}

/** The bit's disguise in words, with the published probabilities at the entry's extremes. */
function onebitWords(params) {
  return t("sent as a single +1 or −1: +1 with a {low} chance when the entry is −1, rising to {high} when it is 1 (50 % when it is 0)",
    { low: percent(0.5 - params.onebit_half_gap), high: percent(0.5 + params.onebit_half_gap) });
}

export function overview({ params, m }) {
  const onebit = onebitWords(params);
  return m === 1 ? t("When your number is the thing sent, only one entry of the table, picked at random (which one is visible in the message), is {onebit}.", { onebit })
    : t("When your numbers are the thing sent, only one entry of the table, picked at random (which one is visible in the message), is {onebit}.", { onebit });
}

export function review({ protocol, questions, params, k, cls, what, classLabel }, report) {
  const [j] = report.report;
  const attr = Math.floor(j / k), c = j % k;
  return t("This is the complete message that will be sent. Your browser chose, at random, to send {what}, and of the table only one entry: the one for {part} in the column of the answer {label} to {question} ({holds}), {onebit}.", {
    what: what[report.group], part: answerTo(protocol, questions, params.attributes[attr].name),
    label: classLabel(c), question: cls, onebit: onebitWords(params),
    holds: report.group === 2 ? t("it holds your scaled number squared if that is your answer, 0 otherwise")
      : t("it holds your scaled number if that is your answer, 0 otherwise"),
  });
}

export function summary({ protocol, questions, params, k, cls, scaled, table, answers }, report) {
  const [j, bit] = report.report;
  const attr = Math.floor(j / k), c = j % k;
  const entry = t("{part} ({scaled}) if your answer to {question} is {answer}, 0 otherwise", {
    part: answerTo(protocol, questions, params.attributes[attr].name), scaled: scaled.replace(/,$/, ""), question: cls,
    answer: codeText(protocol, questions, protocol.class.name, c),
  });
  return t("Of your {answers}, only a single {sign} is sent, about one entry, picked at random, of {table}: here the entry that holds {entry}. The sign is drawn at random, +1 being the more likely the higher that entry is (50 % when it is 0), so it may or may not reflect your answers. Nothing else is sent.",
    { answers, sign: bit > 0 ? "+1" : "−1", table, entry });
}
