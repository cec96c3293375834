"""A report states the protocol it was randomized under: the server's version (``SurveyProtocol.version``) is the
page's (static/js/memo.mjs ``protocolVersion``, run by node on the bytes the protocol API serves), and a report
stating another is refused with 409 ``stale_protocol`` and nothing stored — by the one-statement path and the full
one alike."""
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from rest_framework.test import APIClient

from survey_app.models import Choice, PendingReport, Question, Report, Survey
from survey_app.protocol import get_protocol
from survey_app.reports import MESSAGES, Result, Submission, submit_report
from tests.factories import make_survey, make_types_survey

pytestmark = pytest.mark.django_db

TOOL = Path(__file__).resolve().parent.parent / "js" / "protocol_version_tool.mjs"


def browser_versions(bodies: list[bytes]) -> list[str]:
    text = json.dumps([b.decode("utf-8") for b in bodies])
    done = subprocess.run(["node", str(TOOL)], input=text, capture_output=True, text=True, check=True, timeout=60)
    return json.loads(done.stdout)


def surveys() -> list[Survey]:
    """One survey of each protocol, with the awkward values: thirds as declared shares, real personal questions,
    MRR groups, adaptive allocation with a served assignment, Gaussian, mixed, labels with quotes and accents."""
    out = [make_survey(slug="oue"), make_survey(slug="de", encoding="de"), make_survey(slug="olh", encoding="olh")]
    adaptive = make_survey(slug="adaptive", allocation="adaptive", pilot_assignment=[0.2, 0.3, 0.5])
    out.append(adaptive)
    mrr = make_survey(slug="mrr", mode="mrr", validation_share=0.0)
    smoker = mrr.questions.get(name="smoker")
    for choice in smoker.choices.all():
        choice.personal_probability = 1 / 3
        choice.label = f"{choice.label} “é” \"q\""
        choice.save()
    Question.objects.filter(survey=mrr, name="age").update(group=1)
    Question.objects.filter(survey=mrr, name="sick").update(personal_mode="real", personal_text="Born in June?")
    Survey.objects.filter(pk=mrr.pk).update(theta=0.35)
    out.append(Survey.objects.get(pk=mrr.pk))
    out.append(make_survey(slug="mixed", numeric_handling="gaussian", gaussian_approach=3))
    gauss = make_survey(slug="gauss", numeric_handling="gaussian", gaussian_approach=2, validation_share=0.0)
    gauss.questions.filter(name="smoker").delete()
    out.append(gauss)
    out.append(make_types_survey(numeric_handling="gaussian", gaussian_approach=3))
    Question.objects.create(survey=out[-1], name="age", text="Age", kind="numeric", low=0.5, high=1e-7 + 120,
                            position=5)
    return [Survey.objects.get(pk=s.pk) for s in out]


def test_the_server_computes_the_version_the_page_computes():
    client = APIClient()
    built = surveys()
    bodies = []
    for survey in built:
        response = client.get(f"/api/surveys/{survey.slug}/protocol/")
        assert response.status_code == 200, (survey.slug, response.content[:300])
        bodies.append(response.content)
    assert "assignment" in json.loads(bodies[3])["protocol"]["ldp"]  # the day's assignment is served, not hashed
    versions = [get_protocol(s).version for s in built]
    assert len(set(versions)) == len(versions)
    assert browser_versions(bodies) == versions


def _report(survey, seed=0):
    return get_protocol(survey).encode(np.array([[1, 40.0]]), np.array([1]), np.random.default_rng(seed))[0]


def test_a_report_randomized_under_other_settings_is_refused_and_nothing_stored():
    """The auditor's case: a DE report randomized at ε = 3, the survey then at ε = 0.5 (written behind the forms'
    back, as before settings froze at opening)."""
    survey = make_survey(encoding="de")
    Survey.objects.filter(pk=survey.pk).update(epsilon=3.0)
    survey.refresh_from_db()
    old_version, old_report = get_protocol(survey).version, _report(survey)
    Survey.objects.filter(pk=survey.pk).update(epsilon=0.5)
    survey.refresh_from_db()
    current = get_protocol(survey).version
    assert current != old_version
    client = APIClient()
    url = f"/api/surveys/{survey.slug}/reports/"

    def post(body):
        return client.post(url, json.dumps(body), content_type="application/json")

    refused = post({"report": old_report, "protocol_version": old_version})
    assert refused.status_code == 409
    assert refused.json() == {"detail": str(MESSAGES[Result.STALE_PROTOCOL]), "code": "stale_protocol"}
    assert PendingReport.objects.count() == Report.objects.count() == 0
    # the same report stating the current version fits the protocol's shape: stored (the page states the truth)
    fresh = _report(survey, seed=1)
    assert post({"report": fresh, "protocol_version": current}).status_code == 201
    # the survey is now cached for the one-statement path: it refuses too, and the full path answers 409
    again = post({"report": old_report, "protocol_version": old_version})
    assert again.status_code == 409 and again.json()["code"] == "stale_protocol"
    assert [r.payload for r in PendingReport.objects.all()] == [fresh]


def test_the_service_checks_the_version_before_the_report():
    survey = make_survey()
    outcome = submit_report(survey.slug, Submission({"input": 99}, protocol_version="0" * 64))
    assert outcome.result is Result.STALE_PROTOCOL and not outcome.stored
    bad = submit_report(survey.slug, Submission(_report(survey), protocol_version=7))
    assert (bad.result, bad.field) == (Result.INVALID, "protocol_version")
    assert PendingReport.objects.count() == 0


def test_a_token_survey_report_with_a_stale_version_spends_no_credential():
    from survey_app.models import SpentCredential
    from tests.factories import redeem_credential

    survey = make_survey(access="tokens")
    credential = redeem_credential(survey)
    body = {"report": _report(survey), "protocol_version": "f" * 64, "credential": credential}
    response = APIClient().post(f"/api/surveys/{survey.slug}/reports/", json.dumps(body),
                                content_type="application/json")
    assert response.status_code == 409 and response.json()["code"] == "stale_protocol"
    assert PendingReport.objects.count() == SpentCredential.objects.count() == 0
    body["protocol_version"] = get_protocol(survey).version
    response = APIClient().post(f"/api/surveys/{survey.slug}/reports/", json.dumps(body),
                                content_type="application/json")
    assert response.status_code == 201 and SpentCredential.objects.count() == 1


def test_a_choice_label_change_is_a_new_version():
    survey = make_survey(status="draft")
    before = get_protocol(survey).version
    choice = Choice.objects.filter(question__survey=survey).first()
    choice.label = "rarely"
    choice.save()
    survey.refresh_from_db()
    assert get_protocol(survey).version != before


def test_stating_the_version_costs_no_query():
    """The version is the protocol's, computed once per protocol object: a report stating it takes the queries of
    one that states none."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    survey = make_survey()
    version = get_protocol(survey).version
    assert submit_report(survey.slug, Submission(_report(survey))).stored  # the survey and protocol now cached
    counts = []
    for seed, stated in ((1, None), (2, version)):
        with CaptureQueriesContext(connection) as queries:
            assert submit_report(survey.slug, Submission(_report(survey, seed=seed), protocol_version=stated)).stored
        counts.append(len(queries))
    assert counts[0] == counts[1]
    assert PendingReport.objects.count() == 3


def test_a_resend_of_a_stored_report_is_answered_as_stored_even_after_a_protocol_change():
    """A report stored under the old protocol, its answer lost, resent with its nonce: 201 and nothing added (the
    page must not prepare another); a new report under the old protocol: 409."""
    import base64
    import secrets

    def nonce():
        return base64.urlsafe_b64encode(secrets.token_bytes(16)).rstrip(b"=").decode()

    survey = make_survey(encoding="de")
    old = get_protocol(survey).version
    body = {"report": _report(survey), "protocol_version": old, "nonce": nonce()}
    client, url = APIClient(), f"/api/surveys/{survey.slug}/reports/"
    assert client.post(url, body, format="json").status_code == 201
    Survey.objects.filter(pk=survey.pk).update(epsilon=0.5)
    assert client.post(url, body, format="json").status_code == 201
    assert PendingReport.objects.count() == 1
    fresh = {**body, "report": _report(survey, seed=3), "nonce": nonce()}
    refused = client.post(url, fresh, format="json")
    assert refused.status_code == 409 and refused.json()["code"] == "stale_protocol"
    assert PendingReport.objects.count() == 1
