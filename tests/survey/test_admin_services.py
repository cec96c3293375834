"""What the survey page asks of the services and selectors (the admin only shows it): ``fitting.refit`` after the
questions are saved, ``selectors.privacy_report`` for the privacy table."""
import pytest
from django.core.files.base import ContentFile

from survey_app.fitting import refit
from survey_app.selectors import privacy_report
from tests.factories import make_draft_survey, make_survey

pytestmark = pytest.mark.django_db


def test_refit_says_why_a_projection_was_not_fitted():
    survey = make_draft_survey(projection="pca", projection_components=1)
    notices = refit(survey)
    assert [(n.level, n.text) for n in notices] == [("error", "PCA/DCA not fitted: PCA/DCA needs a public reference "
                                                                "sample")]


def test_refit_fits_the_projection_on_the_sample(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)
    survey = make_survey(status="draft", projection="pca", projection_components=1)
    survey.reference_sample.save("ref.csv", ContentFile("age\n" + "".join(f"{20 + i}\n" for i in range(30))))
    notices = refit(survey)
    assert [n.level for n in notices] == ["success"] and notices[0].text.startswith("PCA fitted")
    survey.refresh_from_db()
    assert survey.projection_params["method"] == "pca"


def test_an_opened_survey_is_not_refitted():
    survey = make_survey(projection="pca", projection_components=1)  # open
    assert refit(survey) == []


def test_a_draft_without_a_sample_gets_no_notice():
    assert refit(make_draft_survey()) == []


def test_the_privacy_report_is_data_for_the_template():
    report = privacy_report(make_survey(mode="ldp", encoding="oue"))
    assert report["epsilon"] == "1"
    assert {row["question"] for row in report["rows"]} == {"sick", "smoker", "age"}
    assert any("Open link" in note for note in report["notes"])
    assert "unavailable" in privacy_report(make_draft_survey(slug="no-class", epsilon=None))
