// The respondent-facing texts of a survey's mechanism: the describe() of the module that randomizes (mechanisms.mjs,
// the same lookup as protocol.mjs ``randomize``), so the page never chooses texts itself.
// describe(protocol, privacy, questions) → { figure: string, overview: blocks, review(body): blocks }, where a block
// is a paragraph (string) or a list (array of strings); and summarize(report, protocol, questions) → one paragraph.
import { mechanism } from "./mechanisms.mjs";

export { mechanism };

export function describe(protocol, privacy, questions = []) {
  return mechanism(protocol).describe(protocol, privacy, questions);
}

/** Whether the page must ask the real unrelated question of MRR for this display question. */
export function asksPersonal(protocol, q) {
  const module = mechanism(protocol);
  return typeof module.asksPersonal === "function" && module.asksPersonal(protocol, q);
}

/** The review step's plain summary of ``report`` (one paragraph: what this message says, in plain words), from the
 * same module: summarize(report, protocol, questions) of mrr.mjs, ldp_nb.mjs, gaussian.mjs or mixed.mjs. */
export function summarize(report, protocol, questions = []) {
  return mechanism(protocol).summarize(report, protocol, questions);
}
