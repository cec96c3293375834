// Gaussian Approach 3 (continuous/approaches.py OneVector): one attribute's class-hiding vector, the attribute drawn
// uniformly (public), every entry with grid Laplace noise of the published scale.
import { gridLaplace } from "../noise.mjs";
import { t } from "../i18n.mjs";
import { answerTo } from "../words.mjs";

export function vectors(params, z, classCode, rng) {
  const m = params.attributes.length, k = params.classes;
  const attr = rng.integers(0, m);
  const vector = new Array(k).fill(0);
  vector[classCode] = z[attr];
  return [attr, gridLaplace(rng, vector, params.laplace_scale, params.grid)];
}

export function overview({ m, noise }) {
  return m === 1 ? t("When your number is the thing sent, its row of the table is sent, {noise}.", { noise })
    : t("When your numbers are the thing sent, only one of them, picked at random (which one is visible in the message), is sent: its row of the table, {noise}.", { noise });
}

export function review({ protocol, questions, params, m, k, noise, what }, report) {
  const [attr] = report.report;
  const part = answerTo(protocol, questions, params.attributes[attr].name);
  const one = report.group === 2 ? t("{part}, squared", { part }) : part;
  return m === 1
    ? t("This is the complete message that will be sent. Your browser chose, at random, to send {one}: its row of the table ({k} entries), {noise}.", { one, k, noise })
    : t("This is the complete message that will be sent. Your browser chose, at random, to send {what}, and of them only {one}: its row of the table ({k} entries), {noise}.{others}",
      { what: what[report.group], one, k, noise, others: protocol.projection ? "" : ` ${t("Your other numbers are not in it.")}` });
}

export function summary({ protocol, questions, params, m, k, answers, scaled, cls, noisy }, report) {
  const one = answerTo(protocol, questions, params.attributes[report.report[0]].name);
  const vars = { answers, one, scaled, question: cls, k, noisy };
  return m === 1
    ? t("Of your {answers}, only {one} — chosen at random — is sent: {scaled} and placed in the column of your answer to {question} in a row of {k} (zeros elsewhere), {noisy}. Nothing else is sent.", vars)
    : t("Of your {answers}, only one of your numbers, chosen at random (here {one}), is sent: {scaled} and placed in the column of your answer to {question} in a row of {k} (zeros elsewhere), {noisy}. Nothing else is sent.", vars);
}
