"""A worker killed (SIGKILL) inside a fold, a merge of shards or a publication: after a restart and a retrain, the
statistics equal a fold from scratch and no model version is half-published (slow: real processes).

The hooked worker (``tests.integration.hooked_worker``) pauses inside the transaction at the chosen point and writes
a marker file; the test waits for the file, kills the worker's whole process group, checks what the database holds,
then starts a plain ``celery -A coinflip worker`` and retrains.
"""
import pytest

from aggregator import tasks
from aggregator.models import ModelVersion, PartialStatistics, SurveyStatistics
from survey_app.models import PendingReport, Report
from tests.factories import add_reports, days_pass, make_survey

from .helpers import from_scratch, stored
from .processes import celery_client, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SHARDED = {"COINFLIP_SHARD_THRESHOLD": "1000", "COINFLIP_SHARD_SIZE": "500"}  # 1,500 new reports → 3 shards
SINGLE = {"COINFLIP_SHARD_THRESHOLD": "1000000"}


@pytest.mark.parametrize("settings_env, point, partials_left, folded_before_kill", [
    pytest.param(SINGLE, "fold", 0, 0, id="single-transaction fold"),
    pytest.param(SINGLE, "publish", 0, 1500, id="publication after a fold"),
    pytest.param(SHARDED, "fold", 0, 0, id="shard fold"),
    pytest.param(SHARDED, "stats", 3, 0, id="merge of partials"),
])
def test_a_worker_killed_mid_transaction_loses_nothing_and_counts_nothing_twice(
        database_url, redis_url, start_worker, tmp_path, settings_env, point, partials_left, folded_before_kill):
    survey = make_survey()
    add_reports(survey, 1500)
    days_pass(survey)  # models include closed days only: these reports' day has ended
    marker = tmp_path / "paused"
    hooked = start_worker("hooked", database_url, redis_url, hooked=True, COINFLIP_TEST_PAUSE=point,
                          COINFLIP_TEST_MARKER=str(marker), **settings_env)
    with celery_client(redis_url) as client:
        client.send_task(tasks.retrain_survey.name, args=[survey.id])
        wait_for(marker.exists, 60, f"the worker to pause at {point!r}")
        hooked.kill()

        row = SurveyStatistics.objects.filter(survey=survey).first()
        # The killed transaction left nothing.
        assert (stored(survey)["report_count"] if row else 0) == folded_before_kill
        assert PendingReport.objects.filter(survey=survey).count() == 1500 - folded_before_kill  # inbox intact …
        assert Report.objects.filter(survey=survey).count() == folded_before_kill  # … nothing moved
        assert PartialStatistics.objects.filter(survey=survey).count() == partials_left  # committed shards intact
        assert not ModelVersion.objects.filter(survey=survey).exists()  # nothing half-published

        add_reports(survey, 300, seed=1)  # reports keep arriving while the worker is down
        days_pass(survey)
        start_worker("plain", database_url, redis_url, **settings_env)
        assert client.send_task(tasks.retrain_survey.name, args=[survey.id]).get(timeout=60) == 1
    assert stored(survey) == from_scratch(survey)  # every stored report (Report and inbox) folded exactly once
    assert stored(survey)["report_count"] == 1800 == Report.objects.filter(survey=survey).count()
    assert list(ModelVersion.objects.filter(survey=survey).values_list("version", "report_count")) == [(1, 1800)]
    assert not PartialStatistics.objects.exists()
