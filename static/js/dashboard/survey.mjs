/**
 * The dashboard's survey page: draws the charts (Chart.js 4, loaded before this module from
 * static/vendor/chart.js/ as a classic script) from the JSON in #dashboard-data, wires the question selector, and
 * follows a "Retrain now" job. No inline script or style: CSP-friendly (data via json_script, styles via CSSOM).
 */
import {
  accuracyConfig, distributionConfig, epsilonConfig, horizontalHeight, intervalNote, pseConfig, reportsConfig,
} from './charts.mjs';
import { follow } from './job.mjs';
import { t } from "../i18n.mjs";

const data = JSON.parse(document.getElementById('dashboard-data').textContent);
const { Chart } = window;
/** A chart's name for feature `name`: a select-all question's choice reads "question — choice" (data.labels). */
const label = (name) => (data.labels && data.labels[name]) || name;
const privacy = data.privacy && { ...data.privacy, labels: data.privacy.labels.map(label) };

/** Draw `config` on canvas #id, or say there is nothing to draw yet. */
function draw(id, config, emptyText) {
  const canvas = document.getElementById(id);
  if (!canvas) return null;
  if (!config) {
    const note = document.createElement('p');
    note.className = 'muted';
    note.textContent = emptyText;
    canvas.parentElement.replaceWith(note);
    return null;
  }
  return new Chart(canvas, config);
}

function sizeFor(id, labels, barsPerLabel) {
  const canvas = document.getElementById(id);
  if (canvas && labels) canvas.parentElement.style.height = `${horizontalHeight(labels.length, barsPerLabel)}px`;
}

draw('chart-reports', reportsConfig(data.reports), t("No reports yet."));
draw('chart-accuracy', accuracyConfig(data.accuracy),
  t("No accuracy estimate yet: it needs validation reports (and, for LDP surveys, a published model to evaluate)."));
if (data.privacy) {
  sizeFor('chart-epsilon', data.privacy.labels, 1);
  sizeFor('chart-pse', data.privacy.labels, 2);
}
draw('chart-epsilon', epsilonConfig(privacy), t("No privacy figures: the survey is not complete yet."));
draw('chart-pse', pseConfig(privacy), t("No PSE figures yet: they come with the first model."));

const select = document.getElementById('attribute-select');
let distribution = null;
function showAttribute(index) {
  const attribute = { ...data.distributions[index], text: label(data.distributions[index].name) };
  if (distribution) distribution.destroy();
  distribution = new Chart(document.getElementById('chart-distribution'), distributionConfig(attribute));
  document.getElementById('interval-note').textContent = intervalNote(attribute);
}
if (data.distributions.length > 0) {
  data.distributions.forEach((attribute, i) => select.add(new Option(label(attribute.name), String(i))));
  select.addEventListener('change', () => showAttribute(Number(select.value)));
  showAttribute(0);
} else {
  select.parentElement.hidden = true;
  draw('chart-distribution', null, t("No model yet: the estimated answers per class appear with the first version."));
}

const job = document.getElementById('job');
if (job && job.dataset.jobUrl) follow(job);
