"""The public reference sample as the model's prior, in the product (survey_app/pilot.py ``fit_reference_counts``,
``ldp.reference_prior``; engine: aggregator/privacy/public_prior.py): the designer's setting, its checks, the counts
the sample gives, the published model that starts from them, and the model card's sentence."""
import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile

from aggregator.dashboard.exports.model_card import card_for
from aggregator.models import ModelVersion, SurveyStatistics
from aggregator.privacy import protocol as survey_protocol
from aggregator.privacy.naive_bayes.model import NaiveBayesModel
from aggregator.privacy.protocol.config import ConfigError
from survey_app.pilot import fit_reference_counts
from survey_app.protocol import get_protocol
from tests.factories import add_reports, make_survey, published_yesterday

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path  # reference samples saved by these tests


def _sample(rows: int, rng) -> str:
    """A public sample of the health survey: daily smokers sick, age unrelated."""
    smoker = rng.choice(["never", "sometimes", "daily"], rows)
    sick = np.where(smoker == "daily", "yes", "no")
    age = rng.uniform(18, 98, rows).round(1)
    return "smoker,age,sick\n" + "".join(f"{s},{a},{c}\n" for s, a, c in zip(smoker, age, sick, strict=True))


def test_the_sample_gives_counts_and_the_published_model_starts_from_them():
    rng = np.random.default_rng(3)
    survey = make_survey(reference_prior=True, validation_share=0.0)
    survey.reference_sample.save("sample.csv", ContentFile(_sample(120, rng).encode()))
    counts = fit_reference_counts(survey)
    survey.refresh_from_db()
    assert survey.reference_counts == counts
    protocol = get_protocol(survey)
    shapes = [(a.size, protocol.class_attribute.size) for a in protocol.nb.attributes]
    assert [np.asarray(c).shape for c in counts] == shapes
    assert all(np.asarray(c).sum() == 120 for c in counts)  # every sample row counted once per question
    add_reports(survey, 400)
    version = published_yesterday(survey)
    model = NaiveBayesModel.from_dict(version.model)
    prior = model.metadata["public_prior"]
    assert prior["sample_rows"] == 120 and len(prior["concentrations"]) == 2
    # What described the model this one replaces is gone: the default's guard and κ.
    assert "guard" not in model.metadata and "concentration" not in model.metadata
    # The same statistics without the setting: the model without the sample's prior, which differs.
    stats = protocol.stats_from_dict(SurveyStatistics.objects.get(survey=survey).stats)
    survey.reference_prior = False
    plain = get_protocol(survey).estimate(stats)
    assert "public_prior" not in plain.metadata
    assert not np.allclose(plain.conditionals[0], model.conditionals[0])
    survey.reference_prior = True
    sentences = card_for(version)["mechanism"]["sentences"]
    assert any("start from the public reference sample (120 rows)" in s for s in sentences)


def test_without_the_setting_or_a_sample_nothing_is_fitted_and_stale_counts_go():
    rng = np.random.default_rng(4)
    survey = make_survey(validation_share=0.0)
    survey.reference_sample.save("sample.csv", ContentFile(_sample(30, rng).encode()))
    assert fit_reference_counts(survey) is None and survey.reference_counts is None
    survey.reference_counts = [[[1, 2]]]  # left over from an earlier setting
    survey.save()
    assert fit_reference_counts(survey) is None
    survey.refresh_from_db()
    assert survey.reference_counts is None
    assert "reference_counts" not in get_protocol(survey).public()["ldp"]  # never sent to browsers


def test_the_setting_is_checked_on_the_form_fields():
    survey = make_survey(mode="mrr", reference_prior=True, status="draft")
    with pytest.raises(ValidationError) as info:
        survey.full_clean()
    assert "LDP surveys only" in str(info.value.message_dict["reference_prior"])
    survey = make_survey(slug="health2", reference_prior=True, status="draft")
    with pytest.raises(ValidationError) as info:
        survey.full_clean()
    assert "needs a public reference sample" in str(info.value.message_dict["reference_prior"])
    survey = make_survey(slug="health3", reference_prior=True, status="draft", numeric_handling="gaussian")
    survey.reference_sample.save("sample.csv", ContentFile(_sample(20, np.random.default_rng(5)).encode()))
    with pytest.raises(ValidationError) as info:
        survey.full_clean()
    assert "frequency-oracle protocol" in str(info.value.message_dict["reference_prior"])


def test_the_engine_refuses_counts_that_do_not_fit_the_questions():
    config = {"class": {"kind": "categorical", "name": "c", "values": ["a", "b"]},
              "features": [{"kind": "categorical", "name": "x", "values": ["0", "1", "2"]}],
              "mode": "ldp", "ldp": {"epsilon": 1.0, "reference_prior": True}}
    # Counts of questions since edited (another shape) are not used, as a stale assignment is not; bad numbers are
    # refused.
    stale = survey_protocol.build({**config, "ldp": {**config["ldp"], "reference_counts": [[[1, 2], [3, 4]]]}})
    assert stale.prior_counts is None
    with pytest.raises(ConfigError, match="one \\(answers × classes\\) table") as info:
        survey_protocol.build({**config, "ldp": {**config["ldp"], "reference_counts": [[[1, 2], [3, -4], [0, 1]]]}})
    assert info.value.field == "ldp.reference_counts"
    with pytest.raises(ConfigError, match="on \\(true\\) or off") as info:
        survey_protocol.build({**config, "ldp": {**config["ldp"], "reference_prior": "yes"}})
    assert info.value.field == "ldp.reference_prior"
    mrr = survey_protocol.build({**config, "mode": "mrr", "mrr": {"theta": 0.7}})
    with pytest.raises(ValueError, match="only LDP surveys"):
        mrr.reference_counts(np.zeros((1, 1)), np.array([0]))
    assert ModelVersion.objects.count() == 0


def test_saving_a_draft_refits_the_counts_and_says_so():
    from survey_app.fitting import refit

    survey = make_survey(slug="draft", reference_prior=True, status="draft", validation_share=0.0)
    survey.reference_sample.save("sample.csv", ContentFile(_sample(40, np.random.default_rng(6)).encode()))
    notices = refit(survey)
    assert [n.level for n in notices] == ["success"]
    assert "start from the reference sample's answers per class" in notices[0].text
    assert survey.reference_counts is not None
    survey.reference_sample.save("bad.csv", ContentFile(b"smoker,sick\nnever,no\n"))
    (notice,) = refit(survey)
    assert notice.level == "error" and "no column 'age'" in notice.text
    survey.refresh_from_db()
    assert survey.reference_counts is None  # counts of the old sample are gone


def test_the_workspace_figures_take_the_setting_without_a_server_error(client, django_user_model):
    """The design workspace posts its privacy fields as they change: the box ticked without a sample is a 400 with
    the reason on the setting's own field, never a 500 (its form has no sample field); unticked, the figures come."""
    from django.urls import reverse

    survey = make_survey(slug="ws", status="draft")
    user = django_user_model.objects.create_superuser("boss", "boss@example.org", "pw")
    client.force_login(user)
    url = reverse("design-figures", kwargs={"slug": survey.slug})
    fields = {"p-mode": "ldp", "p-epsilon": "1", "p-encoding": "oue", "p-strategy": "one-report",
              "p-allocation": "uniform", "p-postprocess": "bayes", "p-validation_share": "0.1"}
    assert client.post(url, fields).status_code == 200
    ticked = client.post(url, {**fields, "p-reference_prior": "on"})
    assert ticked.status_code == 400
    assert "needs a public reference sample" in ticked.content.decode()


def test_counts_of_questions_since_edited_are_not_used_and_a_save_refits_them():
    """A question gains an answer after the sample was counted: the stored counts no longer fit, so the protocol does
    not use them (no error on any page), and saving the draft (``fitting.refit``, which the workspace and the admin
    call) counts the sample again in the new shape."""
    from survey_app.fitting import refit

    survey = make_survey(slug="edited", reference_prior=True, status="draft", validation_share=0.0)
    survey.reference_sample.save("sample.csv", ContentFile(_sample(60, np.random.default_rng(7)).encode()))
    old = fit_reference_counts(survey)
    smoker = survey.questions.get(name="smoker")
    smoker.choices.create(label="weekly", position=9)
    assert get_protocol(survey).prior_counts is None  # stale: not used
    (notice,) = refit(survey)
    assert notice.level == "success"
    assert len(survey.reference_counts[0]) == len(old[0]) + 1
    assert get_protocol(survey).prior_counts is not None


def test_the_setting_changes_nothing_browsers_receive():
    """The protocol browsers run, its version and every ε are the same with the setting and its counts as without."""
    rng = np.random.default_rng(8)
    survey = make_survey(slug="same", status="draft", validation_share=0.0)
    without = get_protocol(survey)
    survey.reference_prior = True
    survey.reference_sample.save("sample.csv", ContentFile(_sample(30, rng).encode()))
    fit_reference_counts(survey)
    with_prior = get_protocol(survey)
    assert with_prior.reference_prior_ready and not without.reference_prior_ready
    assert with_prior.public() == without.public() and with_prior.version == without.version
    assert with_prior.privacy() == without.privacy()


def test_a_survey_that_starts_from_its_sample_opens_only_with_its_counts():
    from survey_app.services import CannotOpen, open_survey

    survey = make_survey(slug="opening", reference_prior=True, status="draft", validation_share=0.0)
    survey.reference_sample.save("sample.csv", ContentFile(_sample(30, np.random.default_rng(9)).encode()))
    with pytest.raises(CannotOpen, match="not counted for the current questions"):
        open_survey(survey)  # never counted (the sample was attached without saving the draft)
    fit_reference_counts(survey)
    survey.questions.get(name="smoker").choices.create(label="weekly", position=9)
    with pytest.raises(CannotOpen, match="save the draft again"):
        open_survey(survey)  # counted before the question changed
    fit_reference_counts(survey)
    open_survey(survey)
    assert survey.status == "open"
