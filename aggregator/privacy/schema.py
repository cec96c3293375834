"""Public description of a survey's attributes (SPEC §1): what the collector may know without any report.

A ``Categorical`` attribute has an ordered tuple of value labels (codes are indices into it); a ``Numeric``
attribute has public bounds [low, high]. The class attribute is a ``Categorical``. Data are passed around
as integer codes (categorical) and floats (numeric); ``aggregator.lab.datasets`` turns CSV tables into them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

import numpy as np

__all__ = ["Categorical", "Numeric", "Attribute", "attribute_from_dict"]


@dataclass(frozen=True)
class Categorical:
    name: str
    values: tuple[str, ...]

    def __post_init__(self):
        object.__setattr__(self, "values", tuple(str(v) for v in self.values))
        if len(self.values) < 1:
            raise ValueError(f"attribute {self.name!r} needs at least one value")
        if len(set(self.values)) != len(self.values):
            raise ValueError(f"attribute {self.name!r} has duplicate values")

    kind = "categorical"

    @property
    def size(self) -> int:
        return len(self.values)

    def code(self, label) -> int:
        try:
            return self.values.index(str(label))
        except ValueError:
            raise ValueError(f"{label!r} is not a value of {self.name!r}") from None

    def to_dict(self) -> dict:
        return {"kind": self.kind, "name": self.name, "values": list(self.values)}


@dataclass(frozen=True)
class Numeric:
    name: str
    low: float
    high: float

    kind = "numeric"

    def __post_init__(self):
        if not (np.isfinite(self.low) and np.isfinite(self.high) and self.low < self.high):
            raise ValueError(f"attribute {self.name!r} needs finite bounds with low < high")

    def normalise(self, x) -> np.ndarray:
        """Clip to [low, high] and map to [-1, 1]: x̃ = 2(x − l)/(u − l) − 1 (SPEC §5)."""
        x = np.clip(np.asarray(x, dtype=np.float64), self.low, self.high)
        return 2.0 * (x - self.low) / (self.high - self.low) - 1.0

    def denormalise(self, x) -> np.ndarray:
        """Inverse of ``normalise``: l + (x̃ + 1)(u − l)/2."""
        return self.low + (np.asarray(x, dtype=np.float64) + 1.0) * (self.high - self.low) / 2.0

    def to_dict(self) -> dict:
        return {"kind": self.kind, "name": self.name, "low": float(self.low), "high": float(self.high)}


Attribute = Union[Categorical, Numeric]


def attribute_from_dict(data: dict) -> Attribute:
    if data["kind"] == "categorical":
        return Categorical(data["name"], tuple(data["values"]))
    if data["kind"] == "numeric":
        return Numeric(data["name"], float(data["low"]), float(data["high"]))
    raise ValueError(f"unknown attribute kind {data['kind']!r}")
