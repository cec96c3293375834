// The frequency oracles, by the name the server publishes (oracle.params()["name"]). Each module perturbs ONE value
// into its wire form, using the published p, q (never recomputed, so both sides compare the same doubles), and says
// in plain words what it does: ``perturb(params, value, rng)``, ``describe(params)``, ``describeWire(params)``, and
// (optional) ``summarize(params, report, valueText)``: one report in a few words, for the review step.
import * as de from "./de.mjs";
import * as histogram from "./histogram.mjs";
import * as olh from "./olh.mjs";
import * as ss from "./ss.mjs";
import * as unary from "./unary.mjs";
import { lowerFirst } from "../words.mjs";

const BY_NAME = { de, sue: unary, oue: unary, she: histogram, the: histogram, olh, ss };
const MEMBERS = ["perturb", "describe", "describeWire"];

/** Register ``module`` (exporting perturb, describe and describeWire) as the oracle ``name``; returns ``name``. */
export function register(name, module) {
  const missing = MEMBERS.filter((m) => typeof module[m] !== "function");
  if (missing.length) throw new TypeError(`frequency oracle ${name} lacks ${missing.join(", ")}`);
  BY_NAME[name] = module;
  return name;
}

/** Remove the oracle ``name`` (a test's throwaway oracle). */
export function unregister(name) {
  delete BY_NAME[name];
}

function lookup(name) {
  const oracle = Object.hasOwn(BY_NAME, name) ? BY_NAME[name] : undefined;
  if (!oracle) throw new Error(`unknown frequency oracle ${name}`);
  return oracle;
}

export function perturb(params, value, rng) {
  const oracle = lookup(params.name);
  if (!Number.isInteger(value) || value < 0 || value >= params.domain) throw new RangeError("value out of domain");
  return oracle.perturb(params, value, rng);
}

/** The disguise the oracle ``params.name`` applies to ONE value among ``params.domain``, in plain words. */
export function describe(params) {
  return lookup(params.name).describe(params);
}

/** How the oracle's wire form of a report reads, in plain words. */
export function describeWire(params) {
  return lookup(params.name).describeWire(params);
}

/** ONE report of the oracle ``params.name`` in a few plain words, as a noun phrase (the review step's summary):
 * ``valueText(v)`` names possible value v for the oracles whose report names values. An oracle module without its
 * own ``summarize`` is summed up by its wire form and its ``describe``. */
export function summarize(params, report, valueText) {
  const oracle = lookup(params.name);
  if (typeof oracle.summarize === "function") return oracle.summarize(params, report, valueText);
  return `${oracle.describeWire(params)} (${lowerFirst(oracle.describe(params)).replace(/\.$/, "")})`;
}
