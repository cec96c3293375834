"""Plausibility checks on published models: signs of poisoning or of a broken client (the dashboard's warnings).

Two checks on the unbiased raw estimates a model carries in its ``metadata`` (``raw_parameters``):

* ``out_of_range`` — raw estimates of probabilities (P(c), P(a ∧ c)) below 0 or above 1. Unbiased estimates of
  small probabilities leave [0, 1] by noise alone, so each finding says how many standard errors it lies outside;
  only those beyond ``Z_WARN`` standard errors are warnings (probability < 10⁻⁴ each under the model's own noise).
* ``jumps`` — parameters that moved between two consecutive versions by more than ``Z_WARN`` times the standard
  error of the difference, taken as if the versions were independent, √(SE₁² + SE₂²). Consecutive versions share
  most reports, so honest data moves far less than that: the test is conservative, and a finding is a strong signal
  (fake users flooding the survey, or a client sending malformed but valid-looking reports).
"""
from __future__ import annotations

import numpy as np

__all__ = ["raw_parameters", "out_of_range", "jumps", "Z_WARN"]

#: Standard errors beyond which a finding becomes a warning.
Z_WARN = 4.0


def raw_parameters(model) -> dict[str, tuple[np.ndarray, np.ndarray, bool]]:
    """{parameter name: (raw estimate, standard error, is a probability)} from a model's metadata.

    ``P(c)`` from ``prior_raw`` (or the published prior), ``P(a ∧ c) <attribute>`` from ``joint_raw`` (discrete LDP
    NB and MRR), ``mean <attribute>`` from the conditionals' μ row and ``mean_standard_errors`` (Gaussian NB). A mixed
    model's lists hold ``None`` for the attributes of the other kind (``protocol.mixed``): those are skipped."""
    meta = model.metadata
    out: dict[str, tuple[np.ndarray, np.ndarray, bool]] = {}
    if meta.get("prior_standard_errors") is not None:
        prior = meta.get("prior_raw", model.prior)
        out["P(c)"] = (np.asarray(prior, dtype=float), np.asarray(meta["prior_standard_errors"], dtype=float), True)
    if meta.get("joint_raw") is not None and meta.get("joint_standard_errors") is not None:
        for attr, raw, se in zip(model.attributes, meta["joint_raw"], meta["joint_standard_errors"], strict=False):
            if raw is None or se is None:
                continue
            out[f"P(a ∧ c) {attr.name}"] = (np.asarray(raw, dtype=float), np.asarray(se, dtype=float), True)
    if meta.get("mean_standard_errors") is not None:
        for attr, table, se in zip(model.attributes, model.conditionals, meta["mean_standard_errors"], strict=False):
            if se is None:
                continue
            out[f"mean {attr.name}"] = (np.asarray(table[0], dtype=float), np.asarray(se, dtype=float), False)
    return out


def _z(excess: np.ndarray, se: np.ndarray) -> np.ndarray:
    """Excess in standard errors (a positive excess with a zero standard error is infinitely many)."""
    return np.where(se > 0, excess / np.where(se > 0, se, 1.0), np.where(excess > 0, np.inf, 0.0))


def out_of_range(model, z_warn: float = Z_WARN) -> list[dict]:
    """Raw probability estimates outside [0, 1]: one finding per parameter table that has any, with how many
    entries, the worst excess in standard errors, and ``warning`` when it exceeds ``z_warn``."""
    findings = []
    for name, (raw, se, probability) in raw_parameters(model).items():
        if not probability:
            continue
        excess = np.maximum(-raw, raw - 1.0)
        outside = np.isfinite(raw) & (excess > 0)
        if not outside.any():
            continue
        worst = float(np.max(_z(excess[outside], se[outside])))
        findings.append({"parameter": name, "entries": int(outside.sum()), "worst_z": worst,
                         "min": float(np.nanmin(raw)), "max": float(np.nanmax(raw)), "warning": worst > z_warn})
    return findings


def jumps(previous, current, z_warn: float = Z_WARN) -> list[dict]:
    """Parameters whose raw estimate moved by more than ``z_warn``·√(SE₁² + SE₂²) between two versions."""
    before, after = raw_parameters(previous), raw_parameters(current)
    findings = []
    for name, (raw, se, _) in after.items():
        if name not in before or before[name][0].shape != raw.shape:
            continue
        old, old_se, _ = before[name]
        z = _z(np.abs(raw - old), np.sqrt(se**2 + old_se**2))
        z = np.where(np.isfinite(raw) & np.isfinite(old), z, 0.0)
        if z.size and float(z.max()) > z_warn:
            i = int(np.argmax(z))
            findings.append({"parameter": name, "entries": int((z > z_warn).sum()), "worst_z": float(z.flat[i]),
                             "from": float(old.flat[i]), "to": float(raw.flat[i]), "warning": True})
    return findings
