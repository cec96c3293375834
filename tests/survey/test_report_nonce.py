"""Idempotent resends: a report's random nonce is stored with it (inbox and report tables, unique per survey), and a
resend of a report whose nonce is stored — its first answer lost to a killed worker or a 502 — is answered 201 again
and stores nothing; the drain's day rewrite carries the nonce; a malformed nonce is a 400 that stores nothing."""
from __future__ import annotations

import base64
import secrets

import pytest
from django.db import OperationalError
from rest_framework.test import APIClient

from aggregator.models import SurveyStatistics
from aggregator.services import fold_new_reports
from survey_app import credentials, respondent_views
from survey_app.models import PendingReport, Report, SpentCredential
from survey_app.services import generate_tokens
from tests.factories import make_survey, simulated_reports
from tests.security.helpers import stored_state

pytestmark = pytest.mark.django_db


def a_nonce() -> str:
    """What the page draws (static/js/memo.mjs ``reportNonce``): 128 random bits, unpadded base64url."""
    return base64.urlsafe_b64encode(secrets.token_bytes(16)).rstrip(b"=").decode()


def post(client, survey, body):
    return client.post(f"/api/surveys/{survey.slug}/reports/", body, format="json")


def folded(survey) -> int:
    """Training reports in the survey's statistics (closed days and open ones)."""
    row = SurveyStatistics.objects.get(survey=survey)
    return row.report_count + sum(day["report_count"] for day in row.open_days.values())


def rows(survey) -> tuple[int, int]:
    return PendingReport.objects.filter(survey=survey).count(), Report.objects.filter(survey=survey).count()


def test_a_resend_with_the_same_nonce_is_answered_201_and_stored_once():
    client, survey = APIClient(), make_survey()
    report, other = simulated_reports(survey, n=2)
    nonce = a_nonce()
    first = post(client, survey, {"report": report, "nonce": nonce})
    again = post(client, survey, {"report": report, "nonce": nonce})
    assert first.status_code == again.status_code == 201 and first.json() == again.json() == {"status": "stored"}
    assert rows(survey) == (1, 0)
    assert PendingReport.objects.get(survey=survey).nonce == nonce
    # Another report, another nonce: stored; the same nonce in another survey: its own.
    assert post(client, survey, {"report": other, "nonce": a_nonce()}).status_code == 201
    elsewhere = make_survey(slug="elsewhere")
    assert post(client, elsewhere, {"report": simulated_reports(elsewhere, n=1)[0], "nonce": nonce}).status_code == 201
    assert rows(survey) == (2, 0) and rows(elsewhere) == (1, 0)


def test_the_drain_carries_the_nonce_and_a_resend_after_it_stores_nothing():
    client, survey = APIClient(), make_survey()
    reports = simulated_reports(survey, n=3)
    nonces = [a_nonce() for _ in reports]
    for report, nonce in zip(reports, nonces, strict=True):
        assert post(client, survey, {"report": report, "nonce": nonce}).status_code == 201
    assert post(client, survey, {"report": reports[0]}).status_code == 201  # no nonce: a report like any other
    assert fold_new_reports(survey) == 4
    assert rows(survey) == (0, 4)
    assert sorted(Report.objects.filter(survey=survey).exclude(nonce=None).values_list("nonce", flat=True)) == \
        sorted(nonces)
    assert post(client, survey, {"report": reports[1], "nonce": nonces[1]}).status_code == 201
    assert rows(survey) == (0, 4)
    # A later drain rewrites the day again (the earlier rows with the new one): the nonces stay with their reports.
    assert post(client, survey, {"report": reports[2], "nonce": a_nonce()}).status_code == 201
    assert fold_new_reports(survey) == 1
    assert Report.objects.filter(survey=survey, nonce__in=nonces).count() == 3
    assert folded(survey) == 5


def test_a_resend_that_raced_a_drain_is_dropped_by_the_next_one_and_never_counted():
    """The insert checks both tables, but not atomically with a drain: a copy that slipped into the inbox while its
    first copy was being moved is deleted by the next drain, unfolded."""
    client, survey = APIClient(), make_survey()
    report = simulated_reports(survey, n=1)[0]
    nonce = a_nonce()
    assert post(client, survey, {"report": report, "nonce": nonce}).status_code == 201
    assert fold_new_reports(survey) == 1
    PendingReport.objects.create(survey=survey, payload=report, nonce=nonce)  # the copy that slipped in
    assert fold_new_reports(survey) == 0
    assert rows(survey) == (0, 1) and folded(survey) == 1


def test_a_resend_after_a_lost_answer_stores_once(monkeypatch):
    """The first request stores the report and then fails (the connection drops as the answer is made: a 503, as
    after a worker killed between commit and answer the browser sees a 502); the page resends the same body."""
    client, survey = APIClient(), make_survey()
    body = {"report": simulated_reports(survey, n=1)[0], "nonce": a_nonce()}
    submit = respondent_views.submit_report

    def stored_then_lost(*args, **kwargs):
        submit(*args, **kwargs)
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(respondent_views, "submit_report", stored_then_lost)
    assert post(client, survey, body).status_code == 503
    monkeypatch.undo()
    assert rows(survey) == (1, 0)
    assert post(client, survey, body).status_code == 201
    assert rows(survey) == (1, 0)


def test_a_token_surveys_resend_with_its_credential_is_answered_201_and_stored_once():
    client, survey = APIClient(), make_survey(slug="invited", access="tokens")
    token = generate_tokens(survey, 1)[0].token
    public = credentials.public_credential(survey)
    blinded, pending = credentials.start_credential(public)
    redeemed = client.post(f"/api/surveys/{survey.slug}/invitations/redeem/",
                           {"token": token, "blinded_msg": blinded, "key_id": public["key_id"]}, format="json")
    credential = credentials.finish_credential(pending, redeemed.json()["blind_signature"])
    report = simulated_reports(survey, n=1)[0]
    body = {"report": report, "credential": credential, "nonce": a_nonce()}
    assert post(client, survey, body).status_code == 201
    assert post(client, survey, body).status_code == 201
    assert rows(survey) == (1, 0) and SpentCredential.objects.filter(survey=survey).count() == 1
    # The credential spent, another nonce (a different report): refused as a second use.
    assert post(client, survey, {**body, "nonce": a_nonce()}).status_code == 409
    assert rows(survey) == (1, 0)


@pytest.mark.parametrize("nonce", [
    "", "short", "A" * 21, "A" * 23, "A" * 21 + "B",   # wrong length; a last character with bits beyond the 128
    "A" * 21 + "A=", "A" * 20 + "+A", "A" * 20 + "/A",  # padding, base64's (not base64url's) alphabet
    "A" * 20 + "\u00e9A", "A" * 20 + "\x00A",           # not ASCII, NUL
    None, 7, ["A" * 22], {"nonce": "A" * 22},           # not a string
])
def test_a_malformed_nonce_is_a_400_naming_it_and_nothing_is_stored(nonce):
    client, survey = APIClient(), make_survey()
    before = stored_state()
    response = post(client, survey, {"report": simulated_reports(survey, n=1)[0], "nonce": nonce})
    assert response.status_code == 400 and "nonce" in response.json(), response.content
    assert stored_state() == before


def test_a_well_formed_nonce_of_every_last_character_is_taken():
    client, survey = APIClient(), make_survey()
    for last in "AQgw":
        assert post(client, survey, {"report": simulated_reports(survey, n=1)[0],
                                     "nonce": "a-_Z" * 5 + "9" + last}).status_code == 201
    assert rows(survey) == (4, 0)
