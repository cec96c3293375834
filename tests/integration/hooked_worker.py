"""A Celery worker for the fault tests: the real ``coinflip`` worker, plus a pause at one chosen point inside a
transaction so that a test can SIGKILL it exactly there. Test-only: the product never imports this module.

    COINFLIP_TEST_PAUSE=fold|stats|publish COINFLIP_TEST_MARKER=/tmp/x \
        python -m tests.integration.hooked_worker <worker options>

* ``fold``    — a batch of inbox reports has just been read and folded, nothing written yet (``fold_new_reports``
  inside its transaction, or ``sharding.fold_shard`` before it stores its partial statistics);
* ``stats``   — the drained reports have just been moved from the inbox into ``Report`` and the statistics row
  written (a fold or a merge of partials), not committed yet;
* ``publish`` — a new ``ModelVersion`` row has just been inserted, not committed yet.

On reaching the point the worker writes the marker file and sleeps; the test waits for the file, then kills it.
"""
from __future__ import annotations

import os
import sys
import time


def pause(point: str) -> None:
    if os.environ.get("COINFLIP_TEST_PAUSE") == point:
        with open(os.environ["COINFLIP_TEST_MARKER"], "w") as marker:
            marker.write(f"{point} {os.getpid()}\n")
        time.sleep(600)


def install() -> None:
    from django.db.models.signals import post_save

    from aggregator.models import ModelVersion, SurveyStatistics
    from aggregator.privacy.protocol import SurveyProtocol

    aggregate = SurveyProtocol.aggregate

    def aggregate_then_pause(self, reports):
        stats = aggregate(self, reports)
        pause("fold")
        return stats

    def statistics_saved(sender, instance, created, **kwargs):
        if not created:  # not the empty row get_or_create makes before locking it
            pause("stats")

    SurveyProtocol.aggregate = aggregate_then_pause
    post_save.connect(statistics_saved, sender=SurveyStatistics, weak=False)
    post_save.connect(lambda **kwargs: pause("publish"), sender=ModelVersion, weak=False)


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "coinflip.settings")
    import django

    django.setup()
    install()
    from coinflip.celery import app

    app.worker_main(["worker", *sys.argv[1:]])
