"""Exact ε per question and per respondent (SPEC §2 "Exact ε per question and per respondent"): the closed forms of
``exact_epsilon`` against brute-force enumeration of the whole report's channel on tiny configurations."""
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from aggregator.privacy import oracles
from aggregator.privacy.assignment import cdf
from aggregator.privacy.browser_arithmetic import realized_bernoulli, realized_categorical
from aggregator.privacy.browser_epsilon import realized_oracle_epsilon
from aggregator.privacy.channel import mrr_epsilon
from aggregator.privacy.exact_epsilon import (
    epsilon_by_enumeration,
    ldp_nb_exact_epsilons,
    mrr_exact_epsilons,
    with_validation,
)
from aggregator.privacy.validation import correct_oracle

TOL = 1e-12  # closed form vs enumeration: the same rationals, only the final logarithm is rounded


def mrr_output_distribution(thetas, groups, personals, browser, known=None):
    """P(R = r | x) of a whole MRR report by enumeration; ``known``: the personal answers, when the adversary knows
    them (then R_g = x_g w.p. θ_g, else y_g)."""
    if browser:
        T = [realized_bernoulli(t) for t in thetas]
        PY = [realized_categorical(cdf(p)) for p in personals]
    else:
        T = [Fraction(t) for t in thetas]
        PY = [[Fraction(v) for v in p] for p in personals]
    sizes = [len(p) for p in personals]

    def dist(x):
        out = {}
        for r in itertools.product(*(range(s) for s in sizes)):
            prob = Fraction(1)
            for g, members in enumerate(groups):
                same = all(r[i] == x[i] for i in members)
                if known is None:
                    personal = math.prod((PY[i][r[i]] for i in members), start=Fraction(1))
                else:
                    personal = Fraction(int(all(r[i] == known[i] for i in members)))
                prob *= T[g] * same + (1 - T[g]) * personal
            if prob:
                out[r] = prob
        return out

    return dist, sizes


@pytest.mark.parametrize("browser", [False, True])
@pytest.mark.parametrize(
    "thetas,groups,personals",
    [
        ([0.6], [[0, 1, 2]], [[0.3, 0.7], [0.2, 0.5, 0.3], [0.5, 0.5]]),
        ([0.6, 0.3], [[0, 1], [2]], [[0.3, 0.7], [0.2, 0.5, 0.3], [0.1, 0.9]]),
        ([0.1, 0.9, 0.45], [[0], [1], [2]], [[0.5, 0.5], [0.1, 0.1, 0.8], [0.3, 0.7]]),
    ],
)
def test_mrr_closed_form_equals_enumeration(thetas, groups, personals, browser):
    dist, sizes = mrr_output_distribution(thetas, groups, personals, browser)
    brute = epsilon_by_enumeration(dist, sizes)
    exact = mrr_exact_epsilons(thetas, groups, personals, browser=browser)
    np.testing.assert_allclose(exact["per_question"], brute["per_question"], rtol=TOL)
    assert math.isclose(exact["per_respondent"], brute["per_respondent"], rel_tol=TOL)
    # every question of a group has the group's ε
    for g, members in enumerate(groups):
        assert all(exact["per_question"][i] == exact["per_group"][g] for i in members)


def test_issue_case_one_group_per_question_is_the_group_epsilon():
    """The issue's survey: one group, θ = 0.7, uniform personal answers on 2, 9 and 10 values. The per-attribute
    formula showed 1.73–3.19; the exact ε of the report when one answer changes is the group's, ln(421) = 6.04."""
    personals = [np.full(s, 1.0 / s) for s in (2, 9, 10)]
    old = [mrr_epsilon(0.7, p) for p in personals]
    assert math.isclose(min(old), math.log(1 + 0.7 * 2 / 0.3)) and round(min(old), 2) == 1.73
    assert round(max(old), 2) == 3.19
    exact = mrr_exact_epsilons([0.7], [[0, 1, 2]], personals, browser=False)
    assert exact["per_question"] == pytest.approx([math.log(421)] * 3, rel=1e-12)
    assert round(exact["per_question"][0], 2) == 6.04
    # the browser realizes 0.7 exactly (≥ 1/2) and 1/9, 1/10 through the CDF: the same figure to 1e-12
    browser = mrr_exact_epsilons([0.7], [[0, 1, 2]], personals)
    assert browser["per_question"] == pytest.approx(exact["per_question"], rel=1e-12)


def test_real_personal_question_is_unbounded_against_someone_who_knows_it():
    thetas, groups, personals = [0.6, 0.4], [[0, 1], [2]], [[0.3, 0.7], [0.2, 0.8], [0.5, 0.5]]
    exact = mrr_exact_epsilons(thetas, groups, personals, real=[1])
    # Brute force against an adversary who knows y: the worst y.
    sizes = [2, 2, 2]
    worst = [0.0, 0.0, 0.0]
    for y in itertools.product(range(2), repeat=3):
        dist, _ = mrr_output_distribution(thetas, groups, personals, True, known=y)
        brute = epsilon_by_enumeration(dist, sizes)
        worst = [max(a, b) for a, b in zip(worst, brute["per_question"], strict=True)]
    assert worst[0] == worst[1] == math.inf  # the whole group holding the real question
    assert exact["per_question_known_personal"] == [math.inf, math.inf, exact["per_question"][2]]
    assert exact["per_respondent_known_personal"] == math.inf
    # the second group (simulated) keeps its finite figure; against someone who does not know y: the usual formula
    assert math.isfinite(exact["per_question"][0]) and exact["per_question"][0] == exact["per_group"][0]
    # θ = 0: nothing true is ever sent, ε = 0 even against someone who knows y
    zero = mrr_exact_epsilons([0.0], [[0, 1]], personals[:2], real=[0])
    assert zero["per_question_known_personal"] == [0.0, 0.0]


def _oracle_channel(params):
    """The browser's channel of one oracle on value v as {output: probability} (DE, SUE/OUE)."""
    d = params["domain"]
    if params["name"] == "de":
        P = realized_bernoulli(params["p"])
        return lambda v: {r: (P if r == v else (1 - P) / (d - 1)) for r in range(d)}
    P, Q = realized_bernoulli(params["p"]), realized_bernoulli(params["q"])

    def unary(v):
        out = {}
        for bits in itertools.product((0, 1), repeat=d):
            prob = Fraction(1)
            for u, b in enumerate(bits):
                pu = P if u == v else Q
                prob *= pu if b else 1 - pu
            out[bits] = prob
        return out

    return unary


def _ldp_distribution(params, strategy, assignment, k, validation=None):
    channels = [_oracle_channel(p) for p in params]

    def inputs(x):  # x = (feature codes…, class)
        c = x[-1]
        return [c] + [a * k + c for a in x[:-1]]

    def dist(x):
        vals = inputs(x)
        out = {}
        if strategy == "one-report":
            for j, (a, ch) in enumerate(zip(assignment, channels, strict=True)):
                for r, pr in ch(vals[j]).items():
                    out[(j, r)] = Fraction(a) * pr
        else:
            parts = [ch(v) for ch, v in zip(channels, vals, strict=True)]
            for combo in itertools.product(*(list(p.items()) for p in parts)):
                out[tuple(r for r, _ in combo)] = math.prod((pr for _, pr in combo), start=Fraction(1))
        if validation is not None:
            share, predict, vparams = validation
            P = realized_bernoulli(vparams["p"])
            right = int(predict(x[:-1]) == x[-1])
            out = {key: (1 - share) * pr for key, pr in out.items()}
            for b in (0, 1):
                out[("validation", b)] = share * (P if b == right else 1 - P)
        return out

    return dist


@pytest.mark.parametrize("name", ["de", "oue"])
@pytest.mark.parametrize("strategy", ["one-report", "split"])
def test_ldp_nb_closed_form_equals_enumeration(name, strategy):
    k, n1, epsilon = 2, 2, 1.3
    inputs = 2
    per_input = epsilon if strategy == "one-report" else epsilon / inputs
    params = [oracles.get(name, epsilon=per_input, domain=d).params() for d in (k, k * n1)]
    assignment = [Fraction(1, 3), Fraction(2, 3)]
    brute = epsilon_by_enumeration(_ldp_distribution(params, strategy, assignment, k), [n1, k])
    exact = ldp_nb_exact_epsilons(params, strategy, assignment=[1 / 3, 2 / 3])
    # enumeration lists (feature, class); the figures list (class, feature)
    assert exact["per_question"] == pytest.approx([brute["per_question"][1], brute["per_question"][0]], rel=TOL)
    assert exact["per_respondent"] == pytest.approx(brute["per_respondent"], rel=TOL)
    if strategy == "split":
        assert exact["per_question"][0] == pytest.approx(epsilon, rel=1e-9)  # the class rides in every report
        assert exact["per_question"][1] == pytest.approx(epsilon / inputs, rel=1e-9)


def test_validation_report_in_the_accounting():
    """A share of respondents sends "was model v right?" (binary RR at the respondent's ε): worst case over the
    published models, every question's figure becomes max(training, ε_val)."""
    k, n1, epsilon, share = 2, 2, 1.3, Fraction(1, 5)
    params = [oracles.get("de", epsilon=epsilon / 2, domain=d).params() for d in (k, k * n1)]
    vparams = correct_oracle(epsilon).params()
    worst = [0.0, 0.0]
    for table in itertools.product(range(k), repeat=n1):  # every deterministic classifier of the one feature
        classifier = (share, lambda f, table=table: table[f[0]], vparams)
        dist = _ldp_distribution(params, "split", None, k, validation=classifier)
        brute = epsilon_by_enumeration(dist, [n1, k])
        worst = [max(a, b) for a, b in zip(worst, brute["per_question"], strict=True)]
    v_eps = realized_oracle_epsilon(vparams)
    figures = with_validation(ldp_nb_exact_epsilons(params, "split"), v_eps, float(share))
    assert figures["per_question"] == pytest.approx([worst[1], worst[0]], rel=TOL)
    assert figures["per_question"][1] == pytest.approx(epsilon, rel=1e-9)  # the feature's ε/2 becomes ε
    unchanged = with_validation(ldp_nb_exact_epsilons(params, "split"), v_eps, 0.0)
    assert unchanged["per_question"][1] == pytest.approx(epsilon / 2)


def test_one_report_unassigned_inputs_and_bad_strategy():
    params = [oracles.get("de", epsilon=1.0, domain=d).params() for d in (2, 4, 6)]
    out = ldp_nb_exact_epsilons(params, "one-report", assignment=[0.5, 0.5, 0.0])
    assert out["per_question"][2] == 0.0 and out["per_question"][0] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="strategy"):
        ldp_nb_exact_epsilons(params, "other")
    with pytest.raises(ValueError, match="share"):
        with_validation(out, 1.0, 1.5)


# -- RS+FD (Arcolezi et al., CIKM 2021): a published claim against the exact channel (SPEC §3, docs/privacy-figures.md)
def _rsfd(sizes, epsilon):
    """RS+FD with k-RR: sample one of d attributes uniformly, report it by k_j-RR at the paper's amplified
    ε' = ln(d(e^ε − 1) + 1), every other attribute as a uniform fake value. Returns ε' and P(y | x) as a dict."""
    d = len(sizes)
    amplified = math.log(d * (math.exp(epsilon) - 1) + 1)

    def grr(y, x, k):
        return math.exp(amplified) / (math.exp(amplified) + k - 1) if y == x else 1 / (math.exp(amplified) + k - 1)

    def channel(x):
        out = {}
        for y in itertools.product(*(range(k) for k in sizes)):
            out[y] = sum(grr(y[j], x[j], sizes[j]) * math.prod(1 / sizes[i] for i in range(d) if i != j)
                         for j in range(d)) / d
        return out

    return amplified, channel


@pytest.mark.parametrize("sizes, epsilon", [((2, 2), 1.0), ((3, 3, 3), 1.0), ((2, 3, 4), 0.5), ((3, 3), 2.0),
                                            ((2, 2, 8), 1.0)])
def test_rsfd_exact_epsilon_is_the_amplified_one_not_the_claimed_one(sizes, epsilon):
    """The whole report's exact ε is ε' (two records that differ in every attribute, output = one of them). The
    claim ε is the ε of records that differ in one attribute only when every attribute has the same number of
    answers; in general that ε_i is ln((k_i·p_i + S_i)/(k_i·q_i + S_i)), S_i = Σ_{j≠i} k_j·q_j, and exceeds ε for
    the attributes with the most answers."""
    amplified, channel = _rsfd(sizes, epsilon)
    figures = epsilon_by_enumeration(channel, sizes)
    assert figures["per_respondent"] == pytest.approx(amplified, rel=1e-9)
    assert figures["per_respondent"] > epsilon
    e = math.exp(amplified)
    kp = [k * e / (e + k - 1) for k in sizes]
    kq = [k / (e + k - 1) for k in sizes]
    for i, eps_i in enumerate(figures["per_question"]):
        rest = sum(kq) - kq[i]
        assert eps_i == pytest.approx(math.log((kp[i] + rest) / (kq[i] + rest)), rel=1e-9)
    if len(set(sizes)) == 1:
        assert figures["per_question"] == pytest.approx([epsilon] * len(sizes), rel=1e-9)
    else:
        assert max(figures["per_question"]) > epsilon


def test_rsfd_four_questions_of_four_answers_at_one():
    """The figure docs/privacy-figures.md quotes: 4 questions of 4 answers at a claimed ε = 1 are exactly ε = 2.06.
    By enumeration over the 4⁴ records, with the largest ratio attained where the closed form says."""
    sizes, epsilon = (4, 4, 4, 4), 1.0
    amplified, channel = _rsfd(sizes, epsilon)
    records = list(itertools.product(*(range(k) for k in sizes)))
    outputs = records
    matrix = np.array([[channel(x)[y] for y in outputs] for x in records[:1]])  # P(· | x = 0000)
    other = np.array([[channel((1, 1, 1, 1))[y] for y in outputs]])
    ratio = float(np.log(matrix / other).max())
    assert ratio == pytest.approx(amplified, rel=1e-12)
    assert round(amplified, 2) == 2.06
    # No pair of records does better: the largest P(y | x) over x is at x = y, the smallest at x differing everywhere.
    column = np.array([channel(x)[(0, 0, 0, 0)] for x in records])
    assert math.log(column.max() / column.min()) == pytest.approx(amplified, rel=1e-12)
