"""Hand-written hostile payloads against the report and predict APIs, per mechanism (issue 5, "Bad input").

For every mechanism a survey can use — DE, SUE, OUE, SHE, THE, OLH (one report per respondent and split), Gaussian
Approaches 1–3, MRR — and for validation reports, honest reports are accepted and their hostile mutations are not:
wrong lengths, out-of-domain values, negative and huge integers (2⁶³, 2⁶⁴, 10⁴⁰⁰), floats where integers belong,
strings, booleans, null, nested garbage, off-grid or enormous noisy components, extra keys. Then the body itself:
NaN/±Infinity constants, deep nesting, bodies beyond the limits, wrong content types and charsets, missing keys; and
tokens: replayed (409), of another survey (403), oversized (400). Every answer is a 4xx — a 400 names the field —
and nothing is stored (reports, used tokens, model versions compared before and after).

The first tests exercise the engine's parsers directly (framework-free): every hostile value gives ``ReportError``
(never ``OverflowError``, ``TypeError``, …, which the API would turn into a 500).
"""
from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from django.conf import settings
from rest_framework.test import APIClient

from aggregator.privacy import noise
from aggregator.privacy.oracles import wire
from aggregator.privacy.protocol import ReportError, build
from survey_app.api import MAX_REPORT_BYTES
from survey_app.models import Question, Survey
from survey_app.protocol import get_protocol
from survey_app.services import generate_tokens
from tests.factories import add_reports, make_survey, published_yesterday, redeem_credential

from .helpers import report_models, stored_state

# -- hostile values -------------------------------------------------------------------------------------------------

#: Never a valid report value of any kind (an integer code, a base64 string, a list).
NOT_A_CODE = {
    "negative": -1,
    "2**63": 2**63,
    "2**64": 2**64,
    "-2**63-1": -(2**63) - 1,
    "10**400": 10**400,
    "fraction": 1.5,
    "whole float": 1.0,
    "string": "1",
    "true": True,
    "null": None,
    "empty list": [],
    "object": {"a": 1},
    "nested": [[[[1]]]],
    "long string": "A" * 1000,
}
#: Never a valid component of a noisy vector (SHE/THE, Gaussian Approaches 1 and 3).
NOT_A_COMPONENT = {
    "off grid": 0.3,
    "huge": 1e300,
    "-huge": -1e300,
    "2**64": 2**64,
    "10**400": 10**400,
    "string": "0",
    "true": True,
    "null": None,
    "list": [0],
}


def numeric_survey(slug: str, approach: int) -> Survey:
    """An open Gaussian NB survey: class sick (binary), numeric age and weight."""
    survey = Survey.objects.create(title="Numbers", slug=slug, mode="ldp", epsilon=1.0, encoding="de", status="open",
                                   numeric_handling="gaussian", gaussian_approach=approach)
    Question.objects.create(survey=survey, name="sick", text="Are you sick?", kind="binary", is_class=True, position=9)
    Question.objects.create(survey=survey, name="age", text="Age", kind="numeric", low=18, high=98, position=1)
    Question.objects.create(survey=survey, name="weight", text="Weight", kind="numeric", low=40, high=140, position=2)
    return survey


def honest(survey, n=60, seed=0) -> list[dict]:
    """n simulated respondents' training reports (every feature column numeric or a choice code)."""
    rng = np.random.default_rng(seed)
    protocol = get_protocol(survey)
    if survey.numeric_handling == "gaussian":
        X = np.column_stack([rng.uniform(18, 98, n), rng.uniform(40, 140, n)])
    else:
        X = np.column_stack([rng.integers(0, 3, n), rng.uniform(18, 98, n)])
    return protocol.encode(X, rng.integers(0, 2, n), rng)


def first(reports, **match) -> dict:
    """The first report whose top-level entries equal ``match`` (e.g. input=1, group=2)."""
    return next(r for r in reports if all(r.get(k) == v for k, v in match.items()))


# -- mutations: (name, function(report, protocol) -> hostile report, the field the 400 must name) ------------------

def at(path, value):
    """Replace the entry at ``path`` (keys and indices) of a deep copy of the report by ``value``."""
    def mutate(report, protocol):
        out = json.loads(json.dumps(report))
        target = out
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return out
    return mutate


def scalar_mutations(path, field, values=NOT_A_CODE):
    return [(f"{'.'.join(map(str, path))}={name}", at(path, value), field) for name, value in values.items()]


def oracle_of(report, protocol):
    return protocol.nb.oracles[report["input"]]


def unary_bytes(n_extra):
    def mutate(report, protocol):
        width = (oracle_of(report, protocol).domain + 7) // 8
        return {**report, "report": base64.b64encode(bytes(width + n_extra)).decode()}
    return mutate


def unary_padding(report, protocol):
    d = oracle_of(report, protocol).domain
    raw = bytearray((d + 7) // 8)
    raw[-1] = 0xFF  # bits beyond d set (every test domain here leaves spare bits)
    return {**report, "report": base64.b64encode(bytes(raw)).decode()}


def vector_length(delta):
    def mutate(report, protocol):
        d = oracle_of(report, protocol).domain
        return {**report, "report": [0.0] * (d + delta)}
    return mutate


def olh_component(index, value_of):
    def mutate(report, protocol):
        fo = oracle_of(report, protocol)
        triple = list(report["report"])
        triple[index] = value_of(fo)
        return {**report, "report": triple}
    return mutate


def one_report(input_index=1, field="report.report"):
    """Mutations shared by every one-report LDP survey: the input index and the whole wire value."""
    return (scalar_mutations(["input"], "report.input")
            + [("input=out of range", at(["input"], 3), "report.input")]
            + scalar_mutations(["report"], field))


MUTATIONS = {
    "de": one_report() + [
        ("report=domain", lambda r, p: {**r, "report": oracle_of(r, p).domain}, "report.report"),
        ("report=10**6", at(["report"], 10**6), "report.report"),
    ],
    "oue": one_report() + [
        ("one byte too many", unary_bytes(1), "report.report"),
        ("one byte short", unary_bytes(-1), "report.report"),
        ("padding bits set", unary_padding, "report.report"),
        ("not base64", at(["report"], "!!!!"), "report.report"),
        ("url-safe alphabet", at(["report"], "-_8="), "report.report"),
        ("unpadded", at(["report"], "AA"), "report.report"),
    ],
    "sue": one_report() + [
        ("one byte too many", unary_bytes(1), "report.report"),
        ("padding bits set", unary_padding, "report.report"),
    ],
    "she": one_report() + [
        ("one component short", vector_length(-1), "report.report"),
        ("one component too many", vector_length(1), "report.report"),
    ] + scalar_mutations(["report", 0], "report.report", NOT_A_COMPONENT),
    "the": one_report() + [
        ("one component short", vector_length(-1), "report.report"),
    ] + scalar_mutations(["report", 0], "report.report", NOT_A_COMPONENT),
    "olh": one_report() + [
        ("pair", lambda r, p: {**r, "report": r["report"][:2]}, "report.report"),
        ("quadruple", lambda r, p: {**r, "report": r["report"] + [0]}, "report.report"),
        ("a=0", olh_component(0, lambda fo: 0), "report.report"),
        ("b=P", olh_component(1, lambda fo: 2**31 - 1), "report.report"),
        ("y=g", olh_component(2, lambda fo: fo.g), "report.report"),
        ("y=-1", olh_component(2, lambda fo: -1), "report.report"),
        ("y=2**64", olh_component(2, lambda fo: 2**64), "report.report"),
        ("a=2**63", olh_component(0, lambda fo: 2**63), "report.report"),
        ("y=1.0", olh_component(2, lambda fo: 1.0), "report.report"),
        ("y='1'", olh_component(2, lambda fo: "1"), "report.report"),
    ],
    "olh-split": scalar_mutations(["reports"], "report.reports") + scalar_mutations(["reports", 1], "report.reports[1]")
    + scalar_mutations(["reports", 1, 2], "report.reports[1]") + [
        ("one report short", lambda r, p: {"reports": r["reports"][:-1]}, "report.reports"),
        ("one report too many", lambda r, p: {"reports": r["reports"] + [r["reports"][0]]}, "report.reports"),
    ],
    "mrr": scalar_mutations(["answers"], "report.answers") + scalar_mutations(["answers", 0], "report.answers") + [
        ("answer out of domain", at(["answers", 0], 3), "report.answers"),
        ("class out of domain", at(["answers", 2], 2), "report.answers"),
        ("one answer short", lambda r, p: {"answers": r["answers"][:-1]}, "report.answers"),
        ("one answer too many", lambda r, p: {"answers": r["answers"] + [0]}, "report.answers"),
    ],
}
GAUSSIAN_GROUP = scalar_mutations(["group"], "report.group") + [("group=3", at(["group"], 3), "report.group")]
MUTATIONS["gauss1"] = GAUSSIAN_GROUP + scalar_mutations(["report"], "report.report") + scalar_mutations(
    ["report", 0, 1], "report.report", NOT_A_COMPONENT) + [
    ("one row short", lambda r, p: {**r, "report": r["report"][:-1]}, "report.report"),
    ("one column short", lambda r, p: {**r, "report": [row[:-1] for row in r["report"]]}, "report.report"),
]
MUTATIONS["gauss2"] = GAUSSIAN_GROUP + scalar_mutations(["report"], "report.report") + scalar_mutations(
    ["report", 0], "report.report") + scalar_mutations(
    ["report", 1], "report.report", {k: v for k, v in NOT_A_CODE.items() if k != "negative"}) + [
    ("sign=0", at(["report", 1], 0), "report.report"),
    ("sign=2", at(["report", 1], 2), "report.report"),
    ("entry=m·k", at(["report", 0], 4), "report.report"),
    ("triple", lambda r, p: {**r, "report": r["report"] + [1]}, "report.report"),
]
MUTATIONS["gauss3"] = GAUSSIAN_GROUP + scalar_mutations(["report"], "report.report") + scalar_mutations(
    ["report", 0], "report.report") + scalar_mutations(["report", 1, 0], "report.report", NOT_A_COMPONENT) + [
    ("attribute=m", at(["report", 0], 2), "report.report"),
    ("vector short", lambda r, p: {**r, "report": [r["report"][0], r["report"][1][:-1]]}, "report.report"),
]
# Every kind: keys the wire format does not have (the payload is stored verbatim), and a report that is no object.
for _kind in MUTATIONS:
    MUTATIONS[_kind] = MUTATIONS[_kind] + [
        ("extra key", lambda r, p: {**r, "name": "Alice"}, "report.name"),
        ("not an object", lambda r, p: [r], "report"),
    ]

#: Which report a mutation starts from (a group or input whose wire value the mutation's path fits).
BASE = {"gauss1": {"group": 1}, "gauss2": {"group": 1}, "gauss3": {"group": 2}}
for _kind in ("de", "oue", "sue", "she", "the", "olh"):
    BASE[_kind] = {"input": 1}


def make(kind: str) -> Survey:
    if kind.startswith("gauss"):
        return numeric_survey(kind, int(kind[-1]))
    if kind == "mrr":
        return make_survey(slug=kind, mode="mrr")
    if kind == "olh-split":
        return make_survey(slug=kind, encoding="olh", strategy="split")
    return make_survey(slug=kind, encoding=kind)


CASES = [(kind, name, mutate, field) for kind, items in MUTATIONS.items() for name, mutate, field in items]


# -- engine parsers (framework-free) ------------------------------------------------------------------------------

def engine_protocol(kind: str):
    """The protocol of ``make(kind)``, built from a configuration dict (no database)."""
    base = {"class": {"kind": "categorical", "name": "sick", "values": ["no", "yes"]},
            "validation": {"share": 0.1}}
    if kind.startswith("gauss"):
        features = [{"kind": "numeric", "name": "age", "low": 18, "high": 98},
                    {"kind": "numeric", "name": "weight", "low": 40, "high": 140}]
        return build({**base, "mode": "ldp", "features": features, "ldp": {"epsilon": 1.0, "encoding": "de"},
                      "numeric": {"handling": "gaussian", "approach": int(kind[-1])}})
    features = [{"kind": "categorical", "name": "smoker", "values": ["never", "sometimes", "daily"]},
                {"kind": "numeric", "name": "age", "low": 18, "high": 98}]
    if kind == "mrr":
        return build({**base, "mode": "mrr", "features": features, "mrr": {"theta": 0.7}})
    encoding, strategy = ("olh", "split") if kind == "olh-split" else (kind, "one-report")
    return build({**base, "mode": "ldp", "features": features,
                  "ldp": {"epsilon": 1.0, "encoding": encoding, "strategy": strategy}})


def engine_honest(protocol, seed=0, n=60):
    rng = np.random.default_rng(seed)
    if protocol.mode == "ldp" and all(a.kind == "numeric" for a in protocol.features):
        X = np.column_stack([rng.uniform(18, 98, n), rng.uniform(40, 140, n)])
    else:
        X = np.column_stack([rng.integers(0, 3, n), rng.uniform(18, 98, n)])
    return protocol.encode(X, rng.integers(0, 2, n), rng)


@pytest.mark.parametrize("kind, name, mutate, field", CASES, ids=[f"{k}: {n}" for k, n, _, _ in CASES])
def test_engine_parser_rejects_with_report_error(kind, name, mutate, field):
    protocol = engine_protocol(kind)
    report = first(engine_honest(protocol), **BASE.get(kind, {}))
    protocol.parse_one(report)  # the honest starting point parses
    with pytest.raises(ReportError) as caught:
        protocol.parse_one(mutate(report, protocol))
    assert field == "report" or f"report.{caught.value.field}".startswith(field)


def test_wire_integers_and_numbers():
    assert wire.is_int(2**63 - 1) and wire.is_int(-(2**63))
    assert not any(wire.is_int(v) for v in (2**63, -(2**63) - 1, True, 1.0, "1", None))
    assert wire.is_number(1) and wire.is_number(-2.5) and wire.is_number(2**64)
    assert not any(wire.is_number(v) for v in (10**400, float("nan"), float("inf"), True, "1", None, [1]))


def test_grid_bound_keeps_honest_noise():
    """Honest components never reach the bound: at ε = 0.1 (scale 20) a million noise draws stay well inside, and
    the bound's tail probability, P(|N| > bound − 1) = 2α^m/(1+α), is below 2⁻⁶⁴."""
    scale = 20.0
    bound = wire.grid_noise_bound(scale)
    draws = noise.discrete_laplace(np.random.default_rng(5), scale, 1_000_000) + 1.0
    assert np.abs(draws).max() < bound / 2
    wire.check_grid_values(draws, scale, "draws")
    assert 2 * noise.discrete_laplace_tail(bound - 1.0, scale) < 2.0**-64
    with pytest.raises(ValueError, match="within"):
        wire.check_grid_values(np.array([bound + noise.GRID]), scale, "x")
    with pytest.raises(ValueError, match="multiples"):
        wire.check_grid_values(np.array([noise.GRID / 2]), scale, "x")


def test_honest_reports_of_every_kind_parse():
    for kind in MUTATIONS:
        protocol = engine_protocol(kind)
        reports = engine_honest(protocol, seed=3, n=400)
        for report in reports:
            protocol.parse_one(report)
        assert protocol.fold(reports) is not None


# -- the report API ------------------------------------------------------------------------------------------------

@pytest.fixture
def client():
    return APIClient()


def post(client, slug, body, **kwargs):
    return client.post(f"/api/surveys/{slug}/reports/", body, format="json", **kwargs)


def assert_rejected(response, before, status=400, field=None):
    assert response.status_code == status, (response.status_code, response.content[:300])
    if field is not None:  # the 400 names the field (a bare "report": any field of the report)
        assert any(key == field or key.startswith(field + ".") for key in response.json()), response.json()
    assert stored_state() == before


@pytest.mark.django_db
@pytest.mark.parametrize("kind", list(MUTATIONS))
def test_honest_reports_are_stored(client, kind):
    survey = make(kind)
    reports = honest(survey, n=20)
    for report in reports:
        assert post(client, survey.slug, {"report": report}).status_code == 201
    assert sum(model.objects.filter(survey=survey).count() for model in report_models()) == 20


@pytest.mark.django_db
@pytest.mark.parametrize("kind, name, mutate, field", CASES, ids=[f"{k}: {n}" for k, n, _, _ in CASES])
def test_hostile_report_is_rejected_naming_the_field(client, kind, name, mutate, field):
    survey = make(kind)
    report = first(honest(survey), **BASE.get(kind, {}))
    hostile = mutate(report, get_protocol(survey))
    before = stored_state()
    assert_rejected(post(client, survey.slug, {"report": hostile}), before, field=field)


@pytest.fixture
def published(db):
    """An open OUE survey with a published model (version 1) and an MRR survey, both with a validation share."""
    survey = make_survey(slug="oue", encoding="oue")
    add_reports(survey, 300, seed=2)
    assert published_yesterday(survey) is not None
    return survey


VALIDATION_CASES = (
    [(f"version={name}", {"version": value, "report": 1}, "report.validation.version")
     for name, value in NOT_A_CODE.items()]
    + [(f"report={name}", {"version": 1, "report": value}, "report.validation.report")
       for name, value in NOT_A_CODE.items()]
    + [("version=0", {"version": 0, "report": 1}, "report.validation.version"),
       ("unpublished version", {"version": 2, "report": 1}, "report.validation.version"),
       ("version=2**62", {"version": 2**62, "report": 1}, "report.validation.version"),
       ("report=2", {"version": 1, "report": 2}, "report.validation.report"),
       ("report missing", {"version": 1}, "report.validation.report"),
       ("extra key", {"version": 1, "report": 1, "correct": True}, "report.validation.correct"),
       ("not an object", [1, 1], "report.validation.version")]
)


def test_validation_cases_cover_every_hostile_value():
    assert len(VALIDATION_CASES) == 2 * len(NOT_A_CODE) + 7


@pytest.mark.django_db
def test_ldp_validation_reports(client, published):
    assert post(client, "oue", {"report": {"validation": {"version": 1, "report": 1}}}).status_code == 201
    for _, inner, field in VALIDATION_CASES:
        before = stored_state()
        assert_rejected(post(client, "oue", {"report": {"validation": inner}}), before, field=field)
    before = stored_state()
    assert_rejected(post(client, "oue", {"report": {"validation": {"version": 1, "report": 1}, "input": 0}}), before,
                    field="report.input")


@pytest.mark.django_db
def test_mrr_validation_reports_and_surveys_without_a_share(client):
    mrr = make_survey(slug="mrr", mode="mrr")
    answers = honest(mrr, n=1)[0]["answers"]
    assert post(client, "mrr", {"report": {"validation": {"answers": answers}}}).status_code == 201
    for value in NOT_A_CODE.values():
        before = stored_state()
        assert_rejected(post(client, "mrr", {"report": {"validation": {"answers": [value] + answers[1:]}}}), before,
                        field="report.answers")
    before = stored_state()
    assert_rejected(post(client, "mrr", {"report": {"validation": {"answers": answers, "id": 7}}}), before,
                    field="report.validation.id")
    make_survey(slug="no-share", mode="mrr", validation_share=0.0)
    assert_rejected(post(client, "no-share", {"report": {"validation": {"answers": answers}}}), before,
                    field="report.validation")


@pytest.mark.django_db
def test_body_level_garbage(client):
    survey = make_survey(slug="oue", encoding="oue")
    good = honest(survey, n=1)[0]
    before = stored_state()
    for body, field in [({}, "report"), ({"answers": [1]}, "report"), ({"report": None}, "report"),
                        ({"report": good, "respondent": "Alice"}, "respondent"), ([good], None), ("text", None),
                        (None, None), (7, None)]:
        assert_rejected(post(client, "oue", body), before, field=field)
    assert_rejected(client.post("/api/surveys/oue/reports/"), before, field="report")  # no body at all
    assert_rejected(client.put("/api/surveys/oue/reports/", {"report": good}, format="json"), before, status=405)
    assert_rejected(client.get("/api/surveys/oue/reports/"), before, status=405)


@pytest.mark.django_db
@pytest.mark.parametrize("raw", [
    "NaN", "Infinity", "-Infinity", '{"report": NaN}', '{"report": {"input": 0, "report": Infinity}}',
    '{"report": {"input": 1, "report": [NaN, 0, 0, 0, 0, 0]}}', '{"report": {"input": 1, "report": -Infinity}}',
    '{"report": 1e999}', '{"report": ', "{'report': 1}", '{"report": 1} trailing', "\x00", "\ufeff{}",
    '{"report": "\\ud800"}',
])
def test_non_standard_json_is_a_400(client, raw):
    """DRF parses with ``json.strict_constant``: NaN and ±Infinity (which Python's json accepts by default) are
    parse errors, as is anything else that is not JSON. 1e999 parses as a float ∞ in Python — then fails the
    report's own checks."""
    make_survey(slug="she", encoding="she")
    before = stored_state()
    response = client.post("/api/surveys/she/reports/", raw, content_type="application/json")
    assert_rejected(response, before)


@pytest.mark.django_db
@pytest.mark.parametrize("depth", [10, 500, 900, 990, 2_000, 50_000])
def test_deep_nesting_is_a_400(client, depth):
    make_survey(slug="oue", encoding="oue")
    before = stored_state()
    for inner in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth):
        body = '{"report": ' + inner + "}"
        response = client.post("/api/surveys/oue/reports/", body, content_type="application/json")
        assert_rejected(response, before)


@pytest.mark.django_db
def test_huge_bodies_are_413(client):
    make_survey(slug="oue", encoding="oue")
    before = stored_state()
    filler = "A" * (MAX_REPORT_BYTES + 1)
    assert_rejected(post(client, "oue", {"report": {"input": 0, "report": filler}}), before, status=413)
    beyond_django = "A" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    assert_rejected(post(client, "oue", {"report": beyond_django}), before, status=413)
    big_list = json.dumps({"report": {"input": 1, "report": [0] * (MAX_REPORT_BYTES // 2)}})
    assert len(big_list) > MAX_REPORT_BYTES
    response = client.post("/api/surveys/oue/reports/", big_list, content_type="application/json")
    assert_rejected(response, before, status=413)
    # a body just under the limit is read, and refused for what it is
    assert_rejected(post(client, "oue", {"report": {"input": 0, "report": "A" * (MAX_REPORT_BYTES - 100)}}), before,
                    field="report.report")


@pytest.mark.django_db
def test_a_body_longer_than_its_declared_length_is_read_no_further(client):
    make_survey(slug="oue", encoding="oue")
    before = stored_state()
    body = json.dumps({"report": {"input": 0, "report": "gA=="}}) + " " * (MAX_REPORT_BYTES * 2)
    response = client.generic("POST", "/api/surveys/oue/reports/", body, content_type="application/json",
                              CONTENT_LENGTH="12")
    assert_rejected(response, before)


@pytest.mark.django_db
@pytest.mark.parametrize("content_type, body", [
    ("application/x-www-form-urlencoded", "report=%7B%22input%22%3A0%7D"),
    ("multipart/form-data; boundary=BoUnDaRy",
     '--BoUnDaRy\r\nContent-Disposition: form-data; name="report"\r\n\r\n{}\r\n--BoUnDaRy--\r\n'),
    ("text/plain", '{"report": {"input": 0, "report": "gA=="}}'),
    ("application/xml", "<report/>"),
    ("application/octet-stream", "\x00\x01"),
    ("", '{"report": {"input": 0, "report": "gA=="}}'),
    ("application/jsonp", '{"report": {"input": 0, "report": "gA=="}}'),
])
def test_wrong_content_types_are_415(client, content_type, body):
    make_survey(slug="oue", encoding="oue")
    before = stored_state()
    response = client.generic("POST", "/api/surveys/oue/reports/", body, content_type=content_type)
    assert_rejected(response, before, status=415)


@pytest.mark.django_db
@pytest.mark.parametrize("charset", ["bogus", "utf-16", "utf-32"])
def test_unknown_or_mismatched_charsets_are_a_400(client, charset):
    make_survey(slug="oue", encoding="oue")
    before = stored_state()
    response = client.generic("POST", "/api/surveys/oue/reports/", b'{"report": 1, "x": "\xff\xfe"}',
                              content_type=f"application/json; charset={charset}")
    assert_rejected(response, before)


@pytest.mark.django_db
def test_invitations(client):
    """Token surveys (issue 11): a report carries a blind-signed credential, never the token. Hostile credentials are
    refused with the field named and nothing stored (no report, no spent credential); a valid one counts once and only
    for its own survey; a malformed report does not spend its credential."""
    survey = make_survey(slug="tok", access="tokens")
    other = make_survey(slug="other", access="tokens")
    token = generate_tokens(survey, 1)[0].token
    report = honest(survey, n=1)[0]
    credential = redeem_credential(survey)
    foreign = redeem_credential(other)
    before = stored_state()
    assert_rejected(post(client, "tok", {"report": report, "token": token}), before, field="token")
    assert_rejected(post(client, "tok", {"report": report}), before, status=403)
    for bad in ("x", ["v"], None, 12345, {}, {"value": credential["value"]},
                {**credential, "extra": 1}, {**credential, "value": "!!!"}, {**credential, "signature": "A" * 10},
                {**credential, "key_id": "x" * 64}, {**credential, "key_id": "\x00" * 64},
                {**credential, "value": "A" * 100_000}):
        response = post(client, "tok", {"report": report, "credential": bad})
        assert response.status_code == 400 and any(k.startswith("credential") for k in response.json()), bad
        assert stored_state() == before
    swapped = {**credential, "signature": foreign["signature"]}
    assert_rejected(post(client, "tok", {"report": report, "credential": swapped}), before,
                    field="credential.signature")
    assert_rejected(post(client, "tok", {"report": report, "credential": foreign}), before, field="credential.key_id")
    assert_rejected(post(client, "tok", {"report": {"input": 99}, "credential": credential}), before,
                    field="report.input")
    assert post(client, "tok", {"report": report, "credential": credential}).status_code == 201  # not spent above
    before = stored_state()
    assert_rejected(post(client, "tok", {"report": report, "credential": credential}), before, status=409)
    assert_rejected(post(client, "other", {"report": report, "credential": credential}), before,
                    field="credential.key_id")


@pytest.mark.django_db
def test_reports_of_another_mechanism_are_rejected(client):
    de, mrr, gauss = make("de"), make("mrr"), make("gauss3")
    for target, source in ((de, mrr), (mrr, de), (gauss, de), (de, gauss)):
        before = stored_state()
        response = post(client, target.slug, {"report": honest(source, n=1)[0]})
        assert response.status_code == 400 and any(k.startswith("report") for k in response.json())
        assert stored_state() == before


# -- the predict API -----------------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_hostile_predict_records(client, published):
    gauss = numeric_survey("gauss", 3)
    add_reports_numeric(gauss, 400)
    assert published_yesterday(gauss) is not None
    url = "/api/surveys/{}/predict/"
    ok = client.post(url.format("oue"), {"records": [{"smoker": "daily", "age": 30}]}, format="json")
    assert ok.status_code == 200
    before = stored_state()
    for records, field in [
        ([], "records"), ("x", "records"), ([1], "records"), ([{"smoker": "daily"}], "records[0].age"),
        ([{"smoker": "weekly", "age": 30}], "records[0].smoker"),
        ([{"smoker": "daily", "age": "30"}], "records[0].age"),
        ([{"smoker": "daily", "age": 10**400}], "records[0].age"),
        ([{"smoker": "daily", "age": True}], "records[0].age"),
        ([{"smoker": ["daily"], "age": 30}], "records[0].smoker"),
        ([{"smoker": "daily", "age": 30, "zip": 1}], "records[0].zip"),
        ([{"smoker": "daily", "age": 30}] * 10_001, "records"),
    ]:
        assert_rejected(client.post(url.format("oue"), {"records": records}, format="json"), before, field=field)
    # extreme but finite numbers are answered, never a 500 (clipped into the end bins, or a Gaussian density of 0)
    for value in (1e308, -1e308, 2**64):
        for slug, record in (("oue", {"smoker": "daily", "age": value}), ("gauss", {"age": value, "weight": 70})):
            response = client.post(url.format(slug), {"records": [record]}, format="json")
            assert response.status_code == 200, (slug, value, response.content[:200])
    assert_rejected(client.post(url.format("oue"), '{"records": [{"smoker": "daily", "age": NaN}]}',
                                content_type="application/json"), before)
    assert_rejected(client.post(url.format("oue"), "records=1", content_type="application/x-www-form-urlencoded"),
                    before, status=415)
    huge = json.dumps({"records": [{"smoker": "daily", "age": 30}] * 200_000})
    assert len(huge) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    assert_rejected(client.post(url.format("oue"), huge, content_type="application/json"), before, status=413)


def add_reports_numeric(survey, n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = np.column_stack([rng.normal(40 + 20 * y, 10).clip(18, 98), rng.normal(70 + 20 * y, 10).clip(40, 140)])
    reports = get_protocol(survey).encode(X, y, rng)
    inbox = report_models()[0]  # where a POST stores them: the inbox (issue 11) where it exists, else Report
    inbox.objects.bulk_create([inbox(survey=survey, payload=r) for r in reports])
