"""Smoke version of the load benchmark (bench/load): a few hundred report POSTs through Caddy to gunicorn + PostgreSQL,
a Celery worker folding (Redis).

Not a speed test — the speed targets live in ``make bench-load``. It runs the benchmark's own code end to end on a
tiny stream (every mechanism, with validation reports; the token surveys' redemption + report; folds racing the
inserts; the final ``manage.py retrain`` in a subprocess; both floor peers) and asserts the exactly-once checks: every
201 stored once and folded once, the stored statistics equal to a fold from scratch, one token used per signed
redemption and one credential spent per stored report, no 4xx, 5xx or unanswered request. The stream is short, so
requests already due may still be sent for ``grace`` seconds after its 2 s: on a busy machine the whole stream is
still sent (an open loop would otherwise drop what the server had no time to take, which is no exactly-once matter).

It also pins the two caches the benchmark put on the report path: ``survey_app.protocol.get_protocol`` (per survey
version) and ``survey_app.api.public_survey`` (``survey_app.reports.find_public_survey``, per PostgreSQL row
version) follow every change of a survey, its questions and its choices — including changes made inside one
transaction.
"""
import datetime
import os
from dataclasses import replace

import pytest
from django.db import connection
from rest_framework.exceptions import NotFound

from bench.load import report
from bench.load.run import Options, run
from survey_app.api import public_survey
from survey_app.models import Choice, Question, Survey
from survey_app.protocol import get_protocol
from tests.factories import make_survey

SMOKE = Options(duration=2.0, rate=120.0, connections=16, seed_reports=300, fold_every=0.7, warmup=0.5, grace=20.0,
                protocol_gets=1.0)
REDIS_URL = os.environ.get("COINFLIP_TEST_REDIS", "redis://127.0.0.1:6379") + "/12"


def database_url() -> str:
    """The test database, as the servers and folders in subprocesses reach it."""
    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return f"postgres://{s['USER']}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


@pytest.mark.django_db(transaction=True)
def test_every_accepted_report_is_stored_and_folded_exactly_once(tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("the load smoke test runs on PostgreSQL")
    outcome = run(replace(SMOKE, log_dir=tmp_path), database_url(), REDIS_URL, progress=lambda _: None)
    product, floor = outcome.product, outcome.floor
    result = product.result
    sent = int(result.sent.sum())
    assert sent == SMOKE.requests  # every respondent the client attempted …
    assert (result.status[result.sent] == 201).all(), result.samples  # … was accepted
    invited = [r is not None for r in outcome.prepared.respondents]
    assert (result.two_step == invited).all() and any(invited)  # token surveys' respondents redeemed first …
    assert (result.first_status[result.two_step] == 200).all(), result.samples  # … and were signed
    assert result.http_requests == sent + sum(invited)
    assert product.folds, "no fold raced the inserts"
    assert product.retrain_errors == []
    assert len(product.checks) == len(outcome.prepared.surveys) == 16
    assert sum(c.invitations for c in product.checks) == 4
    for check in product.checks:
        assert check.exact and check.stored == check.seeded + check.accepted, check
        assert check.folded == check.stored and check.statistics_equal, check
        assert check.tokens_ok and (not check.invitations or check.tokens_used == check.redeemed == check.spent
                                    == check.accepted > 0), check
    assert sum(c.accepted for c in product.checks) == sent
    for peer in (floor, outcome.floor_stack):  # both floors: the plain one and the one under the product's chain
        assert (peer.result.status[peer.result.sent] == 201).all(), peer.result.samples
        assert all(c.exact and c.stored == c.accepted for c in peer.checks)
        assert sum(c.stored for c in peer.checks) == int(peer.result.sent.sum())
    table = report.render(outcome, "smoke")
    assert "| Coinflip | **all respondents** |" in table and "floor: plain Django" in table
    assert "| floor + Coinflip's middleware |" in table and "proposed: server CPU per request" in table
    assert "| Coinflip | invitations: redeem |" in table
    gets = outcome.protocol_gets  # the protocol GETs after the load: every one answered 200
    assert gets.result.sent.sum() > 0 and (gets.result.status[gets.result.sent] == 200).all(), gets.result.samples
    assert "Protocol GETs after the load" in table and "ms CPU per GET" in table


@pytest.mark.django_db
def test_protocol_cache_follows_questions_and_choices():
    survey = make_survey()  # open, no reports: its questions may still change

    def features():
        return {a["name"]: a for a in get_protocol(Survey.objects.get(pk=survey.pk)).config["features"]}

    assert features()["smoker"]["values"] == ["never", "sometimes", "daily"]
    smoker = Question.objects.get(survey=survey, name="smoker")
    Choice.objects.create(question=smoker, label="rarely", position=3)
    assert features()["smoker"]["values"] == ["never", "sometimes", "daily", "rarely"]
    Choice.objects.filter(question=smoker, label="daily").get().delete()
    assert features()["smoker"]["values"] == ["never", "sometimes", "rarely"]
    age = Question.objects.get(survey=survey, name="age")
    age.low = 10
    age.save()
    assert features()["age"]["low"] == 10
    Question.objects.create(survey=survey, name="weight", text="Weight", kind="numeric", low=30, high=200, position=3)
    assert "weight" in features()
    # The caller's own survey object moves on too when the question holds it.
    Question.objects.create(survey=survey, name="height", text="Height", kind="numeric", low=1, high=2, position=4)
    assert "height" in {a["name"] for a in get_protocol(survey).config["features"]}
    # Settings saved without touching updated_at still make a new version.
    Survey.objects.filter(pk=survey.pk).update(epsilon=3.0)
    assert get_protocol(Survey.objects.get(pk=survey.pk)).config["ldp"]["epsilon"] == 3.0


@pytest.mark.django_db
def test_public_survey_follows_every_row_change_within_one_transaction():
    if connection.vendor != "postgresql":
        pytest.skip("the row-version cache is PostgreSQL's")
    survey = make_survey()
    assert public_survey(survey.slug).status == Survey.Status.OPEN
    assert public_survey(survey.slug).status == Survey.Status.OPEN  # from the cache
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)  # same transaction: same xmin, new ctid
    assert public_survey(survey.slug).status == Survey.Status.CLOSED
    survey.status = Survey.Status.OPEN
    survey.epsilon = 2.0
    survey.save(update_fields=["status", "epsilon"])
    found = public_survey(survey.slug)
    assert (found.status, found.epsilon) == (Survey.Status.OPEN, 2.0)
    found.title = "changed in memory only"
    assert public_survey(survey.slug).title == "Health"  # callers get copies
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    with pytest.raises(NotFound):
        public_survey(survey.slug)


@pytest.mark.django_db
def test_the_checks_catch_a_lost_a_doubled_and_an_unfolded_report():
    from aggregator.services import fold_new_reports
    from bench.load.checks import check_product
    from tests.factories import add_reports

    survey = make_survey()
    add_reports(survey, 30)
    fold_new_reports(survey)

    def check(accepted):
        return check_product({survey.slug: survey}, {survey.slug: 10}, {survey.slug: accepted}, {})[0]

    assert check(20).ok
    assert not check(21).stored_ok  # a 201 whose report is missing
    assert not check(19).stored_ok  # a report stored twice
    add_reports(survey, 1, seed=1)  # stored, never folded
    assert check(21).stored_ok and not check(21).folded_ok
    fold_new_reports(survey)
    assert check(21).ok


@pytest.mark.django_db
def test_a_report_meets_the_survey_as_it_is_now():
    """The survey cached per row version (``find_public_survey``): any change to it — closed, token access, a
    published version becoming today's — is what the next report meets."""
    from rest_framework.test import APIClient

    from aggregator.models import ModelVersion
    from survey_app.models import PendingReport
    from tests.factories import simulated_reports

    if connection.vendor != "postgresql":
        pytest.skip("the row-version cache is PostgreSQL's")
    from survey_app import reports as ingestion

    client, survey = APIClient(), make_survey(validation_share=0.1)
    url = f"/api/surveys/{survey.slug}/reports/"
    reports = simulated_reports(survey, n=4)

    def post(body, **kwargs):
        return client.post(url, body, format="json", **kwargs).status_code

    assert [post({"report": r}) for r in reports[:2]] == [201, 201]  # the first reads and caches the survey
    assert PendingReport.objects.filter(survey=survey).count() == 2  # the inbox
    validation = {"validation": {"version": 1, "report": 1}}
    assert post({"report": validation}) == 400  # no published version 1 yet
    published = ModelVersion.objects.create(survey=survey, version=1, model={}, report_count=2, privacy={}, metrics={})
    assert post({"report": validation}) == 409  # published today: validation respondents evaluate it tomorrow
    yesterday = ingestion.utc_midnight() - datetime.timedelta(hours=1)
    ModelVersion.objects.filter(pk=published.pk).update(created_at=yesterday)
    assert post({"report": validation}) == 201
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    assert post({"report": reports[2]}) == 410
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.OPEN, access=Survey.Access.TOKENS)
    assert post({"report": reports[2]}) == 403  # a token survey now: no token, nothing stored
    Survey.objects.filter(pk=survey.pk).update(access=Survey.Access.LINK)
    assert post({"report": reports[2]}) == 201
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    assert client.post(url, "{not json", content_type="application/json").status_code == 404
    assert PendingReport.objects.filter(survey=survey).count() == 4


@pytest.mark.django_db
def test_a_token_survey_signs_and_spends_once_with_its_keys_cached():
    """A token survey's redemptions and reports (the digest's INSERT and the report's in one statement) once the
    survey and its keys are cached: one token used per signature, one report per credential."""
    from rest_framework.test import APIClient

    from survey_app import credentials
    from survey_app.models import InvitationToken, PendingReport, SpentCredential
    from survey_app.services import generate_tokens
    from tests.factories import simulated_reports

    if connection.vendor != "postgresql":
        pytest.skip("the one-statement spend is PostgreSQL's")
    client, survey = APIClient(), make_survey(access="tokens")
    tokens = [t.token for t in generate_tokens(survey, 3)]
    credential = client.get(f"/api/surveys/{survey.slug}/protocol/").json()["credential"]
    reports = simulated_reports(survey, n=3)

    def redeem(token):
        blinded, pending = credentials.start_credential(credential)
        response = client.post(f"/api/surveys/{survey.slug}/invitations/redeem/",
                               {"token": token, "blinded_msg": blinded, "key_id": pending.key_id}, format="json")
        return response.status_code, (credentials.finish_credential(pending, response.json()["blind_signature"])
                                      if response.status_code == 200 else response.json())

    def report(body):
        return client.post(f"/api/surveys/{survey.slug}/reports/", body, format="json").status_code

    signed = [redeem(token) for token in tokens[:2]]  # the first reads and caches the signing key
    assert [status for status, _ in signed] == [200, 200]
    assert redeem(tokens[0])[0] == 409  # used: another blinded message is refused
    assert report({"report": reports[0], "credential": signed[0][1]}) == 201  # the first reads the public key
    assert report({"report": reports[1], "credential": signed[1][1]}) == 201
    assert report({"report": reports[2], "credential": signed[1][1]}) == 409  # spent: nothing added
    assert report({"report": reports[2], "credential": {**signed[1][1], "signature": signed[0][1]["signature"]}}) == 400
    assert InvitationToken.objects.filter(survey=survey, used=True).count() == 2
    assert SpentCredential.objects.filter(survey=survey).count() == 2
    assert PendingReport.objects.filter(survey=survey).count() == 2


def test_the_folders_schedule_is_every_survey_at_once_or_each_on_its_own_phase():
    """``bench.load.fold.schedule``: by default every survey at each multiple of the interval, in order (the worst
    case the 60-s table is measured with); ``phased``, survey i of n shifted by i/n of it; never at or past the end."""
    from bench.load.fold import schedule

    assert schedule(["a", "b", "c", "d"], 20, 60) == [(20, "a"), (20, "b"), (20, "c"), (20, "d"),
                                                       (40, "a"), (40, "b"), (40, "c"), (40, "d")]
    assert schedule(["a", "b", "c", "d"], 20, 60, phased=True) == [(20, "a"), (25, "b"), (30, "c"), (35, "d"),
                                                                   (40, "a"), (45, "b"), (50, "c"), (55, "d")]
    assert schedule(["a", "b"], 20, 40) == [(20, "a"), (20, "b")] and schedule(["a"], 20, 20) == []
