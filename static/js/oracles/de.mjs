// Direct encoding (aggregator/privacy/oracles/de.py): keep v with probability p, else another value uniformly.
// Draws: random() for keep, then integers(0, d − 1) for the other value (always drawn).
import { t } from "../i18n.mjs";
import { percent } from "../words.mjs";
export function perturb(params, value, rng) {
  const keep = rng.random() < params.p;
  let other = rng.integers(0, params.domain - 1);
  if (other >= value) other += 1;
  return keep ? value : other;
}

/** The disguise of ONE value, in plain words with the published p (words.mjs's conventions). */
export function describe(params) {
  const d = params.domain;
  return d === 2 ? t("It is kept with probability {p}; otherwise your browser sends instead the other possible value.", { p: percent(params.p) })
    : t("It is kept with probability {p}; otherwise your browser sends instead one of the {others} other possible values, picked at random.", { p: percent(params.p), others: d - 1 });
}

/** How the wire form of a report reads. */
export function describeWire() {
  return t("the disguised value, as a number counting from 0");
}

/** This report in a few plain words (a noun phrase): the value it names, via ``valueText(v)``, and how likely that is
 * the respondent's own (review step's summary, explain.mjs ``summarize``). */
export function summarize(params, report, valueText = (v) => t("value number {v}", { v })) {
  const d = params.domain;
  const vars = { d, value: valueText(report), p: percent(params.p), others: d - 1 };
  return d === 2 ? t("a single one of the {d} possible values (here {value}), which is your true one with probability {p} and otherwise the other one; so it may or may not be yours", vars)
    : t("a single one of the {d} possible values (here {value}), which is your true one with probability {p} and otherwise one of the {others} others, picked at random; so it may or may not be yours", vars);
}
