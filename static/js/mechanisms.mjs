// The survey mechanisms' modules, looked up by the name the server publishes (protocol.mechanism, the protocol class's
// ``browser_module``): the browser's one dispatch on the kind of survey (protocol.mjs randomizes with it, explain.mjs
// words with it). Each module exports randomize(protocol, answers, classCode, rng, realPersonal) — ``answers`` in
// feature order (inputs.mjs ``featureValues``) —, modelInput(protocol, answers), describe(protocol, privacy,
// questions) and summarize(report, protocol, questions); asksPersonal(protocol, q) where it asks real unrelated
// questions (MRR).
import * as gaussian from "./gaussian.mjs";
import * as ldpNb from "./ldp_nb.mjs";
import * as mixed from "./mixed.mjs";
import * as mrr from "./mrr.mjs";

const BY_NAME = { mrr, "ldp-nb": ldpNb, gaussian, mixed };

/** The module of the mechanism ``protocol`` (the protocol API's "protocol") names. */
export function mechanism(protocol) {
  const module = Object.hasOwn(BY_NAME, protocol.mechanism) ? BY_NAME[protocol.mechanism] : null;
  if (!module) throw new Error(`unknown survey mechanism ${JSON.stringify(protocol.mechanism)}`);
  return module;
}

/** Add (or replace) the mechanism module published as ``name`` (e.g. a test's throwaway). */
export function register(name, module) {
  for (const f of ["randomize", "modelInput", "describe", "summarize"]) {
    if (typeof module[f] !== "function") throw new Error(`a mechanism module needs ${f}()`);
  }
  BY_NAME[name] = module;
}
