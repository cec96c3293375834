// Skip logic and optional answers on the respondent's page. A question with "show_if" ({question, answers, not_asked}:
// survey_app/api.py) is shown only while the question named there has one of the answer codes listed; hidden, it
// answers "Not asked" (its last code), which the mechanism randomizes like any other answer — so the report tells the
// branch taken no more surely than it tells an answer. ``applySkips`` is the client half of
// aggregator/privacy/skip.py (``apply``), proved equal by tests/js/skip_vectors.json.
import { el } from "./fields.mjs";
import { t } from "./i18n.mjs";

/** ``record`` (one code per feature) with every feature hidden by its rule ({target, gate, shown, not_asked}) set to
 * its ``not_asked`` code, in the record's order (a question behind a hidden one is hidden too). */
export function applySkips(record, rules) {
  const out = [...record];
  const byTarget = new Map(rules.map((rule) => [rule.target, rule]));
  out.forEach((_, index) => {
    const rule = byTarget.get(index);
    if (rule && !rule.shown.includes(out[rule.gate])) out[index] = rule.not_asked;
  });
  return out;
}

/** The rules over the engine's features (``protocol.questions``, in order) from the display questions' "show_if". */
export function rulesOf(protocol, questions) {
  const names = protocol.questions.map((f) => f.name);
  return questions.filter((q) => q.show_if).map((q) => ({
    target: names.indexOf(q.name), gate: names.indexOf(q.show_if.question),
    shown: q.show_if.answers, not_asked: q.show_if.not_asked,
  })).filter((rule) => rule.target >= 0 && rule.gate >= 0);
}

/** Whether display question ``q`` is hidden now; ``codeOf(question)`` gives a question's current answer code (as
 * the report would send it: "Not asked" for a hidden one), or undefined while it is unanswered. */
export function isHidden(q, questions, codeOf) {
  if (!q.show_if) return false;
  const gate = questions.find((other) => other.name === q.show_if.question);
  return !gate || !q.show_if.answers.includes(codeOf(gate));
}

/** Keep the page's questions shown or hidden as the answers change: each conditional question's block gets the
 * ``hidden`` attribute, and a part whose questions are all hidden says so. Returns the update, for answers set
 * without an event (a restored page). */
export function attach(form, pages, questions, codeOf) {
  if (!questions.some((q) => q.show_if)) return () => {};
  const blockOf = (q) => {
    const node = form.querySelector(`[data-question="${CSS.escape(q.name)}"]`);
    return node ? node.closest(".question") : null;
  };
  const update = () => {
    for (const q of questions) {
      const block = blockOf(q);
      if (block && q.show_if) block.hidden = isHidden(q, questions, codeOf);
    }
    for (const page of pages) {
      const blocks = [...page.querySelectorAll(".question")];
      let note = page.querySelector(":scope > .skip-empty");
      const empty = blocks.length > 0 && blocks.every((b) => b.hidden);
      if (empty && !note) {
        note = el("p", { class: "skip-empty", text: t("None of the questions of this part applies after your earlier answers: press the button below to go on.") });
        page.append(note);
      }
      if (note) note.hidden = !empty;
    }
  };
  form.addEventListener("change", update);
  form.addEventListener("input", update);
  update();
  return update;
}

/** The page's plain words about optional answers and skip logic (none when the survey has neither): both are answers
 * the mechanism randomizes like any other before anything leaves the browser. */
export function words(questions) {
  const out = [];
  if (questions.some((q) => q.prefer_not_to_say)) {
    out.push(t("“Prefer not to say” is one more answer: your browser randomizes it like any other answer before anything is sent, so the report shows that you chose it no more surely than it shows any other answer (see the privacy figure above)."));
  }
  if (questions.some((q) => q.show_if)) {
    out.push(t("Some questions are shown only after certain answers. A question you are not shown is answered “Not asked”, and your browser randomizes that like any other answer, so the report shows which questions you saw no more surely than it shows your answers."));
  }
  return out.map((text) => el("p", { class: "skip-words", text }));
}
