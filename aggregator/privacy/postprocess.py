"""Turning raw unbiased count estimates into probability distributions (SPEC §3, "Negative estimates").

* ``project_simplex`` — Norm-Sub (Wang et al., NDSS 2020): f_v ← max(f_v + δ, 0) with δ chosen so that
  Σ f_v = 1. It is the Euclidean projection onto the probability simplex and the project's default for a single
  distribution (Naive Bayes conditionals default to ``shrinkage``'s posterior means, "bayes").
* ``negative_to_one`` — the seed's rule (seed 000): negative counts become 1, then normalise. Kept so the
  paper's figures can be reproduced.

* ``mle_krr`` — the closed-form maximum-likelihood distribution given k-RR (DE) reports (Pinzón et al., AAAI 2026):
  exact zeros like Norm-Sub, between Norm-Sub and clip-and-renormalise in bias (SPEC §3).

Names (``METHODS``): "bayes" (the default), "posterior-mean" and "marginal-mean" (its shrinkage without the floor),
"norm-sub", "neg-to-one", "mle". For a single distribution "bayes" is
Norm-Sub; for Naive Bayes conditionals it selects ``shrinkage.posterior_conditionals`` (posterior means from each
estimate's own standard error, degrading to the majority rule as noise grows), chosen in ``naive_bayes.ldp`` and
``mrr``. "norm-sub" was the default before.
"""
from __future__ import annotations

import numpy as np

__all__ = ["project_simplex", "negative_to_one", "mle_krr", "to_distribution", "METHODS", "DEFAULT", "MLE"]


def project_simplex(estimates) -> np.ndarray:
    """Euclidean projection of ``estimates / Σ`` … onto {f ≥ 0, Σ f = 1}.

    ``estimates`` may be counts or frequencies; they are first scaled by their (positive) total, or by the
    number of entries when the total is not positive (or is a vanishing fraction of Σ|estimates|). Runs in
    O(d log d) (sort-based algorithm).
    """
    x = np.asarray(estimates, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("estimates must be a non-empty 1-d array")
    total = x.sum()
    # A total that is zero up to rounding (noisy estimates cancelling out) would blow the scaled values up past the
    # precision the projection needs: such a total counts as not positive.
    f = x / total if total > 1e-9 * np.abs(x).sum() else x / x.size
    u = np.sort(f)[::-1]
    css = np.cumsum(u)
    k = np.arange(1, f.size + 1)
    rho = np.nonzero(u + (1.0 - css) / k > 0)[0][-1]
    delta = (1.0 - css[rho]) / (rho + 1)
    return np.maximum(f + delta, 0.0)


def negative_to_one(estimates) -> np.ndarray:
    """Seed 000's rule: counts below 1 become 1, then divide by the total."""
    x = np.maximum(np.asarray(estimates, dtype=np.float64), 1.0)
    return x / x.sum()


def mle_krr(estimates, n: int, p: float, q: float) -> np.ndarray:
    """The maximum-likelihood distribution on the simplex given k-RR reports (SPEC §3, "Maximum likelihood on the
    simplex"; Pinzón et al., AAAI 2026), from the unbiased count estimates Ê_v of ``n`` reports.

    The reports' counts are c_v = Ê_v·(p − q) + n·q and a report shows v with probability π_v = q + (p − q)·θ_v, so
    the MLE maximises Σ c_v log π_v over {π_v ≥ q, Σ π_v = 1}: by the KKT conditions π_v = max(q, c_v/λ), λ fixed
    by Σ π_v = 1 (water-filling). Sorting the counts, the values kept are the t largest for the largest t with
    c_(t)/λ_t > q, λ_t = Σ_{top t} c / (1 − (d − t)·q); the others are exactly 0. O(d log d). When every
    estimate is positive it is the unbiased estimate normalised."""
    est = np.asarray(estimates, dtype=np.float64)
    if est.ndim != 1 or est.size == 0:
        raise ValueError("estimates must be a non-empty 1-d array")
    if n <= 0:
        raise ValueError("the MLE needs at least one report")
    if not 0 <= q < p <= 1:
        raise ValueError("k-RR needs 0 ≤ q < p ≤ 1")
    d = est.size
    counts = np.maximum(est * (p - q) + n * q, 0.0)
    order = np.argsort(-counts, kind="stable")
    top = np.cumsum(counts[order])
    t = np.arange(1, d + 1)
    lam = top / np.maximum(1.0 - (d - t) * q, 1e-300)
    ok = np.nonzero(counts[order] / lam > q)[0]
    if ok.size == 0:  # no report at all supports any value above chance: nothing to tell the values apart
        return np.full(d, 1.0 / d)
    chosen = ok[-1]
    pi = np.full(d, q)
    pi[order[: chosen + 1]] = counts[order[: chosen + 1]] / lam[chosen]
    theta = np.maximum((pi - q) / (p - q), 0.0)
    return theta / theta.sum()


#: The closed-form MLE of k-RR (``mle_krr``): selected by name; Naive Bayes applies it to every input whose oracle is
#: DE (k-RR) and Norm-Sub elsewhere (a single distribution, e.g. the pooled prior, is projected).
MLE = "mle"

#: Post-processing methods by name. "bayes" (the default, ``shrinkage``) makes a single distribution (a class prior) by
#: Norm-Sub; under that name the Naive Bayes estimators (LDP, MRR) take every conditional's posterior mean given its
#: own standard error (``shrinkage.posterior_conditionals``) with the floor of ``dependence``; "posterior-mean" and
#: "marginal-mean" are those posterior means without the floor (flat, resp. marginal-centred prior); "share-mean" the
#: marginal-centred ones with κ averaged over the class-explained share and the class prior shrunk too, no floor
#: (``shrinkage.posterior_prior``).
METHODS = {"bayes": project_simplex, "posterior-mean": project_simplex, "marginal-mean": project_simplex,
           "share-mean": project_simplex, "moment-mean": project_simplex,
           "norm-sub": project_simplex, "neg-to-one": negative_to_one, MLE: project_simplex}
DEFAULT = "bayes"


def to_distribution(estimates, method: str = DEFAULT) -> np.ndarray:
    """A probability distribution from raw count estimates, by ``method`` ("bayes" — the default — and "norm-sub"
    project onto the simplex; "neg-to-one")."""
    try:
        return METHODS[method](estimates)
    except KeyError:
        raise ValueError(f"unknown post-processing method {method!r}; choose one of {', '.join(METHODS)}") from None
