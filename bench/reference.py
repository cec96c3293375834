"""Plain vectorized numpy reference for the frequency oracles' server half (SPEC §3).

The benchmark holds the engine's ``aggregate`` + ``estimate`` to within 1.5× of these straightforward numpy
folds. Each reference takes the engine's own report format and parameters (p, q, threshold, g, hash) and
returns the same support counts, so the benchmark also checks the engine's fold against it for equality.

* DE (GRR): ``np.bincount`` of the reported values.
* SUE / OUE / SS: unpack the packed bits to an (n, d) uint8 array and ``bits.sum(axis=0)`` (SS's report is the same
  packed bit vector, with ω bits set).
* SHE: ``reports.sum(axis=0)``; THE: ``(reports > t).sum(axis=0)``.
* OLH: vectorized hash comparison — H_{a,b}(v) for every report and every value v, compared with y.
* Estimator: Ê_v = (c_v − n·q)/(p − q) for the pure protocols; SHE's estimate is the summed component.

Folds that materialize an (n, d) intermediate work in chunks of ``CHUNK`` reports so that memory stays
bounded (n = 10⁶, d = 256 would otherwise mean 2 GB of int64 hashes); chunking costs nothing measurable.
"""
from __future__ import annotations

import numpy as np

from aggregator.privacy.oracles import PureProtocol

__all__ = ["CHUNK", "FOLDS", "fold_de", "fold_unary", "fold_she", "fold_the", "fold_olh", "estimate_pure", "fold",
           "estimate"]

CHUNK = 1 << 16


def fold_de(reports: np.ndarray, domain: int) -> np.ndarray:
    return np.bincount(reports, minlength=domain)


def fold_unary(packed: np.ndarray, domain: int) -> np.ndarray:
    total = np.zeros(domain, dtype=np.int64)
    for start in range(0, packed.shape[0], CHUNK):
        bits = np.unpackbits(packed[start:start + CHUNK], axis=1, count=domain, bitorder="little")
        total += bits.sum(axis=0, dtype=np.int64)
    return total


def fold_she(reports: np.ndarray, domain: int) -> np.ndarray:
    return reports.sum(axis=0)


def fold_the(reports: np.ndarray, domain: int, threshold: float) -> np.ndarray:
    total = np.zeros(domain, dtype=np.int64)
    for start in range(0, reports.shape[0], CHUNK):
        total += (reports[start:start + CHUNK] > threshold).sum(axis=0)
    return total


def fold_olh(a: np.ndarray, b: np.ndarray, y: np.ndarray, domain: int, g: int, prime: int) -> np.ndarray:
    """c_v = #{reports with ((a·v + b) mod prime) mod g == y}."""
    v = np.arange(domain, dtype=np.int64)
    total = np.zeros(domain, dtype=np.int64)
    for start in range(0, a.shape[0], CHUNK):
        stop = start + CHUNK
        h = (a[start:stop, None].astype(np.int64) * v + b[start:stop, None]) % prime % g
        total += (h == y[start:stop, None]).sum(axis=0)
    return total


def estimate_pure(support: np.ndarray, n: int, p: float, q: float) -> np.ndarray:
    return (support - n * q) / (p - q)


# -- the reference of each engine oracle, by its report format and parameters ------------------------

#: The reference fold of each oracle (its registry name → fold(fo, reports)): independent code on purpose, so one per
#: report format; an oracle without one is benchmarked without the equality check.
FOLDS = {
    "de": lambda fo, reports: fold_de(reports, fo.domain),
    "sue": lambda fo, reports: fold_unary(reports, fo.domain),
    "oue": lambda fo, reports: fold_unary(reports, fo.domain),
    "ss": lambda fo, reports: fold_unary(reports, fo.domain),
    "she": lambda fo, reports: fold_she(reports, fo.domain),
    "the": lambda fo, reports: fold_the(reports, fo.domain, fo.threshold),
    "olh": lambda fo, reports: fold_olh(*reports, fo.domain, fo.g, fo.params()["prime"]),
}


def fold(fo, reports) -> np.ndarray:
    """Reference support counts for the engine oracle ``fo`` (its report format and parameters)."""
    if fo.name not in FOLDS:
        raise ValueError(f"no reference fold for {fo.name!r}")
    return FOLDS[fo.name](fo, reports)


def estimate(fo, n: int, support: np.ndarray) -> np.ndarray:
    """Ê_v = (c_v − n·q)/(p − q) for a pure protocol; a summed component itself otherwise (SHE)."""
    if not isinstance(fo, PureProtocol):
        return support.astype(np.float64)
    return estimate_pure(support, n, fo.p, fo.q)
