"""The attacks of the adversarial linkage test (issue 11 item 3): a reader with full SQL access to the database —
PostgreSQL's system columns ``xmin`` (the writing transaction) and ``ctid`` (the physical place) included — and to
the published model metadata tries to tie stored reports to invitation tokens and to the order and time windows in
which they were sent. Helper module of ``test_linkage.py`` (not a test module).

Every attack maps stored reports back to the submissions through their payloads (``SENT``: what each respondent's
request carried, in submission order): ``truth[r]`` is the set of submission indices whose payload equals report
``r``'s. Chance levels account for ties (equal payloads).
"""
from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from django.db import connection
from scipy import stats


def _canon(payload) -> str:
    return json.dumps(payload, sort_keys=True, separators=(",", ":"))


def rows(table: str, columns: str, where: str = "", params=()) -> list[dict]:
    """``SELECT xmin, ctid, <columns>`` as dicts; ``xmin`` as an int, ``ctid`` as (page, tuple)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT xmin::text, ctid::text, {columns} FROM {table} {where}", list(params))
        names = [c.name for c in cursor.description]
        out = []
        for values in cursor.fetchall():
            row = dict(zip(names, values, strict=True))
            page, item = row["ctid"].strip("()").split(",")
            row["xmin"], row["ctid"] = int(row["xmin"]), (int(page), int(item))
            out.append(row)
        return out


@dataclass
class Finding:
    attack: str
    statistic: float
    p_value: float
    detail: str = ""


def truth_sets(stored_payloads: list, sent_payloads: list) -> list[set[int]]:
    by_payload: dict[str, set[int]] = defaultdict(set)
    for i, payload in enumerate(sent_payloads):
        by_payload[_canon(payload)].add(i)
    out = [by_payload.get(_canon(p), set()) for p in stored_payloads]
    missing = sum(1 for s in out if not s)
    if missing:
        raise AssertionError(f"{missing} stored reports match no sent payload")
    return out


def sortable(values: list) -> np.ndarray:
    """Sort keys as one numpy array: ``ctid`` (page, item) pairs as page·2¹⁶ + item, strings and ints as they are."""
    if values and isinstance(values[0], tuple):
        return np.asarray([page * 65536 + item for page, item in values], dtype=np.int64)
    return np.asarray(values)


def order_correlation(name: str, keys: list, truth: list[set[int]]) -> Finding:
    """Spearman's ρ between the stored order given by ``keys`` and the submission order (each report at the mean
    index of its payload's submissions), with its two-sided p-value."""
    position = [float(np.mean(sorted(s))) for s in truth]
    ranks = stats.rankdata(sortable(keys))
    if np.all(ranks == ranks[0]):
        return Finding(f"order by {name}", 0.0, 1.0, "(every report has the same value: no order at all)")
    rho, p = stats.spearmanr(ranks, position)
    return Finding(f"order by {name}", float(rho), float(p))


def rank_matching(name: str, token_keys: list, report_keys: list, token_index: list[int],
                  truth: list[set[int]]) -> Finding:
    """Pair the i-th token (by ``token_keys``) with the i-th report (by ``report_keys``); a pair is right when the
    report's payload is the one sent with that token. Binomial test against the chance rate of a random pairing."""
    tokens = [token_index[i] for i in np.argsort(sortable(token_keys), kind="stable")]
    reports = [truth[i] for i in np.argsort(sortable(report_keys), kind="stable")]
    n = min(len(tokens), len(reports))
    right = sum(1 for t, s in zip(tokens[:n], reports[:n], strict=True) if t in s)
    chance = sum(sum(1 for s in truth if t in s) for t in tokens[:n]) / (n * len(truth))
    p = float(stats.binomtest(right, n, chance, alternative="greater").pvalue) if n else 1.0
    return Finding(f"tokens by {name[0]} ↔ reports by {name[1]}", right, p,
                   f"{right} of {n} right, chance {chance:.4f}")


def xmin_join(token_rows: list[dict], report_rows: list[dict], token_index: dict, truth: list[set[int]]) -> Finding:
    """Tokens and reports written by the same transaction (equal ``xmin``): how many such pairs are right."""
    by_xmin = defaultdict(list)
    for r, row in enumerate(report_rows):
        by_xmin[row["xmin"]].append(r)
    right = pairs = 0
    for row in token_rows:
        for r in by_xmin.get(row["xmin"], []):
            pairs += 1
            right += token_index[row["token"]] in truth[r]
    n = len(report_rows)
    chance = 1 / n if n else 0
    p = float(stats.binomtest(right, max(pairs, 1), chance, alternative="greater").pvalue) if pairs else 1.0
    return Finding("tokens ↔ reports by equal xmin", right, p, f"{right} right of {pairs} pairs sharing an xmin")


def bonferroni(findings: list[Finding], alpha: float) -> float:
    """The per-attack level for a family error rate ``alpha``."""
    return alpha / max(len(findings), 1)


def describe(findings: list[Finding]) -> str:
    return "\n".join(f"{f.attack}: statistic {f.statistic:.4g}, p = {f.p_value:.3g} {f.detail}" for f in findings)


def log10_or_inf(p: float) -> float:
    return math.log10(p) if p > 0 else -math.inf
