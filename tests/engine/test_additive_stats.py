"""The additive-statistics base (``privacy/stats.py`` ``Additive``) and the stored JSON of every statistics class.

The stored forms below are literal: they are what the databases hold (``to_dict`` output before the base existed),
so a change of format fails here rather than in a migration.
"""
import json
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from aggregator.privacy.continuous.gaussian import GaussianStats, MomentSums
from aggregator.privacy.mrr import MRRStats
from aggregator.privacy.naive_bayes.ldp import LDPNBStats
from aggregator.privacy.plausibility import PlausibilityStats, ReportSums
from aggregator.privacy.stats import Additive, Counts, array, arrays, keyed, parts
from aggregator.privacy.validation import RecordHistogram, VersionCounts


def _ms(n, sums, sumsq, counts):
    return MomentSums(n, np.array(sums, dtype=float), np.array(sumsq, dtype=float), np.array(counts))


def _c(n, support, dtype=np.int64):
    return Counts(n, np.array(support, dtype=dtype))


#: (statistics, its stored JSON) — one of every class, with nested, optional and float fields.
STORED = [
    (_c(3, [1, 2]), '{"n": 3, "support": [1, 2], "dtype": "i"}'),
    (_c(2, [0.5, -1.25], np.float64), '{"n": 2, "support": [0.5, -1.25], "dtype": "f"}'),
    (LDPNBStats((_c(1, [1, 0]), _c(2, [0, 1, 1]))),
     '{"per_input": [{"n": 1, "support": [1, 0], "dtype": "i"}, {"n": 2, "support": [0, 1, 1], "dtype": "i"}]}'),
    (MRRStats(4, np.array([3, 1]), (np.array([[1, 0], [2, 1]]), np.array([[3, 1]]))),
     '{"n": 4, "class_counts": [3, 1], "joint": [[[1, 0], [2, 1]], [[3, 1]]]}'),
    (_ms(2, [[1.5, 0.0]], [[2.25, 0.0]], [2]), '{"n": 2, "sums": [[1.5, 0.0]], "sumsq": [[2.25, 0.0]], "counts": [2]}'),
    (GaussianStats(_c(1, [0, 1]), _ms(1, [[1.0]], [[1.0]], [1]), _ms(0, [[0.0]], [[0.0]], [0])),
     '{"prior": {"n": 1, "support": [0, 1], "dtype": "i"}, "mean": {"n": 1, "sums": [[1.0]], "sumsq": [[1.0]], '
     '"counts": [1]}, "square": {"n": 0, "sums": [[0.0]], "sumsq": [[0.0]], "counts": [0]}}'),
    (ReportSums(_c(2, [1, 1, 0]), 2.0, np.array([1, 0, 0])),
     '{"counts": {"n": 2, "support": [1, 1, 0], "dtype": "i"}, "total_sq": 2.0, "pairs": [1, 0, 0]}'),
    (ReportSums(_c(2, [1, 1]), 2.0), '{"counts": {"n": 2, "support": [1, 1], "dtype": "i"}, "total_sq": 2.0, '
                                     '"pairs": null}'),
    (PlausibilityStats((ReportSums(_c(1, [1, 0]), 1.0),)),
     '{"per_input": [{"counts": {"n": 1, "support": [1, 0], "dtype": "i"}, "total_sq": 1.0, "pairs": null}]}'),
    (VersionCounts({10: _c(1, [0, 1]), 2: _c(2, [1, 1])}),
     '{"2": {"n": 2, "support": [1, 1], "dtype": "i"}, "10": {"n": 1, "support": [0, 1], "dtype": "i"}}'),
    (RecordHistogram({(1, 0): 2, (0, 2): 3}), '[[0, 2, 3], [1, 0, 2]]'),
]


@pytest.mark.parametrize("stats, stored", STORED, ids=lambda x: type(x).__name__ if not isinstance(x, str) else "")
def test_stored_json_is_unchanged_and_round_trips(stats, stored):
    assert json.dumps(stats.to_dict()) == stored
    back = type(stats).from_dict(json.loads(stored))
    assert back == stats and type(back) is type(stats)
    assert json.dumps(back.to_dict()) == stored


@pytest.mark.parametrize("stats, stored", STORED, ids=lambda x: type(x).__name__ if not isinstance(x, str) else "")
def test_addition_is_fieldwise_and_sum_starts_from_zero(stats, stored):
    double = stats + stats
    assert sum([stats, stats]) == double and 0 + stats == stats
    data = json.loads(stored)
    twice = json.loads(json.dumps(double.to_dict()))

    def doubled(a, b):  # every number doubled, structure kept (dtype kinds and keys unchanged)
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(doubled(a[k], b[k]) for k in a)
        if isinstance(a, list):
            return len(a) == len(b) and all(doubled(x, y) for x, y in zip(a, b, strict=True))
        if isinstance(a, (int, float)) and not isinstance(a, bool):
            return b == 2 * a
        return a == b

    if isinstance(stats, RecordHistogram):  # rows are [*record, count]: only the counts double
        assert twice == [[*row[:-1], 2 * row[-1]] for row in data]
    else:
        assert doubled(data, twice), (data, twice)


def test_shapes_that_differ_cannot_be_added_with_each_class_message():
    with pytest.raises(ValueError, match="cannot add statistics over domains 2 and 3"):
        _c(1, [1, 0]) + _c(1, [1, 0, 0])
    with pytest.raises(ValueError, match="cannot add statistics of different input counts"):
        LDPNBStats((_c(1, [1, 0]),)) + LDPNBStats(())
    with pytest.raises(ValueError, match="cannot add MRR statistics of different schemes"):
        MRRStats(1, np.array([1, 0]), (np.zeros((2, 2), int),)) + MRRStats(1, np.array([1, 0]),
                                                                           (np.zeros((3, 2), int),))
    with pytest.raises(ValueError, match="cannot add moment sums of different shapes"):
        _ms(1, [[1.0]], [[1.0]], [1]) + _ms(1, [[1.0, 2.0]], [[1.0, 4.0]], [1])
    with pytest.raises(ValueError, match="cannot add sums with and without pair counts"):
        ReportSums(_c(1, [1, 0]), 1.0, np.zeros(1, int)) + ReportSums(_c(1, [1, 0]), 1.0)
    with pytest.raises(ValueError, match="cannot add plausibility statistics of different input counts"):
        PlausibilityStats(()) + PlausibilityStats((ReportSums(_c(1, [1, 0]), 1.0),))
    with pytest.raises(TypeError):
        _c(1, [1, 0]) + LDPNBStats(())  # different classes never add
    with pytest.raises(TypeError):
        _c(1, [1, 0]) + 1


def test_keyed_statistics_add_as_a_union():
    a = VersionCounts({1: _c(1, [1, 0]), 2: _c(1, [0, 1])})
    b = VersionCounts({2: _c(2, [1, 1]), 3: _c(1, [1, 0])})
    assert a + b == VersionCounts({1: _c(1, [1, 0]), 2: _c(3, [1, 2]), 3: _c(1, [1, 0])})
    assert (a + b).n == 5 and VersionCounts.from_dict(None) == VersionCounts() == sum([], VersionCounts())
    h = RecordHistogram({(0, 1): 2}) + RecordHistogram({(0, 1): 1, (1, 1): 4})
    assert h == RecordHistogram({(0, 1): 3, (1, 1): 4}) and RecordHistogram.from_dict(None) == RecordHistogram()


def test_equality_compares_values_shapes_and_tolerances():
    assert _c(1, [1, 0]) != _c(1, [1, 0, 0]) and _c(1, [1, 0]) != _c(2, [1, 0])
    assert ReportSums(_c(1, [1, 0]), 1.0) != ReportSums(_c(1, [1, 0]), 1.0, np.zeros(1, int))
    # MomentSums: sums equal up to floating-point reassociation (rtol 1e-12), counts exactly
    a = _ms(3, [[0.1 + 0.2 + 0.3]], [[1.0]], [3])
    assert a == _ms(3, [[0.1 + (0.2 + 0.3)]], [[1.0]], [3]) and a != _ms(3, [[0.6 + 1e-6]], [[1.0]], [3])
    with pytest.raises(TypeError):
        hash(_c(1, [1, 0]))


@dataclass(frozen=True, eq=False)
class _Toy(Additive):
    """Every field kind of the base, for its own tests."""

    n: int
    total: float
    part: Counts
    values: np.ndarray = array(np.float64)
    tables: tuple = arrays(np.int64)
    inputs: tuple = parts(Counts)
    by_key: dict = keyed(int, key=int)
    extra: np.ndarray | None = array(np.int64, optional=True)

    mismatch: ClassVar[str] = "toy shapes {a.n} / {b.n}"


def _toy(seed: int, extra: bool = False) -> _Toy:
    rng = np.random.default_rng(seed)
    return _Toy(int(rng.integers(9)), float(rng.integers(9)) / 4, _c(int(rng.integers(9)), rng.integers(0, 9, 3)),
                rng.integers(-8, 8, 2) / 8, (rng.integers(0, 9, (2, 2)),), (_c(1, rng.integers(0, 2, 2)),),
                {int(k): int(rng.integers(9)) for k in rng.integers(0, 4, 2)}, rng.integers(0, 9, 3) if extra else None)


@pytest.mark.parametrize("extra", [False, True])
def test_the_base_is_associative_commutative_and_round_trips(extra):
    a, b, c = (_toy(s, extra) for s in (1, 2, 3))
    assert (a + b) + c == a + (b + c) == sum([c, b, a]) == c + b + a
    s = a + b
    assert s.n == a.n + b.n and s.total == a.total + b.total and s.part == a.part + b.part
    assert np.array_equal(s.values, a.values + b.values) and np.array_equal(s.tables[0], a.tables[0] + b.tables[0])
    assert s.by_key == {k: a.by_key.get(k, 0) + b.by_key.get(k, 0) for k in {*a.by_key, *b.by_key}}
    assert (s.extra is None) == (not extra)
    data = json.loads(json.dumps(s.to_dict()))
    assert list(data) == ["n", "total", "part", "values", "tables", "inputs", "by_key", "extra"]
    assert _Toy.from_dict(data) == s and s != a


def test_the_base_names_the_mismatch_and_refuses_unknown_annotations():
    a = _toy(1)
    b = _Toy(a.n, a.total, a.part, np.zeros(3), a.tables, a.inputs, a.by_key)
    with pytest.raises(ValueError, match=f"toy shapes {a.n} / {a.n}"):
        a + b

    @dataclass(frozen=True, eq=False)
    class Bad(Additive):
        values: np.ndarray  # an array needs array(dtype)

    with pytest.raises(TypeError, match="array/arrays/parts/keyed"):
        Bad(np.zeros(1)).to_dict()
