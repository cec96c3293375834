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
    assert q.labels() == ["n", "y", "?"]
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
