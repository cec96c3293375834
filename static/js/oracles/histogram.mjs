// SHE / THE (aggregator/privacy/oracles/histogram.py): one-hot vector plus discrete Laplace noise of scale 2/ε on
// every component (on the 2^-10 grid); the server sums (SHE) or thresholds (THE). Wire: list of d numbers.
import { discreteLaplace } from "../noise.mjs";
import { t } from "../i18n.mjs";
import { figure } from "../words.mjs";

export function perturb(params, value, rng) {
  const noisy = discreteLaplace(rng, params.laplace_scale, params.domain, params.grid);
  noisy[value] += 1;
  return noisy;
}

/** The disguise of ONE value, in plain words with the published Laplace scale (words.mjs's conventions). */
export function describe(params) {
  return t("It is sent as a list of {domain} numbers, one per possible value — 1 for your value, 0 for the others — each with random noise added (Laplace noise of scale {scale}, so typically about {scale} away from the exact number).",
    { domain: params.domain, scale: figure(params.laplace_scale) });
}

/** How the wire form of a report reads. */
export function describeWire() {
  return t("the list of noisy numbers");
}

/** This report in a few plain words (a noun phrase): what the noisy numbers stand for (review step's summary,
 * explain.mjs ``summarize``). */
export function summarize(params) {
  return t("a list of {domain} numbers, one per possible value — 1 for your value and 0 for the others — each with random noise added (typically about {scale} away from the exact 0 or 1)",
    { domain: params.domain, scale: figure(params.laplace_scale) });
}
