"""A public reference sample as the conditionals' prior (aggregator/privacy/public_prior.py): the reports decide its
weight. Synthetic data with known conditionals; fixed seeds. Tolerances are stated per test."""
import numpy as np
import pytest

from aggregator.privacy import protocol as survey_protocol
from aggregator.privacy.public_prior import centres, public_share, reference_counts, with_public_prior
from aggregator.privacy.schema import Numeric

CLASS = {"kind": "categorical", "name": "c", "values": ["a", "b"]}
FEATURES = [{"kind": "categorical", "name": f"q{i}", "values": ["0", "1", "2"]} for i in range(4)]
#: P(answer | class): each question leans toward its class's answer.
TRUE = np.array([[0.6, 0.2], [0.3, 0.3], [0.1, 0.5]])


def draw(rng, n, conditionals=TRUE):
    y = (rng.random(n) < 0.5).astype(np.int64)
    X = np.column_stack([
        np.array([rng.choice(3, p=conditionals[:, c]) for c in y]) for _ in FEATURES]).astype(np.float64)
    return X, y


def fit(rng, n, epsilon):
    protocol = survey_protocol.build({"class": CLASS, "features": FEATURES, "mode": "ldp",
                                      "ldp": {"epsilon": epsilon, "encoding": "de"}})
    X, y = draw(rng, n)
    return protocol, protocol.estimate(protocol.fold(protocol.encode(X, y, rng)))


def test_centres_are_the_add_half_columns():
    counts = np.array([[3, 0], [1, 4]])
    assert centres(counts) == pytest.approx(np.array([[3.5 / 5, 0.5 / 5], [1.5 / 5, 4.5 / 5]]))


def test_weak_reports_that_agree_leave_the_public_conditionals():
    """ε = 0.5, 400 respondents (about 100 reports per question, each cell's raw estimate with a standard error of
    about 0.3): the likelihood cannot tell the survey from the sample, so λ̂ sits at the grid's low end, every
    published column is within 0.05 of the sample's centre, and the class prior is nearer the sample's shares than the
    reports' own estimate is."""
    rng = np.random.default_rng(1)
    protocol, model = fit(rng, 400, 0.5)
    Xp, yp = draw(np.random.default_rng(2), 200)
    counts = reference_counts(Xp, yp, model.attributes, 2)
    out = with_public_prior(model, counts)
    assert out.metadata["public_prior"]["share"] < 0.01 and out.metadata["public_prior"]["sample_rows"] == 200
    for table, c in zip(out.conditionals, counts, strict=True):
        assert np.abs(table - centres(c)).max() < 0.05
        assert table.sum(axis=0) == pytest.approx(np.ones(2))
    # The class prior too leans toward the sample's class shares (add-½), away from the reports' noisy own.
    shares = (np.bincount(yp, minlength=2) + 0.5) / (yp.size + 1.0)
    assert out.prior.sum() == pytest.approx(1.0)
    assert np.abs(out.prior - shares).max() < np.abs(model.prior - shares).max()


def test_strong_reports_overrule_a_sample_from_another_population():
    """A public sample whose classes are swapped (its conditionals point the wrong way) against 20,000 respondents at
    ε = 5 (raw standard errors about 0.01): λ̂ is large (the reports disagree far beyond their noise), the published
    conditionals are within 0.05 of the truth, and the model is as accurate on fresh rows as the one without the
    sample (within 1 point on 20,000 rows: 3 SE of a difference of two accuracies near 0.8 is about 1.2 points,
    and the two models share the rows), far above the sample alone, which is below guessing."""
    rng = np.random.default_rng(3)
    protocol, model = fit(rng, 20_000, 5.0)
    Xp, yp = draw(np.random.default_rng(4), 500)
    counts = reference_counts(Xp, 1 - yp, model.attributes, 2)  # the wrong way round
    out = with_public_prior(model, counts)
    assert out.metadata["public_prior"]["share"] > 0.3
    for table in out.conditionals:
        assert np.abs(table - TRUE).max() < 0.05
    X, y = draw(np.random.default_rng(5), 20_000)
    mine = out.accuracy(protocol.to_model_input(X), y)
    assert mine >= model.accuracy(protocol.to_model_input(X), y) - 0.01
    public_only = np.mean(np.argmax(np.stack([np.prod([centres(c)[X[:, i].astype(int), k]
                                                       for i, c in enumerate(counts)], axis=0)
                                              for k in range(2)], axis=1), axis=1) == y)
    assert public_only < 0.5 < mine - 0.2


def test_the_share_is_the_likelihoods_maximum():
    """One cell per question, no noise in the centre's direction: the maximiser of Σ −½(r²/(s² + c + λv) + log(·))
    on the grid is where the observed squared residual matches its variance."""
    v = 0.25  # C = ½
    residual, s = 0.2, 0.05
    counts = [np.array([[1e9, 1e9], [1e9, 1e9]])]  # a huge sample: the centre's own variance ≈ 0
    raw = [np.array([[0.5 + residual, 0.5 - residual], [0.5 - residual, 0.5 + residual]])]
    errors = [np.full((2, 2), s)]
    expected = (residual**2 - s**2) / v
    assert public_share(raw, errors, counts) == pytest.approx(expected, abs=0.5 / 400 + 1e-9)


def test_bad_inputs_are_refused():
    rng = np.random.default_rng(6)
    protocol, model = fit(rng, 300, 1.0)
    with pytest.raises(ValueError, match="one table of public counts per question"):
        with_public_prior(model, [np.ones((3, 2))])
    with pytest.raises(ValueError, match="shape"):
        with_public_prior(model, [np.ones((2, 2))] * 4)
    with pytest.raises(ValueError, match="outside"):
        reference_counts(np.full((2, 4), 7), np.array([0, 1]), model.attributes, 2)
    with pytest.raises(ValueError, match="numeric"):
        reference_counts(np.zeros((1, 1)), np.array([0]), [Numeric("x", 0.0, 1.0)], 2)
