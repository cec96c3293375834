"""Adaptive allocation in the product (issue 13 item 3): each published version sets the assignment of respondents
to inputs for the days after it, the protocol API serves the one of the version evaluated today, and the settings
refuse what it cannot do."""
import datetime

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from rest_framework.test import APIClient

from aggregator.models import ModelVersion
from aggregator.privacy import survey_protocol
from aggregator.privacy.protocol.config import ConfigError
from survey_app.protocol import get_protocol
from tests.factories import add_reports, make_survey, published_yesterday

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path  # reference samples saved by these tests


def served(survey) -> dict:
    response = APIClient().get(reverse("api-protocol", kwargs={"slug": survey.slug}))
    assert response.status_code == 200
    return response.json()["protocol"]["ldp"]


def test_a_published_version_sets_the_next_assignment_and_the_api_serves_it_from_the_next_day():
    survey = make_survey(allocation="adaptive", validation_share=0.0)
    inputs = len(get_protocol(survey).public()["ldp"]["inputs"])
    assert served(survey)["assignment"] == pytest.approx([1 / inputs] * inputs)  # no version yet: uniform
    assert served(survey)["allocation"] == "adaptive" and served(survey)["assignment_source"] == "uniform"
    add_reports(survey, 3000)
    version = published_yesterday(survey)
    assignment = version.metrics["assignment"]
    assert len(assignment) == inputs and sum(assignment) == pytest.approx(1.0) and min(assignment) > 0
    # 3,000 reports at ε = 1 show the smoker × sick pattern above its noise (age, in bins, carries none): more
    # respondents for smoker than for age.
    assert assignment[1] > 1 / inputs > assignment[2], assignment
    ldp = served(survey)
    assert ldp["assignment"] == pytest.approx(assignment) and ldp["assignment_source"] == "model"
    assert ldp["assignment_cdf"] == pytest.approx(np.cumsum(assignment))
    assert ldp["assignment_cdf"][-1] == 1.0
    # A version published today changes nothing before tomorrow: respondents of one day share one assignment.
    ModelVersion.objects.create(survey=survey, version=version.version + 1, model=version.model, report_count=1,
                                privacy=version.privacy, metrics={**version.metrics, "assignment": [0.8] + [
                                    0.2 / (inputs - 1)] * (inputs - 1)})
    assert served(survey)["assignment"] == pytest.approx(assignment)


def test_uniform_allocation_publishes_no_assignment():
    survey = make_survey(validation_share=0.0)
    add_reports(survey, 3000)
    version = published_yesterday(survey)
    assert "assignment" not in version.metrics
    inputs = len(served(survey)["inputs"])
    assert served(survey)["assignment"] == pytest.approx([1 / inputs] * inputs)
    assert "allocation" not in served(survey)  # a uniform survey's protocol is as before adaptive allocation


def test_an_assignment_that_no_longer_fits_is_not_served():
    survey = make_survey(allocation="adaptive", validation_share=0.0)
    ModelVersion.objects.create(survey=survey, version=1, model={}, report_count=1, privacy={},
                                metrics={"assignment": [0.5, 0.5]})  # two inputs: the survey has three
    ModelVersion.objects.filter(survey=survey).update(
        created_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=2))
    inputs = len(served(survey)["inputs"])
    assert served(survey)["assignment"] == pytest.approx([1 / inputs] * inputs)


def test_the_privacy_figures_do_not_depend_on_the_assignment():
    survey = make_survey(allocation="adaptive", validation_share=0.0)
    protocol = get_protocol(survey)
    inputs = len(protocol.public()["ldp"]["inputs"])
    uniform_assignment = protocol.public()["ldp"]["assignment"]
    # An input of probability 0 would change the figures: such an assignment is never served.
    assert protocol.public_with([1.0] + [0.0] * (inputs - 1))["ldp"]["assignment"] == uniform_assignment
    uniform = APIClient().get(reverse("api-protocol", kwargs={"slug": survey.slug})).json()["privacy"]
    add_reports(survey, 3000)
    published_yesterday(survey)
    assert APIClient().get(reverse("api-protocol", kwargs={"slug": survey.slug})).json()["privacy"] == uniform


@pytest.mark.parametrize("fields, message", [
    (dict(strategy="split"), "one-report"),
    (dict(numeric_handling="gaussian"), "Gaussian"),
])
def test_settings_adaptive_allocation_cannot_take_are_refused_on_the_allocation_field(fields, message):
    survey = make_survey(allocation="adaptive", status="draft", **fields)
    with pytest.raises(ValidationError) as caught:
        survey.full_clean()
    assert message in " ".join(caught.value.message_dict.get("allocation", [])), caught.value.message_dict


def test_the_engine_refuses_an_unknown_allocation():
    with pytest.raises(ConfigError, match="allocation"):
        survey_protocol.check_settings({"mode": "ldp", "ldp": {"epsilon": 1.0, "allocation": "greedy"}})


def test_only_uniform_allocation_has_one_fixed_assignment_to_check_against():
    assert get_protocol(make_survey(allocation="adaptive")).assignment_probabilities() is None
    assert get_protocol(make_survey(slug="other")).assignment_probabilities() is not None


def test_a_stored_assignment_that_does_not_fit_is_neither_served_nor_used_by_the_fold():
    """A stored assignment of the wrong length (or with a zero) stands for the uniform one everywhere — the API, the
    fold's expected counts, the dashboard — and the fold goes on."""
    from aggregator import services
    from aggregator.privacy import plausibility

    survey = make_survey(allocation="adaptive", validation_share=0.0)
    ModelVersion.objects.create(survey=survey, version=1, model={}, report_count=1, privacy={},
                                metrics={"assignment": [0.5, 0.5]})
    ModelVersion.objects.filter(survey=survey).update(
        created_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=2))
    ldp = served(survey)
    assert ldp["assignment"] == pytest.approx([1 / 3] * 3) and ldp["assignment_source"] == "uniform"
    add_reports(survey, 300)
    assert services.fold_new_reports(survey) == 300
    from tests.factories import folded
    stats = plausibility.PlausibilityStats.from_dict(folded(survey).plausibility)
    assert stats.expected == pytest.approx([100.0] * 3)
    protocol = get_protocol(survey)
    assert protocol.served_assignment([0.0, 0.5, 0.5]) is None
    assert protocol.served_assignment(["x", 1, 2]) is None
    assert protocol.served_assignment([0.2, 0.3, 0.5]) == pytest.approx([0.2, 0.3, 0.5])


def test_the_dashboard_shows_the_chances_today_and_next_for_adaptive_surveys_only(admin_client):
    adaptive = make_survey(allocation="adaptive", validation_share=0.0)
    add_reports(adaptive, 3000)
    version = published_yesterday(adaptive)
    page = admin_client.get(reverse("dashboard:survey", args=[adaptive.slug])).content.decode()
    assert "Who answers what" in page
    smoker = version.metrics["assignment"][1]
    assert f"{100 * smoker:.1f} %" in page  # today's chance of the smoker × sick part, set by yesterday's version
    uniform = make_survey(slug="uniform")
    assert "Who answers what" not in admin_client.get(reverse("dashboard:survey", args=[uniform.slug])).content.decode()


def test_the_assignment_check_compares_each_day_with_that_days_assignment():
    """Three days: uniform before any version, then versions setting two different assignments. Honest reports drawn
    with each day's assignment raise no warning; reports that all claim one input do (fake users)."""
    from aggregator import services
    from aggregator.privacy import plausibility
    from survey_app.models import PendingReport
    from tests.factories import days_pass, folded

    survey = make_survey(allocation="adaptive", validation_share=0.0)
    protocol = get_protocol(survey)
    rng = np.random.default_rng(7)
    for day, assignment in enumerate((None, [0.2, 0.7, 0.1], [0.6, 0.2, 0.2])):
        if assignment is not None:  # a version published before this day began sets it
            ModelVersion.objects.create(survey=survey, version=day, model={}, report_count=1, privacy={},
                                        metrics={"assignment": assignment})
            days_pass(survey, 1)
        X = np.column_stack([rng.integers(0, 3, 2000), rng.uniform(18, 98, 2000)])
        y = rng.integers(0, 2, 2000)
        honest = protocol.public_with(assignment)  # what the browser runs that day
        assert honest["ldp"]["assignment"] == pytest.approx(assignment or [1 / 3] * 3)
        from aggregator.privacy.naive_bayes.ldp import LDPNaiveBayes
        nb = protocol.nb
        drawn = LDPNaiveBayes(nb.class_attribute, nb.attributes, nb.epsilon, oracle="oue", assignment=assignment)
        reports = drawn.perturb(protocol.to_model_input(X).astype(np.int64), y, rng)
        payloads = [{"input": int(j), "report": r} for j, r in zip(
            reports.assigned, _wires(protocol, reports), strict=True)]
        PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=p) for p in payloads])
        services.fold_new_reports(survey)
    row = folded(survey)
    stats = plausibility.PlausibilityStats.from_dict(row.plausibility)
    assert stats.expected.sum() == pytest.approx(6000)
    found = [f for f in plausibility.findings(protocol, stats) if f["check"] == "assignment"]
    assert found and not found[0]["warning"], found
    # Against one fixed (uniform) assignment the same honest reports look attacked: the check needs the days'.
    counts = [s.n for s in stats.per_input]
    uniform = plausibility._assignment(np.full(3, 2000.0), np.full(3, 6000 * (1 / 3) * (2 / 3)), counts,
                                       ["a", "b", "c"])
    assert uniform[0]["warning"]
    # 300 fake users all claiming input 2 on one more day: found.
    fakes = [{"input": 2, "report": p["report"]} for p in payloads[:300] if p["input"] == 2] * 10
    PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=p) for p in fakes[:300]])
    services.fold_new_reports(survey)
    stats = plausibility.PlausibilityStats.from_dict(folded(survey).plausibility)
    found = [f for f in plausibility.findings(protocol, stats) if f["check"] == "assignment"]
    assert found[0]["warning"] and found[0]["input"].startswith("age"), found


def _wires(protocol, reports):
    from aggregator.privacy.oracles.wire import to_wire

    wires = [to_wire(fo, r) for fo, r in zip(protocol.nb.oracles, reports.per_input, strict=True)]
    position = [0] * len(wires)
    out = []
    for j in reports.assigned:
        out.append(wires[j][position[j]])
        position[j] += 1
    return out


def _sample(rows: int, rng) -> str:
    """A public reference sample of the health survey: daily smokers sick, age unrelated."""
    smoker = rng.choice(["never", "sometimes", "daily"], rows)
    sick = np.where(smoker == "daily", "yes", "no")
    age = rng.uniform(18, 98, rows).round(1)
    return "smoker,age,sick\n" + "".join(f"{s},{a},{c}\n" for s, a, c in zip(smoker, age, sick, strict=True))


def test_the_reference_sample_sets_the_assignment_until_the_first_model(rng):
    from django.core.files.base import ContentFile

    from survey_app.pilot import fit_pilot

    survey = make_survey(allocation="adaptive", validation_share=0.0)
    survey.reference_sample.save("sample.csv", ContentFile(_sample(200, rng).encode()))
    pilot = fit_pilot(survey)
    assert len(pilot) == 3 and sum(pilot) == pytest.approx(1.0) and min(pilot) > 0
    assert pilot[1] > 1 / 3 > pilot[2]  # smoker tells the class, age does not
    assert served(survey)["assignment"] == pytest.approx(pilot) and served(survey)["assignment_source"] == "sample"
    add_reports(survey, 3000)
    version = published_yesterday(survey)
    assert served(survey)["assignment"] == pytest.approx(version.metrics["assignment"])


@pytest.mark.parametrize("csv, message", [
    ("smoker,sick\nnever,no\n", "no column 'age'"),
    ("smoker,age,sick\nweekly,30,no\n", "'weekly' is none of its answers"),
    ("smoker,age,sick\nnever,130,no\n", "within [18, 98]"),
    ("smoker,age,sick\nnever,old,no\n", "must hold numbers"),
])
def test_a_reference_sample_that_does_not_fit_is_refused_with_its_reason(csv, message):
    from django.core.files.base import ContentFile

    from survey_app.pilot import fit_pilot

    survey = make_survey(allocation="adaptive", validation_share=0.0)
    survey.reference_sample.save("sample.csv", ContentFile(csv.encode()))
    survey.pilot_assignment = [0.2, 0.3, 0.5]  # from an earlier sample, before the survey changed
    survey.save()
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        fit_pilot(survey)
    survey.refresh_from_db()
    assert survey.pilot_assignment is None  # the old one does not stay behind


def test_without_adaptive_allocation_the_reference_sample_sets_nothing(rng):
    from django.core.files.base import ContentFile

    from survey_app.pilot import fit_pilot

    survey = make_survey(validation_share=0.0)
    survey.reference_sample.save("sample.csv", ContentFile(_sample(50, rng).encode()))
    assert fit_pilot(survey) is None


@pytest.mark.parametrize("mode, allocation", [("ldp", "uniform"), ("ldp", "adaptive"), ("mrr", "uniform")])
def test_an_incomplete_draft_without_a_sample_needs_no_assignment_and_raises_nothing(mode, allocation):
    """Saving a draft that cannot run yet (no class question) fits nothing and warns of nothing: without a reference
    sample (or without adaptive allocation) there is no assignment to set."""
    from survey_app.models import Survey
    from survey_app.pilot import fit_pilot

    survey = Survey.objects.create(title="Draft", slug="draft", mode=mode, epsilon=1.0, allocation=allocation)
    assert fit_pilot(survey) is None
