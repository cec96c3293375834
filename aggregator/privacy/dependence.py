"""The floor: a Naive Bayes model trusts only the questions whose class dependence the noise could not have produced
(SPEC §4, "The private majority rule"; beyond the papers).

The private majority rule predicts argmax_c P̂(c) for every record. A question whose conditionals are noise adds to
Σ_i log P(x_i | c) a term that depends on c by chance alone, and enough such terms push the model below that rule.
So before publishing, every question is tested for class–answer dependence against the noise's own variance, which
the mechanism knows, and a question that fails is given a class-independent table, which cannot move the argmax.
When no question passes, the model predicts exactly the private majority rule.

The test (``independence_statistic``): with J the raw unbiased estimates of one question's P(a ∧ c) (n_i × k; for a
numeric question the class-hiding vector's means m_c = P(c)·E[x | c], 1 × k, one row per moment) and p the
published class prior, independence says J = m·pᵀ with m = J·1 the answer's marginal. The residual
R = J − (J·1)·pᵀ is linear in J; its covariance G·Cov(J)·Gᵀ (+ (m·mᵀ) ⊗ Cov(p̂) when p̂ comes from other reports)
is the mechanism's exact covariance of the estimates (perturbation and sampling; SPEC §2, §3, §5b) pushed through.
The Wald statistic T = Rᵀ·Cov(R)⁺·R is χ² with df = rank Cov(R) under independence (by the central limit theorem
over the reports). When p is the column sums of J itself (MRR, where every report carries the class and the
answer), the gradient of R includes p's dependence on J and this is the classical Wald test of independence.

Two ways to use it.

LDP Naive Bayes, every oracle (``concentration``): one κ for the whole model's prior Dirichlet(κ·P̃(a)) on every
class's column (``shrinkage.posterior_conditionals``, centred on the answer's marginal). Under that prior
E[T_i] = μ₀_i + A_i/(κ + 1) (``independence_statistic`` with ``centre``), so the method of moments on the positive
parts with their null bias removed, Σ_i [(T_i − μ₀_i)⁺ − (μ₀_i/df_i)·E(χ²_{df_i} − df_i)⁺] = Σ_i A_i/(κ + 1), gives
κ; no excess gives κ = ∞, every column the marginal, and exactly the private majority rule. μ₀_i is T_i's null mean
at the actual n: df_i asymptotically, but with a few reports per cell the covariance evaluated at the fitted null
joint spreads the answers' mass over values nobody gave (its clipped, renormalised marginal) and overstates the
variance, so T_i falls well below df_i and real dependence reads as none. μ₀_i = tr(Cov(R)⁺·G·Ĉ·Gᵀ), Ĉ the same
covariance with its terms linear in the frequencies (perturbation and multinomial sampling) evaluated at the raw
unbiased joint instead, is unbiased for those terms (``null_cov``); T_i is then taken as (μ₀_i/df_i)·χ²_{df_i}.
Under independence κ = ∞ happens at least as often as the χ² null says (the rate is computed in
tests/engine/test_dependence.py), and as n grows A_i grows like n while the excess stays O(1), so κ → ∞.
The positive parts keep many uninformative questions from drowning the informative ones; one pooled κ keeps many
weak questions, whose sum carries the signal, together.

MRR and Gaussian numeric questions (``apply_floor``), at family-wise level ``ALPHA`` under the complete null (no
question depends on the class): a question is kept when T_i exceeds the χ²_{df_i} quantile at 1 − α/(2m) (Bonferroni
over the m questions), or when the pooled statistic Σ T_i exceeds the χ²_{Σ df} quantile at 1 − α/2 and T_i > df_i (its
estimated non-centrality T_i − df_i is positive). The pooled branch is what lets many weak but real questions count
together. Under the complete null each branch fires with probability ≤ α/2 (asymptotically), so the model is the private
majority rule with probability ≥ 1 − α at every n, and as n → ∞ a question with a fixed real dependence has T_i → ∞ and
is kept with probability → 1. Only the statistics of the additive sums are used: O(Σ_i (n_i·k)³), independent of n.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy.stats import chi2

__all__ = ["ALPHA", "independence_statistic", "select", "flatten", "dependence_metadata", "apply_floor", "null_joint",
           "concentration", "share_concentration", "uniformity_statistic", "KAPPA_MIN", "null_loss", "NULL_SAMPLES"]

#: Family-wise probability that a model whose questions are all independent of the class keeps any of them.
ALPHA = 0.05
#: Eigenvalues of Cov(R) below this fraction of the largest are treated as zero (the residual's linear constraints).
RANK_TOLERANCE = 1e-9


def independence_statistic(joint, cov, prior, *, prior_cov=None, prior_from_joint: bool = False,
                           centre=None, null_cov=None) -> tuple:
    """(T, df): the Wald statistic of class–answer independence of one question and its degrees of freedom (module
    docstring).

    Parameters
    ----------
    joint : (n_i, k) raw unbiased estimates of P(a ∧ c) (or, for a numeric question, of P(c)·E[moment | c], one row).
    cov : (n_i·k, n_i·k) covariance of ``joint`` flattened row by row (perturbation and sampling).
    prior : (k,) the class prior the residual is taken against (summing to 1).
    prior_cov : (k, k) covariance of ``prior`` when it comes from reports independent of ``joint``; None: exact.
    prior_from_joint : ``prior`` is ``joint``'s column sums (the same reports); its variation is then part of the
        gradient and ``prior`` and ``prior_cov`` are ignored.
    centre : (n_i,) the answer's marginal m; when given, also returns A = tr(Cov(R)⁺·S), S the covariance of R when
        every class's column is drawn from Dirichlet(κ·m) with κ + 1 = 1 (``concentration``), so that
        E[T] = df + A/(κ + 1) under that prior.
    null_cov : (n_i·k, n_i·k) an unbiased estimate of ``joint``'s covariance (``null_mean``); when given (with
        ``centre``), also returns μ₀ = tr(Cov(R)⁺·G·null_cov·Gᵀ) (+ the prior's part), the finite-n null mean of T that
        replaces df in ``concentration``.
    """
    J = np.asarray(joint, dtype=np.float64)
    if J.ndim != 2:
        raise ValueError("joint must be an (answers, classes) array")
    n_i, k = J.shape
    C = np.asarray(cov, dtype=np.float64)
    if C.shape != (n_i * k, n_i * k) or not np.all(np.isfinite(C)) or not np.all(np.isfinite(J)):
        raise ValueError(f"cov must be a finite ({n_i * k}, {n_i * k}) matrix and joint finite")
    eye_a, eye_c = np.eye(n_i), np.eye(k)
    m = J.sum(axis=1)
    if prior_from_joint:
        p = J.sum(axis=0)
        # R_ac = J_ac − m_a·p_c with m = J·1, p = 1ᵀ·J: ∂R_ac/∂J_bd = δ_ab δ_cd − δ_ab p_c − m_a δ_cd.
        G = (np.einsum("ab,cd->acbd", eye_a, eye_c) - np.einsum("ab,c->acb", eye_a, p)[..., None]
             - np.einsum("a,cd->acd", m, eye_c)[:, :, None, :])
    else:
        p = np.asarray(prior, dtype=np.float64)
        if p.shape != (k,) or not np.all(np.isfinite(p)):
            raise ValueError(f"prior must hold {k} finite probabilities")
        G = np.einsum("ab,cd->acbd", eye_a, eye_c) - np.einsum("ab,c->acb", eye_a, p)[..., None]
    G = G.reshape(n_i * k, n_i * k)
    R = (J - np.outer(m, p)).ravel()
    V = G @ C @ G.T
    if not prior_from_joint and prior_cov is not None:
        P = np.asarray(prior_cov, dtype=np.float64)
        if P.shape != (k, k) or not np.all(np.isfinite(P)):
            raise ValueError(f"prior_cov must be a finite ({k}, {k}) matrix")
        # Only the prior's error within the simplex moves R (its rows sum to 0 whenever Σ p = 1).
        simplex = np.eye(k) - 1.0 / k
        V = V + np.kron(np.outer(m, m), simplex @ P @ simplex)
    V = 0.5 * (V + V.T)
    extra = V - G @ C @ G.T
    w, U = np.linalg.eigh(V)
    top = w.max() if w.size else 0.0
    if top <= 0:
        return (0.0, 0) if centre is None else (0.0, 0, 0.0)
    keep = w > RANK_TOLERANCE * top
    z = U[:, keep].T @ R
    T, df = float(np.sum(z**2 / w[keep])), int(keep.sum())
    if centre is None:
        return T, df
    mc = np.asarray(centre, dtype=np.float64)
    # R_·c = p_c (θ_c − Σ_c' p_c' θ_c') with θ_c i.i.d., covariance (diag m − m·mᵀ)/(κ + 1).
    Gp = np.outer(p, p) * (np.eye(k) - p[:, None] - p[None, :] + np.sum(p**2))
    S = np.kron(np.diag(mc) - np.outer(mc, mc), Gp)
    Uk = U[:, keep]
    A = float(np.sum(np.einsum("ij,ik,kj->j", Uk, S, Uk) / w[keep]))
    if null_cov is None:
        return T, df, A
    N0 = np.asarray(null_cov, dtype=np.float64)
    if N0.shape != C.shape or not np.all(np.isfinite(N0)):
        raise ValueError(f"null_cov must be a finite ({n_i * k}, {n_i * k}) matrix")
    W = G @ N0 @ G.T + extra
    mean0 = float(np.sum(np.einsum("ij,ik,kj->j", Uk, 0.5 * (W + W.T), Uk) / w[keep]))
    return T, df, A, mean0


def null_positive_excess(df) -> np.ndarray:
    """E[(X − ν)⁺] for X ~ χ²_ν: ν·(P(χ²_{ν+2} > ν) − P(χ²_ν > ν)) (from x·f_ν(x) = ν·f_{ν+2}(x)); 0 at ν = 0."""
    nu = np.asarray(df, dtype=np.float64)
    safe = np.maximum(nu, 1.0)
    return np.where(nu > 0, safe * (chi2.sf(safe, safe + 2) - chi2.sf(safe, safe)), 0.0)


#: The least concentration ``concentration`` returns: Dirichlet(κ·m) with κ < 1 puts most of its mass near the
#: simplex's corners, whose near-zero posterior means would veto classes.
KAPPA_MIN = 1.0


def concentration(statistics: Sequence[float], dfs: Sequence[int], signals: Sequence[float],
                  minimum: float = KAPPA_MIN, null_means: Sequence[float] | None = None) -> float:
    """κ of the columns' common prior Dirichlet(κ·m), by the method of moments on the pooled Wald statistics:
    Σ_i (T_i − df_i) estimates Σ_i A_i/(κ + 1) (``independence_statistic`` with ``centre``). No excess (Σ T ≤ Σ df):
    κ = ∞, every column is the marginal, and the model is the private majority rule exactly; a large excess: κ at
    ``minimum``."""
    T = np.asarray(statistics, dtype=np.float64)
    df = np.asarray(dfs, dtype=np.float64)
    if null_means is None:
        excess = float(np.sum(np.maximum(T - df, 0.0) - null_positive_excess(df)))
    else:
        # T ≈ (μ₀/df)·χ²_df under independence (a scaled χ² with the finite-n null mean μ₀; Satterthwaite).
        mu = np.where(df > 0, np.maximum(np.asarray(null_means, dtype=np.float64), 0.0), 0.0)
        scale = np.where(df > 0, mu / np.maximum(df, 1.0), 0.0)
        excess = float(np.sum(np.maximum(T - mu, 0.0) - scale * null_positive_excess(df)))
    total = float(np.sum(signals))
    if excess <= 0 or total <= 0:
        return math.inf
    return max(total / excess - 1.0, minimum)


#: Grid points of the share λ = 1/(κ + 1) over which ``share_concentration`` averages (midpoints; the posterior mean's
#: quadrature error is far below the statistic's noise).
SHARE_GRID = 400


def share_concentration(statistics: Sequence[float], dfs: Sequence[int], signals: Sequence[float],
                  minimum: float = KAPPA_MIN, null_means: Sequence[float] | None = None) -> float:
    """κ of the columns' common prior Dirichlet(κ·m): 1/λ̄ − 1, λ̄ the posterior mean of the share
    λ = 1/(κ + 1) ∈ (0, 1/(1 + ``minimum``)] of every answer's variance that the class explains, under a flat prior
    on λ, given the pooled Wald statistics (module docstring).

    Σ_i (T_i − μ₀_i) is taken as Gaussian with mean λ·Σ A_i and variance Σ 2μ₀_i²/df_i + 4λ·Σ A_i (T_i a scaled
    χ²_{df_i} with mean μ₀_i, plus the non-central part). With no signal scale (Σ A = 0: no question can show any
    dependence) κ = ∞, every column the marginal: the private majority rule exactly. As n grows with independent
    questions the likelihood's width in λ shrinks like 1/√n while Σ A grows like n, so λ̄ → 0 and κ → ∞; with a
    real dependence λ̄ tends to its share. With few reports per cell the statistics hardly move with λ and λ̄ stays
    near the flat prior's mean: the conditionals are shrunk by their own noise (``shrinkage``), not dropped."""
    T = np.asarray(statistics, dtype=np.float64)
    df = np.asarray(dfs, dtype=np.float64)
    A = np.asarray(signals, dtype=np.float64)
    mu = df if null_means is None else np.maximum(np.asarray(null_means, dtype=np.float64), 0.0)
    ok = df > 0
    total = float(np.sum(A[ok]))
    if total <= 0:
        return math.inf
    excess = float(np.sum((T - mu)[ok]))
    null_var = float(np.sum(2.0 * mu[ok] ** 2 / df[ok]))
    top = 1.0 / (1.0 + minimum)
    share = (np.arange(SHARE_GRID) + 0.5) / SHARE_GRID * top
    var = null_var + 4.0 * share * total
    log_lik = -0.5 * (excess - share * total) ** 2 / var - 0.5 * np.log(var)
    weight = np.exp(log_lik - log_lik.max())
    mean_share = float(np.sum(weight * share) / np.sum(weight))
    return max(1.0 / mean_share - 1.0, minimum)


def uniformity_statistic(prior, standard_errors) -> tuple[float, int, float]:
    """(T, df, A) of the class prior against the uniform distribution u: R = P̂ − u with covariance
    H·diag(se²)·H (H = I − 11ᵀ/k, the simplex's tangent), T = Rᵀ·Cov⁺·R, df its rank, and A = tr(Cov⁺·(diag u − u·uᵀ))
    the signal scale when P(c) ~ Dirichlet(κ·u) with κ + 1 = 1 — the class prior's counterpart of
    ``independence_statistic``, for ``concentration``."""
    p = np.asarray(prior, dtype=np.float64)
    se = np.asarray(standard_errors, dtype=np.float64)
    k = p.size
    if se.shape != (k,) or not np.all(np.isfinite(se)) or not np.all(np.isfinite(p)):
        raise ValueError("one finite standard error per class")
    u = np.full(k, 1.0 / k)
    H = np.eye(k) - 1.0 / k
    w, U = np.linalg.eigh(H @ np.diag(se**2) @ H)
    if w.max() <= 0:
        return 0.0, 0, 0.0
    keep = w > RANK_TOLERANCE * w.max()
    Uk = U[:, keep]
    z = Uk.T @ (p - u)
    S = np.diag(u) - np.outer(u, u)
    A = float(np.sum(np.einsum("ij,ik,kj->j", Uk, S, Uk) / w[keep]))
    return float(np.sum(z**2 / w[keep])), int(keep.sum()), A


def null_joint(joint, prior) -> np.ndarray:
    """The joint under independence fitted to raw estimates: P̂(a)·P̂(c), P̂(a) the row sums clipped at 0 and
    normalised (uniform when none is positive). The estimates' covariance is evaluated here, as Pearson's χ² takes
    its expected counts under the null."""
    J = np.asarray(joint, dtype=np.float64)
    m = np.clip(J.sum(axis=1), 0.0, None)
    m = m / m.sum() if m.sum() > 0 else np.full(J.shape[0], 1.0 / J.shape[0])
    p = np.clip(np.asarray(prior, dtype=np.float64), 0.0, None)
    p = p / p.sum() if p.sum() > 0 else np.full(J.shape[1], 1.0 / J.shape[1])
    return np.outer(m, p)


def select(statistics: Sequence[float], dfs: Sequence[int], alpha: float = ALPHA) -> np.ndarray:
    """Which questions to keep (module docstring): per-question Bonferroni at α/2, or the pooled test at α/2 with a
    positive estimated non-centrality. A question with df = 0 (no variation to test) is left out."""
    T = np.asarray(statistics, dtype=np.float64)
    df = np.asarray(dfs, dtype=np.int64)
    if T.shape != df.shape or T.ndim != 1:
        raise ValueError("one statistic and one df per question")
    if not 0 < alpha < 1:
        raise ValueError("alpha must lie in (0, 1)")
    testable = df > 0
    m = int(testable.sum())
    if m == 0:
        return np.zeros(T.shape, dtype=bool)
    alone = testable & (T > chi2.isf(alpha / (2 * m), np.maximum(df, 1)))
    pooled = T[testable].sum() > chi2.isf(alpha / 2, df[testable].sum())
    return alone | (pooled & testable & (T > df))


def flatten(table, prior, numeric: bool = False) -> np.ndarray:
    """A class-independent table of the same shape: every column the model's own marginal Σ_c P(c)·P(a | c)
    (categorical), or every class the mixture's mean and standard deviation (numeric [μ; σ]); adds the same
    log-likelihood to every class."""
    t = np.asarray(table, dtype=np.float64)
    p = np.asarray(prior, dtype=np.float64)
    p = p / p.sum()
    k = t.shape[1]
    if not numeric:
        marginal = t @ p
        return np.repeat(marginal[:, None], k, axis=1)
    mu, sigma = t[0], t[1]
    mean = float(p @ mu)
    sd = float(np.sqrt(max(p @ (sigma**2 + mu**2) - mean**2, 0.0)))
    return np.vstack([np.full(k, mean), np.full(k, sd)])


def dependence_metadata(statistics, dfs, kept) -> dict:
    """What the model publishes about the floor: per question T, df, its p-value and whether it was kept."""
    T = np.asarray(statistics, dtype=np.float64)
    df = np.asarray(dfs, dtype=np.int64)
    pvalues = np.where(df > 0, chi2.sf(T, np.maximum(df, 1)), 1.0)
    return {"alpha": ALPHA, "statistics": T.tolist(), "df": df.tolist(), "p_values": pvalues.tolist(),
            "kept": [bool(x) for x in kept]}


def apply_floor(model, statistics: Sequence[float], dfs: Sequence[int], alpha: float = ALPHA, tested=None):
    """``model`` with every question that ``select`` leaves out made class-independent (``flatten``), and the
    test's figures in ``metadata["dependence"]``. With none kept it predicts argmax P̂(c): the private majority
    rule. ``tested`` (a mask, default all): only these questions are tested; the others are kept as they are."""
    from .naive_bayes.model import NaiveBayesModel
    from .schema import Numeric

    if len(statistics) != len(model.attributes):
        raise ValueError("one statistic per question")
    mask = np.ones(len(statistics), dtype=bool) if tested is None else np.asarray(tested, dtype=bool)
    kept = np.ones(len(statistics), dtype=bool)
    if mask.any():
        kept[mask] = select(np.asarray(statistics, dtype=np.float64)[mask], np.asarray(dfs)[mask], alpha)
    tables = [table if keep else flatten(table, model.prior, numeric=isinstance(attr, Numeric))
              for attr, table, keep in zip(model.attributes, model.conditionals, kept, strict=True)]
    metadata = {**model.metadata, "dependence": dependence_metadata(statistics, dfs, kept)}
    return NaiveBayesModel(model.class_attribute, model.attributes, model.prior, tables, metadata=metadata)


#: Records ``null_loss`` draws (a fixed seed: the same statistics give the same model). The loss's Monte Carlo
#: standard error is at most (max P̂(c) − min P̂(c))/(2√NULL_SAMPLES), under 0.4 points.
NULL_SAMPLES = 20_000


def null_loss(prior, model_prior, conditionals: Sequence, marginals: Sequence, samples: int = NULL_SAMPLES) -> float:
    """The accuracy the classifier (``model_prior``, ``conditionals``: (n_i, k) columns P(a | c)) gives up against
    the private majority rule were every question independent of the class: max_c P̂(c) − E_x[P̂(ŷ(x))], x drawn
    with independent answers from ``marginals`` (n_i,), ŷ(x) the classifier's prediction, P̂ = ``prior`` (the class
    prior's best estimate: where its noise hides whether the classes differ, shrunk toward the uniform distribution
    as ``shrinkage.posterior_prior`` does, so that noise alone does not make a loss). Under independence a
    prediction ŷ is right with probability P(ŷ) whatever x is, so this is exact up to the draw. 0 when every
    prediction is the majority class, or when the classes are equally frequent."""
    prior = np.asarray(prior, dtype=np.float64)
    rng = np.random.default_rng(0)
    scores = np.repeat(np.log(np.maximum(np.asarray(model_prior, dtype=np.float64), 1e-300))[None, :], samples, axis=0)
    for cond, marginal in zip(conditionals, marginals, strict=True):
        m = np.clip(np.asarray(marginal, dtype=np.float64), 0.0, None)
        answers = rng.choice(m.size, size=samples, p=m / m.sum())
        scores += np.log(np.maximum(np.asarray(cond, dtype=np.float64), 1e-300))[answers]
    return float(prior.max() - prior[scores.argmax(axis=1)].mean())
