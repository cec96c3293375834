"""PostgreSQL "restarted" mid-load: clients get clear 503s (never a 500), nothing is half-written, every accepted
report is stored exactly once, and service resumes (slow: real processes).

The machine's PostgreSQL is never touched (other tests use it): gunicorn reaches it through a TCP proxy that the
test cuts — every connection aborted, new ones refused — for two seconds while clients keep posting.

Reports carry no link to who sent them, so exactly-once is checked through report credentials (invitation tokens
redeemed for blind-signed credentials beforehand, ``survey_app.credentials``): each client posts with a fresh
credential and, on a 503, retries with the same one until it gets 201 (stored now) or 409 (an earlier attempt was
stored after all: its commit went through but the answer was lost in the cut). At the end, the reports stored must
number exactly the credentials spent, which must be exactly the credentials resolved.
"""
import json
import threading
import time
from collections import Counter

import numpy as np
import pytest

from aggregator.privacy import blind_rsa
from survey_app.credentials import credential_digest
from survey_app.models import SpentCredential
from survey_app.protocol import get_protocol
from tests.factories import make_survey, redeem_credential

from .conftest import database_url_via
from .processes import post_json

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CLIENTS = 4
BEFORE, CUT, AFTER = 1.5, 2.0, 2.0  # seconds
CREDENTIALS = 1200  # more than 4 paced clients can spend in 5.5 s: each waits PACE after every answered credential
PACE = 0.02  # seconds: 4 clients × 5.5 s / PACE = 1,100 credentials at most, however fast the server answers


def test_a_database_cut_mid_load_gives_503s_and_loses_or_doubles_nothing(start_gunicorn, tcp_proxy, database_url):
    survey = make_survey(access="tokens")
    credentials = iter([redeem_credential(survey) for _ in range(CREDENTIALS)])
    report = get_protocol(survey).encode(np.array([[1, 40.0]]), np.array([1]), np.random.default_rng(0))[0]
    proxy = tcp_proxy(database_url.rsplit(":", 1)[1].split("/")[0])
    web = start_gunicorn(database_url_via(proxy.port), f"/api/surveys/{survey.slug}/protocol/")
    url = f"{web.url}/api/surveys/{survey.slug}/reports/"
    lock, stop = threading.Lock(), threading.Event()
    responses: list[tuple[float, int]] = []  # (time, status) of every answer
    outcome: dict[str, str] = {}  # credential value → "201", or "409 after 503" (an earlier attempt landed)
    problems: list[str] = []

    def client():
        while not stop.is_set():
            with lock:
                credential = next(credentials, None)
            if credential is None:
                problems.append("the credentials ran out before the end of the run")
                return
            value = credential["value"]
            seen_503 = False
            while True:  # the same credential until the server says what became of it
                status = post_json(url, json.dumps({"report": report, "credential": credential}).encode())
                with lock:
                    responses.append((time.monotonic(), status))
                if status == 503:
                    seen_503 = True
                    time.sleep(0.05)
                    continue
                if status == 201 or (status == 409 and seen_503):
                    outcome[value] = str(status)
                else:
                    problems.append(f"{status} for credential {value[:6]} (503 before: {seen_503})")
                break
            time.sleep(PACE)

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for t in threads:
        t.start()
    time.sleep(BEFORE)
    cut_at = time.monotonic()
    proxy.cut()
    time.sleep(CUT)
    proxy.restore()
    restored_at = time.monotonic()
    time.sleep(AFTER)
    stop.set()
    for t in threads:
        t.join(60)

    statuses = Counter(status for _, status in responses)
    assert not problems, problems[:5]
    assert set(statuses) <= {201, 409, 503}, statuses  # never a 500
    assert statuses[503] > 0, "the cut was not felt"
    assert any(status == 201 for at, status in responses if at < cut_at)
    assert any(status == 201 for at, status in responses if at > restored_at + 0.5), "service did not resume"
    # Exactly once: one stored report per spent credential, and the spent credentials are exactly the resolved ones.
    spent = set(SpentCredential.objects.filter(survey=survey).values_list("digest", flat=True))
    assert spent == {credential_digest(blind_rsa.b64url_decode(value)) for value in outcome}
    assert survey.report_total() == len(spent)  # in the inbox (and Report, had a fold run)
    print(f"\nstatuses {dict(statuses)}, credentials spent {len(spent)}, 409 after a lost answer "
          f"{sum(v == '409' for v in outcome.values())}, gunicorn→PostgreSQL connections {proxy.connections}")
