"""Folding during and after the load: ``python -m bench.load.fold [--every S --for T] SLUG…``.

Without options: ``manage.py retrain SLUG`` for each survey (fold the new reports, publish a version) — the final
fold after the load, in this process. With ``--every S --for T``: the schedule of the folds that race the report
inserts — this process plays Celery beat and sends ``aggregator.tasks.fold_survey`` of each survey every S seconds for
T seconds to the Celery worker the benchmark runs (``run.celery_worker``, compose's worker command), which drains the
inbox as each survey's periodic retrain does in production (``aggregator.schedules``: one task per survey, on its own
interval; a drain locks only the survey's statistics row: inserts never wait for it). Every survey is folded at each
multiple of S, one after the other (every schedule in phase, as for surveys opened together: the worst case); with
``--phased``, survey i of n at S·(k + i/n), k = 1, 2, … (schedules out of phase, as for surveys opened at different
times). Before the load, every survey is folded once by the worker (a worker that has folded before has built each
survey's engine protocol, cached per survey version); then this process prints ``ready`` and starts its clock when it
reads a line from stdin (the load's start), so start-up is not part of the load. Prints one JSON line: each fold's
survey and seconds from its sending to its end (queueing behind the others included), and any error a retrain raised
(its fold is committed before it publishes, so the fold checks still apply).

Run with the product's settings (``DJANGO_SETTINGS_MODULE=coinflip.settings`` and the benchmark's ``DATABASE_URL``).
"""
from __future__ import annotations

import argparse
import datetime
import io
import json
import sys
import time
from pathlib import Path


def schedule(surveys: list, every: float, duration: float, phased: bool = False) -> list[tuple[float, object]]:
    """(seconds after the start, survey) of each fold before ``duration``, in time order: every survey at each
    ``every``·k for k ≥ 1 (back to back, in the given order), or with ``phased`` survey i of n at
    ``every``·(k + i/n)."""
    n = len(surveys)
    folds = []
    for i, survey in enumerate(surveys):
        k = 1
        while (due := every * (k + (i / n if phased else 0))) < duration:
            folds.append((due, i, survey))
            k += 1
    return [(due, survey) for due, _, survey in sorted(folds, key=lambda fold: fold[:2])]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="+")
    parser.add_argument("--every", type=float, default=0.0, help="fold every S seconds (0: retrain once)")
    parser.add_argument("--for", dest="duration", type=float, default=0.0, help="keep folding for T seconds")
    parser.add_argument("--phased", action="store_true", help="fold survey i of n at S·(k + i/n), not all at once")
    parser.add_argument("--dump", help="folder for the statistics of a survey whose retrain fails (a reproduction)")
    args = parser.parse_args(argv)

    import django

    django.setup()
    from django.core.management import call_command

    from aggregator.models import SurveyStatistics
    from survey_app.models import Survey

    folds = []
    if args.every > 0:
        from aggregator.tasks import fold_survey

        surveys = [Survey.objects.get(slug=slug) for slug in args.slugs]
        for result in [fold_survey.delay(survey.id) for survey in surveys]:
            result.get(timeout=600)  # the worker is up and has built every survey's protocol
        print("ready", flush=True)
        sys.stdin.readline()
        began = time.monotonic()
        sent = []
        for due, survey in schedule(surveys, args.every, args.duration, args.phased):
            time.sleep(max(0.0, began + due - time.monotonic()))
            sent.append((survey.slug, time.time(), fold_survey.delay(survey.id)))
        for slug, at, result in sent:
            result.get(timeout=600)
            done = result.date_done if result.date_done.tzinfo else result.date_done.replace(tzinfo=datetime.UTC)
            folds.append({"slug": slug, "reports": None, "seconds": done.timestamp() - at})
    else:
        for slug in args.slugs:
            start = time.perf_counter()
            try:
                call_command("retrain", slug, stdout=io.StringIO())
                error = None
            except Exception as exc:  # reported in the table; the fold committed before publishing failed
                error = f"{type(exc).__name__}: {exc}"
                if args.dump:
                    stats = SurveyStatistics.objects.filter(survey__slug=slug).values(
                        "stats", "report_count", "closed_through", "open_days").first()
                    (Path(args.dump) / f"failed-{slug}.json").write_text(json.dumps(stats, default=str))
            folds.append({"slug": slug, "reports": None, "seconds": time.perf_counter() - start, "error": error})
    print(json.dumps({"folds": folds}))


if __name__ == "__main__":
    main()
