"""Designer permissions per survey: staff see and edit only the surveys they design; superusers see all."""
import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile

from survey_app.models import InvitationToken, Question, Survey
from survey_app.permissions import can_manage, surveys_for
from tests.factories import make_designer

pytestmark = pytest.mark.django_db


def designer(name: str) -> User:
    return make_designer(name)


@pytest.fixture
def two_designers(client):
    alice, bob = designer("alice"), designer("bob")
    mine = Survey.objects.create(title="Alice's", slug="alices", mode="ldp", epsilon=1.0)
    theirs = Survey.objects.create(title="Bob's", slug="bobs", mode="ldp", epsilon=1.0)
    mine.designers.add(alice)
    theirs.designers.add(bob)
    Question.objects.create(survey=theirs, name="secret_question", text="?", kind="binary")
    InvitationToken.objects.create(survey=theirs)
    client.force_login(alice)
    return alice, mine, theirs


def test_designers_see_and_edit_only_their_surveys(client, two_designers):
    alice, mine, theirs = two_designers
    listing = client.get("/admin/survey_app/survey/").content.decode()
    assert "alices" in listing and "bobs" not in listing
    assert client.get(f"/admin/survey_app/survey/{mine.pk}/change/").status_code == 200
    assert client.get(f"/admin/survey_app/survey/{theirs.pk}/change/").status_code == 302  # "doesn't exist" redirect
    assert "secret_question" not in client.get("/admin/survey_app/question/").content.decode()
    assert client.get("/admin/survey_app/invitationtoken/").content.decode().count("bobs") == 0
    client.post("/admin/survey_app/survey/", {"action": "close_surveys", "_selected_action": [theirs.pk]})
    assert list(surveys_for(alice)) == [mine] and not can_manage(alice, theirs) and can_manage(alice, mine)


def test_superusers_see_every_survey(admin_client, two_designers):
    _, mine, theirs = two_designers
    listing = admin_client.get("/admin/survey_app/survey/").content.decode()
    assert "alices" in listing and "bobs" in listing


def test_non_staff_and_inactive_users_see_nothing():
    survey = Survey.objects.create(title="x", slug="x", mode="ldp", epsilon=1.0)
    user = User.objects.create_user("carol")
    survey.designers.add(user)
    assert not surveys_for(user).exists() and not can_manage(user, survey)


def test_whoever_creates_or_imports_a_survey_designs_it(client, datasets_dir):
    alice = designer("alice")
    client.force_login(alice)
    upload = SimpleUploadedFile("vote.csv", (datasets_dir / "vote.csv").read_bytes(), content_type="text/csv")
    client.post("/admin/survey_app/survey/import/", {"csv_file": upload, "slug": "vote", "mode": "mrr",
                                                     "encoding": "adaptive", "theta": "0.6"})
    assert list(Survey.objects.get(slug="vote").designers.all()) == [alice]
    vote = Survey.objects.get(slug="vote")
    client.post("/admin/survey_app/survey/", {"action": "clone", "_selected_action": [vote.pk]})
    assert list(Survey.objects.get(slug="vote-copy").designers.all()) == [alice]
