"""Central ε-DP Naive Bayes that degrades to the prior instead of flipping (beyond the papers).

Seed 003's Algorithm 1 (SPEC §6, ``laplace_nb.fit_laplace_nb``, unchanged and still the default ``central-laplace``)
splits ε evenly, floors every noisy count at α = 1e-5 and every noisy σ at α too. At small n·ε a count that noise
pushed to α makes log P(v | c) ≈ −12 and vetoes its class; a σ floored near 0 does the same for a numeric attribute;
and the even split gives the class counts — whose error moves *every* prediction at once — only 1/(1 + m) of ε.
The model then flips between classes from split to split (docs/results/central-robust.md). This variant keeps
SPEC §6's mechanism (Laplace noise on counts and sums, on a grid, ``laplace_nb.grid_laplace``) and changes what is
released and how it is post-processed:

Neighbouring data sets: one record added or removed (the accounting is then exact, see below).

Releases (m attributes; every release's sensitivity is public and does not depend on any private count):

* the class counts n_c: L1 sensitivity 1, budget ε₀;
* per categorical attribute i its joint count table n_{a,c}: sensitivity 1, budget ε_i;
* per numeric attribute i with public bounds [l, u], on the normalised values z = (x − l)/(u − l) − ½ ∈ [−½, ½],
  the per-class sums T1_c = Σ z and T2_c = Σ z² released as one vector: one record moves one class's (T1, T2) by
  (z, z²), L1 norm ≤ ½ + ¼ = ¾, budget ε_i. (SPEC §6's μ and σ scales depend on the private n_c, which leaves the
  faithful algorithm without a finite ε under add/remove; sums do not.)

Total: ε₀ + Σ_i ε_i = ε exactly (basic composition; ``budget_split`` returns the parts). Under replace-one
neighbours every sensitivity doubles: 2ε.

Budget split (``budget_split``). The log-odds of a prediction is the log-prior ratio plus m log-likelihood ratios.
Noise in attribute i's table moves one of the m terms and only for rows with that value; noise in the class counts
moves the prior term of every row by the same amount, so it does not average out over attributes or rows — it is
what flips all predictions at once. Minimising Σ_j w_j·Var_j with Var_j ∝ 1/ε_j² under Σ ε_j = ε gives
ε_j ∝ w_j^{1/3}; weighting the prior as all m attributes together (w₀ = m, w_i = 1):

    ε₀ = ε·m^{1/3}/(m^{1/3} + m),    ε_i = ε/(m^{1/3} + m).

(m = 22, mushroom: ε₀ = 0.11ε instead of SPEC's 0.043ε; m = 8: 0.20ε instead of 0.059ε; m = 1: ε/2.)

Post-processing (free under DP). Every Laplace release has an exactly known noise variance v = 2(Δ/ε)² (the grid's
discrete Laplace: ``noise.discrete_laplace_variance``, within 0.1 % of it), so each derived estimate gets a noise
variance s² (delta method where a ratio is involved):

1. class counts: every categorical table's column sums Σ_a N_{a,c} also estimate n_c (variance n_i·v_i); the
   inverse-variance weighted mean of them and the class-count release is ñ_c (variance v_n), clamped at 0;
   P(c) = ñ_c/Σ ñ (uniform if every ñ_c = 0). A class's conditionals are estimated only if its count is
   significant — ñ_c − SIGNIFICANCE·√v_n ≥ 1, a lower confidence bound — else its weights are 0;
2. categorical: raw r_{a,c} = N_{a,c}/ñ_c with s² = v_i/ñ_c²; the class-independent marginal
   m_a = Norm-Sub(Σ_c N_{a,c}) (k times less noisy than any column); r is shrunk toward m by the Bayes-linear
   (James–Stein) weight w = ρ̂·m(1 − m)/(ρ̂·m(1 − m) + s²) and each column projected onto the simplex — the
   estimator of ``privacy.shrinkage``, restated here on central counts so that the central model
   does not move with that module's experiments;
3. numeric: μ_c = T1_c/ñ_c, V_c = T2_c/ñ_c − μ_c² with delta-method s²; μ_c is shrunk toward the pooled mean
   μ̄ = ΣT1/Σñ, V_c toward the pooled within-class variance V̄, with weights τ²/(τ² + s²), τ² = ρ̂_μ·(total
   variance) and ρ̂_V·V̄²; then μ is clipped to the bounds and V to [floor_c, ¼] (¼: the largest variance of a value
   in a unit range) with the variance floor floor_c = max(VAR_FLOOR, min(s_V,c, V̄))·(u − l)² — σ is at least 1 % of
   the public range and the variance at least one noise standard deviation of its own estimate (capped at V̄), so
   noise never makes a Gaussian a spike that vetoes its class.

The scatter levels ρ̂ (categorical ρ, numeric ρ_μ and ρ_V) are each pooled over the attributes of their kind, by the
method of moments: E[(x_c − x̄)²] = τ²·f_c + noise_c for a class's estimate around the class-weighted pooled one,
with f_c = (1 − π_c)² + Σ_{c'≠c} π_c'² and noise_c = (1 − π_c)²·s²_c + Σ_{c'≠c} π_c'²·s²_c'. At small n·ε that
estimate is itself mostly noise (Laplace noise is heavy-tailed) and, clipped to [0, 1], would jump to 1 by chance
and let noise through; ρ̂ is therefore taken at the lower confidence bound of the pooled excess, RHO_SIGNIFICANCE
standard errors below it (the standard error bounded from the known noise variances: 5·noise² per squared Laplace
deviation). With no noise this is the plain moment estimate.

Limits. As n·ε → 0 the class counts stop being significant (the noise standard deviation grows as 1/ε while n_c
stays; under pure noise a count passes the 3-standard-deviation test with probability ½·e^(−3√2) = 0.7 %), every
weight is 0, each conditional is its class-independent target (the same for every class, floors included),
Σ_i log P(x_i | c) no longer depends on c, and the model predicts argmax P(c) for every row — it degrades to the
prior. As the noise → 0 (ε → ∞) every weight → 1, the prior → n_c/n and the conditionals → the maximum-likelihood
ones: the non-private Naive Bayes (``fit_nonprivate`` with alpha = 0), except that σ < 1 % of the range is raised
to it. In between the budget split makes the prior the most accurate release, so the model falls back to the
*true* majority class long before the conditionals are usable — unless the class counts themselves are swamped
(n·ε₀ of order 1), where no release can tell the majority and argmax P(c) is a guess.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import noise
from ..naive_bayes.model import NaiveBayesModel
from ..postprocess import project_simplex
from ..rng import as_rng
from ..schema import Attribute, Categorical, Numeric
from .laplace_nb import GRID_STEPS, check_data, grid_laplace

__all__ = ["VAR_FLOOR", "SIGNIFICANCE", "RHO_SIGNIFICANCE", "NUMERIC_SENSITIVITY", "budget_split", "noise_variance",
           "fit_robust_nb", "GUARANTEE_ROBUST"]

#: The variance floor as a fraction of the squared public range: σ ≥ 1 % of u − l.
VAR_FLOOR = 1e-4
#: A class's conditionals are estimated only where its noisy count is significant: ñ_c − SIGNIFICANCE·sd(ñ_c) ≥ 1
#: (otherwise its shrinkage weights are 0 and it gets the class-independent targets).
SIGNIFICANCE = 3.0
#: The scatter levels ρ are taken at the lower confidence bound of their moment estimate, this many standard errors.
RHO_SIGNIFICANCE = 2.0
#: L1 sensitivity of one numeric attribute's (T1_c, T2_c) release on z ∈ [−½, ½]: |z| + z² ≤ ¾.
NUMERIC_SENSITIVITY = 0.75
GUARANTEE_ROBUST = (
    "epsilon-DP for adding or removing one record: the class counts (epsilon_0), one joint count table per "
    "categorical attribute and one vector of per-class sums (sum z, sum z^2) per numeric attribute (epsilon_i each), "
    "all with public sensitivities; epsilon_0 + sum epsilon_i = epsilon. Replacing a record: 2 epsilon."
)


def budget_split(epsilon: float, attributes: Sequence[Attribute]) -> tuple[float, tuple[float, ...]]:
    """(ε₀, (ε_1, …, ε_m)): ε₀ = ε·m^{1/3}/(m^{1/3} + m) for the class counts, ε/(m^{1/3} + m) per attribute
    (module docstring). Their sum is ε up to the last bits of a double (ε₀ is computed as ε − m·ε_i)."""
    if not (np.isfinite(epsilon) and epsilon > 0):
        raise ValueError("epsilon must be a finite number > 0")
    m = len(tuple(attributes))
    if m == 0:
        return float(epsilon), ()
    root = m ** (1.0 / 3.0)
    per_attribute = epsilon / (root + m)
    return epsilon - m * per_attribute, (per_attribute,) * m


def noise_variance(sensitivity: float, epsilon: float) -> float:
    """Variance of ``grid_laplace``'s noise: the discrete Laplace of scale sensitivity/ε on the grid
    sensitivity/GRID_STEPS (``noise.discrete_laplace_variance``; ≈ 2(sensitivity/ε)²). Randomized rounding of a value
    that is not on the grid adds at most γ²/4 more (γ = sensitivity/GRID_STEPS; counts are on the grid)."""
    step = sensitivity / GRID_STEPS
    return step**2 * noise.discrete_laplace_variance(GRID_STEPS / epsilon, grid=1.0)


def _weight(tau2, s2):
    """τ²/(τ² + s²), 1 where s² = 0 (no noise), 0 where s² = ∞."""
    tau2, s2 = np.broadcast_arrays(np.asarray(tau2, dtype=np.float64), np.asarray(s2, dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(s2 > 0, tau2 / (tau2 + s2), 1.0)
    return np.where(np.isfinite(s2), np.nan_to_num(w, nan=0.0), 0.0)


def _centred(s2: np.ndarray, pi: np.ndarray, finite: np.ndarray):
    """For x_c − Σ_c' π_c'·x_c' (a class's estimate minus the class-weighted pooled one): its noise variance
    (1 − π_c)²·s²_c + Σ_{c' ≠ c} π_c'²·s²_c', and the factor f_c = (1 − π_c)² + Σ_{c' ≠ c} π_c'² by which it scales
    the between-class spread τ² (the method of moments: E[(x_c − x̄)²] = τ²·f_c + noise_c). Last axis = classes."""
    s2f = np.where(finite, s2, 0.0)
    sq = s2f * pi**2
    noise = (1 - pi) ** 2 * s2f + sq.sum(axis=-1, keepdims=True) - sq
    f = (1 - pi) ** 2 + (pi**2).sum() - pi**2
    return noise, np.broadcast_to(f, s2.shape)


def _excess_variance(noise: np.ndarray) -> float:
    """An upper bound on the variance of Σ[(x − x̄)² − noise] when there is no signal: a squared Laplace deviation
    of variance σ² has variance 5σ⁴ (a Gaussian one 2σ⁴); the deviations of one row (one value, or one attribute)
    across classes are treated as fully correlated (they are, for two classes), rows as independent."""
    return float(5 * (noise.sum(axis=-1) ** 2).sum())


def _raw_categorical(joint_noisy: np.ndarray, n_c: np.ndarray, valid: np.ndarray, var: float):
    """Raw r = N/ñ_c, its noise variance s² = v/ñ_c² (∞ for a class whose count is not significant), the Norm-Sub
    marginal m, and the method-of-moments pieces (excess, spread total) of ρ."""
    marginal = project_simplex(joint_noisy.sum(axis=1))
    usable = n_c >= 1.0
    safe = np.where(usable, n_c, 1.0)
    r_all = np.where(usable, joint_noisy / safe, marginal[:, None])
    s2_all = np.broadcast_to(np.where(usable, var / safe**2, 0.0), r_all.shape)  # every class's noise, for moments
    r = np.where(valid, r_all, marginal[:, None])
    s2 = np.broadcast_to(np.where(valid, var / safe**2, np.inf), r.shape)  # weights: ∞ unless significant
    spread = np.broadcast_to((marginal * (1 - marginal))[:, None], r.shape)
    finite = np.broadcast_to(valid, r.shape)
    pi = np.where(usable, n_c, 0.0) / n_c[usable].sum() if usable.any() else np.full(n_c.shape, 1 / n_c.size)
    noise, f = _centred(s2_all, pi, np.broadcast_to(usable, r.shape))
    den = float(np.where(finite, spread * f, 0.0).sum())
    excess = float(np.where(finite, (r_all - marginal[:, None]) ** 2 - noise, 0.0).sum())
    return r, s2, marginal, spread, excess, den, _excess_variance(np.where(finite, noise, 0.0))


def _shrink_categorical(r, s2, marginal, spread, rho: float):
    """P̃ = w·r + (1 − w)·m with w = ρ·m(1 − m)/(ρ·m(1 − m) + s²), each column projected onto the simplex."""
    w = _weight(rho * spread, s2)
    shrunk = w * r + (1 - w) * marginal[:, None]
    table = (np.column_stack([project_simplex(shrunk[:, c]) for c in range(r.shape[1])]) if r.shape[0] > 1
             else np.ones_like(r))
    return table, w


def _raw_numeric(t1, t2, n_c, valid, var_t: float, var_n: float) -> dict:
    """Per-class μ_c, V_c (normalised units) with delta-method noise variances (∞ for a class whose count is not
    significant), the pooled targets μ̄ and V̄ (every class with ñ_c ≥ 1), and the method-of-moments pieces of ρ_μ
    (scale: the attribute's total variance) and ρ_V (scale: V̄²)."""
    usable = n_c >= 1.0
    safe = np.where(usable, n_c, 1.0)
    mu = t1 / safe
    q = t2 / safe
    v = q - mu**2
    s2_mu_all = np.where(usable, (var_t + mu**2 * var_n) / safe**2, 0.0)  # every class's noise, for moments
    s2_v_all = np.where(usable, (var_t * (1 + 4 * mu**2) + (2 * mu**2 - q) ** 2 * var_n) / safe**2, 0.0)
    s2_mu = np.where(valid, s2_mu_all, np.inf)  # for the weights: ∞ unless the count is significant
    s2_v = np.where(valid, s2_v_all, np.inf)
    total = float(n_c[usable].sum()) if usable.any() else 0.0
    pi = np.where(usable, n_c, 0.0) / total if total > 0 else np.full(n_c.shape, 1 / n_c.size)
    mu_raw_bar = float((pi * mu).sum())  # = ΣT1/Σñ: the moments use the raw, unclipped values
    v_raw_bar = float((pi * v).sum())
    if total > 0:
        mu_bar = float(np.clip(mu_raw_bar, -0.5, 0.5))
        v_bar = float(np.clip((pi * np.clip(v, 0.0, 0.25)).sum(), VAR_FLOOR, 0.25))
    else:
        mu_bar, v_bar = 0.0, 0.25
    v_total = float(np.clip(v_bar + (pi * (np.clip(mu, -0.5, 0.5) - mu_bar) ** 2).sum(), VAR_FLOOR, 0.25))
    noise_mu, f = _centred(s2_mu_all, pi, usable)
    noise_v, _ = _centred(s2_v_all, pi, usable)
    return {"mu": mu, "v": v, "s2_mu": s2_mu, "s2_v": s2_v, "valid": valid, "mu_bar": mu_bar, "v_bar": v_bar,
            "scale_mu": v_total, "scale_v": v_bar**2,
            "excess_mu": float(((mu - mu_raw_bar) ** 2 - noise_mu)[valid].sum()),
            "den_mu": float(f[valid].sum()) * v_total, "var_mu": _excess_variance(np.where(valid, noise_mu, 0.0)),
            "excess_v": float(((v - v_raw_bar) ** 2 - noise_v)[valid].sum()),
            "den_v": float(f[valid].sum()) * v_bar**2, "var_v": _excess_variance(np.where(valid, noise_v, 0.0))}


def _shrink_numeric(raw: dict, rho_mu: float, rho_v: float, attribute: Numeric):
    """Shrunk (μ, σ) per class in the attribute's units, and the weights (mean, variance)."""
    valid, mu_bar, v_bar = raw["valid"], raw["mu_bar"], raw["v_bar"]
    w_mu = _weight(rho_mu * raw["scale_mu"], raw["s2_mu"])
    w_v = _weight(rho_v * raw["scale_v"], raw["s2_v"])
    mu_t = np.clip(np.where(valid, w_mu * raw["mu"] + (1 - w_mu) * mu_bar, mu_bar), -0.5, 0.5)
    v_t = np.where(valid, w_v * raw["v"] + (1 - w_v) * v_bar, v_bar)
    # Noise may not make a Gaussian a spike: V ≥ one noise standard deviation of its own estimate, but never more
    # than the class-independent target V̄ (so at full shrinkage every class keeps exactly V̄), and ≥ VAR_FLOOR.
    s2_v = raw["s2_v"]
    floor = np.maximum(VAR_FLOOR, np.minimum(np.sqrt(np.where(np.isfinite(s2_v), s2_v, np.inf)), v_bar))
    v_t = np.clip(v_t, floor, 0.25)
    width = attribute.high - attribute.low
    return np.vstack([attribute.low + width * (mu_t + 0.5), width * np.sqrt(v_t)]), w_mu, w_v


def _pooled_rho(parts, excess: str, den: str, var: str) -> float:
    """ρ by the method of moments pooled over attributes, from the lower confidence bound of the pooled excess
    (excess − RHO_SIGNIFICANCE·√(its variance bound)): with no signal ρ stays 0 unless the noise is unusually large,
    so noise alone rarely makes the conditionals class-dependent; with no noise it is the plain moment estimate."""
    parts = list(parts)
    total = sum(p[den] for p in parts)
    if total <= 0:
        return 0.0
    lower = sum(p[excess] for p in parts) - RHO_SIGNIFICANCE * np.sqrt(sum(p[var] for p in parts))
    return float(np.clip(lower / total, 0.0, 1.0))


def fit_robust_nb(
    class_attribute: Categorical,
    attributes: Sequence[Attribute],
    X,
    y,
    epsilon: float,
    rng: np.random.Generator | int | None = None,
    *,
    return_details: bool = False,
):
    """ε-DP Naive Bayes with the budget split, noise-aware shrinkage and variance floor of the module docstring.

    Draw order: class counts, then per attribute in order its count table or its (T1, T2) vector.
    ``return_details``: also a dict with the budget parts, the noisy class counts and per attribute the shrinkage
    weights (for tests and the lab; private)."""
    attributes = tuple(attributes)
    X, y = check_data(class_attribute, attributes, X, y)
    rng = as_rng(rng)
    k = class_attribute.size
    eps_0, eps_i = budget_split(epsilon, attributes)
    n_true = np.bincount(y, minlength=k).astype(np.float64)
    counts = grid_laplace(rng, n_true, 1.0, eps_0)
    releases: list[np.ndarray] = []  # every draw first (the draw order above), then post-processing only
    for j, (a, eps_j) in enumerate(zip(attributes, eps_i, strict=True)):
        if isinstance(a, Categorical):
            joint = np.bincount(X[:, j].astype(np.int64) * k + y, minlength=a.size * k).reshape(a.size, k)
            releases.append(grid_laplace(rng, joint.astype(np.float64), 1.0, eps_j))
        else:
            z = (X[:, j] - a.low) / (a.high - a.low) - 0.5
            sums = np.stack([np.bincount(y, weights=z, minlength=k), np.bincount(y, weights=z**2, minlength=k)])
            releases.append(grid_laplace(rng, sums, NUMERIC_SENSITIVITY, eps_j))
    # The class counts, from every release that holds them: the class-count vector (variance v₀) and the column
    # sums of each categorical table (variance n_i·v_i), weighted by their inverse variances (independent, unbiased).
    precision = 1.0 / noise_variance(1.0, eps_0)
    weighted = counts * precision
    for a, eps_j, noisy in zip(attributes, eps_i, releases, strict=True):
        if isinstance(a, Categorical):
            p = 1.0 / (a.size * noise_variance(1.0, eps_j))
            weighted = weighted + noisy.sum(axis=0) * p
            precision += p
    var_n = 1.0 / precision
    n_c = np.maximum(weighted * var_n, 0.0)
    prior = n_c if n_c.sum() > 0 else np.ones(k)
    valid = n_c - SIGNIFICANCE * np.sqrt(var_n) >= 1.0  # the count's lower confidence bound is ≥ 1
    raw = {j: _raw_categorical(noisy, n_c, valid, noise_variance(1.0, eps_j))
           for j, (a, eps_j, noisy) in enumerate(zip(attributes, eps_i, releases, strict=True))
           if isinstance(a, Categorical)}
    # ρ pooled over the categorical attributes (one scatter level for the data set: far steadier than per table).
    rho = _pooled_rho([{"excess": p[4], "den": p[5], "var": p[6]} for p in raw.values()], "excess", "den", "var")
    numeric = {j: _raw_numeric(noisy[0], noisy[1], n_c, valid, noise_variance(NUMERIC_SENSITIVITY, eps_j), var_n)
               for j, (a, eps_j, noisy) in enumerate(zip(attributes, eps_i, releases, strict=True))
               if isinstance(a, Numeric)}
    # ρ_μ and ρ_V pooled over the numeric attributes (each on its own scale), as ρ over the categorical ones.
    rho_mu = _pooled_rho(numeric.values(), "excess_mu", "den_mu", "var_mu")
    rho_v = _pooled_rho(numeric.values(), "excess_v", "den_v", "var_v")
    conditionals, weights = [], []
    for j, a in enumerate(attributes):
        if isinstance(a, Categorical):
            r, s2, marginal, spread, *_ = raw[j]
            table, w = _shrink_categorical(r, s2, marginal, spread, rho)
            conditionals.append(table)
            weights.append({"weights": w, "rho": rho})
        else:
            assert isinstance(a, Numeric)
            params, w_mu, w_v = _shrink_numeric(numeric[j], rho_mu, rho_v, a)
            conditionals.append(params)
            weights.append({"mean_weights": w_mu, "var_weights": w_v, "rho": (rho_mu, rho_v)})
    metadata = {
        "mechanism": "central-robust",
        "spec": "beyond the papers: SPEC §6's Laplace releases with the budget split, shrinkage and variance floor "
                "of privacy.central.robust_nb",
        "epsilon": float(epsilon),
        "epsilon_class": eps_0,
        "epsilon_attribute": eps_i[0] if eps_i else None,
        "noise": "discrete Laplace on the grid sensitivity/2^10, after randomized rounding to it",
        "sensitivities": {"counts": 1.0, "numeric_sums": NUMERIC_SENSITIVITY},
        "var_floor_fraction": VAR_FLOOR,
        "guarantee": GUARANTEE_ROBUST,
    }
    model = NaiveBayesModel(class_attribute, attributes, prior, conditionals, metadata=metadata)
    if return_details:
        return model, {"epsilon_class": eps_0, "epsilon_attributes": eps_i, "noisy_class_counts": counts,
                       "attributes": weights}
    return model
