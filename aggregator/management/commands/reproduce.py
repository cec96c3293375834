"""``python manage.py reproduce FIGURE|all [--reps R] [--seed S] [--out DIR]`` — regenerate the papers' figures as CSV,
PNG and markdown (``aggregator/lab/papers.py`` lists them; ``--list`` prints them). The default folder is
docs/results/, whose README sets each figure beside the paper's. A progress bar per figure goes to stderr."""
from __future__ import annotations

import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from aggregator.lab.figures import write
from aggregator.lab.papers import FIGURES
from aggregator.lab.progress import CommandStderr, ProgressBar

BY_KEY = {figure.key: figure for figure in FIGURES}
PROGRESS = {"auto": None, "on": True, "off": False}


class Command(BaseCommand):
    help = "Regenerate the papers' figures (CSV + PNG + markdown) into docs/results/ or --out."

    def add_arguments(self, parser):
        parser.add_argument("figure", nargs="?", help=f"a figure key ({', '.join(BY_KEY)}) or 'all'")
        parser.add_argument("--list", action="store_true", help="list the figures and stop")
        parser.add_argument("--reps", type=int, default=None, help="repetitions per point (default: the figure's own)")
        parser.add_argument("--seed", type=int, default=0,
                            help="random seed (default 0): the same seed, the same numbers")
        parser.add_argument("--out", default=str(Path(settings.BASE_DIR) / "docs" / "results"), help="output folder")
        parser.add_argument("--progress", choices=tuple(PROGRESS), default="auto",
                            help="progress bar on stderr: auto (when stderr is a terminal), on, off")

    def handle(self, *args, **opts):
        if opts["list"]:
            for figure in FIGURES:
                self.stdout.write(f"{figure.key:14} {figure.title}  [{figure.paper}]")
            return
        key = opts["figure"]
        if key is None:
            raise CommandError("name a figure (see --list) or 'all'")
        if key != "all" and key not in BY_KEY:
            raise CommandError(f"unknown figure {key!r}; choose one of: all, {', '.join(BY_KEY)}")
        if opts["reps"] is not None and opts["reps"] < 1:
            raise CommandError("--reps must be at least 1")
        out = Path(opts["out"])
        for figure in FIGURES if key == "all" else [BY_KEY[key]]:
            reps = opts["reps"] or figure.default_reps
            start = time.perf_counter()
            with ProgressBar(CommandStderr(self.stderr), figure.key, enabled=PROGRESS[opts["progress"]],
                             unit="point") as bar:
                frame = figure.compute(reps, opts["seed"], bar)
            paths = write(figure, frame, out, reps, opts["seed"])
            self.stdout.write(f"{figure.key}: {len(frame)} points, {reps} reps, {time.perf_counter() - start:.0f} s "
                              f"→ {', '.join(str(p) for p in paths)}")
