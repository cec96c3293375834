"""Sources of randomness for the client halves.

Every ``perturb`` takes an injected ``numpy.random.Generator``: tests and simulations pass a seeded one;
``default_rng()`` gives a fresh generator keyed from the operating system's CSPRNG (``secrets``).
Real respondents never use this module: their browser randomizes with ``crypto.getRandomValues``.

Client halves restrict themselves to three primitives — ``rng.random(size)``, ``rng.integers(low, high, size)``
and ``rng.laplace(0, scale, size)`` — so that a byte-stream generator with the browser's exact sampling rules
can stand in for numpy when producing cross-language test vectors.
"""
from __future__ import annotations

import secrets

import numpy as np

__all__ = ["default_rng", "as_rng"]


def default_rng() -> np.random.Generator:
    """A Philox generator keyed with 128 fresh bits from the OS's CSPRNG."""
    return np.random.Generator(np.random.Philox(key=secrets.randbits(128)))


def as_rng(rng: np.random.Generator | int | None) -> np.random.Generator:
    """Accept a Generator, an integer seed (tests) or ``None`` (OS-keyed default)."""
    if rng is None:
        return default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(rng)
