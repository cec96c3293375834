"""Skip logic and optional answers in the web app: a question shown on a condition has one more answer, “Not asked”,
that the engine randomizes like the others; the rules of conditions (an earlier yes/no or choices question, not the
class, some of its answers), their messages, the protocol API's display fields, cloning and freezing."""
from io import StringIO

import numpy as np
import pytest
from django.core.exceptions import ValidationError

from survey_app.languages import NOT_ASKED, PREFER_NOT_TO_SAY
from survey_app.models import SKIP_MESSAGES, Choice, PendingReport, Question, Survey, skip_rules
from survey_app.protocol import get_protocol, protocol_config
from survey_app.services import clone_survey
from tests.factories import CIGARETTE_LABELS, SMOKER_LABELS, make_skip_survey

pytestmark = pytest.mark.django_db


def errors_of(question: Question) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as caught:
        question.full_clean()
    return caught.value.message_dict


def test_a_conditional_question_has_not_asked_as_its_last_answer_for_the_engine():
    survey = make_skip_survey(status="draft")
    features = protocol_config(survey)["features"]
    assert features[1] == {"kind": "categorical", "name": "cigarettes",
                           "values": [*CIGARETTE_LABELS, PREFER_NOT_TO_SAY, NOT_ASKED]}
    assert features[0]["values"] == list(SMOKER_LABELS)  # the gate is unchanged
    protocol = get_protocol(survey)
    # The frequency oracle runs over the enlarged domain: d + 2 values (“Prefer not to say”, “Not asked”).
    assert protocol.public()["questions"][1]["values"] == [*CIGARETTE_LABELS, PREFER_NOT_TO_SAY, NOT_ASKED]


def test_under_mrr_the_stand_in_of_a_conditional_question_is_uniform_over_the_enlarged_domain():
    survey = make_skip_survey(mode="mrr", status="draft")
    config = protocol_config(survey)
    assert "cigarettes" not in config["mrr"]["personal"]  # no declared shares: uniform, so P_Y(“Not asked”) = 1/5
    cigarettes = survey.questions.get(name="cigarettes")
    Choice.objects.filter(question=cigarettes).update(personal_probability=0.2)
    assert errors_of(cigarettes)["show_if_question"] == [SKIP_MESSAGES["shares"]]
    cigarettes.personal_mode = Question.PersonalMode.REAL
    cigarettes.personal_text = "Were you born in January to June?"
    assert errors_of(cigarettes)["personal_mode"] == [SKIP_MESSAGES["real_personal"]]


def test_the_protocol_api_gives_the_condition_as_answer_codes(client):
    survey = make_skip_survey()
    body = client.get(f"/api/surveys/{survey.slug}/protocol/").json()
    by_name = {q["name"]: q for q in body["questions"]}
    assert by_name["smoker"]["show_if"] is None
    assert by_name["cigarettes"]["show_if"] == {"question": "smoker", "answers": [1, 2], "not_asked": 4}
    assert by_name["cigarettes"]["labels"] == [*CIGARETTE_LABELS, "Prefer not to say", "Not asked"]


def test_the_protocol_api_says_not_asked_in_german(client):
    survey = make_skip_survey()
    body = client.get(f"/api/surveys/{survey.slug}/protocol/", HTTP_ACCEPT_LANGUAGE="de").json()
    cigarettes = next(q for q in body["questions"] if q["name"] == "cigarettes")
    assert cigarettes["labels"][-2:] == ["Keine Angabe", "Nicht gefragt"]


@pytest.mark.parametrize("change, field, key", [
    ({"show_if_answers": []}, "show_if_answers", "no_answers"),
    ({"show_if_answers": ["often"]}, "show_if_answers", "answers"),
    ({"show_if_answers": list(SMOKER_LABELS)}, "show_if_answers", "all_answers"),
    ({"position": 0}, "show_if_question", "gate_order"),
    ({"kind": "multi"}, "show_if_question", "multi"),
])
def test_each_rule_of_a_condition_has_one_clear_message(change, field, key):
    survey = make_skip_survey(status="draft")
    survey.questions.filter(name="smoker").update(position=1)  # the question ids: smoker's is smaller
    cigarettes = survey.questions.get(name="cigarettes")
    cigarettes.position = 2
    for name, value in change.items():
        setattr(cigarettes, name, value)
    messages = errors_of(cigarettes)[field]
    assert len(messages) == 1
    assert messages[0].startswith(str(SKIP_MESSAGES[key]).split("%")[0].split("“")[0])


def test_the_class_neither_decides_nor_is_shown_on_a_condition():
    survey = make_skip_survey(status="draft")
    sick = survey.questions.get(name="sick")
    cigarettes = survey.questions.get(name="cigarettes")
    cigarettes.show_if_question, cigarettes.show_if_answers, cigarettes.position = sick, ["yes"], 5
    assert SKIP_MESSAGES["gate_class"] in errors_of(cigarettes)["show_if_question"]
    sick.show_if_question, sick.show_if_answers = survey.questions.get(name="smoker"), ["daily"]
    assert SKIP_MESSAGES["is_class"] in errors_of(sick)["show_if_question"]


def test_a_number_neither_offers_prefer_not_to_say_nor_is_shown_on_a_condition():
    survey = make_skip_survey(status="draft")
    age = Question(survey=survey, name="age", text="Age", kind="numeric", low=18, high=98, position=3,
                   prefer_not_to_say=True)
    assert "number" in errors_of(age)["prefer_not_to_say"][0]
    age.prefer_not_to_say = False
    age.show_if_question, age.show_if_answers = survey.questions.get(name="smoker"), ["daily"]
    assert "number" in errors_of(age)["show_if_question"][0]
    age.show_if_question, age.show_if_answers = None, []
    age.full_clean()  # without either, a number is fine


def test_a_condition_on_another_surveys_question_or_on_a_number_is_refused():
    survey = make_skip_survey(status="draft")
    other = make_skip_survey(slug="other", status="draft")
    cigarettes = survey.questions.get(name="cigarettes")
    cigarettes.show_if_question = other.questions.get(name="smoker")
    assert SKIP_MESSAGES["gate_survey"] in errors_of(cigarettes)["show_if_question"]
    age = Question.objects.create(survey=survey, name="age", text="Age", kind="numeric", low=18, high=98, position=0)
    cigarettes.show_if_question, cigarettes.show_if_answers = age, ["18"]
    assert SKIP_MESSAGES["gate_kind"] in errors_of(cigarettes)["show_if_question"]


def test_answers_without_a_question_are_refused_and_a_valid_condition_passes():
    survey = make_skip_survey(status="draft")
    cigarettes = survey.questions.get(name="cigarettes")
    cigarettes.full_clean()
    cigarettes.show_if_question = None
    assert errors_of(cigarettes)["show_if_question"] == [SKIP_MESSAGES["no_gate"]]


def test_a_bulk_written_condition_that_breaks_the_rules_cannot_run():
    survey = make_skip_survey(status="draft")
    Question.objects.filter(survey=survey, name="cigarettes").update(
        show_if_question=survey.questions.get(name="sick"), show_if_answers=["yes"])
    with pytest.raises(ValueError, match="cigarettes: The question that shows this one must come before it"):
        protocol_config(survey)


def test_a_clone_keeps_the_condition_on_its_own_question():
    copy = clone_survey(make_skip_survey(status="draft"))
    cigarettes = copy.questions.get(name="cigarettes")
    assert cigarettes.show_if_question == copy.questions.get(name="smoker")
    assert cigarettes.show_if_answers == ["sometimes", "daily"]
    assert protocol_config(copy)["features"][1]["values"][-1] == NOT_ASKED


def test_the_condition_is_frozen_once_the_survey_has_opened():
    survey = make_skip_survey()
    assert Survey.objects.get(pk=survey.pk).has_opened()
    cigarettes = survey.questions.get(name="cigarettes")
    cigarettes.show_if_answers = ["daily"]
    assert "show_if_answers" in str(errors_of(cigarettes))


def test_the_engines_rules_are_the_pages_conditions(client):
    """``skip_rules`` (what simulations and the engine's check use) and the protocol API's "show_if" (what the page
    uses) say the same: the gate's feature, the codes that show the question, its “Not asked”."""
    survey = make_skip_survey()
    body = client.get(f"/api/surveys/{survey.slug}/protocol/").json()
    features = [f["name"] for f in body["protocol"]["questions"]]
    [rule] = skip_rules(list(survey.questions.prefetch_related("choices")))
    shown = next(q["show_if"] for q in body["questions"] if q["name"] == "cigarettes")
    assert (features[rule.target], features[rule.gate]) == ("cigarettes", shown["question"])
    assert sorted(rule.shown) == shown["answers"] and rule.not_asked == shown["not_asked"]


def test_simulated_respondents_follow_the_skip_logic(tmp_path):
    """``manage.py simulate`` sends what a browser would: under MRR with θ = 1 a report is the record itself, so a
    row that never smokes sends “Not asked” whatever its cell holds, and an empty cell of a shown question is its
    “Prefer not to say”."""
    from django.core.management import call_command

    survey = make_skip_survey(mode="mrr")
    Survey.objects.filter(pk=survey.pk).update(theta=1.0)
    rows = ["smoker,cigarettes,sick", "never,6 to 20,no", "daily,,yes", "sometimes,1 to 5,no"]
    (tmp_path / "smoking.csv").write_text("\n".join(rows) + "\n")
    call_command("simulate", survey.slug, str(tmp_path / "smoking.csv"), "--respondents", "60", "--seed", "3",
                 stdout=StringIO())
    sent = {tuple(r.payload["answers"]) for r in PendingReport.objects.filter(survey=survey)}
    assert sent == {(0, 4, 0), (2, 3, 1), (1, 0, 0)}


def test_a_reference_sample_follows_the_skip_logic(settings, tmp_path, monkeypatch):
    """Adaptive allocation's pilot weights from a public sample whose hidden questions are empty cells or hold an
    answer a browser would not send: the engine is given the records as the browser sends them (“Not asked”)."""
    from django.core.files.base import ContentFile

    from aggregator.privacy.protocol.ldp import LDPProtocol
    from survey_app.pilot import fit_pilot

    settings.MEDIA_ROOT = tmp_path
    survey = make_skip_survey(status="draft")
    Survey.objects.filter(pk=survey.pk).update(allocation="adaptive")
    survey = Survey.objects.get(pk=survey.pk)
    given = []
    real = LDPProtocol.pilot_assignment

    def spy(self, X, y):
        given.append(np.asarray(X).tolist())
        return real(self, X, y)

    monkeypatch.setattr(LDPProtocol, "pilot_assignment", spy)
    rows = ["smoker,cigarettes,sick", "never,6 to 20,no", "never,,no", "daily,more than 20,yes", "sometimes,,no"]
    survey.reference_sample.save("sample.csv", ContentFile(("\n".join(rows) + "\n").encode()))
    pilot = fit_pilot(survey)
    assert len(pilot) == 3 and sum(pilot) == pytest.approx(1.0)
    assert given == [[[0, 4], [0, 4], [2, 2], [1, 3]]]


def test_the_admin_offers_only_the_surveys_own_questions_and_shows_one_message(admin_client):
    survey = make_skip_survey(status="draft")
    other = make_skip_survey(slug="other", status="draft")
    sick = survey.questions.get(name="sick")
    url = f"/admin/survey_app/question/{sick.pk}/change/"
    page = admin_client.get(url).content.decode()
    assert f'value="{survey.questions.get(name="smoker").pk}"' in page  # the survey's own questions
    assert f'value="{other.questions.get(name="smoker").pk}"' not in page  # never another survey's
    data = {"survey": survey.pk, "position": 2, "name": "sick", "text": sick.text, "kind": "binary", "style": "auto",
            "is_class": "on", "show_if_question": survey.questions.get(name="smoker").pk,
            "show_if_answers": '["daily"]', "group": 0, "personal_mode": "simulated", "translations": ""}
    page = admin_client.post(url, data).content.decode()
    assert page.count("The class question is asked of everyone: it cannot be shown on a condition.") == 1
    assert Question.objects.get(pk=sick.pk).show_if_question is None  # nothing saved
