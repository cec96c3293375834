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
full conditional distributions. After-mining PSE is therefore often 0 — that is the seed's measure, clipped at 0.
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
    return min(pse_entry(p, theta, y) for p, y in zip(priors, personals))


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
