"""The planner's pages (aggregator/dashboard/planner.py): the form's validation, the job end to end (eager Celery),
the result page, and applying a setting to a draft survey — only the user's own drafts; the majority rule and the
warning when the recommended setting is not expected to beat it at the planned number of respondents."""
import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from aggregator import planning
from aggregator.dashboard.forms import MAX_REFERENCE_BYTES
from aggregator.lab.planner import beats_majority
from aggregator.models import Job
from survey_app.models import Survey
from tests.factories import PLANNER_FORM, make_survey

pytestmark = pytest.mark.django_db

FORM = PLANNER_FORM


@pytest.fixture
def staff(client):
    user = User.objects.create_user("plan", password="pw", is_staff=True)
    client.force_login(user)
    return user


@pytest.fixture
def finished(client, staff, settings):
    """A planner run on vote, done (eager Celery)."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    response = client.post(reverse("dashboard:planner"), FORM)
    job = Job.objects.get(kind="planner")
    assert response.status_code == 302 and response["Location"] == reverse("dashboard:planner-result", args=[job.pk])
    return job


def test_the_form_offers_the_bundled_data_and_the_survey_mechanisms(client, staff):
    html = client.get(reverse("dashboard:planner")).content.decode()
    for name in ("mushroom", "vote", "diabetes", "oue", "olh", "mrr", "gauss-sample", "0.5, 1, 2, 4, 8"):
        assert name in html
    assert "dp-svm" not in html  # not something a survey can run


@pytest.mark.parametrize("change, error", [
    ({"dataset": ""}, "Choose a bundled data set or upload a CSV"),
    ({"epsilons": "1, x"}, "&#x27;x&#x27; is not a number"),
    ({"epsilons": "0, 1"}, "must lie in (0, 100]"),
    ({"thetas": "1.5"}, "must lie in (0, 1]"),
    ({"epsilons": ""}, "Give at least one ε"),
    ({"methods": []}, "This field is required"),
    ({"reps": "1"}, "greater than or equal to 2"),
    ({"class_column": "nope"}, "no column named"),
])
def test_invalid_forms_say_why_and_start_nothing(client, staff, change, error):
    response = client.post(reverse("dashboard:planner"), FORM | change)
    assert response.status_code == 200 and error in response.content.decode()
    assert not Job.objects.exists()


def test_an_empty_post_is_a_form_with_errors(client, staff):
    response = client.post(reverse("dashboard:planner"), {})
    assert response.status_code == 200 and "This field is required" in response.content.decode()
    assert not Job.objects.exists()


def test_uploads_are_checked(client, staff):
    big = SimpleUploadedFile("big.csv", b"a,b\n" + b"1,2\n" * (MAX_REFERENCE_BYTES // 4 + 1), "text/csv")
    response = client.post(reverse("dashboard:planner"), FORM | {"dataset": "", "upload": big})
    assert "at most 2 MB" in response.content.decode()
    latin = SimpleUploadedFile("l.csv", "a,b\né,1\n".encode("latin-1"), "text/csv")
    response = client.post(reverse("dashboard:planner"), FORM | {"dataset": "", "upload": latin})
    assert "not UTF-8" in response.content.decode()
    both = SimpleUploadedFile("v.csv", b"a,b\nx,y\n", "text/csv")
    assert "one of the two" in client.post(reverse("dashboard:planner"), FORM | {"upload": both}).content.decode()
    assert not Job.objects.exists()


def test_an_uploaded_reference_csv_is_planned(client, staff, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    rows = "\n".join(f"{'yes' if i % 3 else 'no'},{'a' if i % 2 else 'b'},{'sick' if i % 3 else 'well'}"
                     for i in range(200))
    upload = SimpleUploadedFile("ref.csv", ("smoker,region,status\n" + rows + "\n").encode(), "text/csv")
    client.post(reverse("dashboard:planner"), FORM | {"dataset": "", "upload": upload, "methods": ["de"]})
    job = Job.objects.get(kind="planner")
    assert job.state == "done" and job.params["filename"] == "ref.csv"
    assert [s["method"] for s in job.result["settings"]] == ["de", "de"]


def test_a_finished_run_shows_curves_table_and_recommendation(client, finished):
    assert finished.state == "done" and finished.progress == 1.0
    result = finished.result
    assert len(result["settings"]) == 4 and result["recommendation"] in result["settings"]
    html = client.get(reverse("dashboard:planner-result", args=[finished.pk])).content.decode()
    assert 'id="planner-data"' in html and 'id="chart-epsilon"' in html and 'id="chart-theta"' in html
    assert "Recommendation" in html and "recommended" in html
    assert "no draft survey of yours" in html  # nothing to apply to yet
    status = client.get(reverse("dashboard:job", args=[finished.pk])).json()
    assert status["state"] == "done"


def test_other_users_runs_are_not_found(client, finished):
    other = User.objects.create_user("other", password="pw", is_staff=True)
    client.force_login(other)
    assert client.get(reverse("dashboard:planner-result", args=[finished.pk])).status_code == 404
    assert client.get(reverse("dashboard:job", args=[finished.pk])).status_code == 404


def test_applying_a_setting_to_a_draft(client, staff, finished):
    draft = make_survey(mode="ldp")
    Survey.objects.filter(pk=draft.pk).update(status="draft")
    draft.designers.add(staff)
    settings_ = finished.result["settings"]
    mrr = next(i for i, s in enumerate(settings_) if s["method"] == "mrr")
    response = client.post(reverse("dashboard:planner-apply", args=[finished.pk]), {"setting": mrr, "survey": draft.pk})
    draft.refresh_from_db()
    assert response.status_code == 302
    assert draft.mode == "mrr" and draft.theta == settings_[mrr]["value"]
    oue = next(i for i, s in enumerate(settings_) if s["method"] == "oue")
    client.post(reverse("dashboard:planner-apply", args=[finished.pk]), {"setting": oue, "survey": draft.pk})
    draft.refresh_from_db()
    assert (draft.mode, draft.encoding, draft.epsilon) == ("ldp", "oue", settings_[oue]["value"])
    html = client.get(reverse("dashboard:planner-result", args=[finished.pk])).content.decode()
    assert "now uses oue" in html


def test_only_the_users_own_drafts_take_a_setting(client, staff, finished):
    open_survey = make_survey(mode="ldp", slug="open-one")
    open_survey.designers.add(staff)
    before = Survey.objects.get(pk=open_survey.pk).theta
    response = client.post(reverse("dashboard:planner-apply", args=[finished.pk]),
                           {"setting": 2, "survey": open_survey.pk}, follow=True)
    assert "only a draft" in response.content.decode()
    assert Survey.objects.get(pk=open_survey.pk).theta == before and Survey.objects.get(pk=open_survey.pk).mode == "ldp"
    someone_elses = make_survey(mode="ldp", slug="theirs")
    Survey.objects.filter(pk=someone_elses.pk).update(status="draft")
    response = client.post(reverse("dashboard:planner-apply", args=[finished.pk]),
                           {"setting": 2, "survey": someone_elses.pk}, follow=True)
    assert "Choose a planned setting and one of your surveys" in response.content.decode()
    assert Survey.objects.get(pk=someone_elses.pk).mode == "ldp"


# -- usefulness: the majority rule (issue 13 item 7) ---------------------------------------------------------------
def test_a_run_that_beats_the_majority_rule_says_so_without_a_warning(client, finished):
    result = finished.result
    assert result["majority_accuracy"] == 267 / 435 and result["expected"]["beats_majority"]
    html = client.get(reverse("dashboard:planner-result", args=[finished.pk])).content.decode()
    assert "Always guessing the most frequent class, “democrat”, is right 61.4 % of the time" in " ".join(html.split())
    assert 'id="usefulness-warning"' not in html and "Not better than guessing" not in html
    assert "Beats guessing" in html and f"estimator ({result['estimator']})" in html


def test_a_run_that_does_not_beat_the_majority_rule_warns(client, staff, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    client.post(reverse("dashboard:planner"),
                FORM | {"methods": ["oue"], "epsilons": "0.1", "thetas": "", "respondents": "200"})
    job = Job.objects.get(kind="planner")
    assert job.params["respondents"] == 200 and job.result["respondents"] == 200
    expected = job.result["expected"]
    assert expected["n_train"] == 200 and not expected["beats_majority"]
    html = client.get(reverse("dashboard:planner-result", args=[job.pk])).content.decode()
    assert 'id="usefulness-warning" role="alert"' in html
    assert ("At 200 respondents, oue at ε = 0.1 is not expected to beat always guessing “democrat” (61.4 %): the "
            "expected accuracy is ") in html
    assert "plan on more than 348 respondents or a larger ε." in html
    assert "Why: " in html  # the reason, from the private majority rule on the same splits
    assert "Private majority rule" in html and "Against the best old rule" in html
    assert "200 planned respondents" in html
    assert '<span class="badge-warning">no</span>' in html


def test_the_planned_number_of_respondents_is_checked(client, staff):
    response = client.post(reverse("dashboard:planner"), FORM | {"respondents": "5"})
    assert "greater than or equal to 10" in response.content.decode()
    assert not Job.objects.exists()


def _result(low, high, accuracy, *, majority=0.52, test_majority=0.52, needed=None, planned=3000, n_train=3000,
            simulated=True, parameter="epsilon"):
    return {"majority_accuracy": majority, "majority_class": "edible", "n_train": 6000,
            "recommendation": {"method": "oue", "parameter": parameter, "value": 2.0},
            "respondents_to_beat_majority": needed, "learning_curve": [{"n_train": 6000}],
            "expected": {"respondents": planned, "n_train": n_train, "simulated": simulated, "accuracy": accuracy,
                         "low": low, "high": high, "majority": test_majority,
                         "beats_majority": beats_majority(accuracy, low, test_majority)}}


@pytest.mark.parametrize("low, high, warned", [
    (0.53, 0.56, False),  # the interval lies above 52 %: no warning
    (0.52, 0.56, True),   # its lower end touches it: not clearly better
    (0.51, 0.54, True),   # straddles it
    (0.45, 0.50, True),   # below it
])
def test_the_warning_appears_exactly_when_the_interval_does_not_clear_the_majority_rule(low, high, warned):
    warning = planning.usefulness_warning(_result(low, high, (low + high) / 2, needed=5000))
    assert (warning is not None) == warned
    if warned:
        verdict = "is expected to do worse than" if high < 0.52 else "is not expected to beat"
        assert warning == (f"At 3,000 respondents, oue at ε = 2 {verdict} always guessing “edible” (52.0 %): the "
                           f"expected accuracy is {100 * low:.1f}–{100 * high:.1f} %. Plan on at least 5,000 "
                           "respondents or a larger ε.")


def test_the_warning_says_what_the_reference_data_cannot_tell():
    beyond = planning.usefulness_warning(_result(0.40, 0.55, 0.47, planned=20000, n_train=6000, simulated=False,
                                                 parameter="theta"))
    assert beyond.startswith("At 6,000 respondents (the most this reference data can simulate; you plan 20,000), "
                             "oue at θ = 2 is not expected to beat")
    assert "cannot tell whether 20,000 would: plan on a larger θ" in beyond
    within = planning.usefulness_warning(_result(0.40, 0.55, 0.47))
    assert "No size this reference data can simulate (up to 6,000) beats it" in within
    assert planning.usefulness_warning({"settings": []}) is None  # a run from before the majority rule


def _reasoned(accuracy=0.47, low=0.45, high=0.50, nonprivate=0.90, **expected):
    result = _result(low, high, accuracy) | {"nonprivate_accuracy": nonprivate, "majority_test_accuracy": 0.52}
    result["expected"] |= expected
    return result


FELL_BACK = ("Why: at this size and ε, the randomization hides the answers' link to the class. In {m} of 5 "
             "repetitions the model predicted, for every record, the class the randomized reports rank most frequent "
             "(the private majority rule, which it falls back on when the reports show no link).")
EITHER = ("The randomized reports do not always rank the most frequent class first either: the private majority rule "
          "is right {p} of the time.")


@pytest.mark.parametrize("result, reason", [
    (_reasoned(nonprivate=0.50, private_majority=0.52, reps=5, matches_private_majority=5),
     "Why: even without privacy, Naive Bayes on this reference data is right 50.0 % of the time, no better than "
     "guessing; its answers say too little about the class for any privacy setting to help."),
    (_reasoned(private_majority=0.52, reps=5, matches_private_majority=4), FELL_BACK.format(m=4)),
    (_reasoned(private_majority=0.45, reps=5, matches_private_majority=3),
     FELL_BACK.format(m=3) + " " + EITHER.format(p="45.0 %")),
    (_reasoned(private_majority=0.52, reps=5, matches_private_majority=1),
     "Why: the model uses the answers, but at this size and ε the noise in its estimates costs more than the answers "
     "tell."),
    (_reasoned(accuracy=0.55, low=0.50, high=0.60, private_majority=0.40, reps=5, matches_private_majority=0),
     "Why: the model uses the answers, but at this size and ε the noise in its estimates leaves its accuracy too "
     "uncertain to be sure it beats guessing. " + EITHER.format(p="40.0 %")),
    (_reasoned(), None),  # a run from before the private majority rule: no reason
])
def test_the_warning_names_the_reason(result, reason):
    assert planning.usefulness_reason(result) == reason
    warning = planning.usefulness_warning(result)
    assert (reason or "Why") in warning if reason else "Why" not in warning
    if reason:
        assert warning.index(reason) < warning.index("No size this reference data can simulate")


def test_the_warning_and_its_reason_are_german_on_a_german_page():
    from django.utils import translation

    with translation.override("de"):
        warning = planning.usefulness_warning(_reasoned(private_majority=0.45, reps=5, matches_private_majority=3))
    assert warning.startswith("Bei 3.000 Teilnehmenden schneidet oue mit ε = 2 voraussichtlich schlechter ab, als "
                              "immer „edible“ zu raten (52,0 %): Die erwartete Genauigkeit ist 45,0–50,0 %.")
    assert ("sagte das Modell für jeden Datensatz die Klasse voraus, die die randomisierten Berichte als häufigste"
            in warning)
    assert "Die private Mehrheitsregel liegt in 45,0 % der Fälle richtig." in warning
    with translation.override("de"):
        assert planning.setting_value(0.1) == "0,1" and planning.whole(6000) == "6.000"
    assert "Why" not in warning and "respondents" not in warning


def test_epsilon_is_written_one_way_with_the_edge_note(client, finished):
    """∞ reads "∞" on the planner (never "Infinity" or "inf"), with the engine's edge note marked and explained."""
    from aggregator.templatetags.figures import epsilon

    assert [epsilon(x) for x in (float("inf"), "Infinity", None, 1.234)] == ["∞", "∞", "—", "1.23"]
    result = dict(finished.result)
    result["settings"] = [dict(s) for s in result["settings"]]
    result["settings"][0] |= {"epsilon_per_respondent": "Infinity", "epsilon_note": "the edge", "epsilon_configured": 1}
    Job.objects.filter(pk=finished.pk).update(result=result)
    html = client.get(reverse("dashboard:planner-result", args=[finished.pk])).content.decode()
    table = html[html.index("<table"):html.index("</table>")]
    assert "∞" in table and "Infinity" not in table and ">inf<" not in table
    assert 'id="epsilon-notes"' in html
