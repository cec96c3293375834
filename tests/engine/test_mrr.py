"""MRR (SPEC §2, seed 004 §3): client, additive statistics, unbiased NB estimation, accuracy on randomized data."""
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

import aggregator.privacy.mrr as mrr_mod
from aggregator.privacy.mrr import MRRScheme, MRRStats, randomized_accuracy
from aggregator.privacy.schema import Categorical

ATTRS = [
    Categorical("colour", ("r", "g", "b")),
    Categorical("smoker", ("no", "yes")),
    Categorical("label", ("neg", "pos")),
]
CLASS = 2
# Population: P(c), P(a|c) for colour and smoker (columns = classes).
P_C = np.array([0.35, 0.65])
P_COLOUR = np.array([[0.6, 0.1], [0.3, 0.3], [0.1, 0.6]])
P_SMOKER = np.array([[0.8, 0.3], [0.2, 0.7]])
PERSONAL = [np.array([0.2, 0.3, 0.5]), np.array([0.5, 0.5]), np.array([0.3, 0.7])]


def _inverse_cdf(u, cols):
    """Row-wise categorical draw: cols[:, j] is the distribution for draw j."""
    cdf = np.cumsum(cols, axis=0)
    return np.minimum((u[None, :] >= cdf).sum(axis=0), cols.shape[0] - 1)


def sample_population(n, rng):
    c = (rng.random(n) < P_C[1]).astype(np.int64)
    colour = _inverse_cdf(rng.random(n), P_COLOUR[:, c])
    smoker = _inverse_cdf(rng.random(n), P_SMOKER[:, c])
    return np.column_stack([colour, smoker, c])


TRUE_JOINT = [P_COLOUR * P_C[None, :], P_SMOKER * P_C[None, :]]


class RestrictedRng:
    """Exposes only the primitives client halves may use."""

    def __init__(self, seed):
        self._g = np.random.default_rng(seed)
        self.calls = []

    def random(self, size=None):
        self.calls.append(("random", size))
        return self._g.random(size)

    def integers(self, low, high=None, size=None):
        self.calls.append(("integers", size))
        return self._g.integers(low, high, size)


CONFIGS = [
    (theta, grouping)
    for theta in (0.3, 0.7, 1.0)
    for grouping in ("same", "different")
]


def _scheme(theta, grouping):
    if grouping == "same":
        return MRRScheme(ATTRS, CLASS, theta, personal=PERSONAL)
    # colour + smoker in one group (θ), the class alone with θ_h = 0.6.
    return MRRScheme(ATTRS, CLASS, [theta, 0.6], groups=[[0, 1], [2]], personal=PERSONAL)


@pytest.mark.parametrize("theta,grouping", CONFIGS)
def test_estimator_unbiased_and_standard_errors_match(theta, grouping):
    # reps i.i.d. surveys of n respondents drawn fresh from the population, so SPEC's Var = P*(1-P*)/(nθ²)
    # (and its four-term analogue) is the exact sampling variance with P* the population's randomized fraction.
    reps, n = 300, 2000
    scheme = _scheme(theta, grouping)
    rng = np.random.default_rng(12345 + int(theta * 10) + (grouping == "different"))
    priors, priors_se2, joints, joints_se2 = [], [], [], []
    for _ in range(reps):
        X = sample_population(n, rng)
        est = scheme.estimate(scheme.aggregate(scheme.perturb(X, rng)))
        priors.append(est.prior_raw)
        priors_se2.append(est.prior_se**2)
        joints.append(np.concatenate([j.ravel() for j in est.joint_raw]))
        joints_se2.append(np.concatenate([s.ravel() for s in est.joint_se]) ** 2)
    values = np.column_stack([np.array(priors), np.array(joints)])
    se2 = np.column_stack([np.array(priors_se2), np.array(joints_se2)])
    truth = np.concatenate([P_C] + [j.ravel() for j in TRUE_JOINT])
    model_var = se2.mean(axis=0)
    # Unbiased: |mean − truth| < 5 standard errors of the mean (SE² averaged over reps / reps).
    z = (values.mean(axis=0) - truth) / np.sqrt(model_var / reps)
    print(f"theta={theta} {grouping}: max |z| of means = {np.abs(z).max():.2f}")
    assert np.all(np.abs(z) < 5), z
    # Variance: (reps−1)s²/σ² ~ χ²(reps−1); accept the two-sided 1e-5 band for each of the 14 estimates.
    ratio = values.var(axis=0, ddof=1) / model_var
    lo = sps.chi2.ppf(1e-5, reps - 1) / (reps - 1)
    hi = sps.chi2.ppf(1 - 1e-5, reps - 1) / (reps - 1)
    print(f"  empirical/SE² variance ratios in [{ratio.min():.3f}, {ratio.max():.3f}], band [{lo:.3f}, {hi:.3f}]")
    assert np.all((ratio > lo) & (ratio < hi)), ratio


def test_theta_one_gives_empirical_frequencies():
    rng = np.random.default_rng(3)
    X = sample_population(500, rng)
    scheme = MRRScheme(ATTRS, CLASS, 1.0, personal=PERSONAL)
    R = scheme.perturb(X, rng)
    assert np.array_equal(R, X)
    est = scheme.estimate(scheme.aggregate(R))
    counts = np.bincount(X[:, CLASS], minlength=2)
    np.testing.assert_allclose(est.prior, counts / 500, atol=1e-12)
    np.testing.assert_allclose(est.prior_raw, counts / 500, atol=1e-12)
    for j, i in enumerate((0, 1)):
        joint = np.zeros((ATTRS[i].size, 2))
        np.add.at(joint, (X[:, i], X[:, CLASS]), 1)
        np.testing.assert_allclose(est.conditionals[j], joint / counts[None, :], atol=1e-12)
        np.testing.assert_allclose(est.conditionals[j].sum(axis=0), 1.0)


def test_theta_zero_sends_personal_answers_with_declared_distribution():
    rng = np.random.default_rng(4)
    n = 40000
    X = np.zeros((n, 3), dtype=np.int64)
    R = MRRScheme(ATTRS, CLASS, 0.0, personal=PERSONAL).perturb(X, rng)
    for i, p in enumerate(PERSONAL):
        freq = np.bincount(R[:, i], minlength=p.size) / n
        # 5 binomial standard errors
        assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / n)), (i, freq)


def test_groups_switch_together_and_real_personal_answers_are_used():
    scheme = MRRScheme(ATTRS, CLASS, [0.5, 0.5], groups=[[0, 1], [2]], personal_mode="real")
    n = 2000
    X = np.zeros((n, 3), dtype=np.int64)
    Y = np.ones((n, 3), dtype=np.int64)
    rng = RestrictedRng(5)
    R = scheme.perturb(X, rng, personal=Y)
    assert np.array_equal(R[:, 0], R[:, 1])  # same group: true or personal together
    assert {c[0] for c in rng.calls} <= {"random", "integers"}
    # the class's group is independent: both combinations occur
    assert np.any(R[:, 0] != R[:, 2]) and np.any(R[:, 0] == R[:, 2])
    # "real" mode without the answers (simulation): drawn from P_Y exactly like "simulated" mode
    simulated = MRRScheme(ATTRS, CLASS, [0.5, 0.5], groups=[[0, 1], [2]])
    assert np.array_equal(scheme.perturb(X, np.random.default_rng(7)), simulated.perturb(X, np.random.default_rng(7)))
    with pytest.raises(ValueError, match="personal"):
        scheme.perturb(X, rng, personal=Y[:, :2])


def test_client_uses_only_random_and_integers():
    rng = RestrictedRng(6)
    R = _scheme(0.5, "different").perturb(sample_population(100, np.random.default_rng(0)), rng)
    assert R.shape == (100, 3)
    assert [c[0] for c in rng.calls] == ["random"] * (2 + 3)  # one per group, one per attribute


report_arrays = st.integers(0, 60).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 2), min_size=n, max_size=n),
        st.lists(st.integers(0, 1), min_size=n, max_size=n),
        st.lists(st.integers(0, 1), min_size=n, max_size=n),
        st.integers(0, n),
    )
)


@settings(max_examples=50, deadline=None)
@given(report_arrays)
def test_stats_are_additive_and_round_trip(data):
    a, b, c, cut = data
    R = np.column_stack([np.array(v, dtype=np.int64) for v in (a, b, c)]).reshape(-1, 3)
    scheme = MRRScheme(ATTRS, CLASS, 0.5)
    whole = scheme.aggregate(R)
    assert scheme.aggregate(R[:cut]) + scheme.aggregate(R[cut:]) == whole
    assert sum([scheme.aggregate(R[:cut]), scheme.aggregate(R[cut:])]) == whole
    assert MRRStats.from_dict(json.loads(json.dumps(whole.to_dict()))) == whole
    assert whole.n == R.shape[0] and whole.class_counts.sum() == R.shape[0]


def test_validation_errors():
    with pytest.raises(ValueError, match="theta"):
        MRRScheme(ATTRS, CLASS, 1.2)
    with pytest.raises(ValueError, match="theta"):
        MRRScheme(ATTRS, CLASS, [0.5, 0.5])  # one group, two thetas
    with pytest.raises(ValueError, match="groups"):
        MRRScheme(ATTRS, CLASS, 0.5, groups=[[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="groups"):
        MRRScheme(ATTRS, CLASS, 0.5, groups=[[0, 1]])
    with pytest.raises(ValueError, match="class_index"):
        MRRScheme(ATTRS, 3, 0.5)
    with pytest.raises(ValueError, match="personal"):
        MRRScheme(ATTRS, CLASS, 0.5, personal=[[0.5, 0.6, -0.1], [0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="personal"):
        MRRScheme(ATTRS, CLASS, 0.5, personal=[[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="personal_mode"):
        MRRScheme(ATTRS, CLASS, 0.5, personal_mode="imagined")
    scheme = MRRScheme(ATTRS, CLASS, 0.5)
    with pytest.raises(ValueError, match="reports"):
        scheme.aggregate(np.array([[0, 2, 1]]))  # smoker code 2 out of range
    with pytest.raises(ValueError, match="reports"):
        scheme.aggregate(np.array([0, 1, 1]))
    with pytest.raises(ValueError, match="n = 0"):
        scheme.estimate(scheme.zero_stats())
    with pytest.raises(ValueError, match="theta"):
        zero = MRRScheme(ATTRS, CLASS, 0.0)
        zero.estimate(zero.aggregate(np.array([[0, 1, 1]])))


def test_postprocess_options_give_distributions():
    rng = np.random.default_rng(8)
    scheme = MRRScheme(ATTRS, CLASS, 0.2, personal=PERSONAL)
    stats = scheme.aggregate(scheme.perturb(sample_population(150, rng), rng))
    for method in ("norm-sub", "neg-to-one"):
        est = scheme.estimate(stats, postprocess=method)
        assert np.all(est.prior >= 0) and np.isclose(est.prior.sum(), 1)
        for cond in est.conditionals:
            assert np.all(cond >= 0) and np.allclose(cond.sum(axis=0), 1)
    with pytest.raises(ValueError, match="post-processing"):
        scheme.estimate(stats, postprocess="magic")


def test_neg_to_one_works_on_counts():
    # θ = 1 and every cell count ≥ 1: the seed's rule changes nothing, so both methods give the empirical
    # frequencies (applied to fractions instead of counts, neg-to-one would flatten everything to uniform).
    rng = np.random.default_rng(11)
    X = sample_population(2000, rng)
    scheme = MRRScheme(ATTRS, CLASS, 1.0, personal=PERSONAL)
    stats = scheme.aggregate(X)
    assert all(np.all(j >= 1) for j in stats.joint)
    for method in ("norm-sub", "neg-to-one"):
        est = scheme.estimate(stats, postprocess=method)
        np.testing.assert_allclose(est.prior, stats.class_counts / 2000, atol=1e-12)
        for cond, joint in zip(est.conditionals, stats.joint, strict=True):
            np.testing.assert_allclose(cond, joint / stats.class_counts[None, :], atol=1e-12)


def test_to_model():
    pytest.importorskip("aggregator.privacy.naive_bayes.model")
    rng = np.random.default_rng(9)
    scheme = MRRScheme(ATTRS, CLASS, 0.8, personal=PERSONAL)
    est = scheme.estimate(scheme.aggregate(scheme.perturb(sample_population(3000, rng), rng)))
    model = est.to_model()
    np.testing.assert_allclose(np.asarray(model.prior), est.prior)
    for got, want in zip(model.conditionals, est.conditionals, strict=True):
        np.testing.assert_allclose(np.asarray(got), want)


def _classifier(F):
    """A fixed, known classifier on (colour, smoker): positive iff colour = b or smoker = yes."""
    return ((F[:, 0] == 2) | (F[:, 1] == 1)).astype(np.int64)


@pytest.mark.parametrize("theta", [0.4, 0.8])
def test_randomized_accuracy_estimates_true_accuracy(theta):
    rng = np.random.default_rng(int(theta * 100))
    scheme = MRRScheme(ATTRS, CLASS, theta, personal=PERSONAL)
    n_test, reps = 5000, 20
    zs = []
    for _ in range(reps):
        X = sample_population(n_test, rng)
        true_acc = np.mean(_classifier(X[:, :2]) == X[:, 2])
        est, se = randomized_accuracy(_classifier, scheme.perturb(X, rng), scheme)
        zs.append((est - true_acc) / se)
    zs = np.array(zs)
    print(f"theta={theta}: accuracy z-scores max |z| = {np.abs(zs).max():.2f}, mean z = {zs.mean():.2f}")
    # each within 5 SE; the mean of 20 z-scores (each of sd ≤ 1) within 5/√20
    assert np.all(np.abs(zs) < 5)
    assert abs(zs.mean()) < 5 / np.sqrt(reps)


def test_randomized_accuracy_monte_carlo_matches_enumeration(monkeypatch):
    scheme = MRRScheme(ATTRS, CLASS, 0.5, personal=PERSONAL)
    exact, se0 = mrr_mod._personal_correct_rate(_classifier, scheme, None, 0)
    # Exact P_Y(cc) by hand: Σ_y P_Y(colour)P_Y(smoker)P_Y,C(pred).
    by_hand = sum(
        PERSONAL[0][a] * PERSONAL[1][b] * PERSONAL[2][int(a == 2 or b == 1)] for a in range(3) for b in range(2)
    )
    assert se0 == 0 and np.isclose(exact, by_hand)
    monkeypatch.setattr(mrr_mod, "MAX_ENUMERATE", 2)
    with pytest.raises(ValueError, match="rng"):
        mrr_mod._personal_correct_rate(_classifier, scheme, None, 1000)
    mc, se = mrr_mod._personal_correct_rate(_classifier, scheme, np.random.default_rng(10), 50000)
    assert se > 0 and abs(mc - exact) < 5 * se


def test_randomized_accuracy_rejects_bad_predictions():
    scheme = MRRScheme(ATTRS, CLASS, 0.5, personal=PERSONAL)
    R = np.zeros((4, 3), dtype=np.int64)
    with pytest.raises(ValueError, match="predict"):
        randomized_accuracy(lambda F: np.full(F.shape[0], 2), R, scheme)  # class code 2 of 2 classes
    with pytest.raises(ValueError, match="predict"):
        randomized_accuracy(lambda F: np.zeros(1, dtype=np.int64), R, scheme)


def test_randomized_accuracy_needs_one_group():
    scheme = _scheme(0.5, "different")
    with pytest.raises(ValueError, match="one group"):
        randomized_accuracy(_classifier, np.zeros((3, 3), dtype=np.int64), scheme)
