"""Skip logic in the engine (``privacy.skip``): a hidden question's "not asked" is one more value of its attribute, so
each mechanism runs on the enlarged domain — its exact ε taken over it, its estimator recovering the "not asked" share —
and the report tells the branch a respondent took by at most e^ε in likelihood (exact ratios, every output)."""
import itertools
import math

import numpy as np
import pytest

from aggregator.privacy import protocol as survey_protocol
from aggregator.privacy.channel import epsilon_of_channel
from aggregator.privacy.exact_epsilon import epsilon_by_enumeration
from aggregator.privacy.skip import SkipRule, apply, apply_rows, check

CLASS = {"kind": "categorical", "name": "sick", "values": ["no", "yes"]}
SMOKER = {"kind": "categorical", "name": "smoker", "values": ["never", "sometimes", "daily"]}
CIGARETTES = {"kind": "categorical", "name": "cigarettes",
              "values": ["1 to 5", "6 to 20", "more than 20", "not asked"]}
NOT_ASKED = 3
RULE = SkipRule(target=1, gate=0, shown=frozenset({1, 2}), not_asked=NOT_ASKED)
K = len(CLASS["values"])


def ldp(encoding: str, epsilon: float = 1.0) -> dict:
    return {"mode": "ldp", "class": CLASS, "features": [SMOKER, CIGARETTES],
            "ldp": {"epsilon": epsilon, "encoding": encoding, "strategy": "one-report"}}


def mrr(theta: float = 0.6) -> dict:
    return {"mode": "mrr", "class": CLASS, "features": [SMOKER, CIGARETTES], "mrr": {"theta": theta}}


# -- the rule --------------------------------------------------------------------------------------------------
def test_a_hidden_question_takes_its_not_asked_value_and_a_question_behind_it_too():
    behind = SkipRule(target=2, gate=1, shown=frozenset({0}), not_asked=2)
    assert apply([0, 2], [RULE]) == [0, NOT_ASKED]  # never smokes: not asked, whatever the field held
    assert apply([2, 1], [RULE]) == [2, 1]
    assert apply([0, 0, 1], [RULE, behind]) == [0, NOT_ASKED, 2]  # the gate is hidden: so is what it shows
    assert apply([1, 0, 1], [RULE, behind]) == [1, 0, 1]
    assert SkipRule.from_dict(RULE.to_dict()) == RULE


@pytest.mark.parametrize("rule, message", [
    (SkipRule(1, 1, frozenset({0}), 3), "earlier"),
    (SkipRule(0, 1, frozenset({0}), 2), "earlier"),
    (SkipRule(1, 0, frozenset({3}), 3), "answers of its question"),
    (SkipRule(1, 0, frozenset(), 3), "answers of its question"),
    (SkipRule(1, 0, frozenset({1}), 2), "last of its domain"),
])
def test_a_rule_that_does_not_fit_the_domains_is_refused(rule, message):
    check([RULE], [3, 4])
    with pytest.raises(ValueError, match=message):
        check([rule], [3, 4])


# -- the enlarged domain and its exact ε ------------------------------------------------------------------------
@pytest.mark.parametrize("encoding", ["de", "oue", "olh", "ss"])
def test_the_oracle_runs_over_the_enlarged_domain(encoding):
    protocol = survey_protocol.build(ldp(encoding))
    assert protocol.nb.oracles[2].domain == len(CIGARETTES["values"]) * K  # (d + 1)·k joint values (SPEC §4)


def test_de_exact_epsilon_is_the_channels_over_the_enlarged_domain():
    protocol = survey_protocol.build(ldp("de"))
    fo = protocol.nb.oracles[2]
    measured = epsilon_of_channel(fo.channel())  # every pair of the 8 joint values, "not asked" ones included
    shown = protocol.privacy()["epsilon_per_question"]["cigarettes"]
    assert measured == pytest.approx(shown, rel=1e-9)
    assert shown == pytest.approx(1.0, rel=1e-9)


def mrr_record_distribution(theta: float, personal: list[np.ndarray]):
    """The MRR channel of one group over whole records (SPEC §2): P(r | x) = θ·[r = x] + (1 − θ)·Π P_Y,i(r_i)."""
    sizes = [len(p) for p in personal]
    records = list(itertools.product(*(range(s) for s in sizes)))

    def distribution(x: tuple) -> dict:
        return {r: theta * (r == x) + (1 - theta) * math.prod(p[v] for p, v in zip(personal, r, strict=True))
                for r in records}

    return sizes, distribution


def test_mrr_covers_not_asked_and_its_exact_epsilon_is_the_enumerated_one():
    protocol = survey_protocol.build(mrr())
    scheme = protocol.scheme
    names = [a.name for a in scheme.attributes]
    personal = [np.asarray(p, dtype=float) for p in scheme.personal]
    cigarettes = personal[names.index("cigarettes")]
    assert cigarettes[NOT_ASKED] == pytest.approx(1 / 4)  # uniform: "not asked" is as likely a stand-in as any
    sizes, distribution = mrr_record_distribution(0.6, personal)
    enumerated = epsilon_by_enumeration(distribution, sizes)
    shown = protocol.privacy()["epsilon_per_question"]
    for i, name in enumerate(names):
        assert shown[name] == pytest.approx(enumerated["per_question"][i], rel=1e-9)
    assert math.isfinite(shown["cigarettes"])


# -- the branch is told no more surely than an answer: exact likelihood ratios -----------------------------------------
def oracle_output_probabilities(fo, value: int) -> dict:
    """Every output of a one-value (DE) or unary (OUE) oracle with its probability given true ``value``."""
    if fo.name == "de":
        return {r: fo.p if r == value else fo.q for r in range(fo.domain)}
    out = {}
    for bits in itertools.product((0, 1), repeat=fo.domain):
        prob = 1.0
        for i, b in enumerate(bits):
            one = fo.p if i == value else fo.q
            prob *= one if b else 1 - one
        out[bits] = prob
    return out


@pytest.mark.parametrize("encoding", ["de", "oue"])
@pytest.mark.parametrize("sick", [0, 1])
def test_an_ldp_report_tells_the_branch_by_at_most_e_to_the_epsilon(encoding, sick):
    """A respondent who never smokes (cigarettes not asked) against one who smokes daily and answered each choice:
    over every report the browser can send (the assigned input and its oracle report), the largest likelihood ratio
    is e^ε of the figure shown — attained, so the figure is exact — and never more."""
    protocol = survey_protocol.build(ldp(encoding))
    shown = protocol.privacy()["epsilon_per_respondent"]
    assignment = protocol.nb.assignment
    never = apply([0, 1], [RULE])  # the field still held an answer: it is not what is sent
    for answered in range(NOT_ASKED):
        daily = apply([2, answered], [RULE])
        worst = 0.0
        for j, fo in enumerate(protocol.nb.oracles):
            ours, theirs = (sick, sick) if j == 0 else (never[j - 1] * K + sick, daily[j - 1] * K + sick)
            a, b = oracle_output_probabilities(fo, ours), oracle_output_probabilities(fo, theirs)
            for r in a:
                worst = max(worst, abs(math.log((assignment[j] * a[r]) / (assignment[j] * b[r]))))
        assert worst <= shown * (1 + 1e-12)
        assert worst == pytest.approx(shown, rel=1e-9)


def test_an_mrr_report_tells_the_branch_by_at_most_the_groups_epsilon():
    protocol = survey_protocol.build(mrr())
    scheme = protocol.scheme
    personal = [np.asarray(p, dtype=float) for p in scheme.personal]
    sizes, distribution = mrr_record_distribution(0.6, personal)
    shown = protocol.privacy()["epsilon_per_respondent"]
    for sick in range(K):
        never = tuple(apply([0, 0], [RULE])) + (sick,)
        for answered in range(NOT_ASKED):
            daily = tuple(apply([2, answered], [RULE])) + (sick,)
            a, b = distribution(never), distribution(daily)
            worst = max(abs(math.log(a[r] / b[r])) for r in a)
            assert worst <= shown * (1 + 1e-9)
            assert worst == pytest.approx(shown, rel=1e-6)


# -- the estimator recovers the "not asked" share -----------------------------------------------------------------
@pytest.mark.parametrize("encoding", ["oue", "de"])
def test_the_not_asked_share_is_recovered_within_its_standard_error(encoding):
    """60,000 reports of the cigarettes input: a third never smoke (not asked). The estimated share is within 4.5
    standard errors (exact count covariance, SPEC §3) of the truth: a false alarm once in about 150,000 runs."""
    rng = np.random.default_rng(24)
    n = 60_000
    protocol = survey_protocol.build(ldp(encoding))
    fo = protocol.nb.oracles[2]
    smoker = rng.integers(0, 3, n)
    cigarettes = np.array([apply([s, c], [RULE])[1] for s, c in zip(smoker, rng.integers(0, 3, n), strict=True)])
    sick = (rng.random(n) < np.where(smoker == 2, 0.6, 0.3)).astype(np.int64)
    values = cigarettes * K + sick
    estimate = fo.estimate(fo.aggregate(fo.perturb(values, rng)))
    cells = [NOT_ASKED * K + c for c in range(K)]
    true_counts = np.bincount(values, minlength=fo.domain)
    covariance = fo.count_covariance(n, true_counts)[np.ix_(cells, cells)]
    share, truth = estimate[cells].sum() / n, true_counts[cells].sum() / n
    assert truth == pytest.approx(1 / 3, abs=0.01)
    assert abs(share - truth) < 4.5 * math.sqrt(covariance.sum()) / n


def test_the_rows_form_is_the_record_form_on_every_row():
    behind = SkipRule(target=2, gate=1, shown=frozenset({0, 1}), not_asked=2)
    rows = np.array(list(itertools.product(range(3), range(4), range(2))))
    expected = np.array([apply(list(r), [RULE, behind]) for r in rows])
    assert (apply_rows(rows, [behind, RULE]) == expected).all()  # the rules in any order
    assert (apply_rows(rows, []) == rows).all()
