"""The Oblivious HTTP gateway (survey_app/ohttp.py, issue 27 item 8): a survey with a relay publishes the gateway's
key; a redemption and a report encapsulated to it are answered by the same views as direct ones, inside the
encapsulation; everything else — another path, method or host, a wrong or tampered encapsulation — is a 4xx with
nothing stored. Through a real relay (tests/ohttp_relay.py) on the live server the gateway sees only the relay's
address. The browser's side: tests/browser/test_ohttp_relay.py."""
import base64
import hashlib
import http.client
import io
import json
from urllib.parse import urlsplit

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.signals import request_started

from aggregator.privacy import ohttp as o
from survey_app import respondent_views
from survey_app.credentials import finish_credential, public_credential, start_credential
from survey_app.models import GatewayKey, InvitationToken, SpentCredential, validate_relay_url
from survey_app.ohttp import _environ, active_gateway_key, gateway_keys, rotate_gateway_key
from survey_app.services import generate_tokens
from tests.factories import make_survey, simulated_reports
from tests.ohttp_relay import Relay

RELAY = "https://relay.example.net/coinflip/"


def key_config(client, slug: str) -> o.KeyConfig:
    published = client.get(f"/api/surveys/{slug}/protocol/").json()["ohttp"]
    assert published["relay"] == RELAY
    return parse(published["key_config"])


def parse(text: str) -> o.KeyConfig:
    """The key configuration of the protocol's ``ohttp.key_config`` (unpadded base64url)."""
    return o.parse_key_config(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))


def encapsulated(config: o.KeyConfig, path: str, body, *, method="POST", host="testserver", headers=()):
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = o.Request(method, "https", host, path, (("content-type", "application/json"), *headers), content)
    return o.encapsulate_request(config, o.encode_request(request))


def relayed(client, config: o.KeyConfig, path: str, body, **kwargs) -> o.Response:
    """POST ``body`` to ``path`` through the gateway (as a relay would pass it on): the decapsulated response."""
    data, context = encapsulated(config, path, body, **kwargs)
    outer = client.post("/ohttp/gateway/", data=data, content_type="message/ohttp-req")
    assert outer.status_code == 200 and outer["Content-Type"] == "message/ohttp-res"
    assert outer["Cache-Control"].startswith("no-store") or "no-store" in outer["Cache-Control"]
    return o.decode_response(context.decapsulate_response(outer.content))


@pytest.fixture
def relayed_survey(db):
    return make_survey(slug="relayed", ohttp_relay=RELAY)


@pytest.mark.django_db
def test_the_protocol_and_the_key_endpoint_publish_one_gateway_key(client, relayed_survey):
    config = key_config(client, "relayed")
    keys = client.get("/ohttp/keys/")
    assert keys.status_code == 200 and keys["Content-Type"] == "application/ohttp-keys"
    assert keys.content == o.key_configs([config])
    assert config.public_key == o.public_key(gateway_keys()[config.key_id])
    other = make_survey(slug="other", ohttp_relay="https://another-relay.example/")
    assert client.get(f"/api/surveys/{other.slug}/protocol/").json()["ohttp"]["key_config"] == \
        client.get("/api/surveys/relayed/protocol/").json()["ohttp"]["key_config"]  # one key for every survey
    assert "ohttp" not in client.get(f"/api/surveys/{make_survey(slug='direct').slug}/protocol/").json()
    assert GatewayKey.objects.count() == 1


@pytest.mark.django_db
def test_a_relayed_report_is_stored_and_answered_inside_the_encapsulation(client, relayed_survey):
    config = key_config(client, "relayed")
    report = simulated_reports(relayed_survey, 1)[0]
    answer = relayed(client, config, "/api/surveys/relayed/reports/", {"report": report})
    assert answer.status == 201 and json.loads(answer.content) == {"status": "stored"}
    assert dict(answer.headers)["content-type"] == "application/json"
    assert relayed_survey.report_total() == 1
    refused = relayed(client, config, "/api/surveys/relayed/reports/", {"report": {"nonsense": 1}})
    assert refused.status == 400 and relayed_survey.report_total() == 1  # the view's own 400, encapsulated


@pytest.mark.django_db
def test_a_relayed_redemption_and_report_of_a_token_survey(client):
    survey = make_survey(slug="invited", access="tokens", ohttp_relay=RELAY)
    config = key_config(client, "invited")
    token = generate_tokens(survey, 1)[0].token
    blinded, pending = start_credential(public_credential(survey))
    answer = relayed(client, config, "/api/surveys/invited/invitations/redeem/",
                     {"token": token, "blinded_msg": blinded, "key_id": pending.key_id})
    assert answer.status == 200 and InvitationToken.objects.get(token=token).used
    credential = finish_credential(pending, json.loads(answer.content)["blind_signature"])
    report = simulated_reports(survey, 1)[0]
    stored = relayed(client, config, "/api/surveys/invited/reports/", {"report": report, "credential": credential})
    assert stored.status == 201 and survey.report_total() == 1 and SpentCredential.objects.count() == 1
    again = relayed(client, config, "/api/surveys/invited/invitations/redeem/",
                    {"token": token, "blinded_msg": start_credential(public_credential(survey))[0],
                     "key_id": pending.key_id})
    assert again.status == 409  # the used token: the view's answer, through the gateway


@pytest.mark.django_db
@pytest.mark.parametrize("path, method, host, status", [
    ("/api/surveys/relayed/protocol/", "GET", "testserver", 404),  # not a respondent's POST
    ("/api/surveys/relayed/protocol/", "POST", "testserver", 404),
    ("/admin/", "POST", "testserver", 404),
    ("/ohttp/gateway/", "POST", "testserver", 404),  # no gateway inside the gateway
    ("/s/relayed/", "POST", "testserver", 404),
    ("/api/surveys/relayed/reports/", "GET", "testserver", 405),
    ("/api/surveys/relayed/reports/", "POST", "evil.example", 400),  # a host this server is not
])
def test_only_the_report_and_redemption_views_are_reachable(client, relayed_survey, path, method, host, status):
    config = key_config(client, "relayed")
    report = simulated_reports(relayed_survey, 1)[0]
    assert relayed(client, config, path, {"report": report}, method=method, host=host).status == status
    assert relayed_survey.report_total() == 0


@pytest.mark.django_db
def test_an_expect_header_and_malformed_binary_http_are_refused_inside(client, relayed_survey):
    config = key_config(client, "relayed")
    report = {"report": simulated_reports(relayed_survey, 1)[0]}
    assert relayed(client, config, "/api/surveys/relayed/reports/", report,
                   headers=(("expect", "100-continue"),)).status == 400
    data, context = o.encapsulate_request(config, b"\x00\x04POST\x05https")  # cut after the scheme
    outer = client.post("/ohttp/gateway/", data=data, content_type="message/ohttp-req")
    assert o.decode_response(context.decapsulate_response(outer.content)).status == 400
    assert relayed_survey.report_total() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("change", ["media type", "key id", "tampered", "truncated", "header only", "get"])
def test_bad_encapsulations_are_plain_4xx_and_store_nothing(client, relayed_survey, change):
    config = key_config(client, "relayed")
    data, _ = encapsulated(config, "/api/surveys/relayed/reports/", {"report": simulated_reports(relayed_survey, 1)[0]})
    content_type = "message/ohttp-req"
    if change == "media type":
        content_type = "application/json"
    elif change == "key id":
        data = bytes([(data[0] + 1) % 256]) + data[1:]
    elif change == "tampered":
        data = data[:-1] + bytes([data[-1] ^ 1])
    elif change == "truncated":
        data = data[:-5]
    elif change == "header only":
        data = data[:7]
    if change == "get":
        response = client.get("/ohttp/gateway/")
        assert response.status_code == 405
    else:
        response = client.post("/ohttp/gateway/", data=data, content_type=content_type)
        assert response.status_code == {"media type": 415}.get(change, 400)
        assert response["Content-Type"] != "message/ohttp-res"
    if change == "key id":
        assert response["Content-Type"] == "application/problem+json"
        assert response.json()["type"] == "https://iana.org/assignments/http-problem-types#ohttp-key"
    assert relayed_survey.report_total() == 0


@pytest.mark.django_db
def test_a_rotation_keeps_pages_loaded_before_it_working(client, relayed_survey):
    old = key_config(client, "relayed")
    rotate_gateway_key()
    new = key_config(client, "relayed")
    assert new.key_id == (old.key_id + 1) % 256 and new.public_key != old.public_key
    report = simulated_reports(relayed_survey, 2)
    assert relayed(client, old, "/api/surveys/relayed/reports/", {"report": report[0]}).status == 201
    assert relayed(client, new, "/api/surveys/relayed/reports/", {"report": report[1]}).status == 201
    assert GatewayKey.objects.filter(active=True).get().key_id == new.key_id
    call_command("ohttp_key", stdout=(out := io.StringIO()))
    assert out.getvalue().splitlines() == [
        f"key {new.key_id}: {o.key_config(new).hex()}",
        f"fingerprint (SHA-256, as survey pages show it): {hashlib.sha256(o.key_config(new)).hexdigest()}"]


@pytest.mark.django_db
def test_key_identifiers_wrap_and_the_oldest_key_gives_its_identifier_up():
    first = active_gateway_key()
    for _ in range(256):
        last = rotate_gateway_key()
    assert last.key_id == first.key_id and GatewayKey.objects.count() == 256
    assert not GatewayKey.objects.filter(private_key=first.private_key).exists()


def test_the_relayed_request_carries_only_its_content_and_three_headers():
    message = o.Request("POST", "https", "survey.example", "/api/surveys/s/reports/",
                        (("content-type", "application/json"), ("accept", "application/json"),
                         ("accept-language", "de"), ("x-forwarded-for", "203.0.113.9"), ("cookie", "id=1"),
                         ("forwarded", "for=203.0.113.9"), ("user-agent", "Mozilla/5.0 (X11; Linux)")), b"{}")

    class Outer:
        META = {"REMOTE_ADDR": "192.0.2.1", "SERVER_NAME": "survey.example", "SERVER_PORT": "443",
                "HTTP_X_FORWARDED_FOR": "198.51.100.7", "HTTP_USER_AGENT": "relay"}

    environ = _environ(Outer, message, "", message.path, "")
    http_headers = {k for k in environ if k.startswith("HTTP_")}
    assert http_headers == {"HTTP_HOST", "HTTP_ACCEPT", "HTTP_ACCEPT_LANGUAGE"}
    assert environ["REMOTE_ADDR"] == "192.0.2.1" and environ["CONTENT_TYPE"] == "application/json"
    assert "203.0.113.9" not in repr(environ) and "198.51.100.7" not in repr(environ)


@pytest.mark.parametrize("url, ok", [
    ("https://relay.example/p", True), ("http://127.0.0.1:8080/r", True), ("http://localhost/r", True),
    ("http://relay.example/p", False), ("https://user:pw@relay.example/", False), ("https://relay.example/#x", False),
])
def test_a_relay_is_https_except_on_this_machine(url, ok):
    if ok:
        validate_relay_url(url)
    else:
        with pytest.raises(ValidationError):
            validate_relay_url(url)


@pytest.mark.django_db
def test_only_a_relayed_survey_page_may_connect_to_its_relay(client, relayed_survey):
    csp = client.get("/s/relayed/")["Content-Security-Policy"]
    connect = next(d for d in csp.split(";") if d.strip().startswith("connect-src")).split()
    assert connect == ["connect-src", "'self'", "https://relay.example.net"]
    make_survey(slug="direct")
    direct = client.get("/s/direct/")["Content-Security-Policy"]
    assert "relay.example.net" not in direct and "relay.example.net" not in client.get("/")["Content-Security-Policy"]


@pytest.mark.django_db(transaction=True)
def test_through_a_relay_the_gateway_never_sees_the_client_address(live_server):
    """The client connects from 127.0.0.3 to the relay, the relay from 127.0.0.2 to the live server: a report and a
    redemption are stored, and no request the server handled carried 127.0.0.3 anywhere in its WSGI environ."""
    port = urlsplit(live_server.url).port
    survey = make_survey(slug="invited", access="tokens")
    token = generate_tokens(survey, 1)[0].token
    environs = []

    def record(sender, environ, **kwargs):
        environs.append({k: v for k, v in environ.items() if isinstance(v, str)})

    request_started.connect(record)
    try:
        with Relay(f"http://127.0.0.1:{port}/ohttp/gateway/") as relay:
            survey.ohttp_relay = relay.url
            survey.save()
            protocol = json.loads(fetch(live_server.url + "/api/surveys/invited/protocol/")[2])
            config = parse(protocol["ohttp"]["key_config"])
            environs.clear()  # the protocol GET came straight from the client: from here on only the relay's
            blinded, pending = start_credential(protocol["credential"])
            answer = through(relay, config, port, "/api/surveys/invited/invitations/redeem/",
                             {"token": token, "blinded_msg": blinded, "key_id": pending.key_id})
            assert answer.status == 200
            credential = finish_credential(pending, json.loads(answer.content)["blind_signature"])
            report = simulated_reports(survey, 1)[0]
            stored = through(relay, config, port, "/api/surveys/invited/reports/",
                             {"report": report, "credential": credential})
            assert stored.status == 201
    finally:
        request_started.disconnect(record)
    assert survey.report_total() == 1 and InvitationToken.objects.get(token=token).used
    assert [seen["client"] for seen in relay.seen] == ["127.0.0.3", "127.0.0.3"]  # the relay saw the client
    assert len(environs) == 2 and all(e["REMOTE_ADDR"] == "127.0.0.2" and e["PATH_INFO"] == "/ohttp/gateway/"
                                      for e in environs)
    assert not any("127.0.0.3" in value for e in environs for value in e.values())


def fetch(url: str, method="GET", body=None, headers=None, source="127.0.0.3"):
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60, source_address=(source, 0))
    try:
        connection.request(method, parts.path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type"), response.read()
    finally:
        connection.close()


def through(relay: Relay, config: o.KeyConfig, port: int, path: str, body) -> o.Response:
    data, context = encapsulated(config, path, body, host=f"127.0.0.1:{port}")
    status, content_type, answer = fetch(relay.url, "POST", data, {"Content-Type": "message/ohttp-req"})
    assert status == 200 and content_type == "message/ohttp-res"
    return o.decode_response(context.decapsulate_response(answer))


@pytest.mark.django_db
def test_the_relayed_request_is_answered_in_its_own_language(client, relayed_survey):
    config = key_config(client, "relayed")
    relayed_survey.status = "closed"
    relayed_survey.save()
    report = {"report": simulated_reports(relayed_survey, 1)[0]}
    german = relayed(client, config, "/api/surveys/relayed/reports/", report, headers=(("accept-language", "de"),))
    english = relayed(client, config, "/api/surveys/relayed/reports/", report)
    assert german.status == english.status == 410
    assert json.loads(english.content)["detail"] == "This survey is closed and no longer accepts answers."
    assert json.loads(german.content)["detail"] == "Diese Umfrage ist geschlossen und nimmt keine Antworten mehr an."
    assert relayed_survey.report_total() == 0


@pytest.mark.django_db
def test_a_replayed_encapsulated_report_of_a_token_survey_is_refused(client):
    """A relay may resend an encrypted request it cannot read (RFC 9458 §6.5): the credential counts once."""
    survey = make_survey(slug="invited", access="tokens", ohttp_relay=RELAY)
    config = key_config(client, "invited")
    token = generate_tokens(survey, 1)[0].token
    blinded, pending = start_credential(public_credential(survey))
    data, context = encapsulated(config, "/api/surveys/invited/invitations/redeem/",
                                 {"token": token, "blinded_msg": blinded, "key_id": pending.key_id})
    answers = [o.decode_response(context.decapsulate_response(
        client.post("/ohttp/gateway/", data=data, content_type="message/ohttp-req").content)) for _ in range(2)]
    assert [a.status for a in answers] == [200, 200] and answers[0].content == answers[1].content  # one signature
    credential = finish_credential(pending, json.loads(answers[0].content)["blind_signature"])
    data, context = encapsulated(config, "/api/surveys/invited/reports/",
                                 {"report": simulated_reports(survey, 1)[0], "credential": credential})
    statuses = [o.decode_response(context.decapsulate_response(
        client.post("/ohttp/gateway/", data=data, content_type="message/ohttp-req").content)).status for _ in range(2)]
    assert statuses == [201, 409] and survey.report_total() == 1 and SpentCredential.objects.count() == 1


@pytest.mark.django_db
def test_the_management_api_sets_a_relay_and_refuses_a_plain_http_one(client):
    from tests.manage_support import COMMUTE, designer

    api = designer()
    refused = api.post("/api/manage/surveys/", {**COMMUTE, "ohttp_relay": "http://relay.example/r"}, format="json")
    assert refused.status_code == 400 and "ohttp_relay" in refused.json()
    created = api.post("/api/manage/surveys/", {**COMMUTE, "ohttp_relay": RELAY}, format="json")
    assert created.status_code == 201 and created.json()["ohttp_relay"] == RELAY


@pytest.mark.django_db
def test_a_view_error_behind_the_gateway_is_a_sealed_500_logged_as_a_view_error(client, relayed_survey, monkeypatch,
                                                                               caplog):
    config = key_config(client, "relayed")
    report = simulated_reports(relayed_survey, 1)[0]

    def broken(*args, **kwargs):
        raise RuntimeError("broken service")

    monkeypatch.setattr(respondent_views, "submit_report", broken)
    with caplog.at_level("ERROR", logger="django.request"):
        answer = relayed(client, config, "/api/surveys/relayed/reports/", {"report": report})
    assert answer.status == 500 and json.loads(answer.content) == {"detail": "Something went wrong on the server."}
    assert any(r.name == "django.request" and r.exc_info and "broken service" in str(r.exc_info[1])
               for r in caplog.records)
    assert relayed_survey.report_total() == 0
