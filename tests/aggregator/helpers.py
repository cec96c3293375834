"""Shared helpers: a small survey (tests.survey.test_api.make_survey) and reports stored straight in the DB."""
import threading

import numpy as np
from django.db import connection

from survey_app.models import Report
from survey_app.protocol import get_protocol
from tests.survey.test_api import make_survey  # noqa: F401  (re-exported)


def add_reports(survey, n, seed=0):
    """n simulated reports: smoker ∈ {never, sometimes, daily}, age ∈ [18, 98], class sick ∈ {no, yes}."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 3, n), rng.uniform(18, 98, n)])
    y = (X[:, 0] == 2).astype(np.int64)  # daily smokers are sick: a learnable pattern
    reports = get_protocol(survey).encode(X, y, rng)
    return Report.objects.bulk_create([Report(survey=survey, payload=r) for r in reports])


def in_thread(target) -> threading.Thread:
    """Start ``target`` in a thread that closes its own database connection when done (each thread has one)."""
    def run():
        try:
            target()
        finally:
            connection.close()
    thread = threading.Thread(target=run)
    thread.start()
    return thread
