"""The respondent's pages are never cached (``Cache-Control: no-store``): after Send, Back must not bring the answered
form back from a cache — the page also reloads itself when the browser restores it from its back-forward cache."""
import pytest

from survey_app.services import generate_tokens
from tests.factories import make_survey


@pytest.mark.django_db
def test_the_survey_pages_are_never_stored_by_a_cache(client):
    link = make_survey(slug="open-link")
    invited = make_survey(slug="invited", access="tokens")
    generate_tokens(invited, 1)
    for url in (f"/s/{link.slug}/", f"/s/{invited.slug}/i/"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "no-store" in response["Cache-Control"], url
        assert response["Referrer-Policy"] == "no-referrer", url
