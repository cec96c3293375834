// Display questions (the protocol API's "questions") and the engine's features: usually one feature per question,
// named like it; a select-all question ("multi") is one no/yes feature per choice, listed in its "options" as
// {label, feature} (survey_app/models.py ``Question.feature_names``: "<name>__<index>"). No DOM here: the
// mechanisms' words (words.mjs, mrr.mjs, gaussian.mjs) and the page (survey.mjs, fields.mjs) share it.

/** The display question of feature or class ``name``: the question itself, or for a choice of a select-all question
 * that question seen as the choice's yes/no question (text "question — choice", labels no/yes). */
export function findQuestion(questions, name) {
  const list = questions || [];
  const direct = list.find((x) => x.name === name);
  if (direct) return direct;
  for (const q of list) {
    const option = (q.options || []).find((o) => o.feature === name);
    if (option) return { ...q, name, text: `${q.text} — ${option.label}`, options: [] };
  }
  return undefined;
}

/** Where the answer to feature ``name`` is read: {q, i, option} with ``i`` the display question's index and
 * ``option`` the choice's index for a select-all question (undefined otherwise); undefined when none. */
export function featureSource(questions, name) {
  for (const [i, q] of (questions || []).entries()) {
    if (q.name === name) return { q, i };
    const option = (q.options || []).findIndex((o) => o.feature === name);
    if (option >= 0) return { q, i, option };
  }
  return undefined;
}

/** The code feature ``source`` sends, from its question's answer: a select-all answer is one code per choice. */
export function featureCode(source, answer) {
  return source.option === undefined ? answer : answer[source.option];
}
