"""The report API: every success stores exactly one report; every error path stores nothing (embedded SQLite)."""
import pytest
from rest_framework.test import APIClient

from survey_app.credentials import finish_credential, start_credential
from survey_app.models import InvitationToken, PendingReport, Report, SpentCredential
from survey_app.protocol import get_protocol
from survey_app.services import generate_tokens
from tests.factories import make_survey, redeem_credential, simulated_reports

pytestmark = pytest.mark.django_db


@pytest.fixture
def client():
    return APIClient()


def post(client, survey, body):
    return client.post(f"/api/surveys/{survey.slug}/reports/", body, format="json")


@pytest.mark.parametrize("mode, encoding", [("ldp", "de"), ("ldp", "oue"), ("ldp", "sue"), ("ldp", "olh"),
                                            ("ldp", "she"), ("ldp", "the"), ("ldp", "adaptive"), ("mrr", "oue")])
def test_valid_reports_are_stored(client, mode, encoding):
    survey = make_survey(mode=mode, encoding=encoding)
    for report in simulated_reports(survey):
        assert post(client, survey, {"report": report}).status_code == 201
    assert PendingReport.objects.filter(survey=survey).count() == 5  # in the inbox until the next fold
    stored = [r.payload for r in PendingReport.objects.filter(survey=survey)]
    stats = get_protocol(survey).fold(stored)
    assert stats is not None


def test_protocol_endpoint_has_questions_and_no_secrets(client):
    survey = make_survey()
    body = client.get(f"/api/surveys/{survey.slug}/protocol/").json()
    assert [q["name"] for q in body["questions"]] == ["smoker", "age", "sick"]
    assert body["protocol"]["mode"] == "ldp"
    assert body["privacy"]["epsilon_per_respondent"] == 1.0
    assert "reports" not in str(body["survey"])


def test_protocol_body_follows_every_change_of_its_survey_and_the_page_language(client):
    """The protocol GET keeps its texts, questions and privacy figures per survey version and language
    (``survey_app.api._static_body``): a saved question, choice or survey setting, and the page's language, show at
    once."""
    survey = make_survey()
    url = f"/api/surveys/{survey.slug}/protocol/"

    def body(language="en"):
        return client.get(url, HTTP_ACCEPT_LANGUAGE=language).json()

    first = body()
    assert first == body()  # served again from the cache: the same body
    question = survey.questions.get(name="smoker")
    question.text = "Do you smoke now?"
    question.translations = {"de": {"text": "Rauchen Sie jetzt?"}}
    question.save()
    assert body()["questions"][0]["text"] == "Do you smoke now?"
    assert body("de-DE")["questions"][0]["text"] == "Rauchen Sie jetzt?"
    choice = question.choices.get(label="daily")
    choice.translations = {"de": "täglich"}
    choice.save()
    assert "täglich" in body("de")["questions"][0]["labels"]
    survey.refresh_from_db()
    survey.epsilon = 2.0
    survey.save(update_fields=["epsilon"])
    assert body()["privacy"]["epsilon_per_respondent"] == 2.0 and first["privacy"]["epsilon_per_respondent"] == 1.0


def test_warm_protocols_builds_the_open_surveys_before_any_request():
    """A starting worker (docker/gunicorn.conf.py ``post_worker_init``) builds every open survey's protocol and the
    GET's fixed parts in each site language; drafts are skipped; a zero budget warms nothing."""
    from survey_app import api
    from survey_app import protocol as bridge

    survey, draft = make_survey(), make_survey(slug="draft", status="draft")
    api._STATIC_BODIES.clear()
    bridge._BY_VERSION.clear()
    assert api.warm_protocols(budget=0) == 0 and not api._STATIC_BODIES
    assert api.warm_protocols(budget=60) == 1
    version = bridge.survey_version(survey)
    assert {key for key in api._STATIC_BODIES} == {(version, "en"), (version, "de")}
    assert version in bridge._BY_VERSION and bridge.survey_version(draft) not in bridge._BY_VERSION


@pytest.mark.parametrize(
    "report, field",
    [
        ({}, "report.input"),
        ({"input": 7, "report": 1}, "report.input"),
        ({"input": "1", "report": 1}, "report.input"),
        ({"input": 0}, "report.report"),
        ({"input": 0, "report": "!!notbase64"}, "report.report"),
        ({"input": 0, "report": "AAAA"}, "report.report"),  # 3 bytes where 1 is expected
        ({"input": 0, "report": "/w=="}, "report.report"),  # padding bits beyond d = 2 set
        ({"input": 1, "report": [1, 2]}, "report.report"),
    ],
)
def test_malformed_reports_are_rejected_naming_the_field(client, report, field):
    survey = make_survey(encoding="oue")
    response = post(client, survey, {"report": report})
    assert response.status_code == 400
    assert field in response.json()
    assert PendingReport.objects.count() == Report.objects.count() == 0


def test_body_without_report_is_rejected(client):
    survey = make_survey()
    response = post(client, survey, {"answers": [1, 2]})
    assert response.status_code == 400 and "report" in response.json()
    assert PendingReport.objects.count() == Report.objects.count() == 0


def test_mrr_out_of_domain_answer_is_rejected(client):
    survey = make_survey(mode="mrr")
    response = post(client, survey, {"report": {"answers": [3, 0, 0]}})
    assert response.status_code == 400 and "report.answers" in response.json()
    assert PendingReport.objects.count() == Report.objects.count() == 0


def test_unknown_draft_and_closed_surveys(client):
    draft = make_survey(slug="draft", status="draft")
    closed = make_survey(slug="closed", status="closed")
    report = simulated_reports(draft, n=1)[0]
    assert client.post("/api/surveys/nope/reports/", {"report": report}, format="json").status_code == 404
    assert post(client, draft, {"report": report}).status_code == 404
    assert post(client, closed, {"report": report}).status_code == 410
    assert client.get("/api/surveys/closed/protocol/").status_code == 410
    assert PendingReport.objects.count() == Report.objects.count() == 0


def test_tokens_one_use_and_unlinked(client):
    """The token flow over HTTP (issue 11): redeem (token + blinded message) → blind signature; the report carries
    the credential, never the token; each token redeems once, each credential adds one report."""
    survey = make_survey(access="tokens")
    token = generate_tokens(survey, 1)[0].token
    report = simulated_reports(survey, n=1)[0]
    assert post(client, survey, {"report": report}).status_code == 403  # no credential
    assert post(client, survey, {"report": report, "token": token}).status_code == 400  # never the token
    protocol = client.get(f"/api/surveys/{survey.slug}/protocol/").json()
    url = f"/api/surveys/{survey.slug}/invitations/redeem/"
    blinded, pending = start_credential(protocol["credential"])
    assert client.post(url, {"token": "made-up", "blinded_msg": blinded}, format="json").status_code == 403
    answer = client.post(url, {"token": token, "blinded_msg": blinded, "key_id": pending.key_id}, format="json")
    assert answer.status_code == 200 and answer.json()["key_id"] == pending.key_id
    retry = client.post(url, {"token": token, "blinded_msg": blinded}, format="json")  # the same message: re-signed
    assert retry.status_code == 200 and retry.json()["blind_signature"] == answer.json()["blind_signature"]
    other, _ = start_credential(protocol["credential"])
    assert client.post(url, {"token": token, "blinded_msg": other}, format="json").status_code == 409
    credential = finish_credential(pending, answer.json()["blind_signature"])
    assert post(client, survey, {"report": report, "credential": credential}).status_code == 201
    assert post(client, survey, {"report": report, "credential": credential}).status_code == 409
    assert survey.report_total() == 1
    assert InvitationToken.objects.get(token=token).used
    stored = PendingReport.objects.get()
    assert token not in str(stored.payload) and credential["value"] not in str(stored.payload)


def test_invalid_report_does_not_spend_the_credential(client):
    survey = make_survey(access="tokens")
    credential = redeem_credential(survey)
    assert post(client, survey, {"report": {"input": 99}, "credential": credential}).status_code == 400
    assert not SpentCredential.objects.exists()
    report = simulated_reports(survey, n=1)[0]
    assert post(client, survey, {"report": report, "credential": credential}).status_code == 201


def test_respondent_pages(client):
    survey = make_survey(access="tokens")
    token = generate_tokens(survey, 1)[0]
    assert client.get("/s/health/").status_code == 403
    # An invitation link holds its token in the fragment, never sent: the page is the same for every invitee.
    page = client.get("/s/health/i/")
    assert page.status_code == 200 and page["Referrer-Policy"] == "no-referrer"
    html = page.content.decode()
    assert token.token not in html and 'data-invited="true"' in html
    # A link of the earlier form is redirected to the fragment form (and never cached: the redirect holds the token).
    old = client.get(f"/s/health/t/{token.token}/")
    assert old.status_code == 302 and old["Location"] == f"/s/health/i/#{token.token}"
    assert old["Referrer-Policy"] == "no-referrer" and "no-store" in old["Cache-Control"]
    assert "<noscript>" in html and "survey.mjs" in html
    assert " name=" not in html.split('id="survey-app"')[1].split("</main>")[0]  # the form has no named inputs
    assert client.get("/s/health/t/wrong/").status_code == 404
    token.used = True
    token.save()
    assert client.get(f"/s/health/t/{token.token}/").status_code == 409
    assert client.get("/s/nope/").status_code == 404
    survey.status = "closed"
    survey.save()
    assert client.get(f"/s/health/t/{token.token}/").status_code == 410
