"""Poisoning attacks (Cao, Jia & Gong 2021) against DE, OUE and OLH, their frequency gain, and their detection by
``privacy.plausibility`` and ``privacy.monitoring`` at β = 5 % fake users (issue 5).

Gains: the measured gain Σ_T (f̂_after − f̂_before) lies within 5 of its standard errors of the theory
(``poisoning.expected_gain``), which reproduces the paper's closed forms. Detection: each attack is flagged at the
report count where its expected z-score is about 6 (stated per test), honest data at the same sizes is not (false
alarms ≤ 6.3·10⁻⁵ per check, see tests/engine/test_plausibility.py); seeds are fixed.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from aggregator.lab import poisoning
from aggregator.privacy import monitoring, oracles
from aggregator.privacy import plausibility as pl
from aggregator.privacy.protocol import build

BETA = 0.05
Z = monitoring.Z_WARN


def values(d, n, rng, zeros=0):
    """n true values from a skewed distribution over d values; the last ``zeros`` values are never taken (targets
    are chosen among them, the attacker's favourite case: items nobody holds)."""
    f = np.sort(rng.dirichlet(np.ones(d - zeros)))[::-1]
    return rng.choice(d - zeros, size=n, p=f)


# -- gains -----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["de", "oue", "olh"])
@pytest.mark.parametrize("attack", poisoning.ATTACKS)
@pytest.mark.parametrize("targets", [[15], [13, 14, 15]])
def test_measured_gain_matches_the_theory(name, attack, targets):
    rng = np.random.default_rng(11)
    fo = oracles.get(name, epsilon=1.0, domain=16)
    out = poisoning.simulate(fo, values(16, 20_000, rng), attack, targets, BETA, rng)
    assert abs(out.gain - out.expected_gain) < 5 * out.gain_standard_error + 1e-9
    if attack == "mga":  # the crafted reports support every target (OLH: a seed mapping them together was found)
        assert out.fake_target_support == (1.0 if name == "de" else len(targets))


def test_gain_is_the_change_of_the_estimates():
    """The gain ``simulate`` reports is exactly Σ_T f̂ after − before, the estimates being the oracle's own."""
    rng = np.random.default_rng(12)
    fo = oracles.get("oue", epsilon=1.0, domain=8)
    true = values(8, 5000, rng)
    honest = fo.perturb(true, np.random.default_rng(13))
    fake = poisoning.fake_reports(fo, "mga", [6, 7], poisoning.fake_count(5000, BETA), rng)
    both = poisoning.combine(fo, honest, fake)
    before = fo.estimate(fo.aggregate(honest)) / 5000
    after = fo.estimate(fo.aggregate(both)) / both.shape[0]
    out = poisoning.simulate(fo, true, "mga", [6, 7], BETA, np.random.default_rng(13))  # same honest reports first
    assert out.gain == pytest.approx(after[[6, 7]].sum() - before[[6, 7]].sum(), abs=1e-12)


@pytest.mark.parametrize("epsilon, d, r, f_t", [(1.0, 16, 1, 0.0), (2.0, 40, 3, 0.1), (0.5, 5, 2, 0.3)])
def test_theory_reproduces_the_papers_gain_formulas(epsilon, d, r, f_t):
    e, targets = math.exp(epsilon), list(range(d - r, d))
    de, oue = oracles.get("de", epsilon=epsilon, domain=d), oracles.get("oue", epsilon=epsilon, domain=d)
    olh = oracles.get("olh", epsilon=epsilon, domain=d)

    def gain(fo, attack):
        return poisoning.expected_gain(fo, BETA, poisoning.target_support(fo, attack, targets), r, f_t)

    assert gain(de, "mga") == pytest.approx(BETA * (1 - f_t) + BETA * (d - r) / (e - 1))
    assert gain(oue, "mga") == pytest.approx(BETA * (2 * r * e / (e - 1) - f_t))
    assert gain(de, "rpa") == pytest.approx(BETA * (r / d - f_t))
    assert gain(oue, "rpa") == pytest.approx(BETA * (r - f_t))
    assert gain(olh, "rpa") == pytest.approx(-BETA * f_t)
    for fo in (de, oue, olh):
        assert gain(fo, "ria") == pytest.approx(BETA * (1 - f_t))
    # OLH's MGA with g buckets: β(r(1 − 1/g)/(p − 1/g) − f_T), which is OUE's when g = e^ε + 1 exactly
    assert gain(olh, "mga") == pytest.approx(BETA * (r * (1 - 1 / olh.g) / (olh.p - 1 / olh.g) - f_t))


def test_padded_mga_reports_have_the_expected_number_of_ones():
    fo = oracles.get("oue", epsilon=1.0, domain=16)
    reports = poisoning.fake_reports(fo, "mga", [15], 1000, np.random.default_rng(14))
    ones = pl.support_matrix(fo, reports).sum(axis=1)
    assert (ones == round(fo.p + 15 * fo.q)).all()
    unpadded = poisoning.fake_reports(fo, "mga", [15], 10, np.random.default_rng(14), pad=False)
    assert (pl.support_matrix(fo, unpadded).sum(axis=1) == 1).all()


def test_attack_arguments_are_checked():
    fo = oracles.get("oue", epsilon=1.0, domain=4)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError):
        poisoning.fake_reports(fo, "flood", [1], 3, rng)
    with pytest.raises(ValueError):
        poisoning.fake_reports(fo, "mga", [4], 3, rng)
    with pytest.raises(ValueError):
        poisoning.fake_reports(oracles.get("she", epsilon=1.0, domain=4), "mga", [1], 3, rng)
    with pytest.raises(ValueError):
        poisoning.fake_count(100, 1.0)


# -- detection on the bare oracles ----------------------------------------------------------------------------------

def flagged(name, d, n, attack, targets, seed=21, zeros=0, **options):
    rng = np.random.default_rng(seed)
    fo = oracles.get(name, epsilon=1.0, domain=d)
    out = poisoning.simulate(fo, values(d, n, rng, zeros), attack, targets, BETA, rng, **options)
    assert not [f for f in out.honest_findings if f["warning"]], out.honest_findings
    return out


def test_oue_mga_padded_to_the_expected_ones_is_flagged_by_their_spread():
    """Padded MGA reports all hold round(p + (d−1)q) ones, so the variance of the ones count drops to ≈ (1−β)σ²:
    z ≈ −β·σ²·√N/√(κ₄ + 2σ⁴) ≈ −6.7 at N = 52,600 (d = 16, ε = 1). Their mean matches: the mass check is silent."""
    out = flagged("oue", 16, 50_000, "mga", [15])
    assert "spread" in out.flagged and "mass" not in out.flagged
    (spread,) = [f for f in out.findings if f["check"] == "spread"]
    assert spread["worst_z"] < -Z


def test_oue_mga_on_several_targets_is_flagged_by_pairs():
    """Three targets: every fake report sets all three bits, adding (1 − q)² to D_uv of each target pair;
    z ≈ β(1 − q)²√N/(q(1 − q)) ≈ 19 at N = 21,000."""
    out = flagged("oue", 16, 20_000, "mga", [13, 14, 15])
    (pairs,) = [f for f in out.findings if f["check"] == "pairs"]
    assert pairs["warning"] and set(pairs["pair"]) <= {13, 14, 15}


def test_oue_mga_without_padding_is_flagged_by_the_ones_count_mean():
    out = flagged("oue", 16, 20_000, "mga", [15], pad=False)
    assert "mass" in out.flagged


def test_olh_mga_is_flagged_by_the_sum_of_its_estimates():
    """Σ_v f̂_v = 1 for honest data; MGA raises it by β(r(1−q)/(p−q) − 1) (r targets in the fake's bucket).
    One target, d = 8, ε = 1 (g = 4): z ≈ β(r(1−q) − (p−q))·√N/σ_S ≈ 6 at N = 105,000; three targets at N = 21,000."""
    for targets, n in (([7], 100_000), ([5, 6, 7], 20_000)):
        out = flagged("olh", 8, n, "mga", targets)
        (mass,) = [f for f in out.findings if f["check"] == "mass"]
        assert mass["warning"] and mass["estimate_sum"] > 1, mass


def test_de_mga_is_flagged_by_estimates_below_zero():
    """DE MGA lowers every non-target estimate by β/(e^ε − 1); values nobody holds sit at
    z ≈ β√(N/(e^ε + d − 2)) ≈ 5.5 for d = 8, ε = 1, N = 105,000 (two such values besides the target)."""
    out = flagged("de", 8, 100_000, "mga", [7], zeros=3)
    (found,) = [f for f in out.findings if f["check"] == "range"]
    assert found["warning"] and found["min"] < 0


def test_ria_is_not_detectable_by_report_statistics():
    """RIA fake users are honest reports of a target: nothing in a report differs (the paper's point that RIA is
    the attack detection cannot stop); only the gain β(1 − f_T) is small."""
    out = flagged("oue", 16, 20_000, "ria", [13, 14, 15])
    assert out.flagged == []


# -- through a survey: LDP Naive Bayes --------------------------------------------------------------------------------

CONFIG = {"mode": "ldp", "class": {"kind": "categorical", "name": "sick", "values": ["no", "yes"]},
          "features": [{"kind": "categorical", "name": "smoker", "values": ["never", "sometimes", "daily", "ex"]}]}


def survey(encoding):
    return build({**CONFIG, "ldp": {"epsilon": 1.0, "encoding": encoding}})


def honest_payloads(protocol, n, seed):
    """Smokers are never 'ex' (code 3): P(smoker = ex ∧ sick) = 0, a cell an attacker can inflate."""
    rng = np.random.default_rng(seed)
    X = rng.choice(3, size=(n, 1), p=[0.5, 0.3, 0.2]).astype(float)
    y = (rng.random(n) < np.where(X[:, 0] == 2, 0.7, 0.2)).astype(np.int64)
    return protocol.encode(X, y, rng)


def warnings_of(protocol, payloads):
    stats = protocol.fold(payloads)
    model = protocol.estimate(stats)
    found = pl.findings(protocol, pl.protocol_checks(protocol, payloads)) + monitoring.out_of_range(model)
    return {f["check"] if "check" in f else "out_of_range" for f in found if f["warning"]}, model


@pytest.mark.parametrize("encoding, n", [("oue", 40_000), ("olh", 40_000), ("de", 200_000)])
def test_survey_attack_is_flagged_and_jumps(encoding, n):
    """Fake users (β = 5 %) inflate P(smoker = ex ∧ sick = yes) — value 3·2 + 1 = 7 of the joint input 1 — with MGA.
    Honest surveys of the same size raise no warning. The poisoned survey is flagged: by the assignment check
    (every fake reports input 1), by the report checks (OUE spread, OLH mass) or the estimates below zero (DE), and,
    published as the next version after an honest one, by the jump of the attacked parameter."""
    protocol = survey(encoding)
    honest = honest_payloads(protocol, n, seed=31)
    honest_warnings, before = warnings_of(protocol, honest)
    assert honest_warnings == set()
    m = poisoning.fake_count(n, BETA)
    fake = poisoning.survey_payloads(protocol, 1, "mga", [7], m, np.random.default_rng(32))
    poisoned_warnings, after = warnings_of(protocol, honest + fake)
    assert "assignment" in poisoned_warnings
    assert {"oue": "spread", "olh": "mass", "de": "range"}[encoding] in poisoned_warnings
    raw_before, raw_after = before.metadata["joint_raw"][0][3, 1], after.metadata["joint_raw"][0][3, 1]
    assert raw_after - raw_before > 0.1  # the attack works: P(ex ∧ sick) jumps from ≈ 0
    jumps = monitoring.jumps(before, after)
    assert any(j["parameter"] == "P(a ∧ c) smoker" and j["warning"] for j in jumps)
