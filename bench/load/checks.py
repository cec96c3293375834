"""Exactly-once checks after the load: every accepted report stored once, and folded once.

Per survey, with ``accepted`` the 201 answers the generator received and ``unanswered`` the requests that got no
HTTP answer (their outcome is unknown to the client):

* **stored** — the survey's report rows (``Report`` and the inbox ``PendingReport``) number ``seeded + accepted``
  exactly (with unanswered requests, somewhere in ``[seeded + accepted, seeded + accepted + unanswered]``, and the
  check says so): none lost, none doubled.
* **folded** — after the final fold (``manage.py retrain`` in a subprocess), the inbox is empty, the folded counts
  of the closed days and of the open ones (``SurveyStatistics.report_count + validation_count`` and
  ``open_report_count + open_validation_count``: the load's reports are today's, not closed before tomorrow) equal the
  stored rows, and the stored statistics with every open day closed — ``aggregator.services.close_days`` on the row
  in memory, at a date far ahead, never saved — equal a fold from scratch of every stored payload (``protocol.fold``
  / ``fold_validation`` in this process): nothing folded twice or skipped, even by the folds that raced the
  inserts. Counts must match exactly; floating-point
  sums (the Gaussian statistics: Approach 2 adds ±C with C not a binary fraction) may differ by the rounding of a
  different summation order, so floats agree to ``REL_TOL`` relative or ``ABS_TOL`` absolute — far below one
  report's contribution, which a lost or doubled report would add to its sums.
* **invitations** (token surveys) — the used invitation tokens number the 200 answers of the redemption (within
  its unanswered requests), and the spent credentials (``SpentCredential``) the reports stored during the load:
  each redemption spent one token, each credential added one report.

The floor peer stores into its own table; its check is the row count per slug against its 201s.
"""
from __future__ import annotations

import datetime
import math
from dataclasses import dataclass

import numpy as np
from django.db import connection

from aggregator.models import SurveyStatistics
from aggregator.privacy.jsonable import json_safe
from aggregator.services import close_days
from survey_app.models import InvitationToken, PendingReport, Report, SpentCredential, Survey
from survey_app.protocol import get_protocol

from .floor import TABLE as FLOOR_TABLE

REL_TOL, ABS_TOL = 1e-9, 1e-6
#: A date after every day of the run: ``close_days`` at this time closes every open day (``all_days_closed``).
FAR_AHEAD = datetime.datetime(9999, 1, 1, tzinfo=datetime.UTC)


@dataclass
class Check:
    slug: str
    seeded: int
    accepted: int
    unanswered: int
    stored: int
    folded: int | None = None
    statistics_equal: bool | None = None
    invitations: bool = False  #: a token survey: the fields below apply
    redeemed: int = 0  #: 200 answers of the redemption
    redeem_unanswered: int = 0
    tokens_used: int = 0
    spent: int = 0  #: spent credentials

    @property
    def tokens_ok(self) -> bool:
        """Each signed redemption used one token, and nothing else did; each stored report spent one credential."""
        return (not self.invitations or (self.redeemed <= self.tokens_used <= self.redeemed + self.redeem_unanswered
                                         and self.spent == self.stored - self.seeded))

    @property
    def expected(self) -> int:
        return self.seeded + self.accepted

    @property
    def stored_ok(self) -> bool:
        return self.expected <= self.stored <= self.expected + self.unanswered

    @property
    def exact(self) -> bool:
        """The count check is exact (no request of unknown outcome)."""
        return self.unanswered == 0

    @property
    def folded_ok(self) -> bool:
        return self.folded == self.stored and bool(self.statistics_equal)

    @property
    def ok(self) -> bool:
        return self.stored_ok and (self.folded is None or self.folded_ok) and self.tokens_ok


def per_slug(slugs: list[str], status: np.ndarray, code: int) -> dict[str, int]:
    """How many requests of each slug got ``code`` (``NO_ANSWER`` for unanswered ones)."""
    out: dict[str, int] = {}
    for slug, s in zip(slugs, status, strict=True):
        if s == code:
            out[slug] = out.get(slug, 0) + 1
    return out


def same_statistics(a, b) -> bool:
    """Stored statistics (JSON) equal: same structure, exact integers and strings, floats to the rounding tolerance."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_statistics(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_statistics(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) or isinstance(b, float):
        return (isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool)
                and math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL))
    return a == b and type(a) is type(b)


def from_scratch(survey: Survey, payloads: list) -> tuple[dict, dict]:
    """(training statistics, validation statistics) of ``payloads`` folded at once, as stored (JSON-safe)."""
    protocol = get_protocol(survey)
    training, validation = protocol.split(payloads)
    return (json_safe(protocol.stats_to_dict(protocol.fold(training))),
            json_safe(protocol.validation_to_dict(protocol.fold_validation(validation))))


def folded_count(row: SurveyStatistics) -> int:
    """Reports folded into ``row``: the closed days' and the open days' (``SurveyStatistics.open_days``)."""
    return row.report_count + row.validation_count + row.open_report_count + row.open_validation_count


def all_days_closed(survey: Survey, row: SurveyStatistics) -> SurveyStatistics:
    """``row`` with every open day added to the closed sums (``aggregator.services.close_days`` at ``FAR_AHEAD``), in
    memory: the row is changed, never saved."""
    close_days(get_protocol(survey), row, now=FAR_AHEAD)
    return row


def check_product(surveys: dict[str, Survey], seeded: dict[str, int], accepted: dict[str, int],
                  unanswered: dict[str, int], folded: bool = True, redeemed: dict[str, int] | None = None,
                  redeem_unanswered: dict[str, int] | None = None) -> list[Check]:
    """The stored (and, with ``folded``, folded) checks of every survey, and a token survey's invitation checks
    (``redeemed``: its 200 redemptions); call after the final fold."""
    checks = []
    for slug, survey in surveys.items():
        rows = list(Report.objects.filter(survey=survey).values_list("payload", flat=True))
        pending = PendingReport.objects.filter(survey=survey).count()
        check = Check(slug, seeded[slug], accepted.get(slug, 0), unanswered.get(slug, 0), len(rows) + pending)
        if survey.access == Survey.Access.TOKENS:
            check.invitations = True
            check.redeemed = (redeemed or {}).get(slug, 0)
            check.redeem_unanswered = (redeem_unanswered or {}).get(slug, 0)
            check.tokens_used = InvitationToken.objects.filter(survey=survey, used=True).count()
            check.spent = SpentCredential.objects.filter(survey=survey).count()
        if folded:
            stats = SurveyStatistics.objects.filter(survey=survey).first()
            if stats is not None:
                check.folded = folded_count(stats)
                stats = all_days_closed(survey, stats)
                training, validation = from_scratch(survey, rows)  # every Report row is folded, the inbox empty
                check.statistics_equal = (same_statistics(stats.stats, training)
                                          and same_statistics(stats.validation, validation) and pending == 0)
        checks.append(check)
    return checks


def check_floor(slugs: list[str], accepted: dict[str, int], unanswered: dict[str, int]) -> list[Check]:
    """The floor peer's stored check: its rows per slug against its 201s."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT slug, count(*) FROM {FLOOR_TABLE} GROUP BY slug")
        stored = dict(cursor.fetchall())
    return [Check(slug, 0, accepted.get(slug, 0), unanswered.get(slug, 0), stored.get(slug, 0)) for slug in slugs]
