"""Bayesian shrinkage of Naive Bayes conditionals under perturbation noise: estimates that degrade to
the prior, never below it.

Beyond the papers. SPEC §3 ("Negative estimates") turns raw unbiased estimates into distributions by Norm-Sub, seed
000 by "negative → 1"; both treat every P(a | c) as exact. Under heavy LDP (SPEC §3–§4) or MRR (SPEC §2) noise a
conditional that noise pushed to 0 then vetoes its class (Norm-Sub's zeros are floored at ``PROB_FLOOR``), and the
classifier falls below the majority rule. Here each conditional is estimated from its own noise level instead.

Per attribute i (n_i values) and class c, the raw estimate r_ac = P̂(a ∧ c) / P̂(c) — the unbiased joint (SPEC §2,
§4) over the published class prior, which pools every report and is far less noisy than the joint's own column
total — has perturbation standard error s_ac = SE(P̂(a ∧ c)) / P̂(c) (the oracle's exact count variance, SPEC §3, or
MRR's, SPEC §2, minus the sampling variance; without perturbation nothing is shrunk). Model: r_ac ~ N(θ_ac, s²_ac)
with θ_·c ~ the flat Dirichlet on the simplex, whose marginal is θ_ac ~ Beta(1, n_i − 1) (density
(n_i − 1)(1 − θ)^{n_i − 2} on [0, 1]). The estimate is the posterior mean

    P̃(a | c) ∝ E[θ_ac | r_ac] = ∫ θ π(θ) φ((r_ac − θ)/s_ac) dθ / ∫ π(θ) φ((r_ac − θ)/s_ac) dθ,

each column then normalised. The integral runs over [0, 1] ∩ [r − 10s, r + 10s] (the likelihood is below e^{-50}
elsewhere; when that is empty, over [0, 20s²/|r|] or [1 − 20s²/(r − 1), 1], where the posterior decays like an
exponential of that scale) by 64-point Gauss–Legendre quadrature in log space: O(n_i·k) per attribute, from the
sufficient statistics only.

The default ("bayes") centres each column's prior on the answer's class-independent marginal P̃(a)
(``answer_marginal``) — θ_ac ~ Beta(κ·P̃(a), κ·(1 − P̃(a))), the marginal of Dirichlet(κ·P̃(a)) — with κ chosen for
the whole model from the reports (``dependence.concentration``; κ = ∞: every column P̃(a), the private majority rule).
Centred on the uniform distribution, a rare class's columns (larger standard errors) are pulled harder toward it than
a common class's, which makes the classes look different where the data do not; centred on the marginal, every
column shrinks toward the same distribution. The flat prior stays selectable as "posterior-mean", the marginal one
with κ = n_i as "marginal-mean" (neither with the floor).

Limits of the flat prior (tested in tests/engine/test_shrinkage.py):
(a) s → 0 (ε → ∞ with a noiseless oracle, θ → 1): E[θ | r] = r + s²·(log π)'(r) + O(s⁴) (Tweedie's formula), so
    the columns tend to r normalised, i.e. to the Norm-Sub conditionals whenever the raw estimates are already a
    distribution;
(b) s → ∞: the likelihood is flat on [0, 1] (its log varies by at most (2|r| + 1)/(2s²)), every E[θ | r] tends to the
    prior mean 1/n_i, every column to the uniform distribution, Σ_i log P(x_i | c) stops depending on c, and the
    classifier predicts argmax P̂(c) for every record: the majority rule.
A class with P̂(c) = 0 gets the uniform column (no information).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

__all__ = ["posterior_conditionals", "posterior_mean", "posterior_prior", "answer_marginal", "NAME", "LABEL", "FLAT",
           "MARGINAL", "SHARE",
           "MOMENT", "NULL_LOSS_TOLERANCE", "CENTRES", "guard_sentence"]

#: The default's name where post-processing methods are chosen (``postprocess.METHODS``). LDP Naive Bayes: posterior
#: means centred on the answer's marginal with κ averaged over the class-explained share and the class prior shrunk
#: alike ("share-mean"), kept where the pooled test sees class dependence (``dependence.concentration`` finite) or
#: where, were every question independent of the class, they would cost at most ``NULL_LOSS_TOLERANCE`` of accuracy
#: against the private majority rule (``dependence.null_loss``); the private majority rule otherwise. MRR: posterior
#: means centred on the marginal and the per-question floor of ``dependence`` (``apply_floor``).
NAME = "bayes"
LABEL = ("posterior means centred on the answer's marginal, shrunk by each estimate's own standard error and by the "
         "class dependence the reports show; the private majority rule where the reports cannot show any and "
         "keeping the answers would cost accuracy were they independent of the class")
#: The accuracy (a fraction) the default may give up against the private majority rule, were every question
#: independent of the class, where the reports cannot show whether they are: the issue's 2.5-point regret bound.
NULL_LOSS_TOLERANCE = 0.025
#: The posterior means under the flat Dirichlet prior, without the floor (an earlier default).
FLAT = "posterior-mean"
#: The posterior means centred on the marginal, without the floor.
MARGINAL = "marginal-mean"
#: Marginal-centred posterior means with κ the posterior mean over the class-explained share and the class prior
#: shrunk alike (``dependence.share_concentration``, ``posterior_prior``): the default without its guard; LDP Naive
#: Bayes only (MRR: as "marginal-mean").
SHARE = "share-mean"
#: Marginal-centred posterior means with one κ by the method of moments (``dependence.concentration``; κ = ∞: the
#: private majority rule): the LDP default before the share and its guard.
MOMENT = "moment-mean"
#: Which prior centre each shrinking post-processing uses (``posterior_conditionals``' ``centre``).
CENTRES = {NAME: "marginal", MARGINAL: "marginal", FLAT: "uniform", SHARE: "marginal", MOMENT: "marginal"}

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(64)
#: Half-width of the integration window in standard errors; beyond it the likelihood is below e^{-50}.
WINDOW = 10.0


def _window(r: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lo = np.maximum(r - WINDOW * s, 0.0)
    hi = np.minimum(r + WINDOW * s, 1.0)
    below = r + WINDOW * s <= 0.0
    above = r - WINDOW * s >= 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        lo = np.where(below, 0.0, np.where(above, np.maximum(1.0 - 20 * s**2 / (r - 1.0), 0.0), lo))
        hi = np.where(below, np.minimum(20 * s**2 / -r, 1.0), np.where(above, 1.0, hi))
    return lo, hi


def posterior_mean(r, s, size: int, centre=None, concentration: float | None = None) -> np.ndarray:
    """E[θ | r] for θ ~ Beta(1, size − 1) (the flat Dirichlet's marginal over ``size`` values) and r ~ N(θ, s²);
    elementwise over arrays ``r`` and ``s`` (s = 0: r clipped to [0, 1]). ``centre`` (broadcast like ``r``, values in
    (0, 1)): θ ~ Beta(κ·centre, κ·(1 − centre)) instead, the marginal of Dirichlet(κ·m) centred on m, with
    κ = ``concentration`` (default ``size``)."""
    r, s = np.broadcast_arrays(np.asarray(r, dtype=np.float64), np.asarray(s, dtype=np.float64))
    if size < 1:
        raise ValueError("size must be ≥ 1")
    if size == 1:
        return np.ones(r.shape)
    out = np.clip(r, 0.0, 1.0).astype(np.float64)
    noisy = s > 0
    if not noisy.any():
        return out
    rr, ss = r[noisy], s[noisy]
    lo, hi = _window(rr, ss)
    half = 0.5 * (hi - lo)
    theta = (lo + hi)[:, None] * 0.5 + half[:, None] * _NODES[None, :]  # (cells, 64)
    with np.errstate(divide="ignore"):
        if centre is not None:
            kappa = float(size if concentration is None else concentration)
            m = np.broadcast_to(np.asarray(centre, dtype=np.float64), r.shape)[noisy][:, None]
            log_prior = ((kappa * m - 1) * np.log(np.maximum(theta, 1e-300))
                         + (kappa * (1 - m) - 1) * np.log1p(-np.minimum(theta, 1.0)))
        else:
            log_prior = (size - 2) * np.log1p(-np.minimum(theta, 1.0)) if size > 2 else np.zeros_like(theta)
    log_w = np.log(_WEIGHTS)[None, :] + log_prior - 0.5 * ((rr[:, None] - theta) / ss[:, None]) ** 2
    norm = logsumexp(log_w, axis=1, keepdims=True)
    out[noisy] = np.clip((np.exp(log_w - norm) * theta).sum(axis=1), 0.0, 1.0)
    return out


def answer_marginal(joint, variances) -> np.ndarray:
    """P̃(a) = Σ_c P(a ∧ c), class-independent: the posterior mean of the raw row sums under the flat prior, normalised
    and kept inside (0, 1) (the centre of ``posterior_conditionals(..., centre="marginal")``)."""
    joint = np.asarray(joint, dtype=np.float64)
    var = np.asarray(variances, dtype=np.float64)
    m = posterior_mean(joint.sum(axis=1), np.sqrt(np.minimum(var.sum(axis=1), 1e300)), joint.shape[0])
    return np.clip(m / m.sum(), 1e-6, 1 - 1e-6)


def posterior_conditionals(joint, variances, prior, centre: str = "uniform",
                           concentration: float | None = None) -> np.ndarray:
    """P̃(a | c), an (n_i, k) array whose columns are distributions (module docstring), from the raw unbiased joint
    estimates ``joint`` (n_i, k; fractions P̂(a ∧ c)), their perturbation variances ``variances`` (n_i, k) and the
    published class prior ``prior`` (k,). ``centre="marginal"``: every column's prior is Dirichlet(κ·P̃(a)) centred
    on the answer's marginal (``answer_marginal``), κ = ``concentration`` (default n_i; ∞: every column is
    P̃(a), so the question no longer moves the prediction)."""
    joint = np.asarray(joint, dtype=np.float64)
    var = np.asarray(variances, dtype=np.float64)
    prior = np.asarray(prior, dtype=np.float64)
    if joint.ndim != 2 or joint.shape[0] < 1 or var.shape != joint.shape:
        raise ValueError("joint and variances must be (values, classes) arrays of the same shape")
    if prior.shape != (joint.shape[1],) or np.any(~np.isfinite(prior)) or np.any(prior < 0):
        raise ValueError("prior must hold one non-negative probability per class")
    if np.any(~np.isfinite(joint)) or np.any(np.isnan(var)) or np.any(var < 0):
        raise ValueError("joint must be finite and variances ≥ 0")
    size = joint.shape[0]
    valid = prior > 0
    safe = np.where(valid, prior, 1.0)
    r = joint / safe
    s = np.sqrt(np.minimum(var, 1e300)) / safe
    m = None
    if centre == "marginal":
        m = answer_marginal(joint, var)
        if concentration is not None and np.isinf(concentration):
            return np.repeat((m / m.sum())[:, None], joint.shape[1], axis=1)
        m = m[:, None]
    elif centre != "uniform":
        raise ValueError("centre must be 'uniform' or 'marginal'")
    mean = posterior_mean(r, s, size, centre=m, concentration=concentration)
    mean = np.where(valid[None, :], mean, 1.0 / size)
    total = mean.sum(axis=0)
    # A column whose every mean is 0 (only when s = 0 and every raw value ≤ 0) carries no information.
    return np.where(total > 0, mean / np.where(total > 0, total, 1.0), 1.0 / size)


def posterior_prior(raw, standard_errors) -> tuple[np.ndarray, float]:
    """(P̃(c), κ): the class prior's posterior means under Dirichlet(κ·u) centred on the uniform distribution u, given
    the raw unbiased estimates ``raw`` (k,) and their standard errors, κ from the estimates' own Wald statistic against
    u (``dependence.uniformity_statistic``, ``dependence.share_concentration``: the same flat prior on the share
    λ = 1/(κ + 1) ∈ (0, ½] as the conditionals').

    The conditionals' shrinkage (``posterior_conditionals``) makes the classes' log-likelihoods differ less as the
    noise grows; a class prior left at its raw estimate then decides alone, by its own noise, whenever the classes are
    about equally frequent. Shrinking it by its own noise treats both alike: where the classes are detectably unequal
    κ is small (little change), where the estimate cannot tell them apart κ grows and the prior tends to u."""
    from .dependence import KAPPA_MIN, share_concentration, uniformity_statistic

    r = np.asarray(raw, dtype=np.float64)
    se = np.asarray(standard_errors, dtype=np.float64)
    T, df, A = uniformity_statistic(r, se)
    kappa = share_concentration([T], [df], [A], minimum=KAPPA_MIN)
    if np.isinf(kappa):
        return np.clip(r, 0.0, None) / max(float(np.clip(r, 0.0, None).sum()), 1e-300), kappa
    u = np.full(r.size, 1.0 / r.size)
    mean = posterior_mean(r, se, r.size, centre=u, concentration=kappa)
    return mean / mean.sum(), kappa


def guard_sentence(metadata: dict) -> str | None:
    """The default's decision for one estimated model in plain words (``metadata["guard"]`` of LDP Naive Bayes),
    or ``None`` for a model without it."""
    guard = metadata.get("guard")
    if not guard:
        return None
    loss = f"{100 * float(guard['null_loss']):.1f} points"
    if guard["dependence_detected"]:
        return ("Estimator: the reports show that the answers depend on the class; each answer's share per class is a "
                "posterior mean, shrunk toward the answer's overall share by its own noise and by how strong the "
                "dependence looks.")
    if math.isinf(float(metadata.get("concentration", math.inf))):
        return (f"Estimator: the reports cannot show that the answers depend on the class, so this version predicts "
                f"the class the reports show most often (the private majority rule) for every record; were the "
                f"answers independent of the class, using them would cost {loss} of accuracy.")
    return (f"Estimator: the reports cannot show whether the answers depend on the class; their shrunk shares per "
            f"class are kept because, were the answers independent of it, they would cost at most {loss} of accuracy "
            "against always predicting the class the reports show most often.")
