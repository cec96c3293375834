"""schemathesis against the OpenAPI schema (/api/schema/), in process through Django's WSGI application (issue 5).

Every operation is fuzzed (schemathesis' default phases, positive and negative data) with the
survey slug drawn from real surveys of every state — an open LDP survey with a published model, an open
token-only MRR survey, a closed and a draft survey — or left as generated. Each call must pass schemathesis' checks
(no 5xx, status code, content type and body conform to the schema, negative data rejected — all but
``positive_data_acceptance``: a report's wire format and a record's answers depend on the survey's protocol, which
the schema cannot express, so schema-valid bodies are rightly 400s; tests/security/test_hostile_payloads.py and
tests/survey/test_api.py check acceptance), and a rejected request
(4xx) must store nothing: reports, used tokens and model versions are compared before and after the call.

A slug outside Django's ``<slug:slug>`` converter (negative path parameters) never reaches the API: Django's URL
resolver answers its own HTML 404, so for those only "404 and nothing stored" is checked (a JSON ``handler404`` for
/api/ paths would let the schema's 404 body hold there too).

Bounded and reproducible: ``MAX_EXAMPLES`` per operation (derandomized), no deadline; about 15 s in all.
"""
from __future__ import annotations

import re

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from aggregator.services import retrain
from survey_app.models import Survey
from survey_app.services import generate_tokens
from tests.factories import add_reports, make_survey, simulated_reports

from .helpers import stored_state

MAX_EXAMPLES = 150
SLUGS = ["ldp-open", "mrr-tokens", "closed", "draft"]
#: What Django's ``slug`` path converter matches.
SLUG_PATTERN = re.compile(r"[-a-zA-Z0-9_]+")

#: schemathesis' checks, configured: no ``positive_data_acceptance`` (module docstring); a rejection of negative data
#: may also be 410 (a closed survey is refused before its body is read) or 413.
CONFIG = schemathesis.Config.from_dict({
    "checks": {
        "positive_data_acceptance": {"enabled": False},
        "negative_data_rejection": {"expected-statuses": [400, 403, 404, 405, 406, 409, 410, 413, 415, 422]},
    },
})
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application(), config=CONFIG)


@schema.hook
def flatmap_path_parameters(context, path_parameters):
    """A real survey's slug most of the time, else the generated one (unknown surveys must be 404s)."""
    if "slug" not in path_parameters:
        return st.just(path_parameters)
    return st.sampled_from(SLUGS + [path_parameters["slug"]]).map(lambda slug: {**path_parameters, "slug": slug})


@pytest.fixture
def surveys(db):
    """The four surveys, one published model, five invitation tokens (one used); Django's connection-closing
    request signals are held off (as Django's test client does), so WSGI calls stay in the test's transaction."""
    ldp = make_survey(slug="ldp-open", encoding="oue")
    add_reports(ldp, 300, seed=1)
    assert retrain(ldp) is not None
    mrr = make_survey(slug="mrr-tokens", mode="mrr", access="tokens")
    tokens = generate_tokens(mrr, 5)
    tokens[0].used = True
    tokens[0].save()
    make_survey(slug="closed", status="closed")
    make_survey(slug="draft", status="draft")
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_api_conforms_and_rejections_store_nothing(case, surveys):
    before = stored_state()
    response = case.call()
    slug = (case.path_parameters or {}).get("slug")
    if slug is not None and not SLUG_PATTERN.fullmatch(str(slug)):
        assert response.status_code == 404, f"{case.formatted_path} is no API URL, yet answered {response.status_code}"
    else:
        case.validate_response(response)
    if 400 <= response.status_code < 500:
        assert stored_state() == before, \
            f"{case.method} {case.formatted_path} answered {response.status_code} but stored something"


def test_accepted_requests_conform_and_store_exactly_once(surveys):
    """The generated bodies above are almost never valid reports, so the success paths are driven by hand through
    the same schema: honest reports (201), a replayed and a made-up token (409, 403), and predictions (200) must
    conform to the schema; each 201 stores one report, each rejection nothing."""
    reports = schema["/api/surveys/{slug}/reports/"]["POST"]
    ldp = Survey.objects.get(slug="ldp-open")
    mrr = Survey.objects.get(slug="mrr-tokens")
    token = mrr.tokens.filter(used=False).first().token

    def send(operation, slug, body):
        case = operation.Case(path_parameters={"slug": slug}, body=body, media_type="application/json")
        before = stored_state()
        response = case.call()
        case.validate_response(response)
        after = stored_state()
        return response.status_code, after[0] - before[0], after

    for report in simulated_reports(ldp, n=5, seed=7):
        assert send(reports, "ldp-open", {"report": report})[:2] == (201, 1)
    report = simulated_reports(mrr, n=1, seed=8)[0]
    assert send(reports, "mrr-tokens", {"report": report, "token": token})[:2] == (201, 1)
    assert send(reports, "mrr-tokens", {"report": report, "token": token})[:2] == (409, 0)
    assert send(reports, "mrr-tokens", {"report": report, "token": "made-up"})[:2] == (403, 0)
    predict = schema["/api/surveys/{slug}/predict/"]["POST"]
    records = [{"smoker": "daily", "age": 40}, {"smoker": "never", "age": 20.5}]
    status, stored, _ = send(predict, "ldp-open", {"records": records})
    assert (status, stored) == (200, 0)
