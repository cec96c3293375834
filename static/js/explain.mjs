// The respondent-facing texts of a survey's mechanism: dispatches to the describe() of the module that randomizes
// (the same choice as protocol.mjs ``randomize``), so the page never chooses texts itself.
// describe(protocol, privacy, questions) → { figure: string, overview: blocks, review(body): blocks }, where a block
// is a paragraph (string) or a list (array of strings); and summarize(report, protocol, questions) → one paragraph.
import * as gaussian from "./gaussian.mjs";
import * as ldpNb from "./ldp_nb.mjs";
import * as mixed from "./mixed.mjs";
import * as mrr from "./mrr.mjs";

export function mechanism(protocol) {
  if (protocol.mode === "mrr") return mrr;
  if (protocol.ldp && protocol.ldp.mixed) return mixed;
  return protocol.numeric.handling === "gaussian" ? gaussian : ldpNb;
}

export function describe(protocol, privacy, questions = []) {
  return mechanism(protocol).describe(protocol, privacy, questions);
}

/** Whether the page must ask the real unrelated question of MRR for this display question. */
export function asksPersonal(protocol, q) {
  return protocol.mode === "mrr" && mrr.asksPersonal(protocol, q);
}

/** The review step's plain summary of ``report`` (one paragraph: what this message says, in plain words), from the
 * same module: summarize(report, protocol, questions) of mrr.mjs, ldp_nb.mjs, gaussian.mjs or mixed.mjs. */
export function summarize(report, protocol, questions = []) {
  return mechanism(protocol).summarize(report, protocol, questions);
}
