/**
 * Chart.js configurations for the staff dashboard's survey page, built from the JSON that
 * aggregator/dashboard/charts.py computes (delivered by Django's json_script). Pure functions: no DOM and no Chart
 * global, so `node --test` checks them (tests/dashboard/charts.test.mjs); survey.mjs draws them.
 *
 * Intervals are drawn as floating bars [low, high]; the `estimateMarks` plugin draws the estimate as a dark line
 * across each bar (Chart.js has no error-bar element of its own).
 * Texts in the page's language (../i18n.mjs, English by default: also in node).
 */
import { t } from "../i18n.mjs";

export const COLORS = { training: '#0b5cad', validation: '#b25e00', interval: 'rgba(11, 92, 173, 0.35)', mark: '#1b1b1f' };
/** Okabe–Ito colours: distinguishable with the common colour-vision deficiencies. */
export const CLASS_COLORS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];

const percent = (x) => `${(100 * x).toFixed(1)} %`;
const fixed = (x, digits = 3) => (x == null ? '—' : Number(x).toFixed(digits));

/** Translucent version of a #rrggbb colour, for interval bars. */
export function translucent(hex, alpha = 0.45) {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

/** Floating-bar data [low, high] per point; an estimate without interval becomes a zero-height bar, a gap stays null. */
export function intervalBars(estimate, low, high) {
  return estimate.map((e, i) => {
    if (low[i] != null && high[i] != null) return [low[i], high[i]];
    return e == null ? null : [e, e];
  });
}

/** Draws each dataset's `estimates[j]` as a horizontal line across its bar j (vertical bar charts). */
export const estimateMarks = {
  id: 'estimateMarks',
  afterDatasetsDraw(chart) {
    const { ctx } = chart;
    chart.data.datasets.forEach((dataset, i) => {
      if (!dataset.estimates || !chart.isDatasetVisible(i)) return;
      const meta = chart.getDatasetMeta(i);
      const scale = chart.scales[meta.yAxisID];
      meta.data.forEach((bar, j) => {
        const value = dataset.estimates[j];
        if (value == null || !bar) return;
        const { x, width } = bar.getProps(['x', 'width'], true);
        const y = scale.getPixelForValue(value);
        ctx.save();
        ctx.strokeStyle = COLORS.mark;
        ctx.lineWidth = 3;
        ctx.beginPath();
        ctx.moveTo(x - width / 2, y);
        ctx.lineTo(x + width / 2, y);
        ctx.stroke();
        ctx.restore();
      });
    });
  },
};

const base = (title) => ({
  responsive: true,
  maintainAspectRatio: false,
  animation: false,
  plugins: { title: { display: Boolean(title), text: title }, legend: { position: 'bottom' } },
});

/** Stacked bars of training and validation reports per day (or week); null without any report. */
export function reportsConfig(data) {
  if (!data || data.labels.length === 0) return null;
  return {
    type: 'bar',
    data: {
      labels: data.labels,
      datasets: [
        { label: t("Training reports"), data: data.training, backgroundColor: COLORS.training },
        { label: t("Validation reports"), data: data.validation, backgroundColor: COLORS.validation },
      ],
    },
    options: {
      ...base(data.bucket === "week" ? t("Reports per week") : t("Reports per day")),
      scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, title: { display: true, text: t("reports") } } },
    },
  };
}

/** Accuracy per version: 95 % interval as a floating bar, estimate as a mark; null when no version has one. */
export function accuracyConfig(data) {
  if (!data || !data.estimate.some((e) => e != null)) return null;
  return {
    type: 'bar',
    data: {
      labels: data.labels,
      datasets: [{
        label: t("Estimated accuracy (95 % interval)"),
        data: intervalBars(data.estimate, data.low, data.high),
        estimates: data.estimate,
        backgroundColor: COLORS.interval,
        borderColor: COLORS.training,
        borderWidth: 1,
      }],
    },
    options: {
      ...base(t("Accuracy per model version")),
      scales: { y: { min: accuracyAxisMin(data), max: 1, ticks: { callback: (v) => `${Math.round(100 * v)} %` } } },
      plugins: {
        ...base(t("Accuracy per model version")).plugins,
        tooltip: { callbacks: { label: (item) => accuracyLabel(data, item.dataIndex) } },
      },
    },
    plugins: [estimateMarks],
  };
}

/** Lower end of the accuracy axis: a tenth below the lowest interval, so narrow intervals stay readable. */
export function accuracyAxisMin(data) {
  const lows = data.low.concat(data.estimate).filter((x) => x != null);
  return Math.max(0, Math.floor(10 * Math.min(...lows) - 1) / 10);
}

export function accuracyLabel(data, i) {
  if (data.estimate[i] == null) return t("no estimate yet");
  return t("{estimate} (95 %: {low}–{high}), {reports} validation reports",
    { estimate: percent(data.estimate[i]), low: percent(data.low[i]), high: percent(data.high[i]), reports: data.reports[i] });
}

/** A sentence on where the chart's intervals come from (charts.py, interval_method). */
export function intervalNote(attribute) {
  switch (attribute && attribute.interval_method) {
    case 'bound': return t("Intervals here are conservative: they cover the true share at least 95 % of the time.");
    case 'none': return t("This model carries no standard errors: only the estimates are shown.");
    default: return '';
  }
}

/** Estimated P(a | c) per answer and class (categorical) or mean per class (numeric), with 95 % intervals. */
export function distributionConfig(attribute) {
  if (!attribute) return null;
  if (attribute.kind === 'numeric') {
    const colors = attribute.classes.map((_, c) => CLASS_COLORS[c % CLASS_COLORS.length]);
    return {
      type: 'bar',
      data: {
        labels: attribute.classes,
        datasets: [{
          label: t("Average {question} per class (95 % interval)", { question: attribute.text || attribute.name }),
          data: intervalBars(attribute.estimate, attribute.low, attribute.high),
          estimates: attribute.estimate,
          backgroundColor: colors.map((c) => translucent(c)),
          borderColor: colors,
          borderWidth: 1,
        }],
      },
      options: {
        ...base(attribute.text || attribute.name),
        scales: { y: { suggestedMin: attribute.low_bound, suggestedMax: attribute.high_bound, title: { display: true, text: attribute.name } } },
        plugins: {
          ...base(attribute.text || attribute.name).plugins,
          legend: { display: false },
          tooltip: { callbacks: { label: (item) => numericLabel(attribute, item.dataIndex) } },
        },
      },
      plugins: [estimateMarks],
    };
  }
  return {
    type: 'bar',
    data: {
      labels: attribute.values,
      datasets: attribute.series.map((s, c) => ({
        label: t("class {name}", { name: s.class }),
        data: intervalBars(s.estimate, s.low, s.high),
        estimates: s.estimate,
        backgroundColor: translucent(CLASS_COLORS[c % CLASS_COLORS.length]),
        borderColor: CLASS_COLORS[c % CLASS_COLORS.length],
        borderWidth: 1,
      })),
    },
    options: {
      ...base(attribute.text || attribute.name),
      scales: { y: { min: 0, max: 1, title: { display: true, text: t("share of the class giving this answer") } } },
      plugins: {
        ...base(attribute.text || attribute.name).plugins,
        tooltip: { callbacks: { label: (item) => categoricalLabel(attribute, item.datasetIndex, item.dataIndex) } },
      },
    },
    plugins: [estimateMarks],
  };
}

export function categoricalLabel(attribute, c, a) {
  const s = attribute.series[c];
  const interval = s.low[a] == null ? '' : ` (95 %: ${fixed(s.low[a])}–${fixed(s.high[a])})`;
  return `${t("class {name}", { name: s.class })}: ${fixed(s.estimate[a])}${interval}`;
}

export function numericLabel(attribute, c) {
  const interval = attribute.low[c] == null ? '' : ` (95 %: ${fixed(attribute.low[c], 2)}–${fixed(attribute.high[c], 2)})`;
  return t("mean {mean}{interval}, σ {sigma}", { mean: fixed(attribute.estimate[c], 2), interval, sigma: fixed(attribute.sigma[c], 2) });
}

const horizontal = (title, labels, datasets, axis) => ({
  type: 'bar',
  data: { labels, datasets },
  options: { ...base(title), indexAxis: 'y', scales: { x: { beginAtZero: true, ...axis } } },
});

/** Bar data of ε figures: ∞ (flagged by charts.py, JSON has no ∞) is drawn to `cap`, the chart's edge. */
function epsilonBars(values, infinite, cap) {
  return values.map((v, i) => (infinite && infinite[i] ? cap : v));
}

/** ε per question (horizontal bars: question names are long); null without privacy figures. ∞ reaches the edge of
 * the chart and says so in its tooltip; with a real personal question (MRR) a second bar per question gives the ε
 * against someone who knows the personal answers, and the subtitle says which is which. */
export function epsilonConfig(privacy) {
  if (!privacy || privacy.labels.length === 0) return null;
  const known = privacy.epsilon_known_personal;
  const finite = [...privacy.epsilon, ...(known || [])].filter((v) => v != null && Number.isFinite(v));
  const anyInfinite = [...(privacy.epsilon_infinite || []), ...(privacy.epsilon_known_personal_infinite || [])].some(Boolean);
  const cap = finite.length ? Math.max(...finite) * 1.25 || 1 : 1;
  const datasets = [{
    label: known ? t("against someone who does not know the personal answers") : 'ε',
    data: epsilonBars(privacy.epsilon, privacy.epsilon_infinite, cap),
    infinite: privacy.epsilon_infinite || [],
    backgroundColor: COLORS.training,
  }];
  if (known) {
    datasets.push({ label: t("against someone who knows them"), data: epsilonBars(known, privacy.epsilon_known_personal_infinite, cap),
      infinite: privacy.epsilon_known_personal_infinite || [], backgroundColor: COLORS.validation });
  }
  const config = horizontal(t("ε per question (smaller is more private)"), privacy.labels, datasets,
    { title: { display: true, text: 'ε' }, ...(anyInfinite ? { max: cap } : {}) });
  config.options.plugins.legend = { display: Boolean(known), position: 'bottom' };
  config.options.plugins.tooltip = { callbacks: { label: (item) => epsilonLabel(datasets[item.datasetIndex], item.dataIndex) } };
  const notes = [];
  if (anyInfinite) notes.push(t("A bar reaching the edge is ∞: no finite ε holds."));
  if (privacy.epsilon_note) notes.push(privacy.epsilon_note);
  if (privacy.epsilon_exact === false) notes.push(t("Each figure is the configured ε, an upper bound for one question."));
  if (notes.length) config.options.plugins.subtitle = { display: true, text: notes.join(' ') };
  return config;
}

/** "ε = 6.04" or "ε = ∞ (no finite ε)" for bar `i` of an epsilonConfig dataset. */
export function epsilonLabel(dataset, i) {
  const prefix = dataset.label === 'ε' ? '' : `${dataset.label}: `;
  return dataset.infinite[i] ? `${prefix}${t("ε = ∞ (no finite ε)")}` : `${prefix}ε = ${fixed(dataset.data[i], 2)}`;
}

/** PSE per question before and after mining (MRR only); null where the figures do not exist. "After mining" is the
 * informative figure (a Bayes adversary with the model and the whole record; ± its standard error when estimated by
 * Monte Carlo); the paper-literal one (seed 004 §4.2) is a third, hidden dataset the legend can show. */
export function pseConfig(privacy) {
  if (!privacy || !privacy.pse_before) return null;
  const datasets = [
    { label: t("before mining"), data: privacy.pse_before, backgroundColor: COLORS.training },
    { label: t("after mining"), data: privacy.pse_after, se: privacy.pse_after_se || null, backgroundColor: COLORS.validation },
  ];
  if (privacy.pse_after_paper) {
    datasets.push({ label: t("after mining (paper-literal)"), data: privacy.pse_after_paper, backgroundColor: COLORS.interval, hidden: true });
  }
  const config = horizontal(t("PSE per question (larger is more private)"), privacy.labels, datasets, { title: { display: true, text: 'PSE' } });
  config.options.plugins.tooltip = { callbacks: { label: (item) => pseLabel(datasets[item.datasetIndex], item.dataIndex) } };
  return config;
}

/** "after mining: 0.123 ± 0.004" (the standard error only where it is not 0, i.e. a Monte Carlo estimate). */
export function pseLabel(dataset, i) {
  const se = dataset.se && dataset.se[i] ? ` ± ${fixed(dataset.se[i])}` : '';
  return `${dataset.label}: ${fixed(dataset.data[i])}${se}`;
}

/** Height in pixels that gives a horizontal chart's bars (`barsPerLabel` per question) room for their labels. */
export function horizontalHeight(labelCount, barsPerLabel = 1, minimum = 288) {
  return Math.max(minimum, 80 + labelCount * (12 + 10 * barsPerLabel));
}
