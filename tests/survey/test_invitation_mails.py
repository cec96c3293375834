"""Invitations by email (survey_app/mailing.py): one link per address through a real SMTP server (aiosmtpd), in the
chosen language; reminders only to unused invitations; forgetting the addresses (after which no reminder can be
sent); refused lists store nothing; the admin page and the management command."""
import re

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.urls import reverse

from survey_app import credentials, mailing
from survey_app.models import InvitationMail, InvitationToken, MailBatch
from tests.factories import make_survey
from tests.mail_support import body, smtp_server

pytestmark = pytest.mark.django_db

BASE = "https://survey.example.org"
LINK = re.compile(r"https://survey\.example\.org/s/health/i/#([A-Za-z0-9_-]+)")


@pytest.fixture
def smtp(settings):
    settings.COINFLIP_MAIL_CHUNK, settings.COINFLIP_MAIL_PAUSE = 2, 0.0
    with smtp_server(settings) as recorder:
        yield recorder


@pytest.fixture
def survey():
    return make_survey(mode="mrr", access="tokens")


def _links(recorder) -> dict[str, str]:
    """address → the token of the link its mail carries (each mail to one address, with one link)."""
    out = {}
    for recipients, message in recorder.messages:
        assert len(recipients) == 1 and message["To"] == recipients[0]
        tokens = LINK.findall(body(message))
        assert len(tokens) == 1, body(message)
        out[recipients[0]] = tokens[0]
    return out


def test_each_address_gets_its_own_one_use_link_through_smtp(smtp, survey):
    queued = mailing.queue_invitations(survey, ["a@example.org", "b@example.org", "c@example.org"],
                                       language="en", base_url=BASE)
    batch = mailing.send_batch(queued.batch.pk)
    assert (batch.total, batch.sent, batch.failed, batch.done) == (3, 3, 0, True)
    links = _links(smtp)
    assert set(links) == {"a@example.org", "b@example.org", "c@example.org"}
    assert len(set(links.values())) == 3
    for address, token in links.items():
        row = InvitationMail.objects.get(address=address)
        assert row.invitation.token == token and not row.invitation.used and row.sent_on is not None
    assert smtp.connections == 2  # chunks of 2: one SMTP connection each
    subject = smtp.messages[0][1]["Subject"]
    assert subject == "Invitation: Health"


def test_the_mail_is_in_the_chosen_language(smtp, survey):
    survey.translations = {"de": {"title": "Gesundheit"}}
    survey.save()
    queued = mailing.queue_invitations(survey, ["a@example.org"], language="de", base_url=BASE)
    mailing.send_batch(queued.batch.pk)
    (_recipients, message), = smtp.messages
    assert message["Subject"] == "Einladung: Gesundheit"
    assert "Sie sind zur Umfrage „Gesundheit“ eingeladen" in body(message)


def test_the_mailed_link_opens_the_invited_page_and_redeems_once(smtp, survey, client):
    queued = mailing.queue_invitations(survey, ["a@example.org"], language="en", base_url=BASE)
    mailing.send_batch(queued.batch.pk)
    token = _links(smtp)["a@example.org"]
    assert client.get("/s/health/i/").status_code == 200
    blinded, pending = credentials.start_credential(credentials.public_credential(survey))
    assert credentials.redeem("health", token, blinded, pending.key_id).blind_signature
    again, _pending = credentials.start_credential(credentials.public_credential(survey))
    assert credentials.redeem("health", token, again, pending.key_id).blind_signature is None


def test_an_address_already_invited_gets_no_second_invitation(smtp, survey):
    mailing.send_batch(mailing.queue_invitations(survey, ["a@example.org"], language="en", base_url=BASE).batch.pk)
    queued = mailing.queue_invitations(survey, ["A@example.org", "b@example.org"], language="en", base_url=BASE)
    assert queued.already == 1 and queued.batch.total == 1
    assert InvitationToken.objects.filter(survey=survey).count() == 2


def test_reminders_go_only_to_unused_invitations(smtp, survey):
    queued = mailing.queue_invitations(survey, ["a@example.org", "b@example.org", "c@example.org"],
                                       language="en", base_url=BASE)
    mailing.send_batch(queued.batch.pk)
    links = _links(smtp)
    assert credentials.consume_token(survey, links["b@example.org"]) is None  # b took part
    smtp.messages.clear()
    reminders = mailing.queue_reminders(survey, BASE)
    assert reminders.total == 2
    assert mailing.send_batch(reminders.pk).sent == 2
    reminded = _links(smtp)
    assert reminded == {"a@example.org": links["a@example.org"], "c@example.org": links["c@example.org"]}
    assert all(m["Subject"] == "Reminder: Health" for _r, m in smtp.messages)
    row = InvitationMail.objects.get(address="a@example.org")
    assert row.reminders == 1 and row.reminded_on is not None
    assert InvitationMail.objects.get(address="b@example.org").reminders == 0


def test_forgotten_addresses_cannot_be_reminded(smtp, survey):
    mailing.send_batch(mailing.queue_invitations(survey, ["a@example.org", "b@example.org"], language="en",
                                                 base_url=BASE).batch.pk)
    assert mailing.forget_addresses(survey) == 2
    assert not InvitationMail.objects.exists()
    assert InvitationToken.objects.filter(survey=survey, used=False).count() == 2  # the invitations stay valid
    assert mailing.queue_reminders(survey, BASE) is None
    with pytest.raises(CommandError, match="forgotten addresses cannot be reminded"):
        call_command("invite_by_email", "health", "--remind", "--base-url", BASE)


def test_forget_after_sending_keeps_no_address(smtp, survey):
    queued = mailing.queue_invitations(survey, ["a@example.org", "b@example.org", "c@example.org"],
                                       language="en", base_url=BASE, forget=True)
    batch = mailing.send_batch(queued.batch.pk)
    assert batch.sent == 3 and len(smtp.messages) == 3
    assert not InvitationMail.objects.exists()
    assert mailing.queue_reminders(survey, BASE) is None


def test_a_refused_recipient_is_counted_failed_and_the_others_are_sent(smtp, survey):
    smtp.refuse.add("b@example.org")
    queued = mailing.queue_invitations(survey, ["a@example.org", "b@example.org", "c@example.org"],
                                       language="en", base_url=BASE)
    batch = mailing.send_batch(queued.batch.pk)
    assert (batch.sent, batch.failed, batch.done) == (2, 1, True)
    assert set(_links(smtp)) == {"a@example.org", "c@example.org"}
    failed = InvitationMail.objects.get(address="b@example.org")
    assert failed.failures == 1 and failed.sent_on is None
    smtp.refuse.clear()
    smtp.messages.clear()
    again = mailing.queue_invitations(survey, ["b@example.org"], language="en", base_url=BASE)  # sent again
    assert mailing.send_batch(again.batch.pk).sent == 1 and set(_links(smtp)) == {"b@example.org"}


def test_an_unreachable_server_fails_the_mails_without_crashing(settings, survey):
    from tests.mail_support import free_port

    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.COINFLIP_MAIL_PAUSE = "127.0.0.1", free_port(), 0.0
    queued = mailing.queue_invitations(survey, ["a@example.org"], language="en", base_url=BASE)
    batch = mailing.send_batch(queued.batch.pk)
    assert (batch.sent, batch.failed, batch.done) == (0, 1, True)


@pytest.mark.parametrize("fields, message", [
    ({"access": "link"}, "open to anyone with its link"),
    ({"status": "closed"}, "is closed"),
])
def test_surveys_that_cannot_use_invitations_are_refused_and_nothing_is_stored(fields, message):
    survey = make_survey(mode="mrr", **{"access": "tokens", **fields})
    with pytest.raises(mailing.MailingError, match=message):
        mailing.queue_invitations(survey, ["a@example.org"], language="en", base_url=BASE)
    assert not InvitationMail.objects.exists() and not InvitationToken.objects.exists()


def test_addresses_are_parsed_and_bad_ones_named():
    found = mailing.parse_addresses("a@example.org, b@example.org\nnot-an-address; A@EXAMPLE.org <c@example.org>")
    assert found.valid == ["a@example.org", "b@example.org", "c@example.org"]
    assert found.invalid == ["not-an-address"]


def test_the_admin_page_invites_reminds_and_forgets(smtp, survey, client, settings,
                                                   django_capture_on_commit_callbacks):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    admin = User.objects.create_superuser("admin", "admin@example.org", "pw")
    client.force_login(admin)
    url = reverse("admin:survey_app_survey_invitations", args=[survey.pk])
    page = client.get(url)
    assert page.status_code == 200 and b"No address is kept" in page.content
    refused = client.post(url, {"do": "invite", "addresses": "a@example.org\nnonsense", "language": "en"})
    assert refused.status_code == 200 and b"Not email addresses: nonsense" in refused.content
    assert not InvitationMail.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"do": "invite", "addresses": "a@example.org\nb@example.org", "language": "de"})
    assert response.status_code == 302
    assert MailBatch.objects.get().sent == 2 and len(smtp.messages) == 2  # the task ran (eagerly, on commit)
    page = client.get(url)
    assert b"2 mailed invitations are still unused" in page.content
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url, {"do": "remind"})
    assert len(smtp.messages) == 4
    assert client.post(url, {"do": "forget"}, follow=True).content.count(b"Tick the box") == 1
    assert InvitationMail.objects.count() == 2
    page = client.post(url, {"do": "forget", "confirm": "on"}, follow=True)
    assert b"no reminder can be sent any more" in page.content and not InvitationMail.objects.exists()


def test_the_command_sends_now(smtp, survey, tmp_path):
    addresses = tmp_path / "addresses.txt"
    addresses.write_text("a@example.org\nb@example.org\n")
    call_command("invite_by_email", "health", "--addresses", str(addresses), "--base-url", BASE, "--now")
    assert set(_links(smtp)) == {"a@example.org", "b@example.org"}
    call_command("invite_by_email", "health", "--forget")
    assert not InvitationMail.objects.exists()
