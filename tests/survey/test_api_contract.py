"""The report API's contract: typed report schemas from the engine, served with the protocol and in the OpenAPI
document; strict Content-Type and charset; a body without ``Content-Length`` (chunked: the proxy frames those) is an
empty body to Django, a 400 that stores nothing."""
from __future__ import annotations

import io
import json
import sys

import jsonschema
import numpy as np
import pytest
from django.test.client import ClientHandler
from rest_framework.test import APIClient

from aggregator.privacy.schema import Categorical
from survey_app.models import Survey
from survey_app.protocol import get_protocol
from tests.factories import make_survey, simulated_reports
from tests.security.helpers import stored_state

pytestmark = pytest.mark.django_db

#: (mode, encoding, extra Survey fields) of a survey of every wire shape: each oracle one-report, split, MRR and
#: the three Gaussian approaches.
SHAPES = [("ldp", "de", {}), ("ldp", "oue", {}), ("ldp", "sue", {}), ("ldp", "olh", {}), ("ldp", "she", {}),
          ("ldp", "the", {}), ("ldp", "adaptive", {}), ("ldp", "oue", {"strategy": "split"}), ("mrr", "oue", {}),
          ("ldp", "oue", {"numeric_handling": "gaussian", "gaussian_approach": 1}),
          ("ldp", "oue", {"numeric_handling": "gaussian", "gaussian_approach": 2}),
          ("ldp", "oue", {"numeric_handling": "gaussian", "gaussian_approach": 3})]


def shaped_survey(mode, encoding, fields, slug="s"):
    """A health survey of the given shape (Gaussian NB: without the categorical smoker question)."""
    survey = make_survey(slug=slug, mode=mode, encoding=encoding)
    if fields.get("numeric_handling") == "gaussian":
        survey.questions.filter(name="smoker").delete()
    if fields:
        Survey.objects.filter(pk=survey.pk).update(**fields)
        survey.refresh_from_db()
    return survey


def honest_reports(survey, n: int, seed: int) -> list:
    """n respondents' reports (training, and validation ones by the survey's share with a published model at
    version 1) drawn by the survey's own protocol from random answers to its questions."""
    protocol = get_protocol(survey)
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, q.size, n) if isinstance(q, Categorical) else rng.uniform(q.low, q.high, n)
                         for q in protocol.questions])
    y = rng.integers(0, protocol.class_attribute.size, n)
    model = protocol.estimate(protocol.fold(protocol.encode(X, y, rng)))
    return protocol.encode_respondents(X, y, rng, published=(1, model))


def post(body, slug="health", content_type="application/json"):
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return APIClient().generic("POST", f"/api/surveys/{slug}/reports/", data, content_type=content_type)


# -- typed report schemas ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode, encoding, fields", SHAPES)
def test_served_report_schema_admits_honest_reports_and_refuses_malformed_ones(mode, encoding, fields):
    """The protocol endpoint serves ``report_schema`` (JSON Schema 2020-12): every honest report of the survey
    (training and validation) validates; reports of another shape do not."""
    survey = shaped_survey(mode, encoding, fields)
    body = APIClient().get(f"/api/surveys/{survey.slug}/protocol/").json()
    schema = body["report_schema"]
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    protocol = get_protocol(survey)
    for report in honest_reports(survey, n=60, seed=3):
        assert validator.is_valid(report), (report, list(validator.iter_errors(report))[:1])
    if protocol.validation_share > 0 and mode == "ldp":
        assert validator.is_valid({"validation": {"version": 1, "report": 1}})
        assert not validator.is_valid({"validation": {"version": 0, "report": 1}})
        assert not validator.is_valid({"validation": {"version": 1, "report": 2}})
    for other in ({}, {"input": -1, "report": 0}, {"answers": "x"}, {"group": 3, "report": 0}, {"reports": 1}, [],
                  {"validation": {"version": 1, "report": 1, "extra": 0}}):
        assert not validator.is_valid(other), other


def test_every_honest_report_of_a_shape_validates_and_parses(db):
    """One source: a report that the served schema admits is one the engine parses — checked on honest reports and
    on their mutations that the schema refuses (each refused mutation must also be a 400)."""
    survey = make_survey(slug="oue", encoding="oue")
    validator = jsonschema.Draft202012Validator(get_protocol(survey).report_schema())
    for mutated in ({"input": 0, "report": "/w=="}, {"input": 0, "report": "AAAA"}, {"input": 3, "report": "gA=="},
                    {"input": 0, "report": "gA==", "x": 1}):
        assert not validator.is_valid(mutated)
        assert post({"report": mutated}, slug="oue").status_code == 400


def test_openapi_document_types_the_report_as_one_of_the_mechanisms_shapes(client):
    """The OpenAPI document's report body: ``report`` is a ``oneOf`` of one component per wire shape (engine:
    ``survey_protocol.report_shapes``), each an object with exactly its keys."""
    doc = client.get("/api/schema/?format=json").json()
    body = doc["paths"]["/api/surveys/{slug}/reports/"]["post"]["requestBody"]["content"]["application/json"]
    components = doc["components"]["schemas"]
    request = components[body["schema"]["$ref"].rsplit("/", 1)[1]]
    report = request["properties"]["report"]
    report = components[report["$ref"].rsplit("/", 1)[1]] if "$ref" in report else report
    shapes = [components[ref["$ref"].rsplit("/", 1)[1]] for ref in report["oneOf"]]
    assert len(shapes) >= 6
    assert all(s["type"] == "object" and s["additionalProperties"] is False and s["required"] for s in shapes)
    keys = {tuple(sorted(s["properties"])) for s in shapes}
    assert {("input", "report"), ("reports",), ("group", "report"), ("answers",), ("validation",)} <= keys
    assert request.get("additionalProperties") is False


# -- Content-Type and charset --------------------------------------------------------------------------------------

@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8",
                                          "application/json;charset=UTF-8", "Application/JSON; Charset=\"utf-8\""])
def test_json_without_charset_or_in_utf8_is_accepted(content_type):
    survey = make_survey()
    report = simulated_reports(survey, n=1)[0]
    assert post({"report": report}, content_type=content_type).status_code == 201


@pytest.mark.parametrize("content_type, status", [
    ("application/json; charset=bogus", 400), ("application/json; charset=utf-16", 400),
    ("application/json; charset=latin-1", 400), ("application/json; charset=utf8", 400),
    ("application/json; charset=us-ascii", 400),
    ("application/json; charset=utf-8; charset=utf-16", 400), ("application/json; boundary=x", 400),
    ("application/*", 415), ("*/*", 415), ("application/json-seq", 415), ("text/json", 415),
])
def test_other_charsets_parameters_and_media_types_are_refused(content_type, status):
    """A valid report in a body labelled otherwise is refused (the issue's 201 for ``charset=bogus``): 400 for a
    charset or parameter other than ``charset=utf-8`` on application/json, 415 for another media type."""
    survey = make_survey()
    report = simulated_reports(survey, n=1)[0]
    before = stored_state()
    response = post({"report": report}, content_type=content_type)
    assert response.status_code == status, (content_type, response.content)
    assert stored_state() == before


# -- chunked bodies (in process: a WSGI environ as gunicorn builds it, no CONTENT_LENGTH) ---------------------------

def chunked_post(slug: str, body: bytes, content_type="application/json"):
    """POST ``body`` through Django's WSGI handler the way gunicorn passes a chunked request: Transfer-Encoding
    chunked, no CONTENT_LENGTH, the de-chunked body readable from ``wsgi.input`` up to its end."""
    environ = {
        "REQUEST_METHOD": "POST", "PATH_INFO": f"/api/surveys/{slug}/reports/", "QUERY_STRING": "",
        "SERVER_NAME": "testserver", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1",
        "CONTENT_TYPE": content_type, "HTTP_TRANSFER_ENCODING": "chunked", "HTTP_HOST": "testserver",
        "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.url_scheme": "http",
        "wsgi.version": (1, 0), "wsgi.multithread": False, "wsgi.multiprocess": False, "wsgi.run_once": False,
    }
    return ClientHandler(enforce_csrf_checks=False)(environ)


@pytest.mark.parametrize("body", [b"", b'{"report": {"input": 0, "report": "AA=="}}'])
def test_a_body_without_content_length_is_empty_to_django_a_400_that_stores_nothing(body):
    """Django reads ``Content-Length`` bytes of the WSGI input (none without it): a chunked request reaches the
    view as an empty body, refused as one, never half-read; in production Caddy buffers chunked bodies and sends
    them with their length (docker/Caddyfile)."""
    make_survey()
    before = stored_state()
    response = chunked_post("health", body)
    assert response.status_code == 400 and "report" in json.loads(response.content)
    assert stored_state() == before
