"""Concurrent use of one invitation (PostgreSQL, threaded live server), in both halves of the token flow (issue 11):
30 concurrent redemptions of one token give exactly one blind signature, and 30 concurrent reports with one
credential store exactly one report.

A redemption consumes the token by a conditional UPDATE (used = false → true): PostgreSQL's row lock makes every
concurrent UPDATE after the first see used = true and match no row. A report inserts its credential's digest with
INSERT … ON CONFLICT DO NOTHING under the digest's primary key: a concurrent insert of the same digest waits for the
first transaction and then adds nothing, so its report is not stored (409).
"""
import json
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from survey_app.credentials import finish_credential, public_credential, start_credential
from survey_app.models import InvitationToken, SpentCredential
from survey_app.protocol import get_protocol
from survey_app.services import generate_tokens
from tests.factories import make_survey, redeem_credential

pytestmark = pytest.mark.django_db(transaction=True)

CLIENTS = 30


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"},
                                     method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def test_thirty_concurrent_redemptions_of_one_token_give_one_blind_signature(live_server):
    survey = make_survey(access="tokens")
    token = generate_tokens(survey, 1)[0].token
    attempts = [start_credential(public_credential(survey)) for _ in range(CLIENTS)]  # each with its own value
    url = f"{live_server.url}/api/surveys/{survey.slug}/invitations/redeem/"
    with ThreadPoolExecutor(max_workers=CLIENTS) as pool:
        answers = list(pool.map(lambda a: post(url, {"token": token, "blinded_msg": a[0]}), attempts))
    statuses = [status for status, _ in answers]
    assert statuses.count(200) == 1 and statuses.count(409) == CLIENTS - 1, sorted(set(statuses))
    winner = statuses.index(200)
    finish_credential(attempts[winner][1], answers[winner][1]["blind_signature"])  # a valid signature
    assert InvitationToken.objects.get(token=token).used


def test_thirty_concurrent_reports_with_one_credential_store_one(live_server):
    survey = make_survey(access="tokens")
    credential = redeem_credential(survey)
    report = get_protocol(survey).encode(np.array([[1, 40.0]]), np.array([1]), np.random.default_rng(0))[0]
    url = f"{live_server.url}/api/surveys/{survey.slug}/reports/"
    with ThreadPoolExecutor(max_workers=CLIENTS) as pool:
        statuses = [status for status, _ in pool.map(lambda _: post(url, {"report": report, "credential": credential}),
                                                     range(CLIENTS))]
    assert statuses.count(201) == 1 and statuses.count(409) == CLIENTS - 1, sorted(set(statuses))
    assert survey.report_total() == 1
    assert SpentCredential.objects.filter(survey=survey).count() == 1
