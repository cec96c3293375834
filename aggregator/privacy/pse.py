"""PSE, seed 004's privacy measure for MRR, before and after mining (SPEC §2 "PSE privacy measure", seed 004 §4).

Before mining (§4.1), for one entry with original value O (prior π) and MRR-randomized value R
(channel P(r|o) = θ[r=o] + (1−θ)P_Y(r), ``channel.mrr_channel``):

    PSE = Σ_o Σ_r π(o)·P(R=r|O=o)·(1 − P(O=o|R=r)),   P(O=o|R=r) = π(o)P(r|o) / Σ_o' π(o')P(r|o'),

the probability that the collector's guess "drawn from the posterior" misses. A group's privacy is the minimum
over its entries (``pse_group``). ``pse_binary`` evaluates the same sum for binary entries on whole arrays of
(W_a, θ, W_y) at once (numpy broadcasting), e.g. for the seed's Figure 6 grid.

After mining (§4.2): PSE = PSE(PRE) − REC, clipped at 0, REC being the recoverability from inference rules.
The seed documents two formulas, implemented literally:

* Scenario I (original values of the rule's precondition known, e.g. vertically partitioned data):
  REC = Σ_p Pr(precondition = p) · Σ_t Pr(p ⇒ t)  (``rec_known_precondition``);
* Scenario II (precondition's original values unknown — centralized mining, Coinflip's case):
  REC = Σ_p Σ_t Pr(T(R)=t | P(R)=p) · Pr(T(O)=t | T(R)=t)  (``rec_unknown_precondition``), the rule's confidence
  being measured on randomized values as in the seed's example, the second factor being the posterior of a
  correct guess of the original value through the MRR channel.

Operationalisation for Naive Bayes (``pse_after_mining``). The mined model's conditionals are the inference
rules: for a feature entry A_i, the rules [C = c] ⇒ [A_i = a] of confidence P̂(a|c); for the class entry, the
rules [A_j = a] ⇒ [C = c] of confidence P̂(c|a) = P̂(a|c)P̂(c)/P̂(a) (Bayes), one rule set per feature j.
The original joint J(a, c) = P̂(c)P̂(a|c) is pushed through the MRR channel (θ·J + (1−θ)P_Y⊗P_Y when A_i and C
share a group, Ch_a·J·Ch_cᵀ otherwise) to get the randomized confidences Scenario II needs; Scenario I uses the
original confidences and P̂ of the precondition. The entry's prior (for PSE(PRE) and the correct-guess posterior)
is the model's marginal (P̂(a) = Σ_c J(a, c), or P̂(c)). When several rule sets bear on an entry (the class) the
largest REC is taken ("we compute REC for each entry, we then select the largest value"). Only these direct
rules are used (no feature ⇒ feature rules). As in the seed, the Scenario II sum runs over every rule without
weighting by the precondition's probability, so REC can exceed 1; Scenario I's REC is 1 whenever the rules form
full conditional distributions. After-mining PSE is therefore almost always 0 — that is the seed's measure, clipped
at 0, kept as the documented *paper-literal variant*.

Informative form, the default (SPEC §2 "PSE after mining, informative form"; ``pse_after_mining_bayes``): the error
of an adversary who knows the published model — P(x) = P(c)·Π_j P(x_j | c) — sees the *whole* randomized record and
guesses entry i by sampling from its posterior (the guessing rule of PSE before, which sees R_i only):

    PSE_after(i) = 1 − E_{x ~ model, R ~ channel(x)} [P(O_i = x_i | R)] = 1 − E_R[Σ_a P(O_i = a | R)²].

With the model's marginal as the prior of PSE before: (a) 0 ≤ PSE_after ≤ PSE_before, because P(·|R_i) =
E[P(·|R) | R_i] and Σ_a p_a² is convex (Jensen); (b) it does not rise with θ_g: the θ₁-channel is the θ₂-channel
(θ₂ ≥ θ₁) followed by "keep w.p. θ₁/θ₂, else replace the group by fresh personal answers", a garbling, and the
expected posterior collision probability cannot rise under garbling (Blackwell); (c) it equals PSE_before when the
rest of the record carries no information on entry i: entry i independent of the others under the model and, within
its group, the model's distribution of the other entries equal to their P_Y (e.g. a uniform model with uniform P_Y,
the default) — otherwise how plausible R_{−i} is under the model tells whether the group was sent true.
Computation: with one coin per group, P(x_i = a, R = r) = Σ_{S ⊆ groups} Π_{g∈S} θ_g Π_{g∉S} (1−θ_g)P_Y(r_g) ·
P_model(x_{S} = r_{S}, x_i = a), each model marginal a sum over classes of products of conditionals (2^G terms).
Exact by enumerating every record r when the record space has at most ``MAX_ENUMERATE`` records; otherwise Monte
Carlo over r ~ (model, channel) with a seeded generator, the estimate's standard error returned beside it.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .assignment import check_probabilities
from .channel import check_theta, mrr_channel

__all__ = [
    "posterior",
    "pse_entry",
    "pse_binary",
    "pse_group",
    "rec_known_precondition",
    "rec_unknown_precondition",
    "pse_after_mining",
    "pse_after_mining_bayes",
    "MAX_ENUMERATE",
]


def _joint(prior, theta, personal) -> np.ndarray:
    """J[r, o] = π(o)·P(R=r | O=o)."""
    pi = check_probabilities(prior, name="prior")
    P = mrr_channel(theta, personal)
    if P.shape[1] != pi.size:
        raise ValueError("prior and personal must have the same number of values")
    return P * pi[None, :]


def posterior(prior, theta, personal) -> np.ndarray:
    """post[r, o] = P(O=o | R=r) under MRR (rows of unreachable outputs are 0)."""
    J = _joint(prior, theta, personal)
    pr = J.sum(axis=1, keepdims=True)
    return np.divide(J, pr, out=np.zeros_like(J), where=pr > 0)


def pse_entry(prior, theta, personal) -> float:
    """PSE(PRE) of one entry (SPEC §2): Σ_o Σ_r π(o)P(r|o)(1 − P(O=o|R=r))."""
    J = _joint(prior, theta, personal)
    pr = J.sum(axis=1, keepdims=True)
    post = np.divide(J, pr, out=np.zeros_like(J), where=pr > 0)
    return float(np.sum(J * (1.0 - post)))


def pse_binary(w_a, theta, w_y=0.5) -> np.ndarray:
    """PSE(PRE) of binary entries, vectorized: W_a = P(A=1), W_y = P(Y=1), θ broadcast against each other.

    Same sum as ``pse_entry`` with π = (1−W_a, W_a), P_Y = (1−W_y, W_y); returns an array of the broadcast shape.
    """
    w_a, theta, w_y = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (w_a, theta, w_y)))
    for name, x in (("w_a", w_a), ("theta", theta), ("w_y", w_y)):
        if np.any(~np.isfinite(x)) or np.any(x < 0) or np.any(x > 1):
            raise ValueError(f"{name} must lie in [0, 1]")
    pi = (1.0 - w_a, w_a)
    p_y = (1.0 - w_y, w_y)
    total = np.zeros(w_a.shape)
    for r in (0, 1):
        # J[r, o] = π(o)·P(R=r | O=o), P(r|o) = θ[r=o] + (1−θ)P_Y(r)
        J = [pi[o] * (theta * (r == o) + (1.0 - theta) * p_y[r]) for o in (0, 1)]
        pr = J[0] + J[1]
        for o in (0, 1):
            post = np.divide(J[o], pr, out=np.zeros_like(pr), where=pr > 0)
            total = total + J[o] * (1.0 - post)
    return total


def pse_group(priors: Sequence, theta, personals: Sequence) -> float:
    """A group's privacy: the minimum PSE over its entries (SPEC §2)."""
    if len(priors) == 0 or len(priors) != len(personals):
        raise ValueError("priors and personals must hold one distribution per entry of the group")
    return min(pse_entry(p, theta, y) for p, y in zip(priors, personals, strict=True))


def rec_known_precondition(precondition_prior, confidences) -> float:
    """Scenario I (seed 004 §4.2): REC = Σ_p Pr(p) Σ_t conf[t, p], conf[t, p] = Pr(p ⇒ t)."""
    pi = check_probabilities(precondition_prior, name="precondition_prior")
    conf = np.asarray(confidences, dtype=np.float64)
    if conf.ndim != 2 or conf.shape[1] != pi.size or np.any(conf < 0) or np.any(conf > 1):
        raise ValueError("confidences must be an (n_t, n_p) array of probabilities conf[t, p] = Pr(p ⇒ t)")
    return float(np.sum(pi[None, :] * conf))


def rec_unknown_precondition(confidences, correct_guess) -> float:
    """Scenario II (seed 004 §4.2): REC = Σ_p Σ_t conf[t, p]·correct[t], correct[t] = Pr(T(O)=t | T(R)=t)."""
    conf = np.asarray(confidences, dtype=np.float64)
    correct = np.asarray(correct_guess, dtype=np.float64)
    if conf.ndim != 2 or np.any(conf < 0) or np.any(conf > 1):
        raise ValueError("confidences must be a 2-d array of probabilities conf[t, p]")
    if correct.shape != (conf.shape[0],) or np.any(correct < 0) or np.any(correct > 1):
        raise ValueError("correct_guess must hold one probability per conclusion value t")
    return float(np.sum(conf * correct[:, None]))


def _columns_normalised(M: np.ndarray) -> np.ndarray:
    s = M.sum(axis=0, keepdims=True)
    return np.divide(M, s, out=np.zeros_like(M), where=s > 0)


def pse_after_mining(scheme, prior, conditionals, scenario: str = "centralized") -> dict:
    """Before/after-mining PSE of every entry of an ``MRRScheme`` given NB parameters (see module docstring).

    ``prior`` (k,) and ``conditionals`` ((n_j, k) per feature, class skipped) — e.g. ``est.prior`` and
    ``est.conditionals`` of an ``MRREstimate``. ``scenario``: "centralized" (Scenario II, default) or
    "known-precondition" (Scenario I). Returns arrays in scheme attribute order: "before", "rec", "after"
    (= max(before − rec, 0)), and per group "group_before", "group_after" (minimum over the group's entries).
    """
    if scenario not in ("centralized", "known-precondition"):
        raise ValueError("scenario must be 'centralized' or 'known-precondition'")
    ci = scheme.class_index
    feats = scheme.feature_indices
    k = scheme.class_attribute.size
    p_c = check_probabilities(prior, size=k, name="prior")
    if len(conditionals) != len(feats):
        raise ValueError("conditionals must hold one (n_j, k) array per feature attribute")
    theta_c = scheme.theta_of(ci)
    m = len(scheme.attributes)
    before = np.zeros(m)
    rec = np.zeros(m)
    class_recs = [0.0]
    for j, i in enumerate(feats):
        cond = np.asarray(conditionals[j], dtype=np.float64)
        if cond.shape != (scheme.attributes[i].size, k):
            raise ValueError(f"conditionals[{j}] must have shape ({scheme.attributes[i].size}, {k})")
        J = cond * p_c[None, :]
        theta_a = scheme.theta_of(i)
        if scheme.group_of[i] == scheme.group_of[ci]:
            JR = check_theta(theta_c) * J + (1 - theta_c) * np.outer(scheme.personal[i], scheme.personal[ci])
        else:
            JR = mrr_channel(theta_a, scheme.personal[i]) @ J @ mrr_channel(theta_c, scheme.personal[ci]).T
        p_a = J.sum(axis=1)
        p_a = p_a / p_a.sum()
        before[i] = pse_entry(p_a, theta_a, scheme.personal[i])
        if scenario == "centralized":
            correct_a = np.diag(posterior(p_a, theta_a, scheme.personal[i]))
            rec[i] = rec_unknown_precondition(_columns_normalised(JR), correct_a)
            correct_c = np.diag(posterior(p_c, theta_c, scheme.personal[ci]))
            class_recs.append(rec_unknown_precondition(_columns_normalised(JR.T), correct_c))
        else:
            rec[i] = rec_known_precondition(p_c, _columns_normalised(J))
            class_recs.append(rec_known_precondition(p_a, _columns_normalised(J.T)))
    before[ci] = pse_entry(p_c, theta_c, scheme.personal[ci])
    rec[ci] = max(class_recs)
    after = np.maximum(before - rec, 0.0)
    return {
        "before": before,
        "rec": rec,
        "after": after,
        "group_before": np.array([before[list(g)].min() for g in scheme.groups]),
        "group_after": np.array([after[list(g)].min() for g in scheme.groups]),
    }


#: Largest record space ``pse_after_mining_bayes`` enumerates exactly.
MAX_ENUMERATE = 1 << 15
_MC_BATCH = 20_000


def _attribute_factors(scheme, conditionals) -> list:
    """F_t (n_t, k) with F_t[a, c] = P(x_t = a | c) for a feature, [a = c] for the class."""
    k = scheme.class_attribute.size
    if len(conditionals) != len(scheme.feature_indices):
        raise ValueError("conditionals must hold one (n_j, k) array per feature attribute")
    factors, j = [], 0
    for t, a in enumerate(scheme.attributes):
        if t == scheme.class_index:
            factors.append(np.eye(k))
        else:
            cond = np.asarray(conditionals[j], dtype=np.float64)
            if cond.shape != (a.size, k):
                raise ValueError(f"conditionals[{j}] must have shape ({a.size}, {k})")
            if np.any(cond < 0) or not np.allclose(cond.sum(axis=0), 1.0, atol=1e-9):
                raise ValueError(f"conditionals[{j}] must hold one distribution per class (columns summing to 1)")
            factors.append(cond)
            j += 1
    return factors


def _collisions(scheme, p_c, factors, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For records R (N, m): P(R = r) (N,) and Σ_a P(O_i = a | r)² per entry (N, m) (module docstring)."""
    n_groups = len(scheme.groups)
    L = [factors[t][R[:, t], :] for t in range(R.shape[1])]            # (N, k) each
    py = [scheme.personal[t][R[:, t]] for t in range(R.shape[1])]      # (N,) each
    Lg, PYg = [], []
    for members in scheme.groups:
        lg, pg = np.ones_like(L[0]), np.ones(R.shape[0])
        for t in members:
            lg, pg = lg * L[t], pg * py[t]
        Lg.append(lg)
        PYg.append(pg)
    total = np.zeros(R.shape[0])
    joint = [np.zeros((R.shape[0], factors[t].shape[0])) for t in range(R.shape[1])]
    for mask in range(1 << n_groups):
        inside = [g for g in range(n_groups) if mask >> g & 1]
        w = np.ones(R.shape[0])
        LS = np.ones_like(L[0])
        for g in range(n_groups):
            if mask >> g & 1:
                w = w * scheme.thetas[g]
                LS = LS * Lg[g]
            else:
                w = w * (1.0 - scheme.thetas[g]) * PYg[g]
        weighted = LS * (p_c[None, :] * w[:, None])                   # (N, k): w_S·P(c)·L_S(c)
        mass = weighted.sum(axis=1)
        total += mass
        for t in range(R.shape[1]):
            if scheme.group_of[t] in inside:
                joint[t][np.arange(R.shape[0]), R[:, t]] += mass
            else:
                joint[t] += weighted @ factors[t].T
    safe = np.where(total > 0, total, 1.0)
    coll = np.column_stack([np.sum((jt / safe[:, None]) ** 2, axis=1) for jt in joint])
    return total, coll


def _sample_reports(scheme, p_c, factors, n: int, rng) -> np.ndarray:
    """n randomized records: x ~ model (class, then features given it), then one MRR coin per group."""
    m = len(scheme.attributes)
    c = rng.choice(p_c.size, size=n, p=p_c)
    X = np.empty((n, m), dtype=np.int64)
    for t in range(m):
        if t == scheme.class_index:
            X[:, t] = c
        else:
            cum = np.cumsum(factors[t], axis=0)[:, c]                  # (n_t, n)
            X[:, t] = np.minimum((rng.random(n)[None, :] >= cum).sum(axis=0), factors[t].shape[0] - 1)
    truth = np.column_stack([rng.random(n) < th for th in scheme.thetas])[:, list(scheme.group_of)]
    Y = np.column_stack([rng.choice(p.size, size=n, p=p) for p in scheme.personal])
    return np.where(truth, X, Y)


def pse_after_mining_bayes(scheme, prior, conditionals, rng: np.random.Generator | None = None,
                           samples: int = 100_000, max_enumerate: int = MAX_ENUMERATE) -> dict:
    """Informative PSE after mining (module docstring) of every entry of an ``MRRScheme`` for a published NB model.

    ``prior`` (k,), ``conditionals`` ((n_j, k) per feature, class skipped). Exact when the record space has at
    most ``max_enumerate`` records, else Monte Carlo over ``samples`` records drawn with ``rng`` (default: a fixed
    seed, so a model's figure is reproducible). Returns arrays in scheme order: "before" (PSE before mining with the
    model's marginal as prior), "after", "after_se" (0 when exact), and "group_before"/"group_after" (minimum over
    each group's entries, SPEC §2), "method" ("exact" | "monte-carlo") and "samples".
    """
    k = scheme.class_attribute.size
    p_c = check_probabilities(prior, size=k, name="prior")
    factors = _attribute_factors(scheme, conditionals)
    m = len(scheme.attributes)
    marginals = [F @ p_c for F in factors]
    before = np.array([pse_entry(marginals[t] / marginals[t].sum(), scheme.theta_of(t), scheme.personal[t])
                       for t in range(m)])
    sizes = [a.size for a in scheme.attributes]
    space = int(np.prod(sizes, dtype=object))
    if space <= max_enumerate:
        R = np.indices(sizes).reshape(m, -1).T.astype(np.int64)
        total, coll = _collisions(scheme, p_c, factors, R)
        after: np.ndarray = 1.0 - total @ coll
        se: np.ndarray = np.zeros(m)
        method, n = "exact", space
    else:
        rng = np.random.default_rng(0) if rng is None else rng
        n = int(samples)
        if n < 2:
            raise ValueError("samples must be at least 2")
        acc = np.zeros(m)
        acc2 = np.zeros(m)
        done = 0
        while done < n:
            b = min(_MC_BATCH, n - done)
            _, coll = _collisions(scheme, p_c, factors, _sample_reports(scheme, p_c, factors, b, rng))
            acc += coll.sum(axis=0)
            acc2 += (coll**2).sum(axis=0)
            done += b
        mean = acc / n
        after = 1.0 - mean
        se = np.sqrt(np.maximum(acc2 / n - mean**2, 0.0) * n / (n - 1) / n)
        method = "monte-carlo"
    after = np.clip(after, 0.0, None)
    return {
        "before": before,
        "after": after,
        "after_se": se,
        "group_before": np.array([before[list(g)].min() for g in scheme.groups]),
        "group_after": np.array([after[list(g)].min() for g in scheme.groups]),
        "method": method,
        "samples": n,
    }
