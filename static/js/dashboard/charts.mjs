/**
 * Chart.js configurations for the staff dashboard's survey page, built from the JSON that
 * aggregator/dashboard/charts.py computes (delivered by Django's json_script). Pure functions: no DOM and no Chart
 * global, so `node --test` checks them (tests/dashboard/charts.test.mjs); survey.mjs draws them.
 *
 * Intervals are drawn as floating bars [low, high]; the `estimateMarks` plugin draws the estimate as a dark line
 * across each bar (Chart.js has no error-bar element of its own).
 */

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
        { label: 'Training reports', data: data.training, backgroundColor: COLORS.training },
        { label: 'Validation reports', data: data.validation, backgroundColor: COLORS.validation },
      ],
    },
    options: {
      ...base(`Reports per ${data.bucket}`),
      scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, title: { display: true, text: 'reports' } } },
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
        label: 'Estimated accuracy (95 % interval)',
        data: intervalBars(data.estimate, data.low, data.high),
        estimates: data.estimate,
        backgroundColor: COLORS.interval,
        borderColor: COLORS.training,
        borderWidth: 1,
      }],
    },
    options: {
      ...base('Accuracy per model version'),
      scales: { y: { min: accuracyAxisMin(data), max: 1, ticks: { callback: (v) => `${Math.round(100 * v)} %` } } },
      plugins: {
        ...base('Accuracy per model version').plugins,
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
  if (data.estimate[i] == null) return 'no estimate yet';
  return `${percent(data.estimate[i])} (95 %: ${percent(data.low[i])}–${percent(data.high[i])}), ${data.reports[i]} validation reports`;
}

/** A sentence on where the chart's intervals come from (charts.py, interval_method). */
export function intervalNote(attribute) {
  switch (attribute && attribute.interval_method) {
    case 'bound': return 'Intervals here are conservative: they cover the true share at least 95 % of the time.';
    case 'none': return 'This model carries no standard errors: only the estimates are shown.';
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
          label: `Average ${attribute.name} per class (95 % interval)`,
          data: intervalBars(attribute.estimate, attribute.low, attribute.high),
          estimates: attribute.estimate,
          backgroundColor: colors.map((c) => translucent(c)),
          borderColor: colors,
          borderWidth: 1,
        }],
      },
      options: {
        ...base(attribute.name),
        scales: { y: { suggestedMin: attribute.low_bound, suggestedMax: attribute.high_bound, title: { display: true, text: attribute.name } } },
        plugins: {
          ...base(attribute.name).plugins,
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
        label: `class ${s.class}`,
        data: intervalBars(s.estimate, s.low, s.high),
        estimates: s.estimate,
        backgroundColor: translucent(CLASS_COLORS[c % CLASS_COLORS.length]),
        borderColor: CLASS_COLORS[c % CLASS_COLORS.length],
        borderWidth: 1,
      })),
    },
    options: {
      ...base(attribute.name),
      scales: { y: { min: 0, max: 1, title: { display: true, text: 'share of the class giving this answer' } } },
      plugins: {
        ...base(attribute.name).plugins,
        tooltip: { callbacks: { label: (item) => categoricalLabel(attribute, item.datasetIndex, item.dataIndex) } },
      },
    },
    plugins: [estimateMarks],
  };
}

export function categoricalLabel(attribute, c, a) {
  const s = attribute.series[c];
  const interval = s.low[a] == null ? '' : ` (95 %: ${fixed(s.low[a])}–${fixed(s.high[a])})`;
  return `class ${s.class}: ${fixed(s.estimate[a])}${interval}`;
}

export function numericLabel(attribute, c) {
  const interval = attribute.low[c] == null ? '' : ` (95 %: ${fixed(attribute.low[c], 2)}–${fixed(attribute.high[c], 2)})`;
  return `mean ${fixed(attribute.estimate[c], 2)}${interval}, σ ${fixed(attribute.sigma[c], 2)}`;
}

const horizontal = (title, labels, datasets, axis) => ({
  type: 'bar',
  data: { labels, datasets },
  options: { ...base(title), indexAxis: 'y', scales: { x: { beginAtZero: true, ...axis } } },
});

/** ε per question (horizontal bars: question names are long); null without privacy figures. */
export function epsilonConfig(privacy) {
  if (!privacy || privacy.labels.length === 0) return null;
  const config = horizontal('ε per question (smaller is more private)', privacy.labels,
    [{ label: 'ε', data: privacy.epsilon, backgroundColor: COLORS.training }], { title: { display: true, text: 'ε' } });
  config.options.plugins.legend = { display: false };
  return config;
}

/** PSE per question before and after mining (MRR only); null where the figures do not exist. */
export function pseConfig(privacy) {
  if (!privacy || !privacy.pse_before) return null;
  return horizontal('PSE per question (larger is more private)', privacy.labels, [
    { label: 'before mining', data: privacy.pse_before, backgroundColor: COLORS.training },
    { label: 'after mining', data: privacy.pse_after, backgroundColor: COLORS.validation },
  ], { title: { display: true, text: 'PSE' } });
}

/** Height in pixels that gives a horizontal chart's bars (`barsPerLabel` per question) room for their labels. */
export function horizontalHeight(labelCount, barsPerLabel = 1, minimum = 288) {
  return Math.max(minimum, 80 + labelCount * (12 + 10 * barsPerLabel));
}
