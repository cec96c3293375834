"""python manage.py invitations SLUG --count N --out TOKENS.csv [--batch B] [--base-url URL]

Make N one-use invitation tokens for a token survey and write their links, one per line, in the format of the
admin's "Export unused invitation links" (CSV rows ``survey,batch,link`` after a header row); ``--base-url`` makes
the links absolute (default: paths such as /s/SLUG/i/#TOKEN — the token in the fragment, which browsers never send).
``manage.py simulate --tokens`` reads this file."""
from __future__ import annotations

import csv

from django.core.management.base import BaseCommand, CommandError

from survey_app.credentials import active_key
from survey_app.models import Survey
from survey_app.services import generate_tokens
from survey_app.views import invitation_link


class Command(BaseCommand):
    help = "Make one-use invitation tokens for a token survey and write their links (the admin's CSV export)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--count", type=int, required=True, help="how many tokens (1 to 100000)")
        parser.add_argument("--out", required=True, help="CSV file to write (one invitation link per line)")
        parser.add_argument("--batch", default="", help="a label stored with the tokens")
        parser.add_argument("--base-url", default="", help="prefix of the links, e.g. https://survey.example.org")

    def handle(self, *args, **opts):
        survey = Survey.objects.filter(slug=opts["slug"]).first()
        if survey is None:
            raise CommandError(f"no survey with slug {opts['slug']!r}")
        if survey.access != Survey.Access.TOKENS:
            raise CommandError(f"survey {survey.slug!r} is open to anyone with its link (access {survey.access!r}); "
                               "invitations need a token survey (create_survey --access tokens)")
        try:
            tokens = generate_tokens(survey, opts["count"], opts["batch"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        active_key(survey)
        base = opts["base_url"].rstrip("/")
        with open(opts["out"], "w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out)
            writer.writerow(["survey", "batch", "link"])
            for token in tokens:
                writer.writerow([survey.slug, token.batch, invitation_link(survey, token.token, base)])
        self.stdout.write(self.style.SUCCESS(f"Wrote {len(tokens)} invitation links for {survey.slug!r} to "
                                             f"{opts['out']}."))
