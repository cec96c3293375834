/**
 * "Retrain now" progress: polls the job's JSON (`/dashboard/jobs/<id>/`, Job.as_dict()) until it is finished and
 * shows its progress bar and message. The element is the survey page's #job section (templates/dashboard/
 * survey_detail.html); the page was rendered with the job's state at that moment, so without JavaScript it still
 * says where the job stood.
 */

import { t } from "../i18n.mjs";

export const STATE_LABELS = { pending: t("Waiting for a worker"), running: t("Running"), done: t("Done"), failed: t("Failed") };
export const POLL_MS = 1000;

/** The sentence shown for a job: its state, its message and, while running, how far it got. */
export function describe(job) {
  const label = STATE_LABELS[job.state] || job.state;
  const share = job.state === 'running' ? ` (${Math.round(100 * job.progress)} %)` : '';
  return job.message ? `${label}${share} — ${job.message}` : `${label}${share}`;
}

/** Show `job` in the #job section. */
export function render(section, job) {
  section.hidden = false;
  section.querySelector('#job-progress').value = job.progress;
  section.querySelector('#job-message').textContent = describe(job);
  section.classList.toggle('failed', job.state === 'failed');
  section.querySelector('#job-reload').hidden = job.state !== 'done';
}

const wait = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/** Poll until the job is finished; resolves with its last state (or null when it cannot be read). */
export async function follow(section, { fetchJob = fetch, sleep = wait, interval = POLL_MS } = {}) {
  const url = section.dataset.jobUrl;
  if (!url) return null;
  for (;;) {
    let job;
    try {
      const response = await fetchJob(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      job = await response.json();
    } catch (error) {
      section.querySelector('#job-message').textContent = `Cannot read the job's progress (${error.message}); reload the page to try again.`;
      return null;
    }
    render(section, job);
    if (job.finished) return job;
    await sleep(interval);
  }
}
