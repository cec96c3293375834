/**
 * Chart.js configurations for the planner's result page (templates/dashboard/planner_result.html), from the plan
 * JSON (aggregator/lab/planner.py, Plan.to_dict()). Pure functions, no DOM: `node --test` checks them
 * (tests/dashboard/planner_charts.test.mjs); planner.mjs draws them.
 *
 * Each mechanism is a line of mean accuracies with its 95 % interval as a translucent band (two extra datasets, the
 * upper one filled down to the lower one); the non-private accuracy is dotted, the target dashed and the majority rule
 * (always guessing the most frequent class, `data.majority`: the plan's majority_accuracy) dash-dotted on every chart —
 * a plain extra dataset, no plugin. Where the plan carries them, each mechanism also has its private majority rule
 * (dashed) and its regret band (grey: the best older estimator's accuracy down to 1 point below it).
 */
import { t } from "../i18n.mjs";
import { CLASS_COLORS, translucent } from './charts.mjs';

const SYMBOL = { epsilon: 'ε', theta: 'θ' };

/** The settings of one parameter, grouped by mechanism and sorted by value: [[method, [setting, …]], …]. */
export function byMethod(settings, parameter) {
  const groups = new Map();
  for (const s of settings.filter((x) => x.parameter === parameter)) {
    if (!groups.has(s.method)) groups.set(s.method, []);
    groups.get(s.method).push(s);
  }
  return [...groups].map(([method, list]) => [method, list.sort((a, b) => a.value - b.value)]);
}

/** 0.6138 → "61.4 %", as the result page writes it (aggregator/planning.py, percent). */
export function percent(fraction) {
  return `${(100 * fraction).toFixed(1)} %`;
}

/** The label of the majority rule's line. */
export function majorityLabel(majority) {
  return t("Always guessing the most frequent class: {percent}", { percent: percent(majority) });
}

const MAJORITY_COLOR = '#6a1b9a';
const MAJORITY_DASH = [10, 3, 2, 3];
const BAND_COLOR = '#8a8a8a';

function level(label, y, xs, color, dash) {
  return {
    label, data: [{ x: Math.min(...xs), y }, { x: Math.max(...xs), y }], borderColor: color, borderDash: dash,
    borderWidth: 1, pointRadius: 0, fill: false,
  };
}

/** The label of a mechanism's private majority rule. */
export function privateMajorityLabel(method) {
  return t("{method}: private majority rule", { method });
}

/** The label of a mechanism's regret band. */
export function regretBandLabel(method) {
  return t("{method}: best old rule, down to 1 point below", { method });
}

/**
 * A mechanism's private majority rule (dashed, its colour) and its regret band — from the best older estimator's mean
 * accuracy (`best_rival_accuracy`) down 1 point, grey — when its settings carry them (aggregator/lab/planner.py,
 * Setting); none for runs from before them.
 */
export function floorDatasets(method, list, color) {
  const out = [];
  if (list.every((s) => s.private_majority != null)) {
    out.push({ label: privateMajorityLabel(method), data: list.map((s) => ({ x: s.value, y: s.private_majority })),
      borderColor: color, borderDash: [5, 4], borderWidth: 1, pointRadius: 0, fill: false, floorOf: method });
  }
  if (list.every((s) => s.best_rival_accuracy != null)) {
    out.push({ label: `${method} band`, data: list.map((s) => ({ x: s.value, y: s.best_rival_accuracy - 0.01 })),
      borderWidth: 0, pointRadius: 0, fill: false, intervalOf: method, bandOf: method });
    out.push({ label: regretBandLabel(method), data: list.map((s) => ({ x: s.value, y: s.best_rival_accuracy })),
      borderColor: BAND_COLOR, borderWidth: 1, pointRadius: 0, backgroundColor: translucent(BAND_COLOR, 0.25),
      fill: '-1', bandOf: method });
  }
  return out;
}

/** Accuracy over ε (log axis) or θ per mechanism, or null when no setting has that parameter. */
export function curveConfig(data, parameter) {
  const groups = byMethod(data.settings, parameter);
  if (groups.length === 0) return null;
  const datasets = [];
  groups.forEach(([method, list], i) => {
    const color = CLASS_COLORS[i % CLASS_COLORS.length];
    const band = (key) => list.map((s) => ({ x: s.value, y: s[key] ?? s.accuracy }));
    datasets.push({ label: `${method} (95 % interval)`, data: band('low'), borderWidth: 0, pointRadius: 0, fill: false, intervalOf: method });
    datasets.push({ label: `${method} interval`, data: band('high'), borderWidth: 0, pointRadius: 0,
      backgroundColor: translucent(color, 0.2), fill: '-1', intervalOf: method });
    datasets.push({ label: method, data: list.map((s) => ({ x: s.value, y: s.accuracy })), borderColor: color,
      backgroundColor: color, pointRadius: 3, fill: false });
    datasets.push(...floorDatasets(method, list, color));
  });
  const xs = data.settings.filter((s) => s.parameter === parameter).map((s) => s.value);
  if (data.nonprivate != null) datasets.push(level('No privacy', data.nonprivate, xs, '#1b1b1f', [2, 3]));
  datasets.push(level('Target', data.target, xs, '#b25e00', [8, 4]));
  if (data.majority != null) datasets.push(level(majorityLabel(data.majority), data.majority, xs, MAJORITY_COLOR, MAJORITY_DASH));
  return {
    type: 'line',
    data: { datasets },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      parsing: true,
      scales: {
        x: { type: parameter === 'epsilon' ? 'logarithmic' : 'linear', title: { display: true, text: SYMBOL[parameter] } },
        y: { min: 0, max: 1, title: { display: true, text: t("accuracy on held-out rows") } },
      },
      plugins: {
        title: { display: true, text: t("Accuracy over {symbol}", { symbol: SYMBOL[parameter] }) },
        legend: { labels: { filter: (item, chart) => !chart.datasets[item.datasetIndex].intervalOf } },
      },
    },
  };
}

/** The recommended setting's accuracy by number of training respondents, or null without a learning curve. */
export function learningCurveConfig(data) {
  if (!data.curve || data.curve.length === 0) return null;
  const xs = data.curve.map((p) => p.n_train);
  return {
    type: 'line',
    data: {
      datasets: [
        { label: t("95 % interval"), data: data.curve.map((p) => ({ x: p.n_train, y: p.low ?? p.accuracy })), borderWidth: 0, pointRadius: 0, fill: false, intervalOf: 'curve' },
        { label: 'interval', data: data.curve.map((p) => ({ x: p.n_train, y: p.high ?? p.accuracy })), borderWidth: 0, pointRadius: 0,
          backgroundColor: translucent(CLASS_COLORS[0], 0.2), fill: '-1', intervalOf: 'curve' },
        { label: t("Recommended setting"), data: data.curve.map((p) => ({ x: p.n_train, y: p.accuracy })), borderColor: CLASS_COLORS[0], pointRadius: 3, fill: false },
        level(t("Target"), data.target, xs, '#b25e00', [8, 4]),
        ...(data.majority != null ? [level(majorityLabel(data.majority), data.majority, xs, MAJORITY_COLOR, MAJORITY_DASH)] : []),
      ],
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      scales: {
        x: { type: 'linear', title: { display: true, text: t("training respondents") } },
        y: { min: 0, max: 1, title: { display: true, text: t("accuracy") } },
      },
      plugins: {
        title: { display: true, text: t("Accuracy by number of respondents (recommended setting)") },
        legend: { labels: { filter: (item, chart) => !chart.datasets[item.datasetIndex].intervalOf } },
      },
    },
  };
}
