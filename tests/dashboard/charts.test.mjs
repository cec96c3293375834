// The dashboard's browser modules: Chart.js configurations from charts.py's JSON (static/js/dashboard/charts.mjs)
// and the job follower (job.mjs). Run by tests/dashboard/test_js.py, which also writes the chart JSON of simulated
// MRR and Gaussian surveys to $DASHBOARD_FIXTURE (charts.py's real output) for the last tests.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import {
  accuracyAxisMin, accuracyConfig, accuracyLabel, categoricalLabel, distributionConfig, epsilonConfig, epsilonLabel,
  estimateMarks, horizontalHeight, intervalBars, intervalNote, numericLabel, pseConfig, pseLabel, reportsConfig, translucent,
} from '../../static/js/dashboard/charts.mjs';
import { describe, follow, render } from '../../static/js/dashboard/job.mjs';

const ACCURACY = { labels: ['v1', 'v2', 'v3'], versions: [1, 2, 3], estimate: [0.81, null, 0.9],
  low: [0.75, null, 0.86], high: [0.87, null, 0.94], reports: [120, 0, 300], method: 'ldp-binary-rr' };

test('interval bars: [low, high], a zero-height bar without interval, a gap without estimate', () => {
  assert.deepEqual(intervalBars([0.5, 0.2, null], [0.4, null, null], [0.6, null, null]), [[0.4, 0.6], [0.2, 0.2], null]);
});

test('reports: stacked training and validation bars, nothing without reports', () => {
  assert.equal(reportsConfig({ bucket: 'day', labels: [], training: [], validation: [] }), null);
  const config = reportsConfig({ bucket: 'week', labels: ['2026-01-05'], training: [7], validation: [2] });
  assert.deepEqual(config.data.datasets.map((d) => d.data), [[7], [2]]);
  assert.equal(config.options.scales.x.stacked, true);
  assert.equal(config.options.plugins.title.text, 'Reports per week');
});

test('accuracy: floating bars with the estimates marked, a readable axis and tooltips', () => {
  const config = accuracyConfig(ACCURACY);
  const [dataset] = config.data.datasets;
  assert.deepEqual(dataset.data, [[0.75, 0.87], null, [0.86, 0.94]]);
  assert.deepEqual(dataset.estimates, ACCURACY.estimate);
  assert.deepEqual(config.plugins, [estimateMarks]);
  assert.equal(accuracyAxisMin(ACCURACY), 0.6);
  assert.equal(config.options.scales.y.min, 0.6);
  assert.equal(accuracyAxisMin({ low: [0.02], estimate: [0.1] }), 0);
  assert.equal(accuracyLabel(ACCURACY, 0), '81.0 % (95 %: 75.0 %–87.0 %), 120 validation reports');
  assert.equal(accuracyLabel(ACCURACY, 1), 'no estimate yet');
  assert.equal(accuracyConfig({ ...ACCURACY, estimate: [null, null, null] }), null);
});

const CATEGORICAL = { kind: 'categorical', name: 'smoker', values: ['never', 'daily'], classes: ['no', 'yes'],
  interval_method: 'bound', series: [
    { class: 'no', estimate: [0.7, 0.3], low: [0.6, 0.2], high: [0.8, 0.4] },
    { class: 'yes', estimate: [0.2, 0.8], low: [0.1, 0.7], high: [0.3, 0.9] }] };
const NUMERIC = { kind: 'numeric', name: 'age', low_bound: 18, high_bound: 98, classes: ['no', 'yes'],
  interval_method: 'delta', estimate: [35, 61], low: [33, 58], high: [37, 64], sigma: [8, 9] };

test('distributions: one dataset per class over the answers; numeric: one bar per class', () => {
  const config = distributionConfig(CATEGORICAL);
  assert.deepEqual(config.data.labels, ['never', 'daily']);
  assert.deepEqual(config.data.datasets.map((d) => d.label), ['class no', 'class yes']);
  assert.deepEqual(config.data.datasets[1].data, [[0.1, 0.3], [0.7, 0.9]]);
  assert.deepEqual(config.data.datasets[1].estimates, [0.2, 0.8]);
  assert.equal(config.options.scales.y.max, 1);
  assert.equal(categoricalLabel(CATEGORICAL, 1, 0), 'class yes: 0.200 (95 %: 0.100–0.300)');
  const numeric = distributionConfig(NUMERIC);
  assert.deepEqual(numeric.data.labels, ['no', 'yes']);
  assert.deepEqual(numeric.data.datasets[0].data, [[33, 37], [58, 64]]);
  assert.equal(numeric.options.scales.y.suggestedMin, 18);
  assert.equal(numericLabel(NUMERIC, 1), 'mean 61.00 (95 %: 58.00–64.00), σ 9.00');
  assert.match(intervalNote(CATEGORICAL), /conservative/);
  assert.equal(intervalNote(NUMERIC), '');
  assert.equal(distributionConfig(undefined), null);
});

test('privacy: ε bars for every survey, PSE bars for MRR only', () => {
  const ldp = { mode: 'ldp', labels: ['sick', 'smoker'], epsilon: [1, 1], pse_before: null, pse_after: null };
  assert.deepEqual(epsilonConfig(ldp).data.datasets[0].data, [1, 1]);
  assert.equal(epsilonConfig(ldp).options.indexAxis, 'y');
  assert.equal(pseConfig(ldp), null);
  const mrr = { ...ldp, mode: 'mrr', pse_before: [0.3, 0.2], pse_after: [0.1, 0] };
  assert.deepEqual(pseConfig(mrr).data.datasets.map((d) => d.data), [[0.3, 0.2], [0.1, 0]]);
  // issue 11 item 5: the informative "after" with its Monte Carlo SE; the paper-literal one hidden behind the legend
  const mined = pseConfig({ ...mrr, pse_after_se: [0.004, 0], pse_after_paper: [0, 0] });
  assert.deepEqual(mined.data.datasets.map((d) => [d.label, Boolean(d.hidden)]),
    [['before mining', false], ['after mining', false], ['after mining (paper-literal)', true]]);
  assert.equal(pseLabel(mined.data.datasets[1], 0), 'after mining: 0.100 ± 0.004');
  assert.equal(pseLabel(mined.data.datasets[1], 1), 'after mining: 0.000');
  assert.equal(horizontalHeight(2), 288);
  assert.equal(horizontalHeight(23, 2), 80 + 23 * 32);
  assert.equal(translucent('#0072B2', 0.5), 'rgba(0, 114, 178, 0.5)');
});

test('privacy: ∞ reaches the edge and says so; known-personal figures stand beside the others (issue 11 item 4)', () => {
  const privacy = {
    mode: 'mrr', labels: ['a', 'b', 'y'], epsilon: [2, 4, 4], epsilon_infinite: [false, false, false],
    epsilon_known_personal: [null, 4, 4], epsilon_known_personal_infinite: [true, false, false],
    epsilon_note: 'which is which', epsilon_exact: true, pse_before: null,
  };
  const config = epsilonConfig(privacy);
  const [unknowing, knowing] = config.data.datasets;
  assert.deepEqual(unknowing.data, [2, 4, 4]);
  assert.deepEqual(knowing.data, [5, 4, 4]);  // ∞ drawn at the cap, 1.25 × the largest finite figure
  assert.equal(config.options.scales.x.max, 5);
  assert.equal(epsilonLabel(knowing, 0), 'against someone who knows them: ε = ∞ (no finite ε)');
  assert.equal(epsilonLabel(unknowing, 0), 'against someone who does not know the personal answers: ε = 2.00');
  assert.match(config.options.plugins.subtitle.text, /∞: no finite ε.*which is which/);
  assert.equal(config.options.plugins.legend.display, true);
  const one = epsilonConfig({ labels: ['x'], epsilon: [1], epsilon_infinite: [false], epsilon_known_personal: null, epsilon_exact: false });
  assert.equal(one.data.datasets.length, 1);
  assert.equal(epsilonLabel(one.data.datasets[0], 0), 'ε = 1.00');
  assert.match(one.options.plugins.subtitle.text, /configured ε, an upper bound/);
  const allInfinite = epsilonConfig({ labels: ['x'], epsilon: [null], epsilon_infinite: [true] });
  assert.deepEqual(allInfinite.data.datasets[0].data, [1]);
});

test('the estimate marks are drawn across each visible bar at the estimate', () => {
  const lines = [];
  const ctx = { save() {}, restore() {}, beginPath() {}, stroke() {}, moveTo: (x, y) => lines.push(['move', x, y]),
    lineTo: (x, y) => lines.push(['line', x, y]) };
  const bar = (x) => ({ getProps: () => ({ x, width: 10 }) });
  const chart = {
    ctx,
    data: { datasets: [{ estimates: [0.5, null] }, { estimates: [0.25] }, { data: [1] }] },
    isDatasetVisible: (i) => i !== 1,
    getDatasetMeta: () => ({ yAxisID: 'y', data: [bar(100), bar(200)] }),
    scales: { y: { getPixelForValue: (v) => 1000 * (1 - v) } },
  };
  estimateMarks.afterDatasetsDraw(chart);
  assert.deepEqual(lines, [['move', 95, 500], ['line', 105, 500]]);
});

// -- the job follower -------------------------------------------------------------------------------------------
function fakeSection(url) {
  const elements = { '#job-progress': { value: 0 }, '#job-message': { textContent: '' }, '#job-reload': { hidden: true } };
  const classes = new Set();
  return {
    hidden: true,
    dataset: { jobUrl: url },
    querySelector: (selector) => elements[selector],
    classList: { toggle: (name, on) => (on ? classes.add(name) : classes.delete(name)) },
    elements,
    classes,
  };
}

test('a job is described by its state, progress and message', () => {
  assert.equal(describe({ state: 'running', progress: 0.456, message: 'Folded 10 of 20 new reports' }),
    'Running (46 %) — Folded 10 of 20 new reports');
  assert.equal(describe({ state: 'pending', progress: 0, message: '' }), 'Waiting for a worker');
  assert.equal(describe({ state: 'failed', progress: 0, message: 'The task queue is unreachable; try again later.' }),
    'Failed — The task queue is unreachable; try again later.');
});

test('following a job polls until it is finished and shows the final message', async () => {
  const states = [
    { state: 'pending', progress: 0, message: '', finished: false },
    { state: 'running', progress: 0.5, message: 'Folded 5 of 10 new reports', finished: false },
    { state: 'done', progress: 1, message: 'Published version 3 (1200 reports).', finished: true, result: { version: 3 } },
  ];
  const seen = [];
  const section = fakeSection('/dashboard/jobs/7/');
  const fetchJob = async (url, options) => {
    seen.push([url, options.headers.Accept]);
    return { ok: true, json: async () => states[seen.length - 1] };
  };
  let sleeps = 0;
  const last = await follow(section, { fetchJob, sleep: async () => { sleeps += 1; } });
  assert.equal(last.state, 'done');
  assert.equal(seen.length, 3);
  assert.equal(sleeps, 2);
  assert.deepEqual(seen[0], ['/dashboard/jobs/7/', 'application/json']);
  assert.equal(section.hidden, false);
  assert.equal(section.elements['#job-progress'].value, 1);
  assert.equal(section.elements['#job-message'].textContent, 'Done — Published version 3 (1200 reports).');
  assert.equal(section.elements['#job-reload'].hidden, false);
});

test('a failed job is marked, and an unreadable one says so', async () => {
  const section = fakeSection('/dashboard/jobs/8/');
  render(section, { state: 'failed', progress: 0, message: 'The task queue is unreachable; try again later.', finished: true });
  assert.ok(section.classes.has('failed'));
  assert.equal(section.elements['#job-reload'].hidden, true);
  const broken = fakeSection('/dashboard/jobs/9/');
  assert.equal(await follow(broken, { fetchJob: async () => ({ ok: false, status: 404 }) }), null);
  assert.match(broken.elements['#job-message'].textContent, /HTTP 404/);
  assert.equal(await follow(fakeSection(''), {}), null);
});

// -- charts.py's real JSON ------------------------------------------------------------------------------------------
const fixture = process.env.DASHBOARD_FIXTURE ? JSON.parse(readFileSync(process.env.DASHBOARD_FIXTURE, 'utf8')) : null;

test('charts.py JSON of simulated surveys turns into configurations', { skip: !fixture && 'run through test_js.py' }, () => {
  for (const [name, data] of Object.entries(fixture)) {
    for (const attribute of data.distributions) {
      const config = distributionConfig(attribute);
      for (const dataset of config.data.datasets) {
        assert.equal(dataset.data.length, config.data.labels.length, name);
        dataset.data.forEach((bar, i) => {
          assert.ok(bar[0] <= dataset.estimates[i] + 1e-12 && dataset.estimates[i] <= bar[1] + 1e-12, `${name} ${attribute.name}`);
        });
      }
    }
    assert.equal(epsilonConfig(data.privacy).data.labels.length, data.privacy.labels.length);
    assert.equal(pseConfig(data.privacy) === null, data.privacy.mode !== 'mrr', name);
  }
});
