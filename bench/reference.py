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

__all__ = ["CHUNK", "fold_de", "fold_unary", "fold_she", "fold_the", "fold_olh", "estimate_pure", "fold", "estimate"]

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


# -- dispatch on the engine's oracle objects --------------------------------------------------------

def fold(fo, reports) -> np.ndarray:
    """Reference support counts for the engine oracle ``fo`` (its report format and parameters)."""
    name, d = fo.name, fo.domain
    if name == "de":
        return fold_de(reports, d)
    if name in ("sue", "oue", "ss"):
        return fold_unary(reports, d)
    if name == "she":
        return fold_she(reports, d)
    if name == "the":
        return fold_the(reports, d, fo.threshold)
    if name == "olh":
        a, b, y = reports
        return fold_olh(a, b, y, d, fo.g, fo.params()["prime"])
    raise ValueError(f"no reference fold for {name!r}")


def estimate(fo, n: int, support: np.ndarray) -> np.ndarray:
    if fo.name == "she":
        return support.astype(np.float64)
    return estimate_pure(support, n, fo.p, fo.q)
