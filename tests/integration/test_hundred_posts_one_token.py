"""100 concurrent submissions with one invitation token against gunicorn: exactly one lands (201), the 99 others
get 409 (slow: real processes).

Two gunicorn processes of eight threads each (16 database connections: the machine's PostgreSQL is shared, so 100
server threads with a connection each are not an option) race on the token's conditional UPDATE; the 100 client
threads start together from a barrier. ``tests/survey/test_token_race.py`` runs the same race in-process."""
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from survey_app.models import InvitationToken, Report
from survey_app.protocol import get_protocol
from survey_app.services import generate_tokens
from tests.factories import make_survey

from .processes import post_json

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CLIENTS = 100


def test_hundred_concurrent_posts_with_one_token_exactly_one_lands(database_url, start_gunicorn):
    survey = make_survey(access="tokens")
    token = generate_tokens(survey, 1)[0].token
    report = get_protocol(survey).encode(np.array([[1, 40.0]]), np.array([1]), np.random.default_rng(0))[0]
    body = json.dumps({"report": report, "token": token}).encode()
    web = start_gunicorn(database_url, f"/api/surveys/{survey.slug}/protocol/")
    url = f"{web.url}/api/surveys/{survey.slug}/reports/"
    start = threading.Barrier(CLIENTS)

    def post(_):
        start.wait(30)
        return post_json(url, body, timeout=60)

    with ThreadPoolExecutor(CLIENTS) as pool:
        statuses = list(pool.map(post, range(CLIENTS)))
    assert statuses.count(201) == 1 and statuses.count(409) == CLIENTS - 1, sorted(set(statuses))
    assert Report.objects.filter(survey=survey).count() == 1
    assert InvitationToken.objects.get(token=token).used
