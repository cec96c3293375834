"""Smoke test of the frequency-oracle benchmark harness (bench/oracles.py), engine and numpy reference only.

The peers (pure-ldp, multi-freq-ldpy) live in bench/.venv, not in the dev venv, so they are switched off here.
Checks that the harness runs every registered protocol, that the numpy reference's support counts and estimates
equal the engine's (bench.reference.fold vs FrequencyOracle.aggregate), and that the table renders.
"""
from dataclasses import replace

import numpy as np
import pytest

from aggregator.privacy import oracles as engine
from bench import oracles as bench
from bench import reference

TINY = replace(
    bench.QUICK, n=20_000, domains=(16, 20), epsilons=(1.0,), min_reps=2, max_reps=2, ref_timings=2, peers=False,
    sparse_reps=2,
)


@pytest.fixture(scope="module")
def result():
    return bench.run(TINY)


def test_every_registered_protocol_is_measured(result):
    rows, info = result
    measured = {(r.d, r.protocol) for r in rows}
    expected = {(d, p) for d in TINY.domains for p in bench.PROTOCOLS if p in engine.names()}
    assert "de" in engine.names()
    assert measured == expected
    for r in rows:
        assert r.reps == 2
        assert r.fold_s > 0 and r.estimate_s > 0 and r.ref_s > 0 and r.perturb_s > 0
        assert np.isfinite(r.mse_ratio) and r.mse_ratio > 0
        assert np.isfinite(r.proj_ratio) and r.proj_ratio > 0


def test_reference_fold_equals_engine_fold(result):
    # d = 20 exercises a partial last byte for the packed unary reports.
    rows, _ = result
    assert [(r.d, r.protocol) for r in rows if not r.ref_match] == []


@pytest.mark.parametrize("name", [p for p in bench.PROTOCOLS if p in engine.names()])
def test_reference_detects_a_wrong_count(name):
    """The equality check can fail: drop one report from the engine's fold and the counts differ."""
    fo = engine.get(name, epsilon=2.0, domain=16)
    values, _ = bench.dataset(16, 500, 1.1, 7)
    reports = fo.perturb(values, np.random.default_rng([7, 1]))
    full = reference.fold(fo, reports)
    if isinstance(reports, tuple):
        fewer = fo.aggregate(tuple(part[1:] for part in reports))
    else:
        fewer = fo.aggregate(reports[1:])
    assert bench._same(fo.aggregate(reports).support, full)
    assert not bench._same(fewer.support, full)


def test_dataset_and_perturbation_streams_are_independent():
    """Regression: SeedSequence([s, d]) == SeedSequence([s, d, 0, 0]); streams must not coincide."""
    values, counts = bench.dataset(16, 10_000, 1.1, bench.SEED)
    assert counts.sum() == 10_000 and counts[0] == counts.max()
    u_data = np.random.default_rng([bench.SEED, bench._DATA, 16, 1]).random(5)
    u_perturb = np.random.default_rng([bench.SEED, bench._PERTURB, 16, 1, 1]).random(5)
    assert not np.allclose(u_data, u_perturb)


def test_table_renders(result):
    rows, info = result
    table = bench.render(rows, info, TINY)
    header = table.splitlines()[0]
    assert header.startswith("| d | ε | protocol |") and "≤1.5× ref" in header
    assert len([line for line in table.splitlines() if line.startswith("| 16 |")]) == len(rows) // 2
    assert "Zipf-like" in table
    sparse = info["sparse"]
    assert [(r.d, r.reps) for r in sparse] == [(20, 2)] and 0 <= sparse[0].below_sd <= 1
    assert "| geometric 0.9^v | 1 |" in table
