"""The home page (``/``): what Coinflip is, the demo surveys a visitor can answer, the staff pages and the docs."""
from django.conf import settings
from django.shortcuts import render

from aggregator.management.commands.demo import DEMOS
from survey_app.models import Survey


def home(request):
    """Only the demo surveys of ``manage.py demo`` are listed: any other survey's link is its designer's to share."""
    slugs = [slug for slug, _title, _settings in DEMOS]
    demos = sorted(Survey.objects.filter(slug__in=slugs, status=Survey.Status.OPEN, access=Survey.Access.LINK),
                   key=lambda survey: slugs.index(survey.slug))
    return render(request, "home.html", {
        "demos": demos, "verify_url": getattr(settings, "COINFLIP_VERIFY_RANDOMIZER_URL", ""),
    })
