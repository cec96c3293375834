"""The dashboard's glossary (issue 12 item 6): /dashboard/glossary/ defines every term the dashboard and the planner
use (staff only, like every dashboard page: tests/dashboard/test_views.py covers its access); the pages link their
terms to it with a tooltip (``{% term %}``); the planner's mechanism options are plain words, SPEC only in help."""
import re
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.template import Context, Template
from django.urls import reverse

from aggregator.dashboard.glossary import entries, method_label
from aggregator.lab.planner import survey_methods
from tests.factories import add_reports, after_midnight, make_survey

pytestmark = pytest.mark.django_db
BY_ANCHOR = {e.anchor: e for e in entries()}

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "dashboard"
REQUIRED = ("epsilon", "pse", "mining", "theta", "ldp", "mrr", "de", "sue", "oue", "olh", "ss", "she", "the",
            "adaptive", "gaussian", "projection", "validation", "accuracy", "majority", "closed-day")


@pytest.fixture
def boss(client):
    user = User.objects.create_superuser("boss", "boss@example.invalid", "pw")
    client.force_login(user)
    return user


def test_the_glossary_page_defines_every_term_with_its_anchor(client, boss):
    html = client.get(reverse("dashboard:glossary")).content.decode()
    for anchor in REQUIRED:
        assert anchor in BY_ANCHOR
        assert f'<dt id="{anchor}">' in html and f'href="#{anchor}"' in html
    assert len(BY_ANCHOR) == len(entries())  # anchors are unique
    assert "PSE" in html and "before mining" in html.lower() and "UTC" in html


def test_every_term_a_template_links_to_exists():
    used = set()
    for path in TEMPLATES.glob("*.html"):
        used |= set(re.findall(r'{% term "([a-z-]+)"', path.read_text()))
    assert used and used <= set(BY_ANCHOR), used - set(BY_ANCHOR)


def test_the_term_tag_links_to_the_entry_with_its_definition_as_tooltip():
    html = Template('{% load glossary %}{% term "pse" "PSE" %}|{% term "oue" "OUE" "Own tip" %}|{% term "new" "New" %}'
                    ).render(Context())
    pse, oue, unknown = html.split("|")
    assert pse.startswith(f'<a class="term" href="{reverse("dashboard:glossary")}#pse" title="For MRR: how often')
    assert pse.endswith(">PSE</a>")
    assert 'title="Own tip">OUE</a>' in oue
    assert unknown == "New"  # an encoding the glossary does not know yet: its name, unlinked


def test_the_dashboard_pages_link_their_terms_to_the_glossary(client, boss):
    survey = make_survey(mode="mrr", validation_share=0.2)
    add_reports(survey, 300)
    from aggregator import services
    services.retrain(survey, now=after_midnight())
    glossary = reverse("dashboard:glossary")
    listing = client.get(reverse("dashboard:index")).content.decode()
    for anchor in ("accuracy", "epsilon", "pse", "warnings", "mrr"):
        assert f'href="{glossary}#{anchor}"' in listing, anchor
    page = client.get(reverse("dashboard:survey", args=[survey.slug])).content.decode()
    for anchor in ("mrr", "theta", "validation", "closed-day", "accuracy", "epsilon", "pse", "warnings"):
        assert f'href="{glossary}#{anchor}"' in page, anchor
    ldp = make_survey(slug="ldp-one", mode="ldp")
    page = client.get(reverse("dashboard:survey", args=[ldp.slug])).content.decode()
    for anchor in ("ldp", "epsilon", "encoding", ldp.encoding):
        assert f'href="{glossary}#{anchor}"' in page, anchor
    assert f'href="{glossary}"' in page  # the Glossary link beside "Planner"


def test_the_planner_options_are_plain_words_with_the_method_name(client, boss):
    html = client.get(reverse("dashboard:planner")).content.decode()
    options = [t.strip() for t in re.findall(r'<label for="id_methods_\d+"><input[^>]*>(.*?)</label>', html, re.S)]
    assert len(options) == len(survey_methods())
    for name in survey_methods():
        assert method_label(name, "") != "", name  # every survey method runs a mechanism with a planner label
    for text in options:
        assert "SPEC" not in text and "LDP Naive Bayes" not in text, text
    assert "One disguised answer per person: a row of 0s and 1s, optimized (OUE) — oue" in options
    assert "SPEC §2" in html and "§3–§4" in html  # kept in the help text, for whoever wants the exact definitions
