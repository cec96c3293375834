// Gaussian Approach 1 (continuous/approaches.py AllVectors): all m class-hiding vectors, an m × k table, every entry
// with grid Laplace noise of the published scale.
import { gridLaplace } from "../noise.mjs";
import { t } from "../i18n.mjs";

export function vectors(params, z, classCode, rng) {
  const m = params.attributes.length, k = params.classes;
  const flat = new Array(m * k).fill(0);
  z.forEach((value, i) => { flat[i * k + classCode] = value; });
  const noisy = gridLaplace(rng, flat, params.laplace_scale, params.grid);
  return Array.from({ length: m }, (_, i) => noisy.slice(i * k, (i + 1) * k));
}

export function overview({ m, noise }) {
  return m === 1 ? t("When your number is the thing sent, the whole table is sent, {noise}.", { noise })
    : t("When your numbers are the thing sent, the whole table is sent, {noise}.", { noise });
}

export function review({ m, k, noise, what }, report) {
  return m === 1
    ? t("This is the complete message that will be sent. Your browser chose, at random, to send {what}: the whole table (1 row of {k}), {noise}.", { what: what[report.group], k, noise })
    : t("This is the complete message that will be sent. Your browser chose, at random, to send {what}: the whole table ({m} rows of {k}), {noise}.", { what: what[report.group], m, k, noise });
}

export function summary({ m, answers, numbers, scaled, table, noisy }) {
  return m === 1
    ? t("Of your {answers}, only {numbers} — chosen at random — is sent: {scaled} and placed in {table}; the whole table is sent, {noisy}. Nothing else is sent.", { answers, numbers, scaled, table, noisy })
    : t("Of your {answers}, only {numbers} — chosen at random — are sent: {scaled} and placed in {table}; the whole table is sent, {noisy}. Nothing else is sent.", { answers, numbers, scaled, table, noisy });
}
