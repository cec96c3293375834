"""Shared fixtures."""
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ROOT / "data" / "datasets"


@pytest.fixture
def rng():
    """A seeded generator: every statistical test is reproducible."""
    return np.random.default_rng(20261122)


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    return DATASETS
