// The Gaussian approaches' modules (aggregator/privacy/continuous/approaches.py, one class each), looked up by the
// name the server publishes (params.approach_name): the browser never switches on an approach's number.
// Each module exports vectors(params, z, classCode, rng) — the class-hiding vector report, drawing exactly as the
// Python client half — and the respondent's words: overview(words), review(words, report) and summary(words, report),
// where ``words`` holds the shared phrases gaussian.mjs builds (see its describe and summarize).
import * as allVectors from "./all_vectors.mjs";
import * as oneBit from "./one_bit.mjs";
import * as oneVector from "./one_vector.mjs";

const BY_NAME = { "all-vectors": allVectors, "one-bit": oneBit, "one-vector": oneVector };

/** The module of the approach ``params`` (the published Gaussian parameters) names. */
export function approach(params) {
  const module = Object.hasOwn(BY_NAME, params.approach_name) ? BY_NAME[params.approach_name] : null;
  if (!module) throw new Error(`unknown Gaussian approach ${JSON.stringify(params.approach_name)}`);
  return module;
}

/** Add (or replace) the approach module published as ``name`` (e.g. a test's throwaway). */
export function register(name, module) {
  for (const f of ["vectors", "overview", "review", "summary"]) {
    if (typeof module[f] !== "function") throw new Error(`an approach module needs ${f}()`);
  }
  BY_NAME[name] = module;
}
