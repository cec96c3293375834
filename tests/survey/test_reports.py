"""The ingestion service (survey_app.reports): each outcome of ``submit_report``, what it stores, and the view's
mapping of every outcome onto a status code."""
import datetime
import hashlib

import numpy as np
import pytest
from rest_framework.exceptions import ParseError
from rest_framework.test import APIClient

from aggregator.models import ModelVersion
from aggregator.privacy.blind_rsa import b64url_decode, b64url_encode
from survey_app import api
from survey_app.credentials import rotate_key
from survey_app.models import InvitationToken, PendingReport, Report, SpentCredential, Survey, SurveyKey
from survey_app.protocol import get_protocol
from survey_app.reports import MESSAGES, STORED, Outcome, Result, Submission, submit_report
from survey_app.services import generate_tokens
from tests.factories import make_survey, redeem_credential

pytestmark = pytest.mark.django_db


def a_report(survey, seed=0):
    rng = np.random.default_rng(seed)
    return get_protocol(survey).encode(np.array([[1, 40.0]]), np.array([1]), rng)[0]


def test_a_valid_report_is_stored_once():
    survey = make_survey()
    report = a_report(survey)
    assert submit_report(survey.slug, Submission(report)) == STORED
    assert STORED.stored and STORED.result is Result.STORED
    assert [r.payload for r in PendingReport.objects.filter(survey=survey)] == [report]  # the inbox


def test_the_usual_post_twice_the_second_in_two_round_trips(django_assert_max_num_queries):
    """The second submission meets the survey cached by the first: on PostgreSQL the survey row's version (one
    SELECT) and one INSERT store it."""
    from django.db import connection

    survey = make_survey()
    assert submit_report(survey.slug, Submission(a_report(survey))).stored
    limit = 2 if connection.vendor == "postgresql" else 10
    with django_assert_max_num_queries(limit):
        assert submit_report(survey.slug, Submission(a_report(survey, seed=1))).stored
    assert PendingReport.objects.filter(survey=survey).count() == 2


@pytest.mark.parametrize("slug, status", [("nope", None), ("draft", "draft")])
def test_unknown_or_draft_survey_is_not_found(slug, status):
    if status:
        make_survey(slug=slug, status=status)
    outcome = submit_report(slug, Submission({"input": 0, "report": "AA=="}))
    assert outcome == Outcome(Result.NOT_FOUND, "No such survey.") and not outcome.stored
    assert PendingReport.objects.count() == Report.objects.count() == 0


def test_closed_survey():
    survey = make_survey(status="closed")
    outcome = submit_report(survey.slug, Submission(a_report(survey)))
    assert outcome.result is Result.CLOSED and outcome.message == "This survey is closed and no longer accepts answers."
    assert PendingReport.objects.count() == Report.objects.count() == 0


def test_malformed_report_names_the_field():
    survey = make_survey(encoding="oue")
    outcome = submit_report(survey.slug, Submission({"input": 7, "report": 1}))
    assert (outcome.result, outcome.field) == (Result.INVALID, "report.input") and outcome.message
    assert PendingReport.objects.count() == Report.objects.count() == 0


def test_validation_report_for_an_unpublished_version():
    survey = make_survey(validation_share=0.1)
    validation = {"validation": {"version": 1, "report": 1}}
    outcome = submit_report(survey.slug, Submission(validation))
    assert outcome == Outcome(Result.INVALID, "No such published model version.", "report.validation.version")
    assert PendingReport.objects.count() == Report.objects.count() == 0
    version = ModelVersion.objects.create(survey=survey, version=1, model={}, report_count=0, privacy={}, metrics={})
    ModelVersion.objects.filter(pk=version.pk).update(created_at=version.created_at - datetime.timedelta(days=1))
    assert submit_report(survey.slug, Submission(validation)).stored
    assert PendingReport.objects.get().payload == validation


def _version(survey, number: int, days_ago: float) -> None:
    version = ModelVersion.objects.create(survey=survey, version=number, model={}, report_count=0, privacy={},
                                          metrics={})
    ModelVersion.objects.filter(pk=version.pk).update(
        created_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=days_ago))


@pytest.mark.parametrize("access", ["link", "tokens"])
def test_a_validation_report_names_the_version_evaluated_today_or_is_stale(access):
    """Validation respondents evaluate the newest version published before the current UTC day; a report naming an
    older one (a page loaded before midnight) or a newer one (published today) is refused with ``STALE_VERSION`` and
    nothing is stored — otherwise its version would place it near its day's start. Both paths: the one-round-trip
    INSERT of a link survey's usual POST (PostgreSQL; the second and later submissions) and the full path."""
    survey = make_survey(validation_share=0.1, access=access)
    _version(survey, 1, days_ago=3)
    _version(survey, 2, days_ago=1.01)  # yesterday or earlier: today's
    _version(survey, 3, days_ago=0)     # published today: evaluated from tomorrow on

    def send(number):
        body = {"validation": {"version": number, "report": 1}}
        if access == "tokens":
            return submit_report(survey.slug, Submission(body, credential=redeem_credential(survey)))
        return submit_report(survey.slug, Submission(body))

    for _ in range(2):  # the first submission caches the survey: the second reads only its version
        for stale in (1, 3):
            assert send(stale) == Outcome.of(Result.STALE_VERSION)
        assert send(2).stored
    assert PendingReport.objects.filter(survey=survey).count() == 2
    # A refused report spends nothing: the two stored ones spent one credential each.
    assert SpentCredential.objects.filter(survey=survey).count() == (2 if access == "tokens" else 0)
    response = APIClient().post(f"/api/surveys/{survey.slug}/reports/",
                                {"report": {"validation": {"version": 3, "report": 1}}}, format="json")
    if access == "link":
        assert response.status_code == 409 and response.json()["code"] == "stale_model_version"
    else:  # a kept report that was received, retried after midnight: "received" (credential used), not "stale"
        credential = redeem_credential(survey)
        assert submit_report(survey.slug, Submission({"validation": {"version": 2, "report": 1}},
                                                     credential=credential)).stored
        retried = Submission({"validation": {"version": 2, "report": 1}}, credential=credential)
        _version(survey, 4, days_ago=1.001)  # as if midnight passed: version 4 is the one evaluated today
        Survey.objects.filter(pk=survey.pk).update(title=survey.title)  # a new row version: the full path answers
        assert submit_report(survey.slug, retried) == Outcome.of(Result.CREDENTIAL_USED)


def test_token_survey_report_outcomes_and_exactly_one_spending():
    """A token survey's report carries a credential (survey_app/credentials.py): missing → 403-kind refusal, the token
    itself → 400 explaining the flow (the token is left unused), an invalid report spends nothing, a valid one is
    stored once, and the same credential again is ``CREDENTIAL_USED``."""
    survey = make_survey(access="tokens")
    token = generate_tokens(survey, 1)[0].token
    report = a_report(survey)
    assert submit_report(survey.slug, Submission(report)) == Outcome.of(Result.CREDENTIAL_MISSING)
    refused = submit_report(survey.slug, Submission(report, token))
    assert (refused.result, refused.field) == (Result.INVALID, "token")
    assert "never the invitation token" in refused.message and f"/api/surveys/{survey.slug}/invitations/redeem/" \
        in refused.message
    assert not InvitationToken.objects.get(token=token).used
    credential = redeem_credential(survey, token)
    assert InvitationToken.objects.get(token=token).used
    bad = submit_report(survey.slug, Submission({"input": 7, "report": 1}, credential=credential))
    assert bad.result is Result.INVALID and SpentCredential.objects.count() == 0  # checks come first
    with_token = submit_report(survey.slug, Submission(report, token, credential))
    assert with_token.field == "token" and SpentCredential.objects.count() == 0  # never token and value together
    assert submit_report(survey.slug, Submission(report, credential=credential)).stored
    assert submit_report(survey.slug, Submission(report, credential=credential)) == Outcome(
        Result.CREDENTIAL_USED, "This credential has already been used: its report was received.")
    assert survey.report_total() == 1
    assert list(SpentCredential.objects.values_list("digest", flat=True)) == [
        hashlib.sha256(b64url_decode(credential["value"])).hexdigest()]


def test_a_credential_of_another_survey_or_forged_is_refused():
    survey, other = make_survey(access="tokens"), make_survey(slug="other", access="tokens")
    foreign = redeem_credential(other)
    outcome = submit_report(survey.slug, Submission(a_report(survey), credential=foreign))
    assert (outcome.result, outcome.field) == (Result.INVALID, "credential.key_id")
    own = redeem_credential(survey)
    forged = {**own, "value": b64url_encode(b"\x00" * 64)}  # a value the key never signed
    outcome = submit_report(survey.slug, Submission(a_report(survey), credential=forged))
    assert (outcome.result, outcome.field) == (Result.INVALID, "credential.signature")
    swapped = {**own, "signature": foreign["signature"]}
    assert submit_report(survey.slug, Submission(a_report(survey), credential=swapped)).field == "credential.signature"
    for broken, field in [("nope", "credential"), ({**own, "extra": 1}, "credential.extra"),
                          ({**own, "value": "a+b="}, "credential.value"), ({**own, "signature": ""},
                                                                            "credential.signature"),
                          ({**own, "key_id": "ABC"}, "credential.key_id")]:
        outcome = submit_report(survey.slug, Submission(a_report(survey), credential=broken))
        assert (outcome.result, outcome.field) == (Result.INVALID, field), broken
    assert survey.report_total() == 0 and SpentCredential.objects.count() == 0
    assert submit_report(survey.slug, Submission(a_report(survey), credential=own)).stored


def test_a_credential_signed_by_a_retired_key_still_counts_once():
    survey = make_survey(access="tokens")
    before = redeem_credential(survey)
    rotate_key(survey)
    after = redeem_credential(survey)
    assert before["key_id"] != after["key_id"]
    assert SurveyKey.objects.filter(survey=survey).count() == 2
    assert SurveyKey.objects.get(survey=survey, active=True).key_id == after["key_id"]
    for credential in (before, after):
        assert submit_report(survey.slug, Submission(a_report(survey), credential=credential)).stored
        assert submit_report(survey.slug, Submission(a_report(survey), credential=credential)).result \
            is Result.CREDENTIAL_USED
    assert survey.report_total() == 2


def test_a_body_reader_is_called_at_most_once_and_its_error_comes_after_404_and_410():
    survey = make_survey()
    calls = []

    def submit(submission=None):
        calls.clear()

        def read():
            calls.append(1)
            if submission is None:
                raise ParseError("JSON parse error")
            return submission
        try:
            return submit_report(survey.slug, read)
        finally:
            assert len(calls) <= 1

    assert submit(Submission(a_report(survey))).stored
    assert submit(Submission(a_report(survey, seed=1))).stored  # from the cached survey
    with pytest.raises(ParseError):  # read by the one-round-trip path, raised by the full path
        submit()
    assert calls == [1]
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    assert submit().result is Result.CLOSED
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    assert submit().result is Result.NOT_FOUND
    assert PendingReport.objects.filter(survey=survey).count() == 2


def test_the_view_answers_every_outcome():
    """Every refusal has an answer (``api.REFUSALS``), with the status code of the API's documentation."""
    refusals = set(Result) - {Result.STORED, Result.INVALID, Result.SIGNED}
    assert set(api.REFUSALS) == refusals
    codes = {result: api.REFUSALS[result]().status_code for result in refusals}
    assert codes == {Result.NOT_FOUND: 404, Result.CLOSED: 410, Result.TOKEN_UNKNOWN: 403, Result.TOKEN_USED: 409,
                     Result.CREDENTIAL_MISSING: 403, Result.CREDENTIAL_USED: 409, Result.NO_INVITATIONS: 404,
                     Result.STALE_VERSION: 409, Result.STALE_PROTOCOL: 409}
    survey = make_survey(access="tokens")
    token = generate_tokens(survey, 1)[0].token
    client, url = APIClient(), f"/api/surveys/{survey.slug}/reports/"
    response = client.post(url, {"report": {"input": 7, "report": 1}, "token": token}, format="json")
    assert response.status_code == 400 and list(response.json()) == ["report.input"]
    response = client.post(url, {"report": a_report(survey), "token": token}, format="json")
    assert response.status_code == 400 and list(response.json()) == ["token"]
    response = client.post(url, {"report": a_report(survey)}, format="json")
    assert (response.status_code, response.json()) == (403, {"detail": MESSAGES[Result.CREDENTIAL_MISSING]})
    credential = redeem_credential(survey, token)
    response = client.post(url, {"report": a_report(survey), "credential": credential}, format="json")
    assert (response.status_code, response.json()) == (201, {"status": "stored"})
    response = client.post(url, {"report": a_report(survey), "credential": credential}, format="json")
    assert (response.status_code, response.json()) == (409, {"detail": MESSAGES[Result.CREDENTIAL_USED]})
