"""Concurrent submissions with one invitation token: exactly one lands (PostgreSQL, threaded live server).

The token is consumed by a conditional UPDATE (used = false → true) inside the report's transaction; PostgreSQL's row
lock makes every concurrent UPDATE after the first see used = true and match no row.
"""
import json
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from survey_app.models import InvitationToken, Report
from survey_app.protocol import get_protocol
from survey_app.services import generate_tokens
from tests.factories import make_survey

pytestmark = pytest.mark.django_db(transaction=True)


def test_thirty_concurrent_posts_with_one_token(live_server):
    survey = make_survey(access="tokens")
    token = generate_tokens(survey, 1)[0].token
    report = get_protocol(survey).encode(np.array([[1, 40.0]]), np.array([1]), np.random.default_rng(0))[0]
    body = json.dumps({"report": report, "token": token}).encode()
    url = f"{live_server.url}/api/surveys/{survey.slug}/reports/"

    def post(_):
        request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    with ThreadPoolExecutor(max_workers=30) as pool:
        statuses = list(pool.map(post, range(30)))
    assert sorted(set(statuses)) == [201, 409]
    assert statuses.count(201) == 1
    assert Report.objects.filter(survey=survey).count() == 1
    assert InvitationToken.objects.get(token=token).used
