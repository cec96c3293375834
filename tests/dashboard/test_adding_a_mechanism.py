"""A mechanism describes itself: the throwaway oracle of tests/engine/test_adding_an_oracle.py (one Python class,
plus tests/js/uniform_rr_oracle.mjs for the browser, whose bit-for-bit agreement that test proves through
static/js/protocol.mjs), given a ``Description`` and registered here only, is served by every page of the product —
the survey form's choices, the protocol API and report API, the respondent page (its HTML, and its modules under node
randomizing and wording the served protocol), the fold and the published model, the dashboard, the glossary, the
planner and the model card — without a change to any other file."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from aggregator import services
from aggregator.privacy import describe, oracles
from survey_app.models import Survey
from tests.factories import add_reports, after_midnight, make_survey, simulated_reports
from tests.toy_oracle import UniformMixRR

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]

TOY = describe.Description(
    "urr", "URR (uniform-mix randomized response)",
    "The answer itself is kept with probability λ; otherwise the browser sends any possible value, picked at random.",
    "A test's throwaway mechanism.", "", "One disguised answer per person: kept or uniformly replaced (URR)")


class ToyOracle(UniformMixRR):
    """The throwaway oracle with its own words."""

    description = TOY


@pytest.fixture
def toy():
    oracles.register(ToyOracle)
    yield ToyOracle
    oracles.unregister("urr")


@pytest.fixture
def boss(client):
    client.force_login(User.objects.create_superuser("boss", "boss@example.invalid", "pw"))


@pytest.fixture
def survey(toy):
    survey = make_survey(slug="toy", encoding="urr", validation_share=0.0)
    survey.full_clean()  # the form's choices are the registry's: "urr" is one
    return survey


def test_the_survey_form_offers_it(toy):
    assert ("urr", ToyOracle.title) in [(n, str(t)) for n, t in Survey._meta.get_field("encoding").choices]
    with pytest.raises(Exception, match="encoding"):
        make_survey(slug="gone", encoding="xyz").full_clean()


def test_the_protocol_api_the_report_api_and_the_respondent_page_serve_it(client, survey):
    protocol = client.get(reverse("api-protocol", args=[survey.slug])).json()
    assert "urr" in str(protocol) and "lambda" in str(protocol)  # the class's own published parameters
    report = simulated_reports(survey, n=1)[0]
    assert report["report"] == {"v": report["report"]["v"]}  # the class's own wire form
    assert client.post(reverse("api-reports", args=[survey.slug]), {"report": report},
                       content_type="application/json").status_code == 201
    refused = client.post(reverse("api-reports", args=[survey.slug]), {"report": {**report, "report": 1}},
                          content_type="application/json")
    assert refused.status_code == 400 and "URR report" in refused.content.decode()  # its own wire check's message
    page = client.get(reverse("survey", args=[survey.slug]))
    assert page.status_code == 200


def test_the_dashboard_glossary_planner_and_model_card_describe_it(client, boss, survey):
    add_reports(survey, 400)
    version = services.retrain(survey, now=after_midnight())
    assert version is not None and version.privacy["encodings"]
    glossary = reverse("dashboard:glossary")

    page = client.get(reverse("dashboard:survey", args=[survey.slug])).content.decode()
    assert f'href="{glossary}#urr" title="{TOY.summary}">{TOY.term}</a>' in page.replace("&#x27;", "'")

    listing = client.get(glossary).content.decode().replace("&#x27;", "'")
    assert '<dt id="urr">' in listing and TOY.summary in listing and TOY.details in listing
    assert listing.index('id="encoding"') < listing.index('id="urr"') < listing.index('id="strategy"')

    planner = client.get(reverse("dashboard:planner")).content.decode()
    assert f"{TOY.plan_label} — urr" in planner

    card = client.get(reverse("dashboard:model-card", args=[survey.slug, version.version])).content.decode()
    card = card.replace("&#x27;", "'")
    assert ToyOracle.title in card and f"{TOY.term}: {TOY.summary}" in card


def test_its_parameters_are_checked_and_passed_on(toy, monkeypatch):
    """A parameter the class declares is a form setting (``encoding_parameters``), checked against its range and
    handed to the class; the engine needs no edit."""
    received = {}

    class Tuned(ToyOracle):
        parameters = (describe.Parameter("mix", "URR mix", "a test's parameter", 0.0, 1.0),)

        def __init__(self, epsilon, domain, mix=None):
            super().__init__(epsilon, domain)
            received["mix"] = mix

    oracles.unregister("urr")
    oracles.register(Tuned)
    survey = make_survey(slug="tuned", encoding="urr", encoding_parameters={"mix": 0.5}, status="draft")
    survey.full_clean()
    from survey_app.protocol import get_protocol

    get_protocol(survey)
    assert received["mix"] == 0.5
    survey.encoding_parameters = {"mix": 2.0}
    with pytest.raises(Exception, match="URR mix must lie in"):
        survey.full_clean()


# The respondent page's own modules under node, on what the protocol API serves: the toy's JavaScript module
# (tests/js/uniform_rr_oracle.mjs) registered at run time, as the Python class is in this test only.
PAGE_SCRIPT = """
import * as registry from "{root}/static/js/oracles/index.mjs";
import * as urr from "{root}/tests/js/uniform_rr_oracle.mjs";
import {{ describe }} from "{root}/static/js/explain.mjs";
import {{ respond }} from "{root}/static/js/protocol.mjs";
import {{ ByteSource }} from "{root}/static/js/random.mjs";
import {{ readFileSync }} from "node:fs";

registry.register("urr", urr);
const body = JSON.parse(readFileSync(0, "utf8"));
const report = respond(body.protocol, [2, 40.0], 1, new ByteSource());
const words = describe(body.protocol, body.privacy, body.questions);
console.log(JSON.stringify({{ report, texts: [words.figure, words.overview, words.review({{ report }})].flat(3) }}));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (.ci/run installs it)")
def test_the_respondent_pages_modules_randomize_and_word_it(client, survey):
    """What the page does with the served protocol: a report the report API takes, and the toy module's own words."""
    body = client.get(reverse("api-protocol", args=[survey.slug])).content
    result = subprocess.run(["node", "--input-type=module", "-e", PAGE_SCRIPT.format(root=ROOT.as_uri())],
                            input=body.decode(), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    page = json.loads(result.stdout)
    assert client.post(reverse("api-reports", args=[survey.slug]), {"report": page["report"]},
                       content_type="application/json").status_code == 201
    words = " ".join(page["texts"])
    assert "otherwise your browser sends one of the" in words and "picked at random (possibly your own)" in words
