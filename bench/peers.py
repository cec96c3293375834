"""Adapters calling the peer libraries' frequency oracles (benchmark only; the product never imports them).

* pure-ldp 1.2.0 (``pure_ldp.frequency_oracles``): per-report client/server objects — ``DEClient/DEServer``,
  ``UEClient/UEServer(use_oue=...)``, ``HEClient/HEServer(use_the=...)`` (THE with its own optimal threshold),
  ``LHClient/LHServer(use_olh=True)``. Server = ``aggregate_all(reports)`` then ``estimate_all(range(d))``.
  Its default ``index_mapper`` is ``x - 1`` (1-based items); we pass the identity since our values are 0-based.
* multi-freq-ldpy 0.2.5 (``multi_freq_ldpy.pure_frequency_oracles``): ``GRR_Client``, ``UE_Client(optimal=)``,
  ``HE_Client``, ``LH_Client(optimal=True)``, ``SS_Client`` per value; server = ``*_Aggregator_MI(reports, ...)``
  (fold and matrix-inversion estimate in one call; it also clips and renormalises, which costs O(d)). Its SS takes
  ω = max(1, rint(d/(e^ε + 1))), which can differ by one from the engine's variance-optimal ω: the cost per report
  is the same order either way (a fold of ω values per report).
* Subset selection (SS) is only in multi-freq-ldpy (``SUPPORTED``); pure-ldp has no SS.

Each adapter privatises a subsample with the peer's own client (timed: client µs/report), then times the
peer's server on those reports (µs/report), and returns the peer's estimated frequencies so the benchmark can
check that the peer was called correctly.
"""
from __future__ import annotations

import random
import time
import warnings
from dataclasses import dataclass
from importlib import metadata

import numpy as np

__all__ = ["LIBRARIES", "PROTOCOLS", "SLOW", "SUPPORTED", "PeerTiming", "available", "versions", "supports", "run"]

LIBRARIES = ("pure-ldp", "multi-freq-ldpy")
PROTOCOLS = ("de", "sue", "oue", "she", "the", "olh", "ss")
#: The protocols whose peers are too slow for the full subsample (their OLH hashes every value per report in Python):
#: ``Config.peer_n_olh`` reports instead of ``peer_n``.
SLOW = frozenset({"olh"})
#: The protocols each library implements.
SUPPORTED = {"pure-ldp": ("de", "sue", "oue", "she", "the", "olh"), "multi-freq-ldpy": PROTOCOLS}


@dataclass
class PeerTiming:
    library: str
    protocol: str
    n: int
    client_us: float  # per report
    server_us: float  # fold + estimate, per report
    frequencies: np.ndarray  # the peer's estimate, as frequencies (Σ ≈ 1)


def available() -> bool:
    try:
        import multi_freq_ldpy.pure_frequency_oracles  # noqa: F401
        import pure_ldp.frequency_oracles  # noqa: F401
    except ImportError:
        return False
    return True


def versions() -> dict[str, str]:
    return {lib: metadata.version(lib) for lib in LIBRARIES}


def supports(library: str, protocol: str) -> bool:
    """Whether ``library`` implements ``protocol``."""
    return protocol in SUPPORTED.get(library, ())


def _identity(x):
    return x


# -- pure-ldp ---------------------------------------------------------------------------------------

def _pure_ldp_factories() -> dict:
    """Our protocol name → (client, server) of pure-ldp's classes, for ε and d."""
    from pure_ldp.frequency_oracles import (
        DEClient,
        DEServer,
        HEClient,
        HEServer,
        LHClient,
        LHServer,
        UEClient,
        UEServer,
    )

    kw = dict(index_mapper=_identity)
    return {
        "de": lambda e, d: (DEClient(e, d, **kw), DEServer(e, d, **kw)),
        "sue": lambda e, d: (UEClient(e, d, use_oue=False, **kw), UEServer(e, d, use_oue=False, **kw)),
        "oue": lambda e, d: (UEClient(e, d, use_oue=True, **kw), UEServer(e, d, use_oue=True, **kw)),
        "she": lambda e, d: (HEClient(e, d, **kw), HEServer(e, d, use_the=False, **kw)),
        "the": lambda e, d: (HEClient(e, d, **kw), HEServer(e, d, use_the=True, **kw)),
        "olh": lambda e, d: (LHClient(e, d, use_olh=True, **kw), LHServer(e, d, use_olh=True, **kw)),
    }


def _pure_ldp(protocol: str, epsilon: float, d: int):
    factories = _pure_ldp_factories()
    if protocol not in factories:
        raise ValueError(protocol)
    return factories[protocol](epsilon, d)


def _run_pure_ldp(protocol, epsilon, d, values):
    client, server = _pure_ldp(protocol, epsilon, d)
    t0 = time.perf_counter()
    reports = [client.privatise(v) for v in values]
    t1 = time.perf_counter()
    server.aggregate_all(reports)
    est = server.estimate_all(range(d), suppress_warnings=True)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, np.asarray(est, dtype=np.float64) / len(values)


# -- multi-freq-ldpy --------------------------------------------------------------------------------

def _run_multi_freq(protocol, epsilon, d, values):
    from multi_freq_ldpy.pure_frequency_oracles import GRR, HE, LH, SS, UE

    # Our protocol name → (client(v), server(reports)) of multi-freq-ldpy's functions for ε and d.
    factories = {
        "de": (lambda v: GRR.GRR_Client(v, d, epsilon), lambda r: GRR.GRR_Aggregator_MI(r, d, epsilon)),
        "sue": (lambda v: UE.UE_Client(v, d, epsilon, False), lambda r: UE.UE_Aggregator_MI(r, epsilon, False)),
        "oue": (lambda v: UE.UE_Client(v, d, epsilon, True), lambda r: UE.UE_Aggregator_MI(r, epsilon, True)),
        "she": (lambda v: HE.HE_Client(v, d, epsilon), lambda r: HE.HE_Aggregator_MI(r, d, epsilon, use_thresh=False)),
        "the": (lambda v: HE.HE_Client(v, d, epsilon), lambda r: HE.HE_Aggregator_MI(r, d, epsilon, use_thresh=True)),
        "olh": (lambda v: LH.LH_Client(v, d, epsilon, True), lambda r: LH.LH_Aggregator_MI(r, d, epsilon, True)),
        "ss": (lambda v: SS.SS_Client(v, d, epsilon), lambda r: SS.SS_Aggregator_MI(r, d, epsilon)),
    }
    if protocol not in factories:
        raise ValueError(protocol)
    client, server = factories[protocol]
    server([client(values[0]) for _ in range(2)])  # numba compilation (clients too) outside the timings
    t0 = time.perf_counter()
    reports = [client(v) for v in values]
    t1 = time.perf_counter()
    freq = server(reports)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, np.asarray(freq, dtype=np.float64)


def run(library: str, protocol: str, epsilon: float, d: int, values: np.ndarray, seed: int) -> PeerTiming:
    """Time ``library``'s ``protocol`` on ``values`` (a subsample): client and server µs per report."""
    values = [int(v) for v in values]
    random.seed(seed)  # the peers draw from the global generators
    np.random.seed(seed % 2**32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if library == "pure-ldp":
            t_client, t_server, freq = _run_pure_ldp(protocol, epsilon, d, values)
        elif library == "multi-freq-ldpy":
            t_client, t_server, freq = _run_multi_freq(protocol, epsilon, d, values)
        else:
            raise ValueError(library)
    n = len(values)
    return PeerTiming(library, protocol, n, t_client / n * 1e6, t_server / n * 1e6, freq)
