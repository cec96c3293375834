// A respondent's own order (static/js/widgets.mjs): a page's questions and a question's unordered choices in an order
// drawn uniformly (Fisher–Yates on the crypto byte source), a matrix kept together, "Prefer not to say" last, pages in
// their order, and an order kept by ./resume.mjs reused when it still fits the questions.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ByteSource } from "../../static/js/random.mjs";
import { seeded } from "./seeded_source.mjs";
import { arrange, shuffle, units } from "../../static/js/widgets.mjs";


const AGREE = ["Disagree", "Neutral", "Agree"];
const q = (name, extra = {}) => ({ name, kind: "categorical", style: "buttons", labels: ["a", "b", "c"], matrix: "",
                                   prefer_not_to_say: false, options: [], ...extra });
const PAGES = [
  ["One", [q("x"), q("m1", { labels: AGREE, matrix: "Agree?" }), q("m2", { labels: AGREE, matrix: "Agree?" }),
           q("m3", { labels: AGREE, matrix: "Agree?" }), q("y", { labels: ["a", "b", "Prefer not to say"], prefer_not_to_say: true })]],
  ["Two", [q("w", { labels: ["a", "b", "Prefer not to say", "Not asked"], prefer_not_to_say: true,
                   show_if: { question: "z", answers: [1], not_asked: 3 } }),
           q("z", { kind: "binary", labels: ["no", "yes"] }), q("s", { style: "scale" }),
           q("multi", { kind: "multi", labels: ["no", "yes"], options: [{ label: "p" }, { label: "q" }, { label: "r" }] })]],
];

test("the six orders of three items come up equally often (chi-square, 5 degrees of freedom, p = 1e-6: 35.9)", () => {
  const rng = seeded(7);
  const counts = new Map();
  const n = 6000;
  for (let i = 0; i < n; i += 1) {
    const key = shuffle(["a", "b", "c"], rng).join("");
    counts.set(key, (counts.get(key) || 0) + 1);
  }
  assert.equal(counts.size, 6);
  const chi2 = [...counts.values()].reduce((sum, c) => sum + (c - n / 6) ** 2 / (n / 6), 0);
  assert.ok(chi2 < 35.9, `chi-square ${chi2}`);
});

test("a matrix is one unit of its page, only rows with the same title and answers", () => {
  const shapes = units(PAGES[0][1]).map((u) => [u.matrix, u.questions.map((x) => x.name)]);
  assert.deepStrictEqual(shapes, [[null, ["x"]], ["Agree?", ["m1", "m2", "m3"]], [null, ["y"]]]);
  const lone = units([q("a", { matrix: "T" }), q("b", { matrix: "T", labels: ["other"] })]);
  assert.deepStrictEqual(lone.map((u) => u.matrix), [null, null]);  // other answers: no grid of one row
  const conditional = units([q("a", { matrix: "T" }), q("b", { matrix: "T", show_if: { question: "x", answers: [0] } })]);
  assert.deepStrictEqual(conditional.map((u) => u.matrix), [null, null]);  // shown on a condition: drawn alone
});

test("shuffled questions stay on their page, a matrix together; choices shuffled only where unordered", () => {
  const rng = seeded(11);
  const seen = new Set();
  for (let i = 0; i < 200; i += 1) {
    const { pages, order } = arrange(PAGES, { questions: true, choices: true }, rng);
    assert.deepStrictEqual(pages.map(([title]) => title), ["One", "Two"]);
    const names = pages[0][1].map((x) => x.name);
    assert.deepStrictEqual([...names].sort(), ["m1", "m2", "m3", "x", "y"]);
    const first = names.findIndex((name) => name.startsWith("m"));
    assert.ok(names.slice(first, first + 3).every((name) => name.startsWith("m")), names.join());
    assert.deepStrictEqual(Object.keys(order.choices).sort(), ["multi", "w", "x", "y"]);  // not matrix rows, scales, yes/no
    assert.deepStrictEqual([...order.choices.y].sort(), [0, 1]);  // "Prefer not to say" (code 2) stays last
    assert.deepStrictEqual([...order.choices.multi].sort(), [0, 1, 2]);
    assert.deepStrictEqual([...order.choices.w].sort(), [0, 1]);  // "Prefer not to say" and "Not asked" stay last
    seen.add(names.join());
  }
  assert.ok(seen.size > 6, `${seen.size} orders of page one`);  // 3! orders of 3 units × 3! of the rows: 36
});

test("no shuffle: the designer's order; a kept order is reused when it fits, and a stale one is not", () => {
  const plain = arrange(PAGES, {}, null);
  assert.deepStrictEqual(plain.pages, PAGES);
  assert.deepStrictEqual(plain.order.choices, {});
  const drawn = arrange(PAGES, { questions: true, choices: true }, seeded(3));
  const again = arrange(PAGES, { questions: true, choices: true }, ByteSource.fromBytes(new Uint8Array(0)), drawn.order);
  assert.deepStrictEqual(again.order, drawn.order);  // nothing drawn (the empty source would throw)
  const stale = { pages: [["x", "gone"], []], choices: { x: [0, 1] } };
  const fresh = arrange(PAGES, { questions: true, choices: true }, seeded(5), stale);
  assert.deepStrictEqual([...fresh.order.pages[0]].sort(), ["m1", "m2", "m3", "x", "y"]);
  assert.deepStrictEqual([...fresh.order.choices.x].sort(), [0, 1, 2]);
});
