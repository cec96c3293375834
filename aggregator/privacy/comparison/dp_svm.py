"""ε-DP linear SVM by objective perturbation (SPEC §7; seed 003 Algorithm 2, after Chaudhuri, Monteleoni &
Sarwate 2011).

Trusted-curator setting, for the comparison lab only. The model minimises the Huber-loss SVM objective plus a random
linear term::

    J(w) = (1/n) Σ ℓ_h(y_i · w·x_i) + (Λ'/2)‖w‖² + (1/n) b·w,      y_i ∈ {−1, +1}

    ℓ_h(z) = 0 if z > 1 + h;  (1 + h − z)²/(4h) if |1 − z| ≤ h;  1 − z if z < 1 − h.

Calibration (``calibrate``): ε' = ε − ln(1 + 1/(nhΛ) + 1/(4n²h²Λ²)); if ε' > 0 then ε'' = ε', Λ' = Λ, else
ε'' = ε/2, Λ' = 1/(2nh(e^{ε/4} − 1)) — exactly as SPEC §7 (and the seed). b has density ∝ exp(−ε''‖b‖/2): its norm is
Gamma(dim, scale 2/ε''), its direction uniform on the sphere (``noise_vector``).

The guarantee needs every row to satisfy ‖x‖ ≤ 1 (``Encoder``): categorical attributes are one-hot (the seed assigns
random integers to categories instead; one-hot keeps the classes linearly separable where they are), numeric ones are
scaled to [0, 1] by their public bounds and clipped, a constant 1 is appended as the bias feature, and every row is
divided by √(number of encoded blocks), the largest norm any row can have — a public constant, never a statistic of
the data, so the scaling costs no privacy.

More than two classes: one-vs-rest, each binary problem at ε/k (every row takes part in all k problems: sequential
composition). ``epsilon=math.inf`` trains the same objective without noise (b = 0, Λ' = Λ), the non-private
reference.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.optimize import minimize

from ..schema import Attribute, Categorical, Numeric

__all__ = ["Calibration", "calibrate", "noise_vector", "huber_loss", "Encoder", "DPSVM", "fit_dp_svm",
           "DEFAULT_HUBER", "DEFAULT_LAMBDA"]

DEFAULT_HUBER = 0.5
DEFAULT_LAMBDA = 0.01


@dataclass(frozen=True)
class Calibration:
    """ε'' (the noise's budget) and Λ' (the regulariser actually used) for one binary problem."""

    epsilon: float
    epsilon_prime: float
    epsilon_noise: float
    regulariser: float


def calibrate(epsilon: float, n: int, h: float = DEFAULT_HUBER, regulariser: float = DEFAULT_LAMBDA) -> Calibration:
    """SPEC §7: ε', ε'' and Λ' for n rows, Huber parameter h and regulariser Λ."""
    if n < 1 or h <= 0 or regulariser <= 0:
        raise ValueError("need n ≥ 1, h > 0 and Λ > 0")
    if epsilon == math.inf:
        return Calibration(math.inf, math.inf, math.inf, regulariser)
    if not epsilon > 0:
        raise ValueError("ε must be > 0")
    eps_prime = epsilon - math.log(1 + 1 / (n * h * regulariser) + 1 / (4 * n**2 * h**2 * regulariser**2))
    if eps_prime > 0:
        return Calibration(epsilon, eps_prime, eps_prime, regulariser)
    return Calibration(epsilon, eps_prime, epsilon / 2, 1 / (2 * n * h * (math.exp(epsilon / 4) - 1)))


def noise_vector(dim: int, epsilon_noise: float, rng: np.random.Generator) -> np.ndarray:
    """b with density ∝ exp(−ε''‖b‖/2): ‖b‖ ~ Gamma(dim, scale 2/ε''), direction uniform (zero when ε'' = ∞)."""
    if epsilon_noise == math.inf:
        return np.zeros(dim)
    direction = rng.standard_normal(dim)
    direction /= np.linalg.norm(direction)
    return rng.gamma(dim, 2.0 / epsilon_noise) * direction


def huber_loss(z: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """ℓ_h(z) and its derivative dℓ/dz, elementwise."""
    z = np.asarray(z, dtype=np.float64)
    loss = np.where(z > 1 + h, 0.0, np.where(z < 1 - h, 1 - z, (1 + h - z) ** 2 / (4 * h)))
    grad = np.where(z > 1 + h, 0.0, np.where(z < 1 - h, -1.0, -(1 + h - z) / (2 * h)))
    return loss, grad


class Encoder:
    """Rows of codes/values → vectors of norm ≤ 1 (see module docstring); uses public schema facts only."""

    def __init__(self, attributes: Sequence[Attribute]):
        self.attributes = tuple(attributes)
        self.dim = sum(a.size if isinstance(a, Categorical) else 1 for a in self.attributes) + 1
        self.scale = math.sqrt(len(self.attributes) + 1)

    def __call__(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        blocks = []
        for j, a in enumerate(self.attributes):
            if isinstance(a, Categorical):
                blocks.append(np.eye(a.size)[X[:, j].astype(np.int64)])
            elif isinstance(a, Numeric):
                blocks.append(np.clip((X[:, j:j + 1] - a.low) / (a.high - a.low), 0.0, 1.0))
            else:
                raise ValueError(f"unsupported attribute {a!r}")
        blocks.append(np.ones((X.shape[0], 1)))
        return np.hstack(blocks) / self.scale


def _solve(Z: np.ndarray, y: np.ndarray, calibration: Calibration, b: np.ndarray, h: float) -> np.ndarray:
    n = Z.shape[0]
    lam = calibration.regulariser

    def objective(w):
        loss, grad = huber_loss(y * (Z @ w), h)
        value = loss.mean() + lam / 2 * w @ w + b @ w / n
        gradient = Z.T @ (grad * y) / n + lam * w + b / n
        return value, gradient

    result = minimize(objective, np.zeros(Z.shape[1]), jac=True, method="L-BFGS-B",
                      options={"maxiter": 2000, "gtol": 1e-10, "ftol": 1e-14})
    return result.x


class DPSVM:
    """A trained (ε-DP) linear SVM: one weight vector per binary problem."""

    def __init__(self, encoder: Encoder, classes: int, weights: np.ndarray, calibrations, noise_norms):
        self.encoder = encoder
        self.classes = classes
        self.weights = weights  # (problems, dim)
        self.calibrations = tuple(calibrations)
        self.noise_norms = tuple(noise_norms)

    def decision_function(self, X) -> np.ndarray:
        return self.encoder(X) @ self.weights.T

    def predict(self, X) -> np.ndarray:
        scores = self.decision_function(X)
        if self.classes == 2:
            return (scores[:, 0] > 0).astype(np.int64)
        return np.argmax(scores, axis=1)

    def to_dict(self) -> dict:
        return {"mechanism": "dp-svm-objective-perturbation", "classes": self.classes,
                "weights": self.weights.tolist(), "noise_norms": list(self.noise_norms),
                "calibrations": [c.__dict__ for c in self.calibrations]}


def fit_dp_svm(class_attribute: Categorical, attributes: Sequence[Attribute], X, y, epsilon: float,
               rng: np.random.Generator, h: float = DEFAULT_HUBER, regulariser: float = DEFAULT_LAMBDA) -> DPSVM:
    """Train an ε-DP SVM (``epsilon=math.inf``: no noise). Binary classes directly, else one-vs-rest at ε/k each."""
    encoder = Encoder(attributes)
    Z = encoder(X)
    y = np.asarray(y, dtype=np.int64)
    k = class_attribute.size
    problems = [1] if k == 2 else list(range(k))
    per_problem = epsilon if epsilon == math.inf else epsilon / len(problems)
    weights, calibrations, norms = [], [], []
    for positive in problems:
        calibration = calibrate(per_problem, Z.shape[0], h, regulariser)
        b = noise_vector(encoder.dim, calibration.epsilon_noise, rng)
        labels = np.where(y == positive, 1.0, -1.0)
        weights.append(_solve(Z, labels, calibration, b, h))
        calibrations.append(calibration)
        norms.append(float(np.linalg.norm(b)))
    return DPSVM(encoder, k, np.asarray(weights), calibrations, norms)
