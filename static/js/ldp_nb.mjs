// LDP Naive Bayes, discrete (aggregator/privacy/naive_bayes/ldp.py), one respondent.
// Input 0 is the class (value c); input i + 1 is feature i jointly encoded as a·k + c.
// One-report: draw the input by the published assignment CDF, report it with the full ε.
// Split: report every input, in order, each with ε/(m+1).
import * as oracles from "./oracles/index.mjs";
import { assign } from "./random.mjs";

export function inputValue(j, codes, classCode, k) {
  return j === 0 ? classCode : codes[j - 1] * k + classCode;
}

export function perturb(params, codes, classCode, rng) {
  const k = params.classes;
  if (params.strategy === "one-report") {
    const j = assign(params.assignment_cdf, rng);
    return { input: j, report: oracles.perturb(params.inputs[j], inputValue(j, codes, classCode, k), rng) };
  }
  return { reports: params.inputs.map((input, j) => oracles.perturb(input, inputValue(j, codes, classCode, k), rng)) };
}
