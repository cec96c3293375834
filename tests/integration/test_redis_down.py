"""Redis down: submissions are still accepted and stored (the database is the source of truth), "retrain now" fails
at once with a message, and the worker catches up when Redis returns (slow: real processes).

Redis itself is never stopped: the web (gunicorn), the worker and the test's Celery client all reach it through a
TCP proxy that the test cuts (connections aborted, new ones refused) and restores."""
import json
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from aggregator import tasks
from aggregator.models import ModelVersion
from tests.factories import days_pass, make_survey, simulated_reports

from .helpers import from_scratch, stored
from .processes import BIN, ROOT, celery_client, post_json, process_env

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

RETRAIN_NOW = """
import json, time
from aggregator import jobs, tasks
from survey_app.models import Survey
started = time.monotonic()
job = jobs.start("retrain", tasks.retrain_job, survey=Survey.objects.get(pk={survey_id}))
print(json.dumps({{"state": job.state, "message": job.message, "seconds": time.monotonic() - started}}))
"""


def submit(web, survey, n, seed) -> list[int]:
    url = f"{web.url}/api/surveys/{survey.slug}/reports/"
    bodies = [json.dumps({"report": r}).encode() for r in simulated_reports(survey, n, seed=seed)]
    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(lambda body: post_json(url, body), bodies))


def retrain_now(survey, env) -> dict:
    """The dashboard's "retrain now" (``jobs.start``) in a web-like process configured with the proxied Redis."""
    done = subprocess.run([str(BIN / "python"), "manage.py", "shell", "-c", RETRAIN_NOW.format(survey_id=survey.id)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_submissions_survive_redis_down_and_the_worker_catches_up(
        database_url, redis_url, start_worker, start_gunicorn, tcp_proxy):
    server, db = redis_url.rsplit("/", 1)
    proxy = tcp_proxy(server.rsplit(":", 1)[1])
    proxied = f"redis://127.0.0.1:{proxy.port}/{db}"
    survey = make_survey(mode="mrr")
    start_worker("w1", database_url, proxied)
    web = start_gunicorn(database_url, f"/api/surveys/{survey.slug}/protocol/", REDIS_URL=proxied)
    assert submit(web, survey, 100, seed=0) == [201] * 100
    days_pass(survey)  # models include closed days only: these reports' day has ended
    with celery_client(proxied) as client:
        assert client.send_task(tasks.retrain_survey.name, args=[survey.id]).get(timeout=60) == 1

    proxy.cut()
    assert submit(web, survey, 150, seed=1) == [201] * 150  # the report path never touches Redis
    assert survey.report_total() == 250  # 100 folded, 150 in the inbox
    job = retrain_now(survey, process_env(database_url, proxied))
    assert job["state"] == "failed" and "unreachable" in job["message"]
    assert job["seconds"] < 5  # a readable failure at once, not a hung page

    proxy.restore()
    days_pass(survey)
    with celery_client(proxied) as client:  # the worker reconnects by itself and folds the backlog
        assert client.send_task(tasks.retrain_survey.name, args=[survey.id]).get(timeout=60) == 2
    assert stored(survey) == from_scratch(survey) and stored(survey)["report_count"] == 250
    versions = ModelVersion.objects.filter(survey=survey).order_by("version")
    assert list(versions.values_list("report_count", flat=True)) == [100, 250]
