"""Dimensionality reduction before perturbation (SPEC §5c): PCA and DCA (Kung 2014).

The server fits a projection on a *public* reference sample the designer provides, and publishes it with the
survey. The browser standardises its numeric answers with the published mean and scale, projects them with W,
clips to the published bounds and then runs discretization (§5a) or Gaussian NB (§5b) on the components.

Standardisation uses the reference sample's mean and standard deviation (ddof 1; a constant column keeps scale 1).

* PCA: the top right-singular vectors of the standardised reference sample (= eigenvectors of its correlation matrix).
* DCA: the top eigenvectors of (S_W + ρI)⁻¹ S_B, solved as the symmetric generalized problem
  S_B v = λ (S_W + ρI) v (``scipy.linalg.eigh``); S_W is the within-class and S_B the between-class scatter (sums
  over rows, so the ridge is applied as ρ·n·I — ``rho`` is relative to the unit per-row variance). S_B has rank
  ≤ k − 1: only the first k − 1 components carry discriminant information, further ones (eigenvalue 0) are an
  arbitrary basis of the rest and are best not requested.
Each component is scaled to unit length and its sign fixed (largest loading positive), so fits are reproducible.

Public bounds of each component are the reference sample's range widened by ``BOUND_MARGIN`` of it on each side, so
that respondents slightly outside the reference range keep their position; beyond, ``transform`` clips.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from ..schema import Numeric

__all__ = ["Projection", "fit_pca", "fit_dca", "BOUND_MARGIN", "METHODS"]

#: Each component's public bounds: the reference sample's [min, max] widened by this fraction of its range per side.
BOUND_MARGIN = 0.1
METHODS = ("pca", "dca")


@dataclass(frozen=True, eq=False)
class Projection:
    """x ↦ clip(((x − mean) / scale) · W, low, high); W has one column per component."""

    method: str
    mean: np.ndarray  # (m,)
    scale: np.ndarray  # (m,)
    W: np.ndarray  # (m, r)
    low: np.ndarray  # (r,)
    high: np.ndarray  # (r,)

    @property
    def n_components(self) -> int:
        return int(self.W.shape[1])

    def project(self, X) -> np.ndarray:
        """Standardise and project, without clipping."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.mean.shape[0]:
            raise ValueError(f"X must have shape (n, {self.mean.shape[0]})")
        if not np.all(np.isfinite(X)):
            raise ValueError("X must hold finite numbers")
        return ((X - self.mean) / self.scale) @ self.W

    def transform(self, X) -> np.ndarray:
        """Standardise, project and clip to the published bounds."""
        return np.clip(self.project(X), self.low, self.high)

    def attributes(self, prefix: str | None = None) -> list[Numeric]:
        """The components as public numeric attributes (``pc1``… or ``dc1``…)."""
        prefix = prefix or ("pc" if self.method == "pca" else "dc")
        return [Numeric(f"{prefix}{i + 1}", float(lo), float(hi))
                for i, (lo, hi) in enumerate(zip(self.low, self.high, strict=True))]

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "W": self.W.tolist(),
            "low": self.low.tolist(),
            "high": self.high.tolist(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Projection":
        try:
            arr = {k: np.asarray(data[k], dtype=np.float64) for k in ("mean", "scale", "W", "low", "high")}
            method = str(data["method"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a projection: {exc}") from None
        m = arr["mean"].shape[0] if arr["mean"].ndim == 1 else -1
        W = arr["W"]
        if (
            method not in METHODS or m < 1 or arr["scale"].shape != (m,) or W.ndim != 2 or W.shape[0] != m
            or arr["low"].shape != (W.shape[1],) or arr["high"].shape != (W.shape[1],)
            or not all(np.all(np.isfinite(a)) for a in arr.values())
            or np.any(arr["scale"] <= 0) or np.any(arr["low"] >= arr["high"])
        ):
            raise ValueError("not a projection: inconsistent shapes or values")
        return cls(method, **arr)


def _standardise(X) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 1:
        raise ValueError("the reference sample must be an (n ≥ 2, m ≥ 1) array")
    if not np.all(np.isfinite(X)):
        raise ValueError("the reference sample must hold finite numbers")
    mean = X.mean(axis=0)
    scale = X.std(axis=0, ddof=1)
    scale = np.where(scale > 0, scale, 1.0)
    return (X - mean) / scale, mean, scale


def _check_components(n_components: int, m: int) -> int:
    n_components = int(n_components)
    if not 1 <= n_components <= m:
        raise ValueError(f"n_components must be between 1 and {m}")
    return n_components


def _orient(W: np.ndarray) -> np.ndarray:
    """Fix each component's sign (largest-magnitude loading positive) so fits are reproducible."""
    idx = np.argmax(np.abs(W), axis=0)
    return W * np.sign(W[idx, np.arange(W.shape[1])])


def _with_bounds(method: str, Z: np.ndarray, mean, scale, W) -> Projection:
    proj = Z @ W
    lo, hi = proj.min(axis=0), proj.max(axis=0)
    pad = BOUND_MARGIN * np.maximum(hi - lo, 1e-12)
    return Projection(method, mean, scale, W, lo - pad, hi + pad)


def fit_pca(reference_X, n_components: int) -> Projection:
    """PCA on the standardised reference sample."""
    Z, mean, scale = _standardise(reference_X)
    r = _check_components(n_components, Z.shape[1])
    _, _, vt = np.linalg.svd(Z, full_matrices=False)
    return _with_bounds("pca", Z, mean, scale, _orient(vt[:r].T))


def fit_dca(reference_X, reference_y, n_components: int, rho: float = 1e-3) -> Projection:
    """DCA (Kung 2014): top eigenvectors of (S_W + ρI)⁻¹ S_B on the standardised reference sample.

    S_W and S_B are scatter matrices (sums over rows), so the ridge is applied as ρ·n·I: ``rho`` is relative to the
    per-row (standardised, unit-variance) covariance and does not depend on the sample size.
    """
    Z, mean, scale = _standardise(reference_X)
    r = _check_components(n_components, Z.shape[1])
    y = np.asarray(reference_y)
    if y.shape != (Z.shape[0],):
        raise ValueError("reference_y must have one class per reference row")
    if np.unique(y).size < 2:
        raise ValueError("reference_y must hold at least two classes")
    try:
        rho = float(rho)
    except (TypeError, ValueError):
        raise ValueError("rho must be a number > 0") from None
    if not (np.isfinite(rho) and rho > 0):
        raise ValueError("rho must be a finite number > 0")
    m = Z.shape[1]
    s_w = np.zeros((m, m))
    s_b = np.zeros((m, m))
    for c in np.unique(y):
        Zc = Z[y == c]
        d = Zc - Zc.mean(axis=0)
        s_w += d.T @ d
        g = (Zc.mean(axis=0))[:, None]  # the overall mean of Z is 0
        s_b += Zc.shape[0] * (g @ g.T)
    vals, vecs = linalg.eigh(s_b, s_w + rho * Z.shape[0] * np.eye(m))
    order = np.argsort(vals)[::-1][:r]
    W = vecs[:, order]
    W = W / np.linalg.norm(W, axis=0)
    return _with_bounds("dca", Z, mean, scale, _orient(W))
