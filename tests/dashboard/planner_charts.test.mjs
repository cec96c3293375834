// The planner's chart configurations (static/js/dashboard/planner_charts.mjs), fed with a real plan's JSON that
// tests/dashboard/test_js.py writes to $PLANNER_FIXTURE (aggregator/lab/planner.py's Plan.to_dict() on vote).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { byMethod, curveConfig, learningCurveConfig, majorityLabel, percent, privateMajorityLabel, regretBandLabel } from '../../static/js/dashboard/planner_charts.mjs';

const plan = JSON.parse(readFileSync(process.env.PLANNER_FIXTURE, 'utf8'));
const data = { settings: plan.settings, nonprivate: plan.nonprivate_accuracy, target: plan.target, curve: plan.learning_curve,
  majority: plan.majority_accuracy };

/** The majority rule's dataset of a configuration: a horizontal line at the plan's majority accuracy, labelled. */
function assertMajorityLine(config, xs) {
  const line = config.data.datasets.find((d) => d.label.startsWith('Always guessing the most frequent class'));
  assert.ok(line, 'a majority-rule line');
  assert.equal(line.label, `Always guessing the most frequent class: ${percent(plan.majority_accuracy)}`);
  assert.deepEqual(line.data, [{ x: Math.min(...xs), y: plan.majority_accuracy }, { x: Math.max(...xs), y: plan.majority_accuracy }]);
  assert.equal(line.fill, false);
  assert.equal(line.intervalOf, undefined); // shown in the legend
}

test('settings are grouped by mechanism and sorted by value', () => {
  const groups = byMethod([{ method: 'a', parameter: 'epsilon', value: 2 }, { method: 'b', parameter: 'theta', value: 0.7 },
    { method: 'a', parameter: 'epsilon', value: 1 }], 'epsilon');
  assert.deepEqual(groups.map(([m, list]) => [m, list.map((s) => s.value)]), [['a', [1, 2]]]);
});

test('one line and one interval band per mechanism, then no-privacy and target levels', () => {
  const config = curveConfig(data, 'epsilon');
  const oue = plan.settings.filter((s) => s.method === 'oue');
  const [low, high, line] = config.data.datasets;
  assert.deepEqual(line.data, oue.map((s) => ({ x: s.value, y: s.accuracy })));
  assert.deepEqual(low.data.map((p) => p.y), oue.map((s) => s.low));
  assert.deepEqual(high.data.map((p) => p.y), oue.map((s) => s.high));
  assert.equal(high.fill, '-1');
  const labels = config.data.datasets.map((d) => d.label);
  assert.deepEqual(labels.slice(-3), ['No privacy', 'Target', majorityLabel(plan.majority_accuracy)]);
  assert.equal(config.data.datasets.at(-2).data[0].y, plan.target);
  assert.ok(plan.majority_accuracy > 0.5 && plan.majority_accuracy < 1); // vote: 267 of 435 are democrats
  assert.equal(percent(0.6137931), '61.4 %');
  assertMajorityLine(config, plan.settings.filter((s) => s.parameter === 'epsilon').map((s) => s.value));
  assertMajorityLine(curveConfig(data, 'theta'), plan.settings.filter((s) => s.parameter === 'theta').map((s) => s.value));
  const old = curveConfig({ ...data, majority: undefined }, 'epsilon'); // a run from before the majority rule: no line
  assert.deepEqual(old.data.datasets.map((d) => d.label).slice(-2), ['No privacy', 'Target']);
  assert.equal(config.options.scales.x.type, 'logarithmic');
  assert.equal(curveConfig(data, 'theta').options.scales.x.type, 'linear');
});

test('no chart for a parameter no setting uses, nor for an empty learning curve', () => {
  assert.equal(curveConfig({ ...data, settings: plan.settings.filter((s) => s.parameter === 'epsilon') }, 'theta'), null);
  assert.equal(learningCurveConfig({ ...data, curve: [] }), null);
});

test('the learning curve plots accuracy over training respondents', () => {
  const config = learningCurveConfig(data);
  const line = config.data.datasets.find((d) => d.label === 'Recommended setting');
  assert.deepEqual(line.data, plan.learning_curve.map((p) => ({ x: p.n_train, y: p.accuracy })));
  assertMajorityLine(config, plan.learning_curve.map((p) => p.n_train));
});

test('each mechanism shows its private majority rule and its regret band from the plan', () => {
  for (const parameter of ['epsilon', 'theta']) {
    const config = curveConfig(data, parameter);
    for (const [method, list] of byMethod(plan.settings, parameter)) {
      const floor = config.data.datasets.find((d) => d.label === privateMajorityLabel(method));
      assert.deepEqual(floor.data, list.map((s) => ({ x: s.value, y: s.private_majority })));
      assert.equal(floor.fill, false);
      const top = config.data.datasets.findIndex((d) => d.label === regretBandLabel(method));
      const upper = config.data.datasets[top];
      const lower = config.data.datasets[top - 1]; // the band is filled from the upper edge down to the dataset before
      assert.equal(upper.fill, '-1');
      assert.equal(lower.intervalOf, method); // hidden from the legend
      list.forEach((s, i) => {
        assert.equal(upper.data[i].y, s.best_rival_accuracy);
        assert.ok(Math.abs(lower.data[i].y - (s.best_rival_accuracy - 0.01)) < 1e-12);
      });
    }
  }
  // a run from before the floor: no such datasets
  const old = plan.settings.map(({ private_majority, best_rival_accuracy, ...rest }) => rest);
  const labels = curveConfig({ ...data, settings: old }, 'epsilon').data.datasets.map((d) => d.label);
  assert.ok(!labels.some((l) => l.includes('private majority rule') || l.includes('best old rule')));
});
