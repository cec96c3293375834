"""aggregator/dashboard/exports/ (one module per format): scikit-learn estimators that predict as the
NaiveBayesModel does, report CSV rows, and (issue 12 item 5) the per-version frequency tables (CSV, Excel) and model
cards (HTML, Markdown) with their views — staff only, 404 on unknown versions, numbers equal to the model's,
formula-safe text.

Equivalence: on random models — including probabilities below PROB_FLOOR (zeros) and σ below
SIGMA_FLOOR_FRACTION·range (zeros), which the model floors — and random inputs, scikit-learn's predictions equal the
model's and its class probabilities agree within 1e-9. Exact equality of probabilities is not possible: both add the
same log terms in a different order (and GaussianNB writes the log-density differently, exports docstring), so the
joint log-likelihoods differ by rounding (≈ 1e-15 relative). The tests assert the floored entries reach scikit-learn
with the very same values, so nothing but rounding separates the two.
"""
import csv
import io
import json
from datetime import date

import joblib
import numpy as np
import pytest
from sklearn.naive_bayes import CategoricalNB, GaussianNB

from aggregator.dashboard.exports import frequencies, frequencies_xlsx, registry, reports_csv, scikit_learn
from aggregator.privacy.naive_bayes.model import PROB_FLOOR, SIGMA_FLOOR_FRACTION, NaiveBayesModel
from aggregator.privacy.schema import Categorical, Numeric

TOLERANCE = 1e-9
CLASSES = Categorical("class", ("a", "b", "c"))


def random_categorical_model(rng) -> NaiveBayesModel:
    """Three classes, four attributes; about a quarter of the P(a | c) entries and one prior entry are zero
    (floored)."""
    attributes = [Categorical(f"x{i}", tuple(f"v{j}" for j in range(size))) for i, size in enumerate((2, 3, 5, 8))]
    tables = []
    for attr in attributes:
        table = rng.dirichlet(np.full(attr.size, 0.7), size=CLASSES.size).T
        table[rng.random(table.shape) < 0.25] = 0.0
        table[0] += table.sum(axis=0) == 0  # keep every column a distribution
        tables.append(table)
    prior = rng.dirichlet(np.ones(CLASSES.size))
    prior[rng.integers(CLASSES.size)] = 0.0
    return NaiveBayesModel(CLASSES, attributes, prior, tables)


def random_gaussian_model(rng) -> NaiveBayesModel:
    """Three numeric attributes; some σ are zero or below the floor, one prior entry is below PROB_FLOOR."""
    attributes = [Numeric("age", 18, 98), Numeric("weight", 40, 160), Numeric("score", -1, 1)]
    tables = []
    for attr in attributes:
        span = attr.high - attr.low
        mu = rng.uniform(attr.low, attr.high, CLASSES.size)
        sigma = rng.uniform(0.02, 0.3, CLASSES.size) * span
        sigma[rng.integers(CLASSES.size)] = rng.choice([0.0, 0.2 * SIGMA_FLOOR_FRACTION * span])
        tables.append(np.vstack([mu, sigma]))
    prior = np.array([0.5, 0.5 - PROB_FLOOR / 4, PROB_FLOOR / 4])
    return NaiveBayesModel(CLASSES, attributes, prior, tables)


def categorical_inputs(model, n, rng):
    return np.column_stack([rng.integers(0, a.size, n) for a in model.attributes])


def numeric_inputs(model, n, rng):
    return np.column_stack([rng.uniform(a.low, a.high, n) for a in model.attributes])


def assert_same_predictions(model, estimator, X):
    np.testing.assert_array_equal(estimator.predict(X), np.asarray(model.predict_labels(X), dtype=object))
    np.testing.assert_allclose(estimator.predict_proba(X), model.predict_proba(X), rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("seed", range(5))
def test_categorical_nb_predicts_as_the_model(seed):
    rng = np.random.default_rng(seed)
    model = random_categorical_model(rng)
    estimator = scikit_learn.sklearn_estimator(model)
    assert isinstance(estimator, CategoricalNB)
    assert list(estimator.classes_) == list(model.classes)
    assert min(np.min(t) for t in estimator.feature_log_prob_) == np.log(PROB_FLOOR)  # the floors are there
    assert np.min(estimator.class_log_prior_) == np.log(PROB_FLOOR)
    assert_same_predictions(model, estimator, categorical_inputs(model, 5000, rng))


@pytest.mark.parametrize("seed", range(5))
def test_gaussian_nb_predicts_as_the_model(seed):
    rng = np.random.default_rng(seed)
    model = random_gaussian_model(rng)
    estimator = scikit_learn.sklearn_estimator(model)
    assert isinstance(estimator, GaussianNB)
    floors = np.array([SIGMA_FLOOR_FRACTION * (a.high - a.low) for a in model.attributes])
    assert np.all(np.sqrt(estimator.var_) >= floors[None, :]) and np.any(np.isclose(np.sqrt(estimator.var_), floors))
    assert estimator.class_prior_[2] == PROB_FLOOR  # floored, not renormalised: as the model does
    assert_same_predictions(model, estimator, numeric_inputs(model, 5000, rng))


def test_the_pickle_round_trips_through_joblib(rng):
    model = random_categorical_model(rng)
    loaded = joblib.load(io.BytesIO(scikit_learn.sklearn_bytes(model)))
    X = categorical_inputs(model, 500, rng)
    np.testing.assert_array_equal(loaded.predict(X), scikit_learn.sklearn_estimator(model).predict(X))


def test_a_model_from_a_real_protocol_exports(rng):
    """An MRR model (numeric question discretized into bins) predicts the same through scikit-learn."""
    from aggregator.privacy import protocol as sp

    config = {"mode": "mrr", "class": {"kind": "categorical", "name": "sick", "values": ["no", "yes"]},
              "features": [{"kind": "categorical", "name": "smoker", "values": ["never", "sometimes", "daily"]},
                           {"kind": "numeric", "name": "age", "low": 18, "high": 98}],
              "mrr": {"theta": 0.7}}
    protocol = sp.build(config)
    X = np.column_stack([rng.integers(0, 3, 800), rng.uniform(18, 98, 800)])
    y = (X[:, 0] == 2).astype(np.int64)
    model = protocol.estimate(protocol.fold(protocol.encode(X, y, rng)))
    model_input = protocol.to_model_input(X)
    assert_same_predictions(model, scikit_learn.sklearn_estimator(model), model_input.astype(np.int64))


def test_mixed_models_are_refused():
    model = NaiveBayesModel(CLASSES, [Categorical("x", ("0", "1")), Numeric("y", 0, 1)], [1, 1, 1],
                            [np.full((2, 3), 0.5), np.array([[0.5] * 3, [0.1] * 3])])
    with pytest.raises(ValueError, match="mixed"):
        scikit_learn.sklearn_estimator(model)


def test_report_rows_hold_id_date_kind_and_payload_only():
    reports = [(7, date(2026, 11, 20), {"answers": [1, 0, 2]}),
               (9, date(2026, 11, 21), {"validation": {"version": 1, "report": 0}}),
               (12, date(2026, 11, 21), {"report": "aé,\"x\""})]
    text = "".join(reports_csv.report_rows(reports))
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["id", "received_on", "kind", "payload"]
    assert [r[:3] for r in rows[1:]] == [["7", "2026-11-20", "training"], ["9", "2026-11-21", "validation"],
                                         ["12", "2026-11-21", "training"]]
    assert [json.loads(r[3]) for r in rows[1:]] == [p for _, _, p in reports]  # quoting survives commas and quotes


# -- frequency tables and model cards (issue 12 item 5) ----------------------------------------------------------
# Versions are stored straight from an engine model (as a publication would store them), so these tests do not
# depend on which reports ``services.publish_model`` takes in.
from django.contrib.auth.models import User  # noqa: E402
from django.urls import reverse  # noqa: E402
from openpyxl import load_workbook  # noqa: E402

from aggregator import services  # noqa: E402
from aggregator.models import ModelVersion  # noqa: E402
from aggregator.privacy.jsonable import json_safe  # noqa: E402
from survey_app.models import Choice, Question, Survey  # noqa: E402
from survey_app.protocol import get_protocol  # noqa: E402
from tests.factories import health_answers, make_survey  # noqa: E402

EXPORTS = ("frequencies-csv", "frequencies-xlsx", "model-card", "model-card-md")


def store_version(survey, X, y, rng, validation=None, version=1, metrics=None) -> ModelVersion:
    """A ModelVersion estimated by the survey's protocol from simulated reports of (X, y); with ``validation`` =
    (X, y) of validation respondents, the accuracy measured on their randomized records (protocols that measure it
    at publication)."""
    protocol = get_protocol(survey)
    model = protocol.estimate(protocol.fold(protocol.encode(X, y, rng)))
    stored = {"validation_count": 0, "out_of_range": [], "plausibility": [], "jumps": []}
    if validation is not None:
        inner = protocol.split(protocol.encode_validation(*validation, rng))[1]
        stored["validation_count"] = len(inner)
        stored["accuracy"] = protocol.accuracy(model, protocol.fold_validation(inner), version).to_dict()
    return ModelVersion.objects.create(survey=survey, version=version, model=json_safe(model.to_dict()),
                                       report_count=len(y), privacy=json_safe(protocol.model_privacy(model)),
                                       metrics=json_safe({**stored, **(metrics or {})}))


def health_version(survey, n=1500, validation=300, seed=0, **kwargs) -> ModelVersion:
    rng = np.random.default_rng(seed)
    X = health_answers(rng, n)
    y = (X[:, 0] == 2).astype(np.int64)
    Xv = health_answers(rng, validation)
    return store_version(survey, X, y, rng, validation=(Xv, (Xv[:, 0] == 2).astype(np.int64)) if validation else None,
                         **kwargs)


@pytest.fixture
def boss(db):
    return User.objects.create_superuser("boss", "boss@example.invalid", "pw")


@pytest.fixture
def mrr_version(db):
    survey = make_survey(mode="mrr", validation_share=0.2)
    return health_version(survey)


def body_survey() -> Survey:
    """A Gaussian (SPEC §5b) survey: age and weight numeric, class sick."""
    survey = Survey.objects.create(title="Body", slug="body", mode="ldp", epsilon=2.0, status="open",
                                   numeric_handling="gaussian", gaussian_approach=3, validation_share=0)
    Question.objects.create(survey=survey, name="age", text="Age", kind="numeric", low=18, high=98, position=0)
    Question.objects.create(survey=survey, name="weight", text="Weight", kind="numeric", low=40, high=160, position=1)
    Question.objects.create(survey=survey, name="sick", text="Sick?", kind="binary", is_class=True, position=2)
    return survey


def gaussian_version() -> ModelVersion:
    survey = body_survey()
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 3000)
    X = np.column_stack([np.where(y == 1, 65, 35) + 8 * rng.standard_normal(3000), 60 + 30 * rng.random(3000)])
    return store_version(survey, X, y, rng)


def url(name, version: ModelVersion, number=None) -> str:
    return reverse(f"dashboard:{name}", args=[version.survey.slug, version.version if number is None else number])


def csv_rows(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(response.content.decode())))


# access ---------------------------------------------------------------------------------------------------------
@pytest.mark.django_db
@pytest.mark.parametrize("name", EXPORTS)
def test_exports_are_for_staff_who_manage_the_survey(client, mrr_version, name):
    target = url(name, mrr_version)
    response = client.get(target)  # anonymous: to the admin login, and back
    assert response.status_code == 302 and response["Location"].startswith(reverse("admin:login") + "?next=")
    carol = User.objects.create_user("carol", password="pw")
    mrr_version.survey.designers.add(carol)  # designing a survey does not make anyone staff
    client.force_login(carol)
    assert client.get(target).status_code == 403
    dave = User.objects.create_user("dave", password="pw", is_staff=True)
    client.force_login(dave)
    assert client.get(target).status_code == 404  # staff, but not this survey's designer
    mrr_version.survey.designers.add(dave)
    assert client.get(target).status_code == 200
    assert client.post(target).status_code == 405


@pytest.mark.django_db
@pytest.mark.parametrize("name", EXPORTS)
def test_unknown_versions_are_404(client, boss, mrr_version, name):
    client.force_login(boss)
    for number in (0, 2, 2**31, 10**23):  # 10**23: beyond PostgreSQL's integer and bigint
        assert client.get(url(name, mrr_version, number)).status_code == 404, number
    assert client.get(url(name, mrr_version).replace("/1/", "/%C2%B2/")).status_code == 404  # "²"
    assert client.get(url(name, mrr_version).replace("/1/", "/1%00/")).status_code == 400  # NUL: refused before
    assert client.get(url(name, mrr_version).replace("/1/", "/-1/")).status_code == 404
    other = make_survey(slug="other", mode="mrr")
    assert client.get(reverse(f"dashboard:{name}", args=[other.slug, 1])).status_code == 404  # not its version


@pytest.mark.django_db
@pytest.mark.parametrize("name", EXPORTS)
def test_a_survey_whose_settings_no_longer_build_a_protocol_answers_409(client, boss, mrr_version, name):
    Survey.objects.filter(pk=mrr_version.survey_id).update(theta=None)  # (the admin refuses this once reports exist)
    client.force_login(boss)
    response = client.get(url(name, mrr_version))
    assert response.status_code == 409 and b"do not make a protocol" in response.content


# frequency tables -----------------------------------------------------------------------------------------------
def expected_rows(version: ModelVersion) -> list[dict]:
    """The rows the CSV must hold, straight from the stored model and the protocol's standard errors."""
    model = NaiveBayesModel.from_dict(version.model)
    method, ses = get_protocol(version.survey).conditional_standard_errors(model)
    texts = dict(version.survey.questions.values_list("name", "text"))
    prior_se = model.metadata["prior_standard_errors"]
    klass = model.class_attribute.name
    rows = [(klass, texts[klass], "P(c)", "", c, model.prior[j], prior_se[j], "raw")
            for j, c in enumerate(model.classes)]
    for i, (attr, table) in enumerate(zip(model.attributes, model.conditionals, strict=True)):
        if isinstance(attr, Categorical):
            rows += [(attr.name, texts.get(attr.name, ""), "P(a | c)", value, c, table[a, j], ses[i][a, j], method)
                     for a, value in enumerate(attr.values) for j, c in enumerate(model.classes)]
        else:
            for j, c in enumerate(model.classes):
                rows.append((attr.name, texts[attr.name], "mean", "", c, table[0, j], ses[i][j], method))
                rows.append((attr.name, texts[attr.name], "sd", "", c, table[1, j], None, ""))
    return [dict(zip(frequencies.FREQUENCY_COLUMNS, r, strict=True)) for r in rows]


def parsed(row: dict) -> dict:
    """A CSV row with its numbers as floats (None for an empty cell)."""
    return {**row, **{k: (float(row[k]) if row[k] != "" else None) for k in ("estimate", "standard_error")}}


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["mrr", "ldp", "gaussian"])
def test_frequencies_csv_holds_every_parameter_with_its_standard_error(client, boss, kind):
    if kind == "gaussian":
        version = gaussian_version()
    else:
        version = health_version(make_survey(mode=kind), validation=0)
    client.force_login(boss)
    response = client.get(url("frequencies-csv", version))
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="{version.survey.slug}-v1-frequencies.csv"'
    rows = csv_rows(response)
    assert tuple(rows[0]) == frequencies.FREQUENCY_COLUMNS
    expected = expected_rows(version)
    assert len(rows) == len(expected)
    for got, want in zip(rows, expected, strict=True):
        got = parsed(got)
        assert got["estimate"] == want["estimate"]  # exactly: every digit is written
        assert got["standard_error"] == (None if want["standard_error"] is None else float(want["standard_error"]))
        assert {k: got[k] for k in ("question", "question_text", "parameter", "answer", "class")} == \
               {k: want[k] for k in ("question", "question_text", "parameter", "answer", "class")}
        assert got["standard_error_kind"] == (want["standard_error_kind"] if want["standard_error"] is not None else "")
    methods = {r["standard_error_kind"] for r in rows if r["parameter"] in ("P(a | c)", "mean")}
    assert methods == {"mrr": {"bound"}, "ldp": {"delta"}, "gaussian": {"delta"}}[kind]
    classes = [r for r in rows if r["parameter"] == "P(c)"]
    assert sum(float(r["estimate"]) for r in classes) == pytest.approx(1.0)
    if kind != "gaussian":  # every P(a | c) column sums to one
        for question in ("smoker", "age"):
            for c in ("no", "yes"):
                assert sum(float(r["estimate"]) for r in rows
                           if r["question"] == question and r["class"] == c) == pytest.approx(1.0)


def xlsx_rows(sheet) -> list[list]:
    return [list(r) for r in sheet.iter_rows(values_only=True)]


def comparable(cells) -> list:
    """A row of CSV text or .xlsx values with its numbers as floats and empty cells as None (a whole number comes back
    from the workbook as an int)."""
    out = []
    for i, value in enumerate(cells):
        if value is None or value == "":
            out.append(None)
        elif frequencies.FREQUENCY_COLUMNS[i] in ("estimate", "standard_error"):
            out.append(float(value))
        else:
            out.append(value)
    return out


@pytest.mark.django_db
def test_xlsx_opens_and_holds_the_csv(client, boss, mrr_version):
    client.force_login(boss)
    response = client.get(url("frequencies-xlsx", mrr_version))
    assert response["Content-Type"] == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    assert response["Content-Disposition"] == 'attachment; filename="health-v1-frequencies.xlsx"'
    workbook = load_workbook(io.BytesIO(response.content))
    assert workbook.sheetnames == ["Summary", "sick", "smoker", "age"]
    csv_lines = list(csv.reader(io.StringIO(client.get(url("frequencies-csv", mrr_version)).content.decode())))
    from_sheets = []
    for name in workbook.sheetnames[1:]:
        rows = xlsx_rows(workbook[name])
        assert rows[0] == list(frequencies.FREQUENCY_COLUMNS)
        assert {r[0] for r in rows[1:]} == {name}
        assert all(isinstance(r[5], (int, float)) for r in rows[1:])  # numbers, not text
        from_sheets += [comparable(r) for r in rows[1:]]
    # The same cells; numbers to 16 significant digits, as openpyxl writes them ("%.16g": the CSV has every digit).
    assert from_sheets == [pytest.approx(comparable(r), rel=1e-15, abs=0) for r in csv_lines[1:]]
    summary = dict((r[0], r[1]) for r in xlsx_rows(workbook["Summary"]))
    accuracy = mrr_version.metrics["accuracy"]
    assert f"{100 * accuracy['estimate']:.1f} %" in summary["Accuracy"]
    assert summary["Training reports"] == "1500" and summary["Validation reports"] == "300"
    assert summary["ε per respondent"] == f"{mrr_version.privacy['epsilon_per_respondent']:.2f}"
    assert "conservative" in summary["Standard errors"]


# model card -----------------------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_model_card_shows_data_mechanism_privacy_and_accuracy_with_its_interval(client, boss, mrr_version):
    client.force_login(boss)
    html = client.get(url("model-card", mrr_version)).content.decode()
    markdown_response = client.get(url("model-card-md", mrr_version))
    assert markdown_response["Content-Type"] == "text/markdown; charset=utf-8"
    assert markdown_response["Content-Disposition"] == 'attachment; filename="health-v1-model-card.md"'
    markdown = markdown_response.content.decode()
    epsilon = f"{mrr_version.privacy['epsilon_per_respondent']:.2f}"
    accuracy = mrr_version.metrics["accuracy"]
    interval = f"{100 * accuracy['low']:.1f}–{100 * accuracy['high']:.1f} %"
    pse = min(g["pse_before_mining"] for g in mrr_version.privacy["groups"])
    for text in (html, markdown):
        assert epsilon in text and f"{100 * accuracy['estimate']:.1f} %" in text and interval in text
        assert f"95 % interval {interval}" in text and "from 300 validation reports" in text
        assert f"{pse:.3f}" in text  # PSE before mining, lowest over the groups
        assert "θ = 0.7" in text and "Unrelated-question randomized response" in text
        assert "1500" in text and "Do you smoke?" not in text  # question wording stays in the tables
        assert "Intended use" in text and "Limitations" in text and "conservative" in text
        assert "No warnings." in text
    assert '<dd id="card-epsilon">' + epsilon + "</dd>" in html
    assert "# Model card: Health, version 1" in markdown
    assert "| Question | ε | PSE (uniform prior) | PSE before mining | PSE after mining |" in markdown
    assert markdown.index("| smoker |") < markdown.index("| age |") < markdown.index("| sick |")  # question order
    assert 'style="' not in html and "<script" not in html.split("</head>")[1]  # CSP: nothing inline


@pytest.mark.django_db
def test_model_card_of_an_ldp_version_without_accuracy_lists_its_warnings(client, boss):
    survey = make_survey(mode="ldp", encoding="oue")
    warning = {"parameter": "P(a | c) smoker", "entries": 2, "worst_z": 9.24, "from": 0.1, "to": 0.4, "warning": True}
    version = health_version(survey, validation=0, version=2, metrics={"jumps": [warning]})
    client.force_login(boss)
    html = client.get(url("model-card", version)).content.decode()
    markdown = client.get(url("model-card-md", version)).content.decode()
    for text in (html, markdown):
        assert "No accuracy estimate yet" in text and "only after it is published" in text
        assert "OUE — optimized unary encoding" in text and "ε = 1" in text
        assert "One ε covers everything a respondent sends" in text
        assert "jumped since v1" in text and "9.2" in text and "largest move from 0.1000 to 0.4000" in text
        assert "1 warning" in text and "delta-method" in text
    assert "P(a \\| c) smoker" in markdown  # a table cell: the bar is escaped


@pytest.mark.django_db
def test_model_card_of_an_ldp_version_reads_its_accuracy_from_the_validation_respondents(client, boss):
    """LDP: respondents evaluate a published version; its accuracy is read live (``services.accuracy_by_version``)."""
    from aggregator.models import SurveyStatistics

    survey = make_survey(mode="ldp", encoding="oue", validation_share=0.2)
    version = health_version(survey, validation=0)
    protocol = get_protocol(survey)
    rng = np.random.default_rng(5)
    X = health_answers(rng, 600)
    published = (1, NaiveBayesModel.from_dict(version.model))
    inner = protocol.split(protocol.encode_validation(X, (X[:, 0] == 2).astype(np.int64), rng, published=published))[1]
    folded = protocol.validation_to_dict(protocol.fold_validation(inner))
    SurveyStatistics.objects.create(survey=survey, validation=folded, validation_count=len(inner))
    accuracy = services.accuracy_by_version(survey)[1]
    client.force_login(boss)
    markdown = client.get(url("model-card-md", version)).content.decode()
    assert (f"{100 * accuracy['estimate']:.1f} % (95 % interval {100 * accuracy['low']:.1f}–"
            f"{100 * accuracy['high']:.1f} %, from 600 validation reports)") in markdown
    assert "whether a published version classified their true answers correctly" in markdown


@pytest.mark.django_db
def test_model_card_and_tables_of_a_gaussian_version(client, boss):
    version = gaussian_version()
    client.force_login(boss)
    html = client.get(url("model-card", version)).content.decode()
    assert "Approach 3" in html and "Gaussian Naive Bayes" in html
    assert "∞" in html  # approach 3's bounded Laplace draws: no finite ε holds strictly (the stored note says why)
    assert "no validation share" in html
    workbook = load_workbook(io.BytesIO(client.get(url("frequencies-xlsx", version)).content))
    assert workbook.sheetnames == ["Summary", "sick", "age", "weight"]
    assert [r[2] for r in xlsx_rows(workbook["age"])[1:]] == ["mean", "sd"] * 2


# formula injection ----------------------------------------------------------------------------------------------
def test_spreadsheet_safe_escapes_formula_starts_only():
    for text in ("=1+2", "+41", "-2", "@SUM(A1)", "\t=1", "\r=1"):
        assert frequencies.spreadsheet_safe(text) == "'" + text
    assert frequencies.spreadsheet_safe("a=1") == "a=1" and frequencies.spreadsheet_safe("") == ""
    assert frequencies.spreadsheet_safe(-0.5) == -0.5  # numbers stay numbers
    assert frequencies.spreadsheet_safe(None) is None
    assert frequencies.spreadsheet_safe("\x00=1") == "'=1"  # a control character cannot hide the formula


def test_sheet_titles_are_valid_and_unique():
    used = {"summary", "history"}
    titles = [frequencies_xlsx.sheet_title(name, used) for name in ("Summary", "a/b:c", "x" * 40, "x" * 40, "'q'", "")]
    assert titles == ["Summary (2)", "a_b_c", "x" * 31, "x" * 27 + " (2)", "q", "Question"]


@pytest.mark.django_db
def test_formulas_in_question_texts_and_labels_are_escaped(client, boss):
    survey = Survey.objects.create(title="=HYPERLINK(\"http://evil.invalid\")", slug="evil", mode="mrr", theta=0.7,
                                   status="open", validation_share=0)
    Question.objects.create(survey=survey, name="sick", text="@SUM(A1)", kind="binary", is_class=True, position=9)
    habit = Question.objects.create(survey=survey, name="habit", text="=1+2", kind="categorical", position=1)
    for i, label in enumerate(("+1", "-1", "plain")):
        Choice.objects.create(question=habit, label=label, position=i)
    rng = np.random.default_rng(4)
    X = rng.integers(0, 3, (800, 1)).astype(float)
    version = store_version(survey, X, (X[:, 0] == 2).astype(np.int64), rng)
    client.force_login(boss)
    rows = csv_rows(client.get(url("frequencies-csv", version)))
    assert {r["question_text"] for r in rows} == {"'@SUM(A1)", "'=1+2"}
    assert {r["answer"] for r in rows if r["question"] == "habit"} == {"'+1", "'-1", "plain"}
    assert all(not r["estimate"].startswith("'") for r in rows)
    workbook = load_workbook(io.BytesIO(client.get(url("frequencies-xlsx", version)).content))
    cells = [c for sheet in workbook for row in sheet.iter_rows() for c in row]
    assert not any(c.data_type == "f" for c in cells)  # no formula anywhere
    texts = {c.value for c in cells if isinstance(c.value, str)}
    assert "'=1+2" in texts and "'+1" in texts and "=1+2" not in texts and "+1" not in texts
    assert any(t.startswith("'=HYPERLINK") for t in texts)  # the survey's title on the Summary sheet
    markdown = client.get(url("model-card-md", version)).content.decode()
    assert "\\=HYPERLINK" not in markdown and "# Model card: =HYPERLINK" in markdown  # Markdown has no formulas


# the survey page ------------------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_the_survey_page_links_every_export_of_every_version(client, boss, mrr_version):
    second = ModelVersion.objects.create(survey=mrr_version.survey, version=2, model=mrr_version.model,
                                         report_count=1600, privacy=mrr_version.privacy, metrics=mrr_version.metrics)
    client.force_login(boss)
    html = client.get(reverse("dashboard:survey", args=["health"])).content.decode()
    for version in (mrr_version, second):
        for name in EXPORTS:
            assert url(name, version) in html


@pytest.mark.django_db
def test_the_exports_stay_in_english_when_the_page_is_german(client):
    """The model card (HTML page's card, Markdown) and the workbook's summary write the settings' labels in English,
    whatever the language of the request (the card is an English document)."""
    client.force_login(User.objects.create_superuser("boss", "boss@example.invalid", "pw"))
    version = health_version(make_survey(mode="mrr", validation_share=0.2))
    markdown = client.get(url("model-card-md", version), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Unrelated-question randomized response (θ)" in markdown and ", open" in markdown
    assert "themenfremd" not in markdown and "offen" not in markdown
    xlsx = client.get(url("frequencies-xlsx", version), HTTP_ACCEPT_LANGUAGE="de").content
    workbook = load_workbook(io.BytesIO(xlsx))
    cells = {c.value for sheet in workbook for row in sheet.iter_rows() for c in row if isinstance(c.value, str)}
    assert any("Unrelated-question randomized response" in c for c in cells)
    assert not any("themenfremd" in c or "Randomized Response mit" in c for c in cells)


@pytest.mark.django_db
def test_every_registered_format_downloads_under_its_name_and_media_type(client, boss, mrr_version):
    """The registry lists each per-version format once; its URL, file name and media type come from there."""
    client.force_login(boss)
    assert {f.name for f in registry.FORMATS} == {"model-sklearn", *EXPORTS} - {"model-card"}
    for fmt in registry.FORMATS:
        response = client.get(url(fmt.name, mrr_version))
        assert response.status_code == 200, fmt.name
        assert response["Content-Type"] == fmt.content_type
        assert response["Content-Disposition"] == f'attachment; filename="health-v1-{fmt.suffix}"'
        assert url(fmt.name, mrr_version).endswith("/" + fmt.path)
