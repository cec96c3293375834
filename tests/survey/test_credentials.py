"""Unlinkable invitations (survey_app/credentials.py, issue 11): survey keys, the redemption service and its API.

Every outcome of ``redeem`` and of ``POST /api/surveys/<slug>/invitations/redeem/``; what a redemption writes (the
token's ``used`` flag, nothing else); the protocol's published key; rotation. Reports with credentials:
tests/survey/test_reports.py; concurrency: tests/survey/test_token_race.py."""
import pytest
from rest_framework.test import APIClient

from aggregator.privacy import blind_rsa
from survey_app.credentials import (
    active_key,
    finish_credential,
    public_credential,
    redeem,
    rotate_key,
    start_credential,
)
from survey_app.models import InvitationToken, SpentCredential, Survey, SurveyKey
from survey_app.outcomes import MESSAGES, Outcome, Result
from survey_app.services import generate_tokens
from tests.factories import make_survey

pytestmark = pytest.mark.django_db


def test_a_token_survey_gets_one_active_key_on_first_use():
    survey = make_survey(access="tokens")
    assert not SurveyKey.objects.exists()
    key = active_key(survey)
    assert active_key(survey) == key and SurveyKey.objects.count() == 1
    public = blind_rsa.public_key_from_spki(key.public_spki)
    assert key.key_id == blind_rsa.key_id(public) and public.key_size == blind_rsa.DEFAULT_KEY_SIZE
    private = blind_rsa.private_key_from_pem(key.private_pem)
    assert private.public_key().public_numbers() == public.public_numbers()
    assert public_credential(survey) == {"variant": "RSABSSA-SHA384-PSS-Randomized", "key_id": key.key_id,
                                         "spki": key.public_spki}
    assert public_credential(make_survey(slug="open")) is None


def test_rotation_keeps_one_active_key_and_the_old_ones():
    survey = make_survey(access="tokens")
    first = active_key(survey)
    second = rotate_key(survey)
    assert second.key_id != first.key_id and active_key(survey) == second
    assert list(SurveyKey.objects.filter(survey=survey, active=True)) == [second]
    assert SurveyKey.objects.filter(survey=survey).count() == 2


def test_redeem_signs_blind_and_writes_only_the_token_flag():
    survey = make_survey(access="tokens")
    token = generate_tokens(survey, 1)[0].token
    blinded, pending = start_credential(public_credential(survey))
    redemption = redeem(survey.slug, token, blinded, pending.key_id)
    assert redemption.outcome == Outcome.of(Result.SIGNED) and redemption.key_id == pending.key_id
    credential = finish_credential(pending, redemption.blind_signature)  # raises unless the signature verifies
    public = blind_rsa.public_key_from_spki(pending.spki)
    assert blind_rsa.verify(public, blind_rsa.b64url_decode(credential["value"]),
                            blind_rsa.b64url_decode(credential["signature"]))
    assert InvitationToken.objects.get(token=token).used and not SpentCredential.objects.exists()
    # A browser whose answer was lost retries with the same blinded message: signed again, the same signature, so no
    # second credential; any other blinded message is refused (the token is spent).
    again = redeem(survey.slug, token, blinded, pending.key_id)
    assert again.outcome == Outcome.of(Result.SIGNED) and again.blind_signature == redemption.blind_signature
    other, other_pending = start_credential(public_credential(survey))
    refused = redeem(survey.slug, token, other, other_pending.key_id)
    assert refused.outcome == Outcome.of(Result.TOKEN_USED) and refused.blind_signature is None


def test_redeem_refusals_leave_the_token_unused():
    survey = make_survey(access="tokens")
    token = generate_tokens(survey, 1)[0].token
    blinded, pending = start_credential(public_credential(survey))
    n = blind_rsa.public_key_from_spki(pending.spki).public_numbers().n
    k = (n.bit_length() + 7) // 8
    malformed = ["", "not base64!", blind_rsa.b64url_encode(b"\x01" * (k - 1)),  # not the key's size
                 blind_rsa.b64url_encode(n.to_bytes(k, "big")),  # not below the modulus
                 blinded + "A"]
    for message in malformed:
        outcome = redeem(survey.slug, token, message).outcome
        assert (outcome.result, outcome.field) == (Result.INVALID, "blinded_msg"), message
    stale = redeem(survey.slug, token, blinded, "0" * 64).outcome
    assert (stale.result, stale.field) == (Result.INVALID, "key_id") and "reload" in stale.message
    assert redeem(survey.slug, "made-up", blinded).outcome == Outcome.of(Result.TOKEN_UNKNOWN)
    other = make_survey(slug="other", access="tokens")
    foreign = generate_tokens(other, 1)[0].token
    assert redeem(survey.slug, foreign, blinded).outcome.result is Result.TOKEN_UNKNOWN
    assert redeem("nope", token, blinded).outcome.result is Result.NOT_FOUND
    assert redeem(make_survey(slug="link").slug, token, blinded).outcome == Outcome.of(Result.NO_INVITATIONS)
    assert not InvitationToken.objects.filter(used=True).exists()
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    assert redeem(survey.slug, token, blinded).outcome.result is Result.CLOSED
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.DRAFT)
    assert redeem(survey.slug, token, blinded).outcome.result is Result.NOT_FOUND
    assert not InvitationToken.objects.filter(used=True).exists()


def test_a_retired_key_is_refused_for_redemption_but_verifies_reports():
    survey = make_survey(access="tokens")
    token = generate_tokens(survey, 1)[0].token
    blinded, pending = start_credential(public_credential(survey))
    rotate_key(survey)
    outcome = redeem(survey.slug, token, blinded, pending.key_id).outcome
    assert (outcome.result, outcome.field) == (Result.INVALID, "key_id")
    assert not InvitationToken.objects.get(token=token).used


def test_a_rotation_between_a_redemption_and_its_retry_does_not_strand_the_respondent():
    """The answer to a redemption was lost, then the key rotated: the retry (same blinded message, the retired key's
    id) is signed again by the retired key — the same signature, no second credential — and the report it makes is
    accepted. Another blinded message for the retired key is still refused, and the token stays spent."""
    from survey_app.outcomes import Submission
    from survey_app.reports import submit_report
    from tests.factories import simulated_reports

    survey = make_survey(access="tokens")
    token = generate_tokens(survey, 1)[0].token
    blinded, pending = start_credential(public_credential(survey))
    first = redeem(survey.slug, token, blinded, pending.key_id)  # its answer never reaches the browser
    assert first.outcome.result is Result.SIGNED
    rotate_key(survey)
    retry = redeem(survey.slug, token, blinded, pending.key_id)
    assert (retry.outcome.result, retry.blind_signature, retry.key_id) == (Result.SIGNED, first.blind_signature,
                                                                           pending.key_id)
    credential = finish_credential(pending, retry.blind_signature)
    assert submit_report(survey.slug, Submission(simulated_reports(survey, 1)[0], credential=credential)).stored
    other, _ = start_credential({**public_credential(survey), "spki": pending.spki, "key_id": pending.key_id})
    refused = redeem(survey.slug, token, other, pending.key_id).outcome
    assert (refused.result, refused.field) == (Result.INVALID, "key_id")
    unused = generate_tokens(survey, 1)[0].token  # a fresh token cannot be spent on a retired key either
    assert redeem(survey.slug, unused, other, pending.key_id).outcome.result is Result.INVALID
    assert not InvitationToken.objects.get(token=unused).used


def test_the_redeem_api_answers_every_outcome():
    client = APIClient()
    survey = make_survey(access="tokens")
    token = generate_tokens(survey, 1)[0].token
    protocol = client.get(f"/api/surveys/{survey.slug}/protocol/").json()
    assert protocol["credential"] == public_credential(survey)
    assert "credential" not in client.get(f"/api/surveys/{make_survey(slug='link').slug}/protocol/").json()
    blinded, pending = start_credential(protocol["credential"])
    url = f"/api/surveys/{survey.slug}/invitations/redeem/"

    def post(body, slug=survey.slug):
        response = client.post(f"/api/surveys/{slug}/invitations/redeem/", body, format="json")
        return response.status_code, response.json()

    assert post({"token": token}) == (400, {"blinded_msg": ["This field is required."]})
    assert post({"token": token, "blinded_msg": blinded, "report": {}})[0] == 400  # unexpected field
    assert post({"token": token, "blinded_msg": "AAAA"})[0] == 400
    assert list(post({"token": token, "blinded_msg": "AAAA"})[1]) == ["blinded_msg"]
    assert post({"token": "made-up", "blinded_msg": blinded}) == (403, {"detail": MESSAGES[Result.TOKEN_UNKNOWN]})
    assert post({"token": token, "blinded_msg": blinded}, slug="nope")[0] == 404
    assert post({"token": token, "blinded_msg": blinded}, slug="link") == (404, {
        "detail": MESSAGES[Result.NO_INVITATIONS]})
    assert client.post(url, "token=x", content_type="application/x-www-form-urlencoded").status_code == 415
    assert not InvitationToken.objects.get(token=token).used
    status, answer = post({"token": token, "blinded_msg": blinded, "key_id": pending.key_id})
    assert status == 200 and set(answer) == {"blind_signature", "key_id"}
    finish_credential(pending, answer["blind_signature"])
    assert post({"token": token, "blinded_msg": blinded}) == (200, answer)  # a retry: the same signature
    other, _ = start_credential(protocol["credential"])
    assert post({"token": token, "blinded_msg": other}) == (409, {"detail": MESSAGES[Result.TOKEN_USED]})
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    assert post({"token": token, "blinded_msg": blinded})[0] == 410
