"""Survey configuration: validation messages, protocol locking, cloning and invitation tokens (embedded SQLite)."""
import pytest
from django.core.exceptions import ValidationError

from survey_app.models import PREFER_NOT_TO_SAY, InvitationToken, Question, Report, Survey
from survey_app.services import clone_survey, generate_tokens
from tests.factories import make_draft_survey

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(mode="mrr", theta=None), "theta"),
        (dict(mode="mrr", theta=0.0), "theta"),
        (dict(mode="mrr", theta=1.5), "theta"),
        (dict(mode="ldp", epsilon=None), "epsilon"),
        (dict(mode="ldp", epsilon=0.0), "epsilon"),
        (dict(mode="ldp", epsilon=-1.0), "epsilon"),
        (dict(mode="ldp", epsilon=float("inf")), "epsilon"),
        (dict(encoding="the", encoding_parameters={"threshold": 1.5}), "encoding_parameters"),
        (dict(encoding="the", encoding_parameters={"t": 0.5}), "encoding_parameters"),
        (dict(projection="pca", projection_components=2), "reference_sample"),
    ],
)
def test_invalid_privacy_settings_name_the_field(kwargs, field):
    survey = Survey(title="t", slug="t", **{"mode": "ldp", "epsilon": 1.0, **kwargs})
    with pytest.raises(ValidationError) as info:
        survey.full_clean()
    assert field in info.value.message_dict


def test_valid_settings_pass():
    Survey(title="t", slug="t", mode="mrr", theta=1.0).full_clean()
    Survey(title="t", slug="u", mode="ldp", epsilon=0.5, encoding="the",
           encoding_parameters={"threshold": 0.25}).full_clean()


def test_numeric_question_needs_ordered_bounds():
    survey = make_draft_survey()
    for low, high in [(None, 1.0), (2.0, 1.0), (1.0, 1.0)]:
        q = Question(survey=survey, name=f"age{low}{high}".replace(".", ""), text="Age", kind="numeric",
                     low=low, high=high)
        with pytest.raises(ValidationError) as info:
            q.full_clean()
        assert "high" in info.value.message_dict
    Question(survey=survey, name="age", text="Age", kind="numeric", low=18, high=99).full_clean()


def test_class_question_must_be_categorical_and_unique():
    survey = make_draft_survey()
    q = Question(survey=survey, name="income", text="Income", kind="numeric", low=0, high=1, is_class=True)
    with pytest.raises(ValidationError):
        q.full_clean()


def test_labels_binary_categorical_and_prefer_not_to_say():
    survey = make_draft_survey()
    assert survey.class_question.labels() == ["no", "yes"]
    smoker = survey.questions.get(name="smoker")
    assert smoker.labels() == ["never", "sometimes", "daily"]
    smoker.prefer_not_to_say = True
    assert smoker.labels()[-1] == PREFER_NOT_TO_SAY


def test_protocol_is_locked_once_reports_exist_but_text_is_not():
    survey = make_draft_survey()
    Report.objects.create(survey=survey, payload={"x": 1})
    survey.title = "New title"
    survey.full_clean()  # wording may change
    survey.epsilon = 2.0
    with pytest.raises(ValidationError, match="Clone the survey"):
        survey.full_clean()


def test_clone_copies_questions_not_reports_or_tokens():
    survey = make_draft_survey()
    Report.objects.create(survey=survey, payload={"x": 1})
    generate_tokens(survey, 3)
    copy = clone_survey(survey)
    assert copy.slug == "health-copy" and copy.status == Survey.Status.DRAFT
    assert list(copy.questions.values_list("name", flat=True)) == ["sick", "smoker"]
    assert copy.questions.get(name="smoker").labels() == ["never", "sometimes", "daily"]
    assert copy.reports.count() == 0 and copy.tokens.count() == 0
    copy.epsilon = 4.0
    copy.full_clean()  # a clone's protocol can change


def test_tokens_are_unique_and_unguessable():
    survey = make_draft_survey()
    tokens = generate_tokens(survey, 200)
    values = {t.token for t in InvitationToken.objects.filter(survey=survey)}
    assert len(values) == len(tokens) == 200
    assert all(len(v) >= 24 for v in values)
    with pytest.raises(ValueError):
        generate_tokens(survey, 0)
