"""Exact ε per question and per respondent of a whole report (SPEC §2 "Exact ε per question and per respondent").

    ε_respondent = max over records x, x' and outputs r of ln(P(R=r | x) / P(R=r | x')),
    ε_i          = the same maximum over pairs x, x' that differ in answer i only (other answers: worst case).

Probabilities are those the browser realizes (``browser_arithmetic``) unless ``browser=False`` (the ideal
doubles). Closed forms, each the exact maximum (``epsilon_by_enumeration`` checks them on small configurations):

MRR (SPEC §2), groups g with θ_g, personal P_Y,j, one coin per group, personal answers independent:
  the report is the product of independent group reports, R_g ~ θ_g·[R_g = x_g] + (1−θ_g)·P_Y(R_g). Changing
  answer i only moves group g(i); the largest ratio is at r = x_g with x_g of least personal probability, so
  ε_i = ε_g(i) = ln(1 + θ/((1−θ)·Π_{j∈g} min P_Y,j)) — the whole group's ε — and ε_respondent = Σ_g ε_g (the
  group maxima are reached together). "Real" personal questions: against someone who knows the respondent's
  personal answer y, R_g = x_g w.p. θ else y_g; take x_i ≠ y_i and r = x_g: P(r | x') = 0 for every x' ≠ x, so
  ε_j = ∞ for every question j of a group holding a real question (θ_g > 0); against someone who does not know y,
  y ~ P_Y and the figures above hold.
LDP Naive Bayes (SPEC §4), inputs j = 0 (class) and j = i + 1 (feature i, joint with the class), each through an
  oracle of ε_j (realized). One-report: the output is (j, oracle report) with j public and drawn independently of
  the answers, so the ratio of an output of input j is the oracle's; every input depends on the class, input
  i + 1 alone on feature i: ε_class = max_j ε_j, ε_feature i = ε_{i+1}, ε_respondent = max_j ε_j. Split: all
  inputs are reported independently; a change of class moves all of them (each oracle reaches its maximum for
  any pair of distinct values, at the same time): ε_class = Σ_j ε_j = ε_respondent, ε_feature i = ε_{i+1}.
LDP validation reports (``validation.py``): a share s of respondents (the draw does not depend on answers) sends
  only "was model v right on my answers?" through binary RR of ε_val instead. The output spaces are disjoint, so
  every figure becomes max(training figure, ε_val) for each question that can flip "right": the class always can,
  and a feature can under some published model (worst case over models, the model being re-published over time).
"""
from __future__ import annotations

import itertools
import math
from typing import Callable, Iterable, Sequence

import numpy as np

from .assignment import cdf as cdf_of
from .assignment import check_probabilities
from .browser_arithmetic import log_ratio, realized_bernoulli, realized_categorical
from .browser_epsilon import realized_oracle_epsilon
from .channel import check_theta

__all__ = [
    "epsilon_by_enumeration", "mrr_exact_epsilons", "ldp_nb_exact_epsilons", "with_validation",
    "oracle_epsilon",
]


def epsilon_by_enumeration(
    output_distribution: Callable[[tuple], dict], sizes: Sequence[int], questions: Iterable[int] | None = None
) -> dict:
    """Brute force: ``output_distribution(x)`` → {output: probability} for each record x of the product space
    ``sizes``; returns {"per_question": [ε_i], "per_respondent": ε} by the definitions above. Small spaces only."""
    records = list(itertools.product(*(range(int(s)) for s in sizes)))
    dists = {x: output_distribution(x) for x in records}

    def pair_eps(a: dict, b: dict) -> float:
        best = 0.0
        for r in set(a) | set(b):
            pa, pb = a.get(r, 0), b.get(r, 0)
            if pa > 0 or pb > 0:
                best = max(best, log_ratio(pa, pb) if pa > 0 else 0.0, log_ratio(pb, pa) if pb > 0 else 0.0)
        return best

    qs = list(range(len(sizes))) if questions is None else list(questions)
    per_q = []
    for i in qs:
        best = 0.0
        for x in records:
            for v in range(x[i] + 1, sizes[i]):
                best = max(best, pair_eps(dists[x], dists[x[:i] + (v,) + x[i + 1:]]))
        per_q.append(best)
    resp = max((pair_eps(dists[a], dists[b]) for a, b in itertools.combinations(records, 2)), default=0.0)
    return {"per_question": per_q, "per_respondent": resp}


def _group_epsilon(theta: float, min_personal_product, browser: bool) -> float:
    """ln(1 + T/((1−T)·m)) with exact rationals when ``browser`` (T = realized θ)."""
    from fractions import Fraction

    T = realized_bernoulli(theta) if browser else Fraction(theta)
    if T == 0:
        return 0.0
    if T == 1 or min_personal_product == 0:
        return math.inf
    return log_ratio(T + (1 - T) * min_personal_product, (1 - T) * min_personal_product)


def mrr_exact_epsilons(
    thetas: Sequence[float],
    groups: Sequence[Sequence[int]],
    personals: Sequence[Sequence[float]],
    real: Iterable[int] = (),
    browser: bool = True,
) -> dict:
    """Exact ε of an MRR report (module docstring): per question, per group, per respondent.

    ``thetas`` one per group, ``groups`` a partition of attribute indices, ``personals`` the declared P_Y per
    attribute, ``real`` the indices of attributes whose personal answer is a real question. ``browser``: use the
    probabilities the browser realizes (θ → ⌈θ·2^53⌉/2^53, P_Y through its published CDF).

    Returns "per_question" (against someone who does not know the personal answers), "per_question_known_personal"
    (against someone who knows them: ∞ in groups with a real question and θ > 0), "per_group",
    "per_group_known_personal", "per_respondent", "per_respondent_known_personal".
    """
    from fractions import Fraction

    real = set(int(i) for i in real)
    m = len(personals)
    per_q, per_q_known = [0.0] * m, [0.0] * m
    per_g, per_g_known = [], []
    for g, members in enumerate(groups):
        theta = check_theta(thetas[g], name=f"theta[{g}]")
        prod = Fraction(1)
        for i in members:
            p = check_probabilities(personals[i], name=f"personal[{i}]")
            dist = realized_categorical(cdf_of(p)) if browser else [Fraction(float(x)) for x in p]
            prod *= min(dist)
        eps = _group_epsilon(theta, prod, browser)
        known = math.inf if (theta > 0 and any(i in real for i in members)) else eps
        per_g.append(eps)
        per_g_known.append(known)
        for i in members:
            per_q[i], per_q_known[i] = eps, known
    return {
        "per_question": per_q,
        "per_question_known_personal": per_q_known,
        "per_group": per_g,
        "per_group_known_personal": per_g_known,
        "per_respondent": float(sum(per_g)),
        "per_respondent_known_personal": float(sum(per_g_known)),
    }


def oracle_epsilon(params: dict, browser: bool = True) -> float:
    """ε of one oracle from its published params: realized (``browser_arithmetic``) or the configured ε."""
    return realized_oracle_epsilon(params) if browser else float(params["epsilon"])


def ldp_nb_exact_epsilons(
    oracle_params: Sequence[dict], strategy: str, assignment: Sequence[float] | np.ndarray | None = None,
    browser: bool = True,
) -> dict:
    """Exact ε of an LDP Naive Bayes report (SPEC §4; module docstring). ``oracle_params[j]`` = ``params()`` of input
    j (0 the class, i + 1 feature i); ``assignment``: one-report's public input probabilities (inputs of
    probability 0 are never reported). Returns "per_question" ([class, feature 0, …]), "per_input",
    "per_respondent"."""
    eps = [oracle_epsilon(p, browser) for p in oracle_params]
    if strategy == "one-report":
        a = np.full(len(eps), 1.0 / len(eps)) if assignment is None else check_probabilities(assignment, len(eps))
        used = [e if w > 0 else 0.0 for e, w in zip(eps, a, strict=True)]
        class_eps = max(used)
        respondent = max(used)
        features = used[1:]
    elif strategy == "split":
        class_eps = float(sum(eps))
        respondent = class_eps
        features = eps[1:]
    else:
        raise ValueError("strategy must be 'one-report' or 'split'")
    return {"per_question": [class_eps, *features], "per_input": eps, "per_respondent": respondent}


def with_validation(figures: dict, validation_epsilon: float, share: float) -> dict:
    """Fold the LDP validation report (binary RR of ``validation_epsilon``, sent instead of a training report by a
    share ``share`` > 0) into figures from ``ldp_nb_exact_epsilons``: every question's and the respondent's ε become
    max(·, ε_val) (worst case over published models; module docstring). ``share`` = 0 leaves them unchanged."""
    if not 0.0 <= float(share) <= 1.0:
        raise ValueError("share must lie in [0, 1]")
    if share == 0:
        return dict(figures)
    out = dict(figures)
    if share == 1:
        out["per_question"] = [validation_epsilon] * len(figures["per_question"])
        out["per_respondent"] = validation_epsilon
    else:
        out["per_question"] = [max(e, validation_epsilon) for e in figures["per_question"]]
        out["per_respondent"] = max(figures["per_respondent"], validation_epsilon)
    out["validation_epsilon"] = validation_epsilon
    return out
