"""The adversarial linkage test (issue 11 item 3), on the real PostgreSQL through the real API and commands.

Respondents are driven over HTTP by ``manage.py simulate`` against a live server, in three waves with a retrain after
each (three drains within the day; no model includes part of a day, so the day's one version comes after it), for an
invitation-only survey (blind-signed credentials, ``--tokens``) and an open-link survey. Then a reader with full SQL
access — system columns ``xmin`` and ``ctid`` included — and the published metadata runs every linkage in
``linkage``:

* tokens ↔ reports by equal ``xmin``, and by pairing the i-th token with the i-th report for every stored order of
  either (``xmin``, ``ctid``, primary key); the same pairing of tokens with spent credentials;
* every stored order of the reports (``xmin``, ``ctid``, primary key, the random ``nonce``, and ``cmin``: the
  command of the drain that inserted the row, one per chunk of its rewrite) against the submission order — which
  also covers the waves, i.e. the drain window a report fell into;
* the model history: the versions hold whole days only (differencing two versions yields whole days);
* the published metadata and the aggregator's bookkeeping hold no report id, range or watermark.

Pass: every attack is no better than chance — binomial tests of right pairings against the chance rate of a random
pairing, Spearman's ρ against 0 — at a family error rate of 10⁻⁴ (Bonferroni). Before issue 11 the ``xmin`` join
alone recovered the token of 20 of 20 reports and the id order matched the submission order exactly.
"""
import datetime
import hashlib
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from aggregator import services
from aggregator.management.commands.simulate import read_tokens
from aggregator.privacy import blind_rsa
from survey_app.models import Survey
from tests.factories import after_midnight, informative_mushroom

from . import linkage

ROOT = Path(__file__).resolve().parents[2]
MUSHROOM = ROOT / "data" / "datasets" / "mushroom.csv"
WAVES = (40, 40, 40)
ALPHA = 1e-4  # family error rate of all attacks together


def _split_tokens(tokens: list[str], sizes, tmp_path: Path) -> list[Path]:
    """One file of bare tokens (one a line, a form ``simulate --tokens`` reads) per wave, in order."""
    out, start = [], 0
    for w, size in enumerate(sizes):
        part = tmp_path / f"tokens-{w}.txt"
        part.write_text("\n".join(tokens[start:start + size]) + "\n")
        out.append(part)
        start += size
    return out


def _sent(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _run(live_server, tmp_path, slug: str, access: str, mode_args: list[str]):
    call_command("create_survey", str(informative_mushroom(tmp_path)), "--slug", slug, *mode_args, "--open",
                 "--access", access, "--class-column", "class")
    survey = Survey.objects.get(slug=slug)
    Survey.objects.filter(pk=survey.pk).update(validation_share=0)
    tokens_file = tmp_path / f"{slug}-tokens.csv"
    waves_tokens: list = [None] * len(WAVES)
    tokens: list[str] = []
    if access == "tokens":
        call_command("invitations", slug, "--count", str(sum(WAVES)), "--out", str(tokens_file))
        tokens = read_tokens(str(tokens_file))  # the admin's export: survey,batch,link rows
        waves_tokens = _split_tokens(tokens, WAVES, tmp_path)
    sent: list[dict] = []
    for w, size in enumerate(WAVES):
        record = tmp_path / f"{slug}-sent-{w}.jsonl"
        args = [slug, str(MUSHROOM), "--respondents", str(size), "--url", live_server.url, "--record", str(record),
                "--seed", str(100 + w)]
        if waves_tokens[w] is not None:
            args += ["--tokens", str(waves_tokens[w])]
        call_command("simulate", *args)
        sent += _sent(record)
        call_command("retrain", slug)  # a drain within the day: no model includes part of a day
    assert not survey.model_versions.exists()
    services.retrain(survey, now=after_midnight())  # the day has ended: one version, of the whole day
    return survey, sent, tokens


def _attack(survey, sent, tokens) -> list[linkage.Finding]:
    reports = linkage.rows("survey_app_report",
                           "id::text AS id, payload::text AS payload, received_on, cmin::text::int AS cmin, nonce",
                           "WHERE survey_id = %s", [survey.pk])
    for r in reports:
        r["payload"] = json.loads(r["payload"])
    assert sorted(linkage._canon(r["payload"]) for r in reports) == sorted(linkage._canon(b["report"]) for b in sent)
    truth = linkage.truth_sets([r["payload"] for r in reports], [b["report"] for b in sent])
    assert len({r["received_on"] for r in reports}) == 1  # the day is the published resolution
    findings = [linkage.order_correlation(name, [r[name] for r in reports], truth)
                for name in ("xmin", "ctid", "id", "cmin", "nonce")]
    assert [r["nonce"] for r in reports] and all(r["nonce"] for r in reports)  # every report kept its nonce
    if tokens:
        token_rows = linkage.rows("survey_app_invitationtoken", "id, token", "WHERE survey_id = %s AND used",
                                  [survey.pk])
        assert len(token_rows) == len(tokens)
        index = {t: i for i, t in enumerate(tokens)}
        findings.append(linkage.xmin_join(token_rows, reports, index, truth))
        for tk in ("xmin", "ctid", "id"):
            for rk in ("xmin", "ctid", "id"):
                findings.append(linkage.rank_matching((tk, rk), [t[tk] for t in token_rows],
                                                      [r[rk] for r in reports],
                                                      [index[t["token"]] for t in token_rows], truth))
        # Tokens ↔ spent credentials (the report transaction's row, rewritten by the drain): the i-th respondent
        # spent the i-th token and the credential sent with the i-th report.
        spent = linkage.rows("survey_app_spentcredential", "digest", "WHERE survey_id = %s", [survey.pk])
        sent_digests = {hashlib.sha256(blind_rsa.b64url_decode(b["credential"]["value"])).hexdigest(): i
                        for i, b in enumerate(sent)}
        assert len(spent) == len(sent) and {s["digest"] for s in spent} == set(sent_digests)
        spent_truth = [{sent_digests[s["digest"]]} for s in spent]
        for tk in ("xmin", "ctid", "id"):
            for sk in ("xmin", "ctid", "digest"):
                findings.append(linkage.rank_matching((tk, f"spent credential {sk}"), [t[tk] for t in token_rows],
                                                      [s[sk] for s in spent],
                                                      [index[t["token"]] for t in token_rows], spent_truth))
    return findings


def _bookkeeping_holds_no_report_ids(survey):
    from aggregator.models import ModelVersion, PartialStatistics, SurveyStatistics

    versions = list(ModelVersion.objects.filter(survey=survey))
    # Differencing the model history: three drains within the day, and the versions hold the whole day or nothing
    # of it (tests/aggregator/test_day_closing.py attacks this over several days).
    reports = linkage.rows("survey_app_report", "payload::text AS payload", "WHERE survey_id = %s", [survey.pk])
    training = sum(1 for r in reports if '"validation"' not in r["payload"])
    assert [(v.report_count, v.through_day) for v in versions] == [(training, datetime.datetime.now(
        datetime.UTC).date())]
    forbidden = ("id", "first_id", "last_id", "watermark", "ids")
    for v in versions:
        for blob in (v.metrics, v.privacy):
            assert not {k for k in blob if k in forbidden}, blob.keys()
    assert not PartialStatistics.objects.filter(survey=survey).exists()
    assert not any(f.name in ("watermark", "first_id", "last_id") for f in SurveyStatistics._meta.get_fields())
    assert not any(f.name in ("first_id", "last_id") for f in PartialStatistics._meta.get_fields())
    with_pending = linkage.rows("survey_app_pendingreport", "id", "WHERE survey_id = %s", [survey.pk])
    assert with_pending == []  # every accepted report was drained into the reports table


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("slug, access, mode_args", [
    ("attack-invited", "tokens", ["--mode", "mrr", "--theta", "0.7"]),
    ("attack-open", "link", ["--mode", "ldp", "--epsilon", "2", "--encoding", "oue"]),
])
def test_no_stored_order_or_system_column_ties_a_report_to_a_token_or_a_time_within_its_day(
        live_server, tmp_path, monkeypatch, slug, access, mode_args):
    # each drain rewrites the day in chunks of 16 rows (``REWRITE_CHUNK``; 500 in production): several per drain here
    monkeypatch.setattr(services, "REWRITE_CHUNK", 16)
    survey, sent, tokens = _run(live_server, tmp_path, slug, access, mode_args)
    findings = _attack(survey, sent, tokens)
    _bookkeeping_holds_no_report_ids(survey)
    print(linkage.describe(findings))  # the figures, shown with -rA
    level = linkage.bonferroni(findings, ALPHA)
    broken = [f for f in findings if f.p_value < level]
    assert not broken, f"linkage better than chance (level {level:.2g}):\n{linkage.describe(broken)}\n\n" \
                       f"all attacks:\n{linkage.describe(findings)}"


def test_the_attacks_catch_the_storage_issue_11_found():
    """Control: on the storage issue 11 measured — token and report written by one transaction (equal ``xmin``),
    reports kept in submission order — every attack fires far beyond the test's level."""
    n = 120
    payloads = [{"answers": [i]} for i in range(n)]
    truth = linkage.truth_sets(payloads, payloads)
    tokens = [{"xmin": 1000 + i, "token": f"t{i}"} for i in range(n)]
    reports = [{"xmin": 1000 + i} for i in range(n)]
    index = {f"t{i}": i for i in range(n)}
    findings = [linkage.order_correlation("id", list(range(n)), truth),
                linkage.xmin_join(tokens, reports, index, truth),
                linkage.rank_matching(("xmin", "id"), [t["xmin"] for t in tokens], list(range(n)), list(range(n)),
                                      truth)]
    level = linkage.bonferroni([None] * 24, ALPHA)  # as many attacks as the token survey runs
    assert all(f.p_value < level for f in findings), linkage.describe(findings)
    assert findings[1].statistic == n and findings[2].statistic == n
