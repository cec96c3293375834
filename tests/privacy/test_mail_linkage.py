"""Invitations by email add no link between an address and a report (docs/threat-model.md, "Invitations by email").

A reader with full SQL access — PostgreSQL's system columns included — holds the address ↔ invitation table. The
invitation ↔ report path is covered by test_linkage.py and test_linkage_by_day.py (blind signatures; used tokens
dated by day and rewritten in random order). This test shows that the address table adds nothing to it: its rows are
written when the mails are queued and sent and never again by a redemption, a report or a drain (every column, and
``xmin``/``ctid``, unchanged), it holds no time finer than a day, and no value reachable from an address — its row,
its invitation's row — equals any value stored with a report or a spent credential. A reminder rewrites only the
rows of unused invitations, with a day."""
import random

import pytest
from django.db import connection

from aggregator import services
from survey_app import credentials, mailing
from survey_app import reports as ingestion
from survey_app.models import InvitationMail, InvitationToken, Report, SpentCredential
from survey_app.outcomes import Submission
from tests.factories import distinct_reports, make_survey
from tests.mail_support import body, smtp_server

from . import linkage

BASE = "https://survey.example.org"
ADDRESSES = [f"person{i}@example.org" for i in range(8)]
MAIL_COLUMNS = ("id, survey_id, invitation_id, address, language, queued_in_id, sent_on, reminded_on, reminders, "
                "failures")


def _mail_rows() -> dict[str, dict]:
    return {row["address"]: row for row in linkage.rows("survey_app_invitationmail", MAIL_COLUMNS)}


@pytest.mark.django_db(transaction=True)  # real transactions: their ids are what a reader sees in xmin
def test_the_address_table_ties_no_address_to_a_report(settings):
    settings.COINFLIP_MAIL_PAUSE = 0.0
    survey = make_survey(mode="mrr", access="tokens")
    with smtp_server(settings) as smtp:
        queued = mailing.queue_invitations(survey, ADDRESSES, language="en", base_url=BASE)
        mailing.send_batch(queued.batch.pk)
        links = {recipients[0]: body(message).split("#", 1)[1].split()[0] for recipients, message in smtp.messages}
    assert set(links) == set(ADDRESSES)
    before = _mail_rows()

    # Seven of the eight take part, in an order of their own, each redeeming the link of their mail.
    takers = random.Random(7).sample(ADDRESSES, 7)
    for address, report in zip(takers, distinct_reports(survey, 7, 5, batch=40), strict=True):
        blinded, pending = credentials.start_credential(credentials.public_credential(survey))
        redemption = credentials.redeem(survey.slug, links[address], blinded, pending.key_id)
        credential = credentials.finish_credential(pending, redemption.blind_signature)
        assert ingestion.submit_report(survey.slug, Submission(report, credential=credential)).stored
    assert services.fold_new_reports(survey) == 7  # the drain rewrites the used tokens (same ids, random order)

    # 1. Nothing the respondents did wrote the address table: every column and system column as before.
    assert _mail_rows() == before
    # 2. Its invitations survived the drain's rewrite; "used" is read from them.
    used = dict(InvitationMail.objects.values_list("address", "invitation__used"))
    assert used == {a: a in takers for a in ADDRESSES}

    # 3. No time finer than a day in the address table.
    with connection.cursor() as cursor:
        cursor.execute("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = %s",
                       ["survey_app_invitationmail"])
        types = dict(cursor.fetchall())
    assert not [c for c, t in types.items() if "time" in t or "interval" in t], types
    assert {f.name for f in InvitationMail._meta.concrete_fields} == {
        "id", "survey", "invitation", "address", "language", "queued_in", "sent_on", "reminded_on", "reminders",
        "failures"}, "a new column of the address table needs its own privacy argument (docs/threat-model.md)"

    # 4. No value reachable from an address equals a value stored with a report or a spent credential.
    reachable = set()
    for row in _mail_rows().values():
        token = InvitationToken.objects.filter(pk=row["invitation_id"]).values(
            "token", "redeemed_with", "batch").get()
        reachable |= {str(v) for v in (*row.values(), *token.values()) if v not in (None, "", 0)}
    stored = set()
    for table, columns in (("survey_app_report", "id, payload::text, nonce"),
                           ("survey_app_spentcredential", "digest")):
        for row in linkage.rows(table, columns, "WHERE survey_id = %s", [survey.pk]):
            stored |= {str(v) for k, v in row.items() if k not in ("xmin", "ctid") and v is not None}
    assert Report.objects.filter(survey=survey).count() == SpentCredential.objects.filter(survey=survey).count() == 7
    assert reachable.isdisjoint(stored)
    # The one date an address reaches through its invitation is the redemption's day: every report's day here.
    days = set(Report.objects.filter(survey=survey).values_list("received_on", flat=True))
    assert set(InvitationToken.objects.filter(survey=survey, used=True).values_list("redeemed_on", flat=True)) == days

    # 5. A reminder rewrites only the rows of unused invitations, with a day.
    with smtp_server(settings) as smtp:
        mailing.send_batch(mailing.queue_reminders(survey, BASE).pk)
        assert [r for r, _m in smtp.messages] == [[a] for a in ADDRESSES if a not in takers]
    after = _mail_rows()
    changed = {a for a in ADDRESSES if after[a] != before[a]}
    assert changed == set(ADDRESSES) - set(takers)
