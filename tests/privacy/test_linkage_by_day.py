"""The by-day attack on redemptions (real PostgreSQL, real transactions): a small invitation survey runs over
several days under a fake clock — each respondent redeems a token (``survey_app.credentials.redeem``) and sends a
report with the credential (``survey_app.reports.submit_report``); the inbox is drained twice a day. A reader with
full SQL access then dates the used tokens by every system column and key (``xmin``, ``ctid``, ``cmin``, the primary
key, the token's own index order) and places the reports by day (``received_on``, published resolution).

Two attacks per token column, within each day (the day itself is what docs/threat-model.md allows):

* **order**: the stratified rank statistic T = Σ_day Σ_token rank_day(column) · rank_day(redemption order) against
  its exact null distribution (every within-day permutation of the redemption order, convolved over the days:
  a one-sided exact test, ties in the column kept at their mid-ranks);
* **matching**: the i-th token of the day (by the column) paired with the i-th report of the day (by each of the
  reports' ``xmin``, ``ctid``, ``cmin``, key); the number of right pairs against its exact null distribution (the
  fixed points of a uniform within-day permutation, convolved over the days; every payload sent is distinct, so each
  report has one true token).

Pass: no attack below the Bonferroni level of a family error rate of 10⁻⁴. The control: before the day's drain
the fresh tokens' ``xmin`` orders that day's redemptions exactly, and the order attack catches it far below the
level (what a used token's ``xmin`` showed at rest before the drain rewrote tokens).
"""
import datetime
import itertools
import json
import math
import types
from collections import Counter

import numpy as np
import pytest
from django.db import connection

from aggregator import services
from survey_app import credentials, inbox
from survey_app import reports as ingestion
from survey_app.outcomes import Submission
from survey_app.services import generate_tokens
from tests.factories import distinct_reports, make_survey

from . import linkage

DAYS = (7, 2, 1, 7, 3)  # respondents a day, as the audit's small invitation survey
FIRST_DAY = datetime.date(2026, 4, 6)
ALPHA = 1e-4
TOKEN_KEYS = ("xmin", "ctid", "cmin", "id", "token")
REPORT_KEYS = ("xmin", "ctid", "cmin", "id")


def _canon(payload) -> str:
    return json.dumps(payload, sort_keys=True, separators=(",", ":"))


class _Clock:
    """A fake clock for the modules that date redemptions and reports (their ``datetime`` module attribute)."""

    def __init__(self):
        self.now = datetime.datetime.combine(FIRST_DAY, datetime.time(9), datetime.UTC)
        clock = self

        class FakeDatetime(datetime.datetime):
            @classmethod
            def now(cls, tz=None):
                return clock.now if tz is None else clock.now.astimezone(tz)

        self.module = types.SimpleNamespace(datetime=FakeDatetime, date=datetime.date, time=datetime.time,
                                            timedelta=datetime.timedelta, UTC=datetime.UTC)


def _run(monkeypatch) -> tuple:
    clock = _Clock()
    for module in (credentials, ingestion):
        monkeypatch.setattr(module, "datetime", clock.module)
    monkeypatch.setattr(inbox, "REWRITE_CHUNK", 3)  # several chunks (several cmin values) per rewrite
    monkeypatch.setattr(inbox, "REWRITE_PAUSE", 0.0)
    survey = make_survey(mode="mrr", access="tokens")
    tokens = [t.token for t in generate_tokens(survey, sum(DAYS))]
    np.random.default_rng(3).shuffle(tokens)  # respondents redeem their tokens in no particular issue order
    reports = distinct_reports(survey, sum(DAYS), 11)
    sender = {}  # report payload → index of the respondent (and of their token)
    respondent = 0
    for d, count in enumerate(DAYS):
        day = FIRST_DAY + datetime.timedelta(days=d)
        for i in range(count):
            clock.now = datetime.datetime.combine(day, datetime.time(9), datetime.UTC) + datetime.timedelta(
                minutes=37 * i)
            blinded, pending = credentials.start_credential(credentials.public_credential(survey))
            redemption = credentials.redeem(survey.slug, tokens[respondent], blinded, pending.key_id)
            credential = credentials.finish_credential(pending, redemption.blind_signature)
            report = reports[respondent]
            assert ingestion.submit_report(survey.slug, Submission(report, credential=credential)).stored
            sender[_canon(report)] = respondent
            respondent += 1
            if i == count // 2:
                services.fold_new_reports(survey)  # a drain within the day
        services.fold_new_reports(survey)
    return survey, tokens, sender


def _token_rows(survey) -> list[dict]:
    return linkage.rows("survey_app_invitationtoken", "id, token, redeemed_on, cmin::text::int AS cmin",
                        "WHERE survey_id = %s AND used", [survey.pk])


# -- exact null distributions ----------------------------------------------------------------------------------------

def _convolve(a: Counter, b: Counter) -> Counter:
    out: Counter = Counter()
    for (x, p), (y, q) in itertools.product(a.items(), b.items()):
        out[x + y] += p * q
    return out


def _order_null(groups: list[list[float]]) -> Counter:
    """Exact null distribution of 2·Σ colrank·trueorder_rank (integers; probabilities as fractions of k!)."""
    total = Counter({0: 1.0})
    for colranks in groups:
        k = len(colranks)
        day: Counter = Counter()
        for perm in itertools.permutations(range(1, k + 1)):
            day[round(2 * sum(c * p for c, p in zip(colranks, perm, strict=True)))] += 1 / math.factorial(k)
        total = _convolve(total, day)
    return total


def _fixed_points_null(sizes: list[int]) -> Counter:
    """Exact null distribution of the number of fixed points of independent uniform permutations of ``sizes``."""
    def derangements(m):
        return round(math.factorial(m) * sum((-1) ** i / math.factorial(i) for i in range(m + 1)))

    total = Counter({0: 1.0})
    for k in sizes:
        total = _convolve(total, Counter({j: math.comb(k, j) * derangements(k - j) / math.factorial(k)
                                          for j in range(k + 1)}))
    return total


def _upper(null: Counter, observed: float) -> float:
    return min(1.0, sum(p for x, p in null.items() if x >= observed - 1e-9))


def _ranks(values) -> list[float]:
    from scipy import stats

    return list(stats.rankdata(linkage.sortable(values)))


def order_attack(column: str, token_rows: list[dict], order: dict) -> linkage.Finding:
    """Within-day order of the tokens by ``column`` against their redemption order (``order``: token → index)."""
    groups, stat = [], 0.0
    for day in sorted({r["redeemed_on"] for r in token_rows}):
        rows = [r for r in token_rows if r["redeemed_on"] == day]
        colranks = _ranks([r[column] for r in rows])
        truth = _ranks([order[r["token"]] for r in rows])
        groups.append(colranks)
        stat += 2 * sum(c * t for c, t in zip(colranks, truth, strict=True))
    p = _upper(_order_null(groups), stat)
    return linkage.Finding(f"tokens' within-day order by {column}", stat, p)


def matching_attack(token_key: str, report_key: str, token_rows: list[dict], report_rows: list[dict],
                    order: dict, sender: dict) -> linkage.Finding:
    """Within each day, the i-th token by ``token_key`` paired with the i-th report by ``report_key``."""
    right, sizes = 0, []
    for day in sorted({r["redeemed_on"] for r in token_rows}):
        tokens = sorted((r for r in token_rows if r["redeemed_on"] == day), key=lambda r: linkage.sortable(
            [r[token_key]])[0])
        day_reports = sorted((r for r in report_rows if r["received_on"] == day), key=lambda r: linkage.sortable(
            [r[report_key]])[0])
        assert len(tokens) == len(day_reports)
        sizes.append(len(tokens))
        right += sum(order[t["token"]] == sender[_canon(r["payload"])]
                     for t, r in zip(tokens, day_reports, strict=True))
    p = _upper(_fixed_points_null(sizes), right)
    return linkage.Finding(f"tokens by {token_key} ↔ reports by {report_key}, within days", right, p,
                           f"{right} of {sum(sizes)} right, {len(sizes)} expected by chance")


def test_the_exact_nulls_are_distributions():
    assert sum(_fixed_points_null(list(DAYS)).values()) == pytest.approx(1)
    assert sum(_order_null([[1.0, 2.0, 3.0], [1.5, 1.5]]).values()) == pytest.approx(1)
    # a perfect within-day order: p is the probability of the identity in every day, Π 1/k!
    groups = [[float(i) for i in range(1, k + 1)] for k in DAYS]
    stat = sum(2 * sum(i * i for i in range(1, k + 1)) for k in DAYS)
    assert _upper(_order_null(groups), stat) == pytest.approx(1 / math.prod(math.factorial(k) for k in DAYS))


def _attack(monkeypatch) -> tuple[list[linkage.Finding], object]:
    survey, tokens, sender = _run(monkeypatch)
    order = {t: i for i, t in enumerate(tokens)}  # the i-th redemption spent tokens[i]
    token_rows = _token_rows(survey)
    assert len(token_rows) == sum(DAYS)
    assert sorted(Counter(r["redeemed_on"] for r in token_rows).values()) == sorted(DAYS)
    report_rows = linkage.rows("survey_app_report", "id::text AS id, payload::text AS payload, received_on, "
                               "cmin::text::int AS cmin", "WHERE survey_id = %s", [survey.pk])
    for r in report_rows:
        r["payload"] = json.loads(r["payload"])
    assert len(report_rows) == sum(DAYS)
    findings = [order_attack(column, token_rows, order) for column in TOKEN_KEYS]
    findings += [matching_attack(tk, rk, token_rows, report_rows, order, sender)
                 for tk in TOKEN_KEYS for rk in REPORT_KEYS]
    print(linkage.describe(findings))  # the figures, shown with -rA
    return findings, survey


@pytest.mark.skipif(connection.vendor != "postgresql", reason="xmin, ctid and cmin are PostgreSQL's")
@pytest.mark.django_db(transaction=True)  # real transactions: their ids are what a reader sees in xmin
def test_used_tokens_dated_by_any_system_column_match_reports_no_better_than_chance_within_a_day(monkeypatch):
    findings, survey = _attack(monkeypatch)
    level = linkage.bonferroni(findings, ALPHA)
    broken = [f for f in findings if f.p_value < level]
    assert not broken, f"better than chance (level {level:.2g}):\n{linkage.describe(broken)}"
    with connection.cursor() as cursor:  # after each drain the day's used tokens share one transaction
        cursor.execute("SELECT count(DISTINCT xmin::text), count(DISTINCT redeemed_on), bool_or(fresh) "
                       "FROM survey_app_invitationtoken WHERE survey_id = %s AND used", [survey.pk])
        assert cursor.fetchone() == (len(DAYS), len(DAYS), False)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="xmin is PostgreSQL's")
@pytest.mark.django_db(transaction=True)
def test_the_attack_catches_used_tokens_kept_in_redemption_order(monkeypatch):
    """Control: with the drain's rewrite of redemptions switched off (the storage before it), a used token's ``xmin``
    orders the day's redemptions exactly and the order attack fires at p = Π 1/k! far below the level."""
    monkeypatch.setattr(inbox, "rewrite_redemptions", lambda survey: None)
    findings, _ = _attack(monkeypatch)
    level = linkage.bonferroni(findings, ALPHA)
    by_xmin = findings[TOKEN_KEYS.index("xmin")]
    assert by_xmin.p_value == pytest.approx(1 / math.prod(math.factorial(k) for k in DAYS))
    assert by_xmin.p_value < level
