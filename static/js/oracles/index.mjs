// The frequency oracles, by the name the server publishes (oracle.params()["name"]). Each perturbs ONE value
// into its wire form, using the published p, q (never recomputed, so both sides compare the same doubles).
import * as de from "./de.mjs";
import * as histogram from "./histogram.mjs";
import * as olh from "./olh.mjs";
import * as unary from "./unary.mjs";

const BY_NAME = { de, sue: unary, oue: unary, she: histogram, the: histogram, olh };

export function perturb(params, value, rng) {
  const oracle = BY_NAME[params.name];
  if (!oracle) throw new Error(`unknown frequency oracle ${params.name}`);
  if (!Number.isInteger(value) || value < 0 || value >= params.domain) throw new RangeError("value out of domain");
  return oracle.perturb(params, value, rng);
}
