/**
 * The planner's result page: follows the job while it runs (job.mjs) and reloads when it is done; then draws the
 * curves (planner_charts.mjs, Chart.js loaded before as a classic script) from the JSON in #planner-data.
 */
import { curveConfig, learningCurveConfig } from './planner_charts.mjs';
import { follow } from './job.mjs';

const section = document.getElementById('job');
if (section) {
  follow(section).then((job) => { if (job && job.state === 'done') window.location.reload(); });
}

const holder = document.getElementById('planner-data');
const data = holder ? JSON.parse(holder.textContent) : null;
if (data) {
  const draw = (id, config) => {
    const canvas = document.getElementById(id);
    if (!canvas) return;
    if (config) new window.Chart(canvas, config);
    else canvas.parentElement.remove();
  };
  draw('chart-epsilon', curveConfig(data, 'epsilon'));
  draw('chart-theta', curveConfig(data, 'theta'));
  draw('chart-curve', learningCurveConfig(data));
}
