"""The slider, the matrix and the shuffled order (docs/question-types.md): the model's rules, each with one message
on every form (admin, management API), and what the protocol API tells the page."""
import pytest
from django.core.exceptions import ValidationError

from survey_app.models import Question, Survey
from tests.factories import make_widgets_survey
from tests.manage_support import COMMUTE, designer

pytestmark = pytest.mark.django_db


def errors_of(question) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as caught:
        question.full_clean(exclude=["survey"])
    return caught.value.message_dict


def test_a_slider_sets_a_number_only():
    survey = make_widgets_survey()
    hours = survey.questions.get(name="hours")
    hours.full_clean(exclude=["survey"])  # valid as made
    drink = survey.questions.get(name="drink")
    drink.style = "slider"
    assert errors_of(drink)["style"] == [
        "A slider sets a number: only a question of the kind “Number with public bounds” can use it."]
    age = Question(survey=survey, name="age", text="Age", kind="numeric", low=0, high=100, style="scale")
    assert errors_of(age)["style"] == ["A number is typed in a box or set with a slider: choose Automatic or Slider."]


@pytest.mark.parametrize("step", [0.0, -1.0, 12.5, float("inf"), float("nan")])
def test_a_slider_step_is_positive_and_within_the_range(step):
    hours = make_widgets_survey().questions.get(name="hours")
    hours.step = step
    assert errors_of(hours)["step"] == [
        "The step must be a positive number no larger than the range between the bounds."]


def test_only_a_slider_has_a_step():
    hours = make_widgets_survey().questions.get(name="hours")
    hours.style = "auto"
    assert errors_of(hours) == {"step": ["Only a slider has a step: empty it, or choose the style Slider."]}
    hours.step = None
    hours.full_clean(exclude=["survey"])
    hours.step, hours.style = 12.0, "slider"  # the whole range: two positions
    hours.full_clean(exclude=["survey"])


def test_a_matrix_row_is_a_question_with_choices_as_columns():
    survey = make_widgets_survey()
    hours = survey.questions.get(name="hours")
    hours.matrix = "How much do you agree?"
    assert errors_of(hours) == {
        "matrix": ["Only a yes/no question or a question with choices can be a row of a matrix."]}
    rested = survey.questions.get(name="rested")
    rested.style = "dropdown"
    assert errors_of(rested) == {
        "matrix": ["A matrix shows its choices as columns: a row cannot be a dropdown. Choose another style."]}
    rested.style, rested.personal_mode, rested.personal_text = "buttons", "real", "Born in spring?"
    assert errors_of(rested)["matrix"] == [  # (and the open survey's frozen unrelated question)
        "A matrix row cannot ask a real unrelated question: let the browser simulate it."]
    sick = survey.questions.get(name="sick")
    sick.matrix = "   "  # blank: no matrix
    sick.full_clean(exclude=["survey"])
    assert sick.matrix == ""


def test_the_protocol_api_tells_the_page_the_slider_the_matrix_and_the_shuffle(client):
    survey = make_widgets_survey(shuffle_choices=True)
    survey.questions.filter(name="dreams").update(translations={"de": {"matrix": "Wie sehr stimmen Sie zu?"}})
    body = client.get(f"/api/surveys/{survey.slug}/protocol/").json()
    assert body["survey"]["shuffle"] == {"questions": False, "choices": True}
    questions = {q["name"]: q for q in body["questions"]}
    assert questions["hours"]["style"] == "slider" and questions["hours"]["step"] == 0.5
    assert questions["rested"]["matrix"] == questions["dreams"]["matrix"] == "How much do you agree?"
    assert questions["drink"]["matrix"] == "" and questions["drink"]["step"] is None
    german = {q["name"]: q for q in client.get(f"/api/surveys/{survey.slug}/protocol/",
                                               HTTP_ACCEPT_LANGUAGE="de").json()["questions"]}
    # One title per matrix in a language, from the first row that translates it: the page groups rows by it.
    assert german["rested"]["matrix"] == german["dreams"]["matrix"] == "Wie sehr stimmen Sie zu?"
    # Neither the shuffle nor the looks are part of the protocol the report is randomized under.
    assert "shuffle" not in body["protocol"] and "matrix" not in str(body["protocol"])


def test_the_management_api_takes_them_and_refuses_a_bad_one_with_one_message():
    api = designer()
    minutes = {"name": "minutes", "text": "Minutes on the way?", "kind": "numeric", "low": 0, "high": 120,
               "style": "slider", "step": 5}
    created = api.post("/api/manage/surveys/", {**COMMUTE, "shuffle_questions": True,
                                                "questions": [*COMMUTE["questions"], minutes]}, format="json")
    assert created.status_code == 201, created.json()
    survey = Survey.objects.get(slug=COMMUTE["slug"])
    assert survey.shuffle_questions and not survey.shuffle_choices
    assert survey.questions.get(name="minutes").step == 5
    response = api.post("/api/manage/surveys/", {**COMMUTE, "slug": "commute-again",
                                                 "questions": [*COMMUTE["questions"], {**minutes, "step": 500}]},
                        format="json")
    assert response.status_code == 400
    assert str(response.json()).count("The step must be a positive number") == 1
    assert not Survey.objects.filter(slug="commute-again").exists()
