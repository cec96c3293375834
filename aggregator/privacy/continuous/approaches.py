"""The three ways a Gaussian NB respondent reports a class-hiding vector (SPEC §5b; derivations in
``continuous.gaussian``'s docstring). One class per approach, each owning its sensitivity and noise, ``randomize``
(client half), ``validate`` and ``fold`` (server half), its JSON wire codec and its browser parameters:

* ``AllVectors`` (Approach 1): all m vectors, an m × k array, every component + grid Lap(2m/ε);
* ``OneBit`` (Approach 2): Duchi et al.'s one bit over the D = m·k entries, reported as (j, ±1);
* ``OneVector`` (Approach 3): one attribute's vector (attribute drawn uniformly, public) + grid Lap(2/ε).

Reports of one group (n_g respondents): Approach 1 a float (n_g, m, k) array; Approach 2 a pair (j int (n_g,),
sign ±1 int (n_g,)); Approach 3 a pair (attribute int (n_g,), float (n_g, k)). Wire (one report): Approach 1 an
m × k list of numbers, Approach 2 ``[j, ±1]``, Approach 3 ``[attribute, [k numbers]]``. The random draws are the
browser's (static/js/gaussian.mjs), in this order: Approach 2 the entries then the bits; Approach 3 the attributes,
then the grid rounding, then the noise.
"""
from __future__ import annotations

import math

import numpy as np

from .. import noise
from ..browser_arithmetic import duchi_half_gap, grid_laplace_unmatched_mass, realized_duchi_epsilon
from ..describe import Description
from ..oracles.wire import check_grid_values, grid_numbers_schema, integer_schema, is_int, is_number, tuple_schema

__all__ = ["VectorApproach", "AllVectors", "OneBit", "OneVector", "APPROACH_CLASSES", "approach_class", "get_approach"]

#: Prior share of Approaches 1 and 2 when none is given.
DEFAULT_PRIOR_SHARE = 0.1

class VectorApproach:
    """One approach for m numeric attributes, k classes and budget ε (each report is ε-LDP)."""

    number: int
    #: The browser module's key (``static/js/approaches/index.mjs``), published as ``approach_name``.
    name: str
    #: The survey form's choice text (``Survey.gaussian_approach``).
    title: str
    #: Its glossary entry and planner label (``privacy.describe``).
    description: Description
    #: The browser noise whose ε bound applies (``browser_arithmetic.max_supported_epsilon``): "laplace" or "duchi".
    browser_noise: str = "laplace"

    def __init__(self, m: int, k: int, epsilon: float):
        self.m, self.k, self.epsilon = int(m), int(k), float(epsilon)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(m={self.m}, k={self.k}, epsilon={self.epsilon:g})"

    def default_prior_share(self) -> float:
        """Share of the prior group when none is given (``LDPGaussianNB``)."""
        return DEFAULT_PRIOR_SHARE

    @property
    def sensitivity(self) -> float:
        """L1 sensitivity of what is noised (Approaches 1 and 3)."""
        raise ValueError(f"Approach {self.number} adds no Laplace noise")

    @property
    def laplace_scale(self) -> float:
        """Scale b = Δ/ε of the (grid) Laplace noise on each component."""
        return self.sensitivity / self.epsilon

    @property
    def noise_variance(self) -> float:
        """Variance of the noise on one component (rounding excluded): the discrete Laplace's, ≈ 2b²."""
        return noise.discrete_laplace_variance(self.laplace_scale)

    @property
    def noised_components(self) -> int:
        """How many components of one report carry grid Laplace noise."""
        return 0

    def realized_epsilon(self) -> float:
        """ε of one report as the browser realizes it (``browser_arithmetic``): grid Laplace from bounded draws has
        outputs only one answer can give, so ∞, with ``unmatched_mass`` beside it."""
        return math.inf

    def unmatched_mass(self) -> float:
        """The probability, per report, of the outputs only one answer can give (0: none)."""
        return self.noised_components * grid_laplace_unmatched_mass(self.laplace_scale, noise.GRID, shift=2.0)

    def _laplace(self, V: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Randomized rounding to the grid, then discrete Laplace of scale Δ/ε."""
        return noise.randomized_round(rng, V) + noise.discrete_laplace(rng, self.laplace_scale, V.shape)

    # -- per approach --------------------------------------------------------------------------
    def randomize(self, z: np.ndarray, y: np.ndarray, rng: np.random.Generator):
        """Reports of one group: ``z`` (n, m) checked entries in [−1, 1], ``y`` (n,) int64 classes."""
        raise NotImplementedError

    def validate(self, reports):
        """Check one group's engine reports (shape, ranges, finiteness); returns them normalised."""
        raise NotImplementedError

    def fold(self, reports) -> tuple:
        """One group's reports → (n, Σ of components (m, k), Σ of their squares (m, k), reports per attribute (m,)):
        the fields of ``gaussian.MomentSums``."""
        raise NotImplementedError

    def to_wire(self, reports) -> list:
        """One group's engine reports → one JSON value per report."""
        raise NotImplementedError

    def from_wire(self, values: list):
        """JSON values → validated engine reports; ``ValueError`` with a readable message."""
        raise NotImplementedError

    def wire_schema(self) -> dict:
        """JSON Schema (2020-12) of one wire report, admitting what ``from_wire`` accepts (``oracles.wire``)."""
        raise NotImplementedError

    def params(self) -> dict:
        """This approach's part of the browser's parameters: its module's name and what it draws with."""
        return {"approach_name": self.name, "laplace_scale": self.laplace_scale, "grid": noise.GRID}


class AllVectors(VectorApproach):
    """Approach 1: all m class-hiding vectors, each component + grid Lap(2m/ε)."""

    number = 1
    name = "all-vectors"

    @property
    def noised_components(self) -> int:
        return self.m * self.k
    title = "Approach 1 — every answer with Laplace noise 2m/ε"
    description = Description(
        "gaussian-1", title, "The whole table, with Laplace noise on every entry.", "", "SPEC §5b",
        "Numbers kept as numbers: all of them with noise (Gaussian approach 1)")

    @property
    def sensitivity(self) -> float:
        """2m: all m vectors are noised, each at L1 distance ≤ 2."""
        return 2.0 * self.m

    def randomize(self, z, y, rng):
        n = z.shape[0]
        V = np.zeros((n, self.m, self.k))
        V[np.arange(n), :, y] = z
        return self._laplace(V, rng)

    def validate(self, reports):
        m, k = self.m, self.k
        V = np.asarray(reports, dtype=np.float64)
        if V.ndim != 3 or V.shape[1:] != (m, k) or not np.all(np.isfinite(V)):
            raise ValueError(f"Approach 1 reports must be finite arrays of shape (n, {m}, {k})")
        return V

    def fold(self, reports) -> tuple:
        V = self.validate(reports)
        return V.shape[0], V.sum(axis=0), (V**2).sum(axis=0), np.full(self.m, V.shape[0], dtype=np.int64)

    def to_wire(self, reports) -> list:
        return np.asarray(reports).tolist()

    def from_wire(self, values: list):
        m, k = self.m, self.k
        if not all(isinstance(v, list) and len(v) == m and all(
                isinstance(r, list) and len(r) == k and all(is_number(x) for x in r) for r in v) for v in values):
            raise ValueError(f"an Approach 1 report is an {m}×{k} list of finite numbers")
        V = np.asarray(values, dtype=np.float64).reshape(len(values), m, k)
        return self.validate(check_grid_values(V, self.laplace_scale, "Approach 1 report"))

    def wire_schema(self) -> dict:
        """m lists of k grid numbers."""
        return {"type": "array", "items": grid_numbers_schema(self.laplace_scale, self.k), "minItems": self.m,
                "maxItems": self.m}


class _IndexedApproach(VectorApproach):
    """Approaches 2 and 3: a report is a pair (integer index, payload)."""

    def _pair(self, reports) -> tuple[np.ndarray, object]:
        try:
            first, second = reports
        except (TypeError, ValueError):
            raise ValueError("Approach 2 and 3 reports are a pair of arrays") from None
        first = np.asarray(first)
        if first.ndim != 1 or (first.size and not np.issubdtype(first.dtype, np.integer)):
            raise ValueError("report indices must be a 1-d integer array")
        return first, second

    @staticmethod
    def _wire_indices(values: list) -> np.ndarray:
        if not all(isinstance(v, list) and len(v) == 2 and is_int(v[0]) for v in values):
            raise ValueError("this report is a pair [integer index, …]")
        return np.asarray([v[0] for v in values], dtype=np.int64) if values else np.empty(0, np.int64)


class OneBit(_IndexedApproach):
    """Approach 2: one uniformly drawn entry j of the D = m·k entries, one bit u ~ Bernoulli(P[u = 1 | V_j])."""

    number = 2
    name = "one-bit"
    title = "Approach 2 — one bit (Duchi et al.)"
    description = Description(
        "gaussian-2", title, "A single random +1 or −1 about one entry of the table.", "", "SPEC §5b",
        "Numbers kept as numbers: one random +1 or −1 (Gaussian approach 2)")
    browser_noise = "duchi"

    def realized_epsilon(self) -> float:
        """The Duchi bit's exact ε: finite."""
        return realized_duchi_epsilon(self.epsilon)

    def unmatched_mass(self) -> float:
        return 0.0

    @property
    def magnitude(self) -> float:
        """|V'_j| = D(e^ε+1)/(e^ε−1), D = m·k."""
        e = math.exp(self.epsilon)
        return self.m * self.k * (e + 1) / (e - 1)

    @property
    def half_gap(self) -> float:
        """h = (e^ε−1)/(2e^ε + 2): P[u = 1] = 1/2 + v·h (published; the browser computes the same double)."""
        return duchi_half_gap(self.epsilon)

    def probability(self, v) -> np.ndarray:
        """P[u = 1] = (v(e^ε−1) + e^ε + 1)/(2e^ε + 2) = 1/2 + v·h for entries v ∈ [−1, 1], as the browser computes
        it (``browser_arithmetic.duchi_probability``)."""
        return 0.5 + np.asarray(v, dtype=np.float64) * self.half_gap

    def randomize(self, z, y, rng):
        n = z.shape[0]
        j = rng.integers(0, self.m * self.k, size=n)
        attr, cls = np.divmod(j, self.k)
        v = np.where(cls == y, z[np.arange(n), attr], 0.0)
        u = rng.random(n) < self.probability(v)
        return j.astype(np.int64), np.where(u, 1, -1).astype(np.int64)

    def validate(self, reports):
        first, second = self._pair(reports)
        sign = np.asarray(second)
        if sign.shape != first.shape or not np.all(np.isin(sign, (-1, 1))):
            raise ValueError("Approach 2 signs must be ±1, one per report")
        if first.size and (first.min() < 0 or first.max() >= self.m * self.k):
            raise ValueError(f"Approach 2 entry indices must lie in [0, {self.m * self.k})")
        return first.astype(np.int64), sign.astype(np.int64)

    def fold(self, reports) -> tuple:
        m, k = self.m, self.k
        j, sign = self.validate(reports)
        c = self.magnitude
        sums = np.bincount(j, weights=sign * c, minlength=m * k).reshape(m, k)
        sumsq = np.bincount(j, minlength=m * k).reshape(m, k) * c**2
        return j.shape[0], sums, sumsq.astype(np.float64), np.full(m, j.shape[0], dtype=np.int64)

    def to_wire(self, reports) -> list:
        first, second = reports
        return [[int(j), int(s)] for j, s in zip(first, second, strict=True)]

    def from_wire(self, values: list):
        first = self._wire_indices(values)
        if not all(is_int(v[1]) for v in values):
            raise ValueError("an Approach 2 report is [entry, ±1] with integers")
        return self.validate((first, np.asarray([v[1] for v in values], dtype=np.int64)))

    def wire_schema(self) -> dict:
        """[entry in [0, m·k), ±1]."""
        return tuple_schema([integer_schema(0, self.m * self.k - 1), {"enum": [-1, 1]}])

    def params(self) -> dict:
        return {"approach_name": self.name, "onebit_magnitude": self.magnitude, "onebit_half_gap": self.half_gap}


class OneVector(_IndexedApproach):
    """Approach 3: one uniformly drawn attribute's class-hiding vector, each component + grid Lap(2/ε)."""

    number = 3
    name = "one-vector"

    @property
    def noised_components(self) -> int:
        return self.k
    title = "Approach 3 — one answer with Laplace noise 2/ε"
    description = Description(
        "gaussian-3", title, "One number's row, picked at random, with Laplace noise.", "", "SPEC §5b",
        "Numbers kept as numbers: one of them with noise (Gaussian approach 3)")

    def default_prior_share(self) -> float:
        """1/(2m + 1): uniform over the prior and the 2m (attribute, moment) inputs."""
        return 1.0 / (2 * self.m + 1)

    @property
    def sensitivity(self) -> float:
        """2: one vector is noised."""
        return 2.0

    def randomize(self, z, y, rng):
        n = z.shape[0]
        rows = np.arange(n)
        attr = rng.integers(0, self.m, size=n)
        V = np.zeros((n, self.k))
        V[rows, y] = z[rows, attr]
        return attr.astype(np.int64), self._laplace(V, rng)

    def validate(self, reports):
        first, second = self._pair(reports)
        V = np.asarray(second, dtype=np.float64)
        if V.shape != (first.shape[0], self.k) or not np.all(np.isfinite(V)):
            raise ValueError(f"Approach 3 vectors must be finite arrays of shape (n, {self.k})")
        if first.size and (first.min() < 0 or first.max() >= self.m):
            raise ValueError(f"Approach 3 attribute indices must lie in [0, {self.m})")
        return first.astype(np.int64), V

    def fold(self, reports) -> tuple:
        m, k = self.m, self.k
        attr, V = self.validate(reports)
        sums = np.zeros((m, k))
        sumsq = np.zeros((m, k))
        np.add.at(sums, attr, V)
        np.add.at(sumsq, attr, V**2)
        return attr.shape[0], sums, sumsq, np.bincount(attr, minlength=m).astype(np.int64)

    def to_wire(self, reports) -> list:
        first, second = reports
        return [[int(a), list(map(float, v))] for a, v in zip(first, second, strict=True)]

    def from_wire(self, values: list):
        k = self.k
        first = self._wire_indices(values)
        if not all(isinstance(v[1], list) and len(v[1]) == k and all(is_number(x) for x in v[1]) for v in values):
            raise ValueError(f"an Approach 3 report is [attribute, [{k} finite numbers]]")
        vec = np.asarray([v[1] for v in values], dtype=np.float64).reshape(len(values), k)
        return self.validate((first, check_grid_values(vec, self.laplace_scale, "Approach 3 report")))

    def wire_schema(self) -> dict:
        """[attribute in [0, m), k grid numbers]."""
        return tuple_schema([integer_schema(0, self.m - 1), grid_numbers_schema(self.laplace_scale, self.k)])


#: The approaches by number (SPEC §5b).
APPROACH_CLASSES = {cls.number: cls for cls in (AllVectors, OneBit, OneVector)}


def approach_class(number) -> type[VectorApproach]:
    """The class of the approach numbered 1, 2 or 3; ``ValueError`` otherwise."""
    if isinstance(number, bool) or number not in tuple(APPROACH_CLASSES):
        raise ValueError("approach must be 1, 2 or 3")
    return APPROACH_CLASSES[int(number)]


def get_approach(number, m: int, k: int, epsilon: float) -> VectorApproach:
    """The approach numbered 1, 2 or 3 for m attributes, k classes and ε; ``ValueError`` for another number."""
    return approach_class(number)(m, k, epsilon)
