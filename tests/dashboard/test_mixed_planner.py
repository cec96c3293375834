"""The planner's pages with reference data that mixes questions with choices and numeric questions (issue 13 item
4): gauss-sample plans a mixed survey and the page says so, beside the majority rule; Approaches 1 and 2 refuse such
data with a reason that names Approach 3; a planned gauss-sample setting applies to a mixed draft survey."""
import numpy as np
import pandas as pd
import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from aggregator.models import Job
from aggregator.privacy import protocol as sp
from survey_app.models import Choice, Question, Survey
from survey_app.protocol import get_protocol

pytestmark = pytest.mark.django_db


def reference_csv(n=1500, seed=3) -> SimpleUploadedFile:
    """smoker (choices), age (numbers), class sick: a public reference table shaped like a mixed survey."""
    rng = np.random.default_rng(seed)
    sick = rng.random(n) < 0.3
    smoker = np.where(sick, rng.choice(3, n, p=[0.1, 0.2, 0.7]), rng.choice(3, n, p=[0.7, 0.2, 0.1]))
    frame = pd.DataFrame({"smoker": np.array(["never", "sometimes", "daily"])[smoker],
                          "age": np.clip(np.where(sick, 65, 35) + 8 * rng.standard_normal(n), 18, 98).round(1),
                          "sick": np.where(sick, "yes", "no")})
    return SimpleUploadedFile("health.csv", frame.to_csv(index=False).encode(), "text/csv")


@pytest.fixture
def staff(client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    user = User.objects.create_user("plan", password="pw", is_staff=True)
    client.force_login(user)
    return user


def form(methods) -> dict:
    return {"upload": reference_csv(), "methods": methods, "epsilons": "1, 4", "thetas": "", "reps": "2",
            "target": "0.8", "class_column": ""}


def test_the_planner_plans_a_mixed_survey_and_says_how(client, staff):
    client.post(reverse("dashboard:planner"), form(["gauss-sample", "oue"]))
    job = Job.objects.get(kind="planner")
    assert job.state == "done", job.message
    assert job.result["mixed"] is True
    assert {s["method"] for s in job.result["settings"]} == {"gauss-sample", "oue"}
    html = client.get(reverse("dashboard:planner-result", args=[job.pk])).content.decode()
    assert 'id="mixed-note"' in html and "gauss-sample plans a survey that mixes them" in html
    assert 'id="majority"' in html and "Always guessing the" in html
    german = client.get(reverse("dashboard:planner-result", args=[job.pk]), HTTP_ACCEPT_LANGUAGE="de")
    assert "gauss-sample plant eine Umfrage, die beide mischt" in german.content.decode()


def test_approaches_1_and_2_refuse_mixed_reference_data_naming_approach_3(client, staff):
    client.post(reverse("dashboard:planner"), form(["gauss-laplace"]))
    job = Job.objects.get(kind="planner")
    assert job.state == "failed" and "use gauss-sample (Gaussian Approach 3" in job.message


def test_a_planned_gauss_sample_setting_applies_to_a_mixed_draft(client, staff):
    client.post(reverse("dashboard:planner"), form(["gauss-sample"]))
    job = Job.objects.get(kind="planner")
    survey = Survey.objects.create(title="Draft", slug="draft", mode="ldp", epsilon=1.0, encoding="oue")
    survey.designers.add(staff)
    smoker = Question.objects.create(survey=survey, name="smoker", text="Smoke?", position=0)
    Choice.objects.bulk_create([Choice(question=smoker, label=label, position=i)
                                for i, label in enumerate(("never", "sometimes", "daily"))])
    Question.objects.create(survey=survey, name="age", text="Age", kind="numeric", low=18, high=98, position=1)
    Question.objects.create(survey=survey, name="sick", text="Sick?", kind="binary", is_class=True, position=2)
    index = next(i for i, s in enumerate(job.result["settings"]) if s["value"] == 4.0)
    client.post(reverse("dashboard:planner-apply", args=[job.pk]), {"setting": index, "survey": survey.pk})
    survey.refresh_from_db()
    assert (survey.numeric_handling, survey.gaussian_approach, survey.epsilon) == ("gaussian", 3, 4.0)
    protocol = get_protocol(survey)
    assert type(protocol).__name__ == "MixedProtocol"
    # The survey runs the oracles the plan ran (its configuration names no encoding: the engine's adaptive choice),
    # not the draft's earlier OUE.
    assert survey.encoding == "adaptive"
    planned = job.result["settings"][index]["config"]
    assert [fo.name for fo in protocol.nb.oracles] == [
        fo.name for fo in sp.build({**planned, "class": protocol.config["class"],
                                    "features": protocol.config["features"]}).nb.oracles]
