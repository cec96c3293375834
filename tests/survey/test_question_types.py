"""Question types that randomized response can carry (issue 12 item 4): a dropdown, an ordered scale and "select all
that apply" — the latter one no/yes feature per choice of the engine, so every mechanism handles it unchanged; their
validation, the protocol API's display fields, the designer's texts, the prediction API and the lab's table import."""
import numpy as np
import pandas as pd
import pytest
from django.core.exceptions import ValidationError

from aggregator.privacy import oracles
from survey_app.models import PREFER_NOT_TO_SAY, Choice, Question, Survey, feature_texts
from survey_app.protocol import get_protocol, protocol_config
from survey_app.tables import load_table, option_name
from tests.factories import AGREEMENT, COUNTRIES, SPORTS, make_types_survey

pytestmark = pytest.mark.django_db

SPORT_FEATURES = ["sports__0", "sports__1", "sports__2"]


# -- the engine's features --------------------------------------------------------------------------------------
def test_a_select_all_question_is_one_no_yes_feature_per_choice():
    config = protocol_config(make_types_survey())
    names = [f["name"] for f in config["features"]]
    assert names == ["country", "agree", *SPORT_FEATURES]
    for feature in config["features"][2:]:
        assert feature == {"kind": "categorical", "name": feature["name"], "values": ["no", "yes", PREFER_NOT_TO_SAY]}
    # A scale is an ordered categorical question: its values in the choices' order, "Prefer not to say" last.
    assert config["features"][1]["values"] == [*AGREEMENT, PREFER_NOT_TO_SAY]
    assert config["features"][0]["values"] == list(COUNTRIES)


def test_the_choices_features_inherit_the_mrr_group_and_declared_shares():
    survey = make_types_survey(mode="mrr")
    sports = survey.questions.get(name="sports")
    sports.group, sports.prefer_not_to_say = 1, False
    sports.save()
    for choice, p in zip(sports.choices.all(), (0.5, 0.25, 0.1), strict=True):
        choice.personal_probability = p
        choice.save()
    mrr = protocol_config(survey)["mrr"]
    assert mrr["groups"] == [["country", "agree", "sick"], SPORT_FEATURES]
    assert mrr["personal"] == {"sports__0": [0.5, 0.5], "sports__1": [0.75, 0.25], "sports__2": [0.9, 0.1]}
    assert mrr["personal_mode"]["sports__1"] == "simulated"


@pytest.mark.parametrize("mode,encoding,numeric", [("mrr", "oue", None)]
                         + [("ldp", name, None) for name in oracles.names()]
                         + [("ldp", "oue", "discretize")])
def test_every_mechanism_carries_the_types_unchanged(mode, encoding, numeric):
    """Reports simulated from the expanded features (as a browser sends them) are accepted and folded, and the
    model learns one no/yes table per choice of the select-all question (beside a number in bins, too; Gaussian NB
    takes numbers only, so no choice question at all)."""
    from aggregator.services import retrain
    from tests.factories import after_midnight

    survey = make_types_survey(mode=mode, encoding=encoding, numeric_handling=numeric or "discretize")
    if numeric:
        Question.objects.create(survey=survey, name="age", text="Age", kind="numeric", low=18, high=98, position=5)
    protocol = get_protocol(survey)
    rng = np.random.default_rng(12)
    n = 300
    ages = [rng.uniform(18, 98, n)] if numeric else []
    sport_values = ["no", "yes"] if mode == "mrr" else ["no", "yes", PREFER_NOT_TO_SAY]  # MRR: none (factories)
    X = np.column_stack([rng.integers(0, 13, n), rng.integers(0, 6, n)]
                        + [rng.integers(0, len(sport_values), n) for _ in SPORTS] + ages)
    y = rng.integers(0, 2, n)
    payloads = protocol.encode_respondents(X, y, rng)
    protocol.parse(payloads)  # the server's checks of every report
    from survey_app.models import PendingReport

    PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=p) for p in payloads])
    version = retrain(survey, now=after_midnight())
    assert version is not None
    attributes = {a["name"]: a for a in version.model["attributes"]}
    assert [attributes[name]["values"] for name in SPORT_FEATURES] == [sport_values] * 3


def test_the_shares_of_yes_are_recovered_within_their_standard_errors():
    """MRR, θ = 0.6 (no projection, every answer simulated uniformly): P(sports__k = yes | c) is estimated without
    bias; with 6,000 respondents the estimates lie within 4 of their own standard errors of the truth
    (the engine's ``conditional_standard_errors``; a normal deviate beyond 4 has probability 6·10⁻⁵ per entry)."""
    from aggregator.privacy.naive_bayes.model import NaiveBayesModel
    from aggregator.services import retrain
    from survey_app.models import PendingReport
    from tests.factories import after_midnight

    survey = make_types_survey(mode="mrr")
    survey.questions.filter(name="sports").update(prefer_not_to_say=False)
    survey.save()  # a new survey version
    protocol = get_protocol(survey)
    rng = np.random.default_rng(2026)
    n = 6000
    y = rng.integers(0, 2, n)
    truth = np.array([[0.2, 0.6], [0.5, 0.5], [0.1, 0.4]])  # P(yes | class) per sport
    sports = [(rng.random(n) < truth[k, y]).astype(int) for k in range(3)]
    X = np.column_stack([rng.integers(0, 13, n), rng.integers(0, 5, n), *sports])
    PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=p)
                                       for p in protocol.encode_respondents(X, y, rng)])
    version = retrain(survey, now=after_midnight())
    model = NaiveBayesModel.from_dict(version.model)
    _, errors = protocol.conditional_standard_errors(model)
    for k in range(3):
        j = 2 + k
        estimate, se = np.asarray(model.conditionals[j])[1], np.asarray(errors[j])[1]
        assert np.all(np.abs(estimate - truth[k]) <= 4 * se + 1e-9), (k, estimate, se)


# -- validation -------------------------------------------------------------------------------------------------
def errors_of(question: Question) -> dict:
    with pytest.raises(ValidationError) as caught:
        question.full_clean(exclude=["survey"])
    return caught.value.message_dict


def test_a_select_all_question_cannot_be_the_class_nor_ask_a_real_unrelated_question():
    survey = make_types_survey()
    sports = survey.questions.get(name="sports")
    sports.is_class = True
    assert "cannot be the class" in errors_of(sports)["is_class"][0]
    sports.is_class, sports.personal_mode, sports.personal_text = False, "real", "Born in spring?"
    assert "simulated" in errors_of(sports)["personal_mode"][0]


def test_a_select_all_question_needs_two_choices():
    survey = make_types_survey()
    sports = survey.questions.get(name="sports")
    Choice.objects.filter(question=sports).exclude(label="running").delete()
    assert "at least 2 choices" in errors_of(sports)["kind"][0]


def test_a_scale_needs_three_choices_of_a_categorical_question():
    survey = make_types_survey()
    agree = survey.questions.get(name="agree")
    Choice.objects.filter(question=agree, position__gte=2).delete()
    assert "at least 3 choices" in errors_of(agree)["style"][0]
    sick = survey.questions.get(name="sick")
    sick.style = "scale"
    assert "categorical question" in errors_of(sick)["style"][0]


def test_numbers_and_select_all_questions_have_one_look():
    survey = make_types_survey()
    number = Question(survey=survey, name="age", text="Age", kind="numeric", low=0, high=100, style="dropdown")
    assert "Automatic" in errors_of(number)["style"][0]
    sports = survey.questions.get(name="sports")
    sports.style = "dropdown"
    assert "check boxes" in errors_of(sports)["style"][0]
    sports.style = "auto"
    sports.full_clean(exclude=["survey"])  # valid as made


def test_names_of_choice_features_are_reserved():
    survey = make_types_survey()
    clash = Question(survey=survey, name="sports__1", text="Tennis?", kind="binary")
    assert "select-all" in errors_of(clash)["name"][0]


# -- the protocol API -------------------------------------------------------------------------------------------
def test_the_protocol_api_gives_the_resolved_style_and_the_choices_features(client):
    survey = make_types_survey()
    questions = {q["name"]: q for q in client.get(f"/api/surveys/{survey.slug}/protocol/").json()["questions"]}
    assert questions["country"]["style"] == "dropdown"  # auto: more than 12 choices
    assert questions["agree"]["style"] == "scale" and questions["agree"]["prefer_not_to_say"] is True
    assert questions["sick"]["style"] == "buttons" and questions["sick"]["options"] == []
    assert questions["sports"]["style"] == "checkboxes"
    assert questions["sports"]["options"] == [{"label": s, "feature": f"sports__{i}"} for i, s in enumerate(SPORTS)]
    assert questions["sports"]["labels"] == ["no", "yes", PREFER_NOT_TO_SAY]
    country = survey.questions.get(name="country")
    Choice.objects.filter(question=country, label="Norway").delete()  # 12 choices: buttons
    questions = {q["name"]: q for q in client.get(f"/api/surveys/{survey.slug}/protocol/").json()["questions"]}
    assert questions["country"]["style"] == "buttons"


# -- what designers read ----------------------------------------------------------------------------------------
def test_designers_read_the_question_and_the_choice_not_the_feature_name():
    survey = make_types_survey()
    texts = feature_texts(survey.questions.prefetch_related("choices"))
    assert texts["sports__1"] == "Which of these do you do every week? — swimming"
    assert texts["agree"] == "I sleep well."
    from aggregator.dashboard.exports.frequencies import question_texts

    assert question_texts(survey)["sports__2"] == "Which of these do you do every week? — cycling"


def test_the_prediction_api_takes_the_choices_that_apply():
    from rest_framework.exceptions import ValidationError as APIError

    from aggregator.api import records_to_matrix

    survey = make_types_survey()
    record = {"country": "Malta", "agree": "Agree", "sports": ["cycling", "running"]}
    assert records_to_matrix(survey, [record]).tolist() == [[11, 3, 1, 0, 1]]
    assert records_to_matrix(survey, [{**record, "sports": []}]).tolist() == [[11, 3, 0, 0, 0]]
    assert records_to_matrix(survey, [{**record, "sports": PREFER_NOT_TO_SAY}]).tolist() == [[11, 3, 2, 2, 2]]
    with pytest.raises(APIError):
        records_to_matrix(survey, [{**record, "sports": ["golf"]}])


# -- the lab's tables -------------------------------------------------------------------------------------------
FRAME = pd.DataFrame({
    "sports": ["running;cycling", "", "swimming", "cycling;swimming;running"],
    "agree": ["Agree", "Disagree", "Strongly agree", "Agree"],
    "sick": ["yes", "no", "no", "yes"],
}).replace("", None)


def test_a_table_reads_a_select_all_column_as_one_no_yes_attribute_per_choice():
    table = load_table(FRAME, multi={"sports": SPORTS}, ordered={"agree": ["Disagree", "Agree", "Strongly agree"]})
    assert [a.name for a in table.attributes] == ["sports__0", "sports__1", "sports__2", "agree"]
    assert option_name("sports", 1) == "sports__1"
    assert table.X[:, :3].tolist() == [[1, 0, 1], [0, 0, 0], [0, 1, 0], [1, 1, 1]]  # an empty cell: none applies
    assert table.attributes[3].values == ("Disagree", "Agree", "Strongly agree")  # in the order given, not sorted
    assert table.X[:, 3].tolist() == [1, 0, 2, 1]
    with pytest.raises(ValueError, match="golf"):
        load_table(FRAME.assign(sports=["golf", None, None, None]), multi={"sports": SPORTS})
    with pytest.raises(ValueError, match="class column"):
        load_table(FRAME, multi=["sick"])
    with pytest.raises(ValueError, match="not among its values"):
        load_table(FRAME, ordered={"agree": ["Agree", "Disagree"]})


def test_a_table_import_makes_the_same_features_as_the_table():
    from survey_app.services import create_survey_from_table

    table = load_table(FRAME, multi=["sports"], ordered={"agree": ["Disagree", "Agree", "Strongly agree"]})
    survey = create_survey_from_table(table, slug="from-table", mode="mrr")
    sports = survey.questions.get(name="sports")
    assert sports.kind == "multi" and sports.options() == ["cycling", "running", "swimming"]  # sorted when not given
    assert survey.questions.get(name="agree").style == "scale"
    config = protocol_config(survey)
    assert [f["name"] for f in config["features"]] == [a.name for a in table.attributes]


def test_the_commands_take_select_all_and_ordered_columns(tmp_path):
    """``evaluate`` (the lab) and ``create_survey`` read the same table conventions: ``--multi`` columns of choices
    separated by ";" and ``--ordered COL=A,B,C``."""
    import io
    import json

    from django.core.management import call_command

    from survey_app.models import Survey

    rng = np.random.default_rng(5)
    n = 120
    sick = rng.integers(0, 2, n)
    frame = pd.DataFrame({
        "sports": [";".join(s for s, hit in zip(SPORTS, rng.random(3) < (0.2 + 0.5 * c), strict=True) if hit)
                   for c in sick],
        "agree": rng.choice(["Disagree", "Agree", "Strongly agree"], n),
        "sick": np.where(sick == 1, "yes", "no"),
    })
    path = tmp_path / "types.csv"
    frame.to_csv(path, index=False)
    out = io.StringIO()
    call_command("evaluate", str(path), "--method", "oue", "--epsilon", "2", "--reps", "2", "--seed", "1",
                 "--multi", "sports", "--ordered", "agree=Disagree,Agree,Strongly agree", "--json",
                 "--progress", "off", stdout=out)
    assert json.loads(out.getvalue())  # a result, on 3 no/yes attributes and the scale
    call_command("create_survey", str(path), "--slug", "types-table", "--mode", "ldp", "--multi", "sports",
                 "--ordered", "agree=Disagree,Agree,Strongly agree", stdout=io.StringIO())
    survey = Survey.objects.get(slug="types-table")
    config = protocol_config(survey)
    assert [f["name"] for f in config["features"]] == ["sports__0", "sports__1", "sports__2", "agree"]
    assert config["features"][3]["values"] == ["Disagree", "Agree", "Strongly agree"]
    assert survey.questions.get(name="agree").resolved_style() == "scale"


def test_the_dashboard_and_exports_name_each_choice_under_its_question(client, django_user_model):
    """Charts and the model card label a select-all choice "sports — swimming"; the frequency table CSV gives its
    wording "question — choice"; the prediction form offers its choices as check boxes."""
    import json

    from aggregator.services import retrain
    from survey_app.models import PendingReport
    from tests.factories import after_midnight

    survey = make_types_survey(mode="mrr")
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.integers(0, 13, 200), rng.integers(0, 6, 200)] + [rng.integers(0, 2, 200)] * 3)
    PendingReport.objects.bulk_create([PendingReport(survey=survey, payload=p) for p in
                                       get_protocol(survey).encode_respondents(X, rng.integers(0, 2, 200), rng)])
    retrain(survey, now=after_midnight())
    client.force_login(django_user_model.objects.create_superuser("staff", "s@example.invalid", "pw"))
    base = f"/dashboard/surveys/{survey.slug}"
    html = client.get(f"{base}/").content.decode()
    tag = '<script id="dashboard-data" type="application/json">'
    data = json.loads(html[html.index(tag) + len(tag):html.index("</script>", html.index(tag))])
    assert data["labels"] == {f"sports__{i}": f"sports — {s}" for i, s in enumerate(SPORTS)}
    agree = next(a for a in data["distributions"] if a["name"] == "agree")
    assert agree["values"] == [*AGREEMENT, PREFER_NOT_TO_SAY]  # the scale in its order
    card = client.get(f"{base}/versions/1/card.md").content.decode()
    assert "sports — swimming" in card and "sports\\_\\_1" not in card
    frequencies = client.get(f"{base}/versions/1/frequencies.csv").content.decode()
    assert "Which of these do you do every week? — cycling" in frequencies
    form = client.get(f"{base}/predict/").content.decode()
    assert form.count('type="checkbox"') == 3
    answer = client.post(f"{base}/predict/", {"country": "Malta", "agree": "Agree", "sports": ["running"]})
    assert answer.status_code == 200 and "predict" in answer.content.decode().lower()


def test_under_mrr_a_select_all_question_cannot_offer_prefer_not_to_say():
    """Its “Prefer not to say” covers every choice while each choice's stand-in is drawn on its own: a mixed stand-in
    record would give itself away (survey_app.models.MULTI_PREFER_NOT_UNDER_MRR). Refused on the question and by the
    protocol (so such a survey can neither be previewed nor opened)."""
    from django.core.exceptions import ValidationError

    from aggregator.privacy.protocol.config import ConfigError

    survey = make_types_survey(mode="mrr")
    sports = survey.questions.get(name="sports")
    sports.prefer_not_to_say = True
    with pytest.raises(ValidationError, match="cannot offer"):
        sports.full_clean()
    sports.save()  # saved without its checks, as a bulk write could (a new survey version)
    with pytest.raises(ConfigError, match="cannot offer"):
        get_protocol(Survey.objects.get(pk=survey.pk))


def test_a_select_all_question_with_fewer_than_two_choices_or_a_number_without_bounds_cannot_run():
    from aggregator.privacy.protocol.config import ConfigError

    survey = make_types_survey()
    Choice.objects.filter(question__name="sports").exclude(label=SPORTS[0]).delete()
    with pytest.raises(ConfigError, match="at least 2 choices"):
        get_protocol(Survey.objects.get(pk=survey.pk))
    other = make_types_survey(slug="types-bounds")
    Question(survey=other, name="age", text="Age", kind="numeric", position=5).save()  # no bounds, no checks
    with pytest.raises(ConfigError, match="bounds"):
        get_protocol(Survey.objects.get(pk=other.pk))
