"""More signal at small ε from a public reference sample: its conditionals as the prior of the survey's, with a
weight the survey's own reports decide (SPEC §4, beyond the papers; cf. Ma & Yang on LDP classification with public
data).

Each class's column gets the sample's add-½ centre C_·c = (n_ac + ½)/(n_c + n_i/2) and the prior Dirichlet(κ_c·C_·c);
the published column is the posterior mean given the reports' raw r_ac = P̂(a ∧ c)/P̂(c) and its standard error s_ac
(``shrinkage.posterior_mean``). The weight is type-II maximum likelihood: with λ = 1/(κ + 1), each r_ac is taken as
N(C_ac, s_ac² + v_ac·(λ + 1/(n_c + 1))), v_ac = C_ac(1 − C_ac) (the last term the centre's own sampling noise), cells
independent; λ̂ maximises that on a grid, and κ_c + 1 = 1/(λ̂ + 1/(n_c + 1)). Reports that agree with the sample
beyond their noise give λ̂ → 0 (the public conditionals); reports that disagree (another population) give a large λ̂
(the reports win). The class prior is treated alike, with the sample's class shares as its centre. Approximations, for
the weight only: the cells are taken as independent (a column sums to 1), and a raw conditional's standard error adds
the class prior's by the delta method as if the two were independent (with one report per respondent they share
some reports). Only the model's additive statistics and the sample's counts are used: O(parameters).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .naive_bayes.model import NaiveBayesModel
from .postprocess import to_distribution
from .schema import Categorical
from .shrinkage import posterior_mean

__all__ = ["reference_counts", "centres", "public_share", "with_public_prior", "prior_sentence", "GRID", "KAPPA_MIN"]

#: Grid points of λ = 1/(κ + 1) over which ``public_share`` maximises the likelihood.
GRID = 400
#: The least concentration (as ``dependence.KAPPA_MIN``): Dirichlet(κ·C) with κ < 1 piles its mass in the corners.
KAPPA_MIN = 1.0


def reference_counts(X, y, attributes: Sequence, k: int) -> list[np.ndarray]:
    """Per question the (n_i, k) counts of (answer, class) in the public sample (codes, as the model takes them)."""
    X = np.asarray(X, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    if X.ndim != 2 or X.shape != (y.size, len(attributes)):
        raise ValueError("the reference sample needs one row per class label and one column per question")
    out = []
    for i, attr in enumerate(attributes):
        if not isinstance(attr, Categorical):
            raise ValueError(f"question {attr.name!r} is numeric: the public prior takes categorical questions")
        if X.size and (X[:, i].min() < 0 or X[:, i].max() >= attr.size):
            raise ValueError(f"question {attr.name!r} has answers outside its {attr.size} values")
        counts = np.zeros((attr.size, k))
        np.add.at(counts, (X[:, i], y), 1.0)
        out.append(counts)
    return out


def centres(counts) -> np.ndarray:
    """The add-½ column distributions C_·c of one question's (n_i, k) public counts."""
    counts = np.asarray(counts, dtype=np.float64)
    return (counts + 0.5) / (counts.sum(axis=0) + 0.5 * counts.shape[0])


def public_share(raw: Sequence, errors: Sequence, counts: Sequence) -> float:
    """λ̂ = 1/(κ̂ + 1): the share of the public conditionals' variance by which the survey's differ, by type-II maximum
    likelihood over every question's cells (module docstring). ``raw[i]``, ``errors[i]``: (n_i, k) raw conditionals
    and their standard errors (cells of a class without reports: NaN, left out); ``counts[i]``: the public counts."""
    rs, ss, vs, ns = [], [], [], []
    for r, s, c in zip(raw, errors, counts, strict=True):
        r, s, c = (np.asarray(a, dtype=np.float64) for a in (r, s, c))
        C = centres(c)
        n_c = np.broadcast_to(c.sum(axis=0), C.shape)
        ok = np.isfinite(r) & np.isfinite(s)
        rs.append(r[ok])
        ss.append(s[ok])
        vs.append((C * (1 - C))[ok])
        ns.append(((C * (1 - C)) / (n_c + 1))[ok])
        rs[-1] = rs[-1] - C[ok]  # the residual from the centre
    r, s, v, centre_var = (np.concatenate(a) for a in (rs, ss, vs, ns))
    if r.size == 0:
        return 1.0 / (1.0 + KAPPA_MIN)
    top = 1.0 / (1.0 + KAPPA_MIN)
    share = (np.arange(GRID) + 0.5) / GRID * top
    var = s[None, :] ** 2 + centre_var[None, :] + share[:, None] * v[None, :]
    log_lik = -0.5 * np.sum(r[None, :] ** 2 / var + np.log(var), axis=1)
    return float(share[int(np.argmax(log_lik))])


def with_public_prior(model: NaiveBayesModel, counts: Sequence) -> NaiveBayesModel:
    """``model`` (an LDP Naive Bayes estimate with ``joint_raw`` and ``joint_standard_errors`` in its metadata) with
    every conditional the posterior mean under the public sample's Dirichlet prior (module docstring); the class prior
    the same way, with the sample's class shares as its centre and a weight of its own. ``metadata["public_prior"]``:
    the share λ̂, each class's κ_c, the class prior's share and κ, and the sample's size."""
    meta = model.metadata
    if "joint_raw" not in meta or "joint_standard_errors" not in meta:
        raise ValueError("the model carries no raw joint estimates (an LDP Naive Bayes estimate has them)")
    if len(counts) != len(model.attributes):
        raise ValueError("one table of public counts per question")
    # P̂(c) of the same reports, projected onto the simplex: the denominator of the raw conditionals.
    prior = to_distribution(np.asarray(meta.get("prior_raw", model.prior), dtype=np.float64), "norm-sub")
    safe = np.where(prior > 0, prior, 1.0)
    # The ratio's standard error by the delta method: the joint's and, where the prior's comes from other reports
    # (one report per respondent), the prior's, √((se/p)² + (r·se_p/p)²).
    prior_se = np.asarray(meta.get("prior_standard_errors", np.zeros(prior.size)), dtype=np.float64)
    raw, errors = [], []
    for joint, se in zip(meta["joint_raw"], meta["joint_standard_errors"], strict=True):
        joint, se = np.asarray(joint, dtype=np.float64), np.asarray(se, dtype=np.float64)
        r = joint / safe
        raw.append(np.where(prior > 0, r, np.nan))
        errors.append(np.where(prior > 0, np.hypot(se / safe, r * prior_se / safe), np.nan))
    for c, r in zip(counts, raw, strict=True):
        if np.asarray(c).shape != r.shape:
            raise ValueError("the public counts must have the shape of the question's (answers, classes) table")
    share = public_share(raw, errors, counts)
    tables = []
    n_c = np.asarray(counts[0], dtype=np.float64).sum(axis=0) if counts else np.zeros(prior.size)
    kappas = np.maximum(1.0 / (share + 1.0 / (n_c + 1.0)) - 1.0, KAPPA_MIN)  # per class: the centre's noise folded in
    for r, s, c in zip(raw, errors, counts, strict=True):
        C = centres(c)
        columns = np.empty_like(C)
        for j in range(C.shape[1]):
            if not np.isfinite(r[:, j]).all():  # a class the reports' projected prior puts at 0: the public column
                columns[:, j] = C[:, j]
                continue
            mean = posterior_mean(r[:, j], s[:, j], C.shape[0], centre=C[:, j], concentration=float(kappas[j]))
            total = mean.sum()
            columns[:, j] = mean / total if total > 0 else C[:, j]
        tables.append(columns)
    # The class prior the same way: the sample's add-½ class shares as the centre, the reports' raw P̂(c) with its
    # standard errors as the data, one weight of its own.
    raw_prior = np.asarray(meta.get("prior_raw", model.prior), dtype=np.float64)
    class_counts = n_c[:, None]
    prior_share = public_share([raw_prior[:, None]], [prior_se[:, None]], [class_counts])
    prior_kappa = max(1.0 / (prior_share + 1.0 / (n_c.sum() + 1.0)) - 1.0, KAPPA_MIN)
    published = posterior_mean(raw_prior, prior_se, prior.size, centre=centres(class_counts)[:, 0],
                               concentration=prior_kappa)
    published = published / published.sum() if published.sum() > 0 else centres(class_counts)[:, 0]
    # The default's guard, its κ and the conditionals' standard errors describe the model this one replaces.
    replaced = ("guard", "concentration", "prior_concentration", "conditional_standard_errors")
    metadata = {k: v for k, v in meta.items() if k not in replaced}
    metadata["public_prior"] = {"share": share, "concentrations": kappas.tolist(), "prior_share": prior_share,
                                "prior_concentration": prior_kappa, "sample_rows": int(n_c.sum())}
    return NaiveBayesModel(model.class_attribute, model.attributes, published, tables, metadata=metadata)


def prior_sentence(metadata: dict) -> str | None:
    """What the public sample did to one estimated model, in plain words (``metadata["public_prior"]``), or ``None``
    for a model without it. The share is shown on its own scale: 2λ̂, from 0 to 1 (λ̂ ≤ 1/(1 + ``KAPPA_MIN``))."""
    prior = metadata.get("public_prior")
    if not prior:
        return None
    scale = min(2.0 * float(prior["share"]), 1.0)
    return (f"Estimator: each class's answers, and the classes' shares, start from the public reference sample "
            f"({prior['sample_rows']} rows), weighed with the reports by their noise and the sample's size; the "
            f"reports put the respondents' difference from the sample at {scale:.2f} on a scale from 0 (no "
            f"difference beyond the reports' noise: the sample carries its full weight) to 1 (the reports count as "
            f"much as they can).")
