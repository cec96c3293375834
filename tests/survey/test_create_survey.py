"""``create_survey`` builds a valid survey from a CSV (embedded SQLite)."""
import pytest
from django.core.management import CommandError, call_command

from survey_app.models import Survey
from survey_app.protocol import get_protocol

pytestmark = pytest.mark.django_db


def test_ldp_survey_from_diabetes(datasets_dir):
    call_command("create_survey", str(datasets_dir / "diabetes.csv"), "--slug", "diab", "--epsilon", "2", "--open")
    survey = Survey.objects.get(slug="diab")
    assert survey.status == "open" and survey.epsilon == 2.0
    kinds = [(q.name, q.kind, q.is_class) for q in survey.questions.all()]
    assert kinds[-1] == ("class", "categorical", True)
    assert all(k == "numeric" for _, k, c in kinds[:-1])
    protocol = get_protocol(survey)
    assert protocol.public()["numeric"] == {"handling": "discretize", "bins": 4}


def test_mrr_survey_from_vote_with_missing_category(datasets_dir):
    call_command("create_survey", str(datasets_dir / "vote.csv"), "--slug", "vote", "--mode", "mrr", "--theta", "0.6")
    survey = Survey.objects.get(slug="vote")
    assert survey.status == "draft" and survey.theta == 0.6
    q = survey.questions.get(name="crime")
    assert q.labels() == ["n", "y", "Prefer not to say"]  # the empty cells (issue 12 item 2), not a "?" choice
    assert q.text == "Crime"
    assert get_protocol(survey).privacy()["mode"] == "mrr"


@pytest.mark.parametrize("args, message", [
    (["--mode", "mrr", "--epsilon", "1"], "--theta"),
    (["--epsilon", "-1"], "ε must be"),
    (["--mode", "mrr", "--theta", "0"], "θ must be"),
    (["--class-column", "nope"], "no column named"),
])
def test_errors_are_clear_and_store_nothing(datasets_dir, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("create_survey", str(datasets_dir / "vote.csv"), "--slug", "x", *args)
    assert not Survey.objects.exists()


def test_pca_survey_fitted_on_a_reference_sample(datasets_dir, settings, tmp_path):
    """A designer's PCA survey: fitted on a public reference CSV, published, and usable end to end."""
    import numpy as np
    from django.core.files.base import ContentFile

    from survey_app.services import fit_projection

    settings.MEDIA_ROOT = str(tmp_path)
    call_command("create_survey", str(datasets_dir / "diabetes.csv"), "--slug", "diab", "--epsilon", "2")
    survey = Survey.objects.get(slug="diab")
    survey.projection, survey.projection_components = "dca", 1
    survey.numeric_handling, survey.gaussian_approach = "gaussian", 3
    lines = (datasets_dir / "diabetes.csv").read_text().splitlines()
    survey.reference_sample.save("ref.csv", ContentFile("\n".join(lines[:80]) + "\n"))
    survey.full_clean()
    survey.save()
    fit_projection(survey)
    protocol = get_protocol(survey)
    public = protocol.public()
    assert public["projection"]["method"] == "dca" and [f["name"] for f in public["features"]] == ["dc1"]
    assert len(public["questions"]) == 8
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 100, size=(50, 8))
    reports = protocol.encode(X, rng.integers(0, 2, 50), rng)
    assert protocol.fold(reports).n == 50
