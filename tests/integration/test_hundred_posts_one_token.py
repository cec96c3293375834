"""One invitation used 100 times at once against gunicorn, in both halves of the token flow (issue 11; slow: real
processes): 100 concurrent redemptions of one token give exactly one blind signature (200; the 99 others 409), and
100 concurrent reports with one credential store exactly one report (201; the 99 others 409).

Two gunicorn processes of eight threads each (16 database connections: the machine's PostgreSQL is shared, so 100
server threads with a connection each are not an option) race on the token's conditional UPDATE and on the
credential digest's INSERT … ON CONFLICT DO NOTHING; the 100 client threads start together from a barrier.
``tests/survey/test_token_race.py`` runs the same races in-process."""
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from survey_app.credentials import public_credential, start_credential
from survey_app.models import InvitationToken, SpentCredential
from survey_app.protocol import get_protocol
from survey_app.services import generate_tokens
from tests.factories import make_survey, redeem_credential

from .processes import post_json

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CLIENTS = 100


def race(bodies: list[bytes], url: str) -> list[int]:
    start = threading.Barrier(CLIENTS)

    def post(body):
        start.wait(30)
        return post_json(url, body, timeout=60)

    with ThreadPoolExecutor(CLIENTS) as pool:
        return list(pool.map(post, bodies))


def test_hundred_concurrent_uses_of_one_invitation_exactly_one_lands(database_url, start_gunicorn):
    survey = make_survey(access="tokens")
    token = generate_tokens(survey, 1)[0].token
    web = start_gunicorn(database_url, f"/api/surveys/{survey.slug}/protocol/")
    credential_key = public_credential(survey)
    redeems = [json.dumps({"token": token, "blinded_msg": start_credential(credential_key)[0]}).encode()
               for _ in range(CLIENTS)]
    statuses = race(redeems, f"{web.url}/api/surveys/{survey.slug}/invitations/redeem/")
    assert statuses.count(200) == 1 and statuses.count(409) == CLIENTS - 1, sorted(set(statuses))
    assert InvitationToken.objects.get(token=token).used

    credential = redeem_credential(survey)
    report = get_protocol(survey).encode(np.array([[1, 40.0]]), np.array([1]), np.random.default_rng(0))[0]
    body = json.dumps({"report": report, "credential": credential}).encode()
    statuses = race([body] * CLIENTS, f"{web.url}/api/surveys/{survey.slug}/reports/")
    assert statuses.count(201) == 1 and statuses.count(409) == CLIENTS - 1, sorted(set(statuses))
    assert survey.report_total() == 1
    assert SpentCredential.objects.filter(survey=survey).count() == 1
