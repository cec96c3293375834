// Select-all questions in the mechanisms' words (issue 12 item 4): a choice's no/yes feature ("sports__1") is read
// and named through its display question (static/js/questions.mjs), so the review's sentences name "question —
// choice" and its answer "yes"/"no", never the feature's machine name.
import assert from "node:assert/strict";
import { test } from "node:test";

import { featureCode, featureSource, findQuestion } from "../../static/js/questions.mjs";
import { answerText, questionText } from "../../static/js/words.mjs";

const questions = [
  { name: "agree", text: "I sleep well.", kind: "categorical", style: "scale", labels: ["Disagree", "Agree", "Strongly agree"], options: [] },
  { name: "sports", text: "Which of these do you do?", kind: "multi", style: "checkboxes", labels: ["no", "yes"],
    options: [{ label: "running", feature: "sports__0" }, { label: "swimming", feature: "sports__1" }] },
];
const protocol = {
  features: [{ kind: "categorical", name: "agree", values: ["Disagree", "Agree", "Strongly agree"] },
    { kind: "categorical", name: "sports__0", values: ["no", "yes"] }, { kind: "categorical", name: "sports__1", values: ["no", "yes"] }],
  class: { kind: "categorical", name: "sick", values: ["no", "yes"] },
};

test("a choice's feature is found through its question", () => {
  assert.equal(findQuestion(questions, "agree"), questions[0]);
  assert.equal(findQuestion(questions, "sports__1").text, "Which of these do you do? — swimming");
  assert.equal(findQuestion(questions, "sports__9"), undefined);
  assert.deepEqual(featureSource(questions, "sports__1"), { q: questions[1], i: 1, option: 1 });
  assert.deepEqual(featureSource(questions, "agree"), { q: questions[0], i: 0 });
});

test("a select-all answer gives one code per choice; another answer its own code", () => {
  assert.equal(featureCode(featureSource(questions, "sports__1"), [0, 1]), 1);
  assert.equal(featureCode(featureSource(questions, "sports__0"), [0, 1]), 0);
  assert.equal(featureCode(featureSource(questions, "agree"), 2), 2);
});

test("the words name the question and the choice, and the answer yes or no", () => {
  assert.equal(questionText(questions, "sports__0"), "“Which of these do you do? — running”");
  assert.equal(answerText(protocol, questions, "sports__1", 1), "“yes” for “Which of these do you do? — swimming”");
  assert.equal(answerText(protocol, questions, "agree", 0), "“Disagree” for “I sleep well.”");
});
