"""A survey's accent colour (WCAG AA contrast checked, served as a stylesheet of the site: the CSP stays strict), its
logo (type, size and pixels checked; served with its checked type, never sniffed) and its end page (a thank-you text
per language, or an https redirect that carries nothing of the respondent's and no Referer)."""
import io

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from survey_app import theme
from survey_app.models import SurveyLogo
from survey_app.services import set_logo
from tests.admin_support import change_url, page_data
from tests.factories import make_survey

pytestmark = pytest.mark.django_db


def image(kind: str = "PNG", size=(40, 20)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (11, 92, 173)).save(out, format=kind)
    return out.getvalue()


# -- colour ----------------------------------------------------------------------------------------------------------

def test_contrast_follows_wcag():
    assert theme.contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert theme.contrast("#ffffff", "#ffffff") == pytest.approx(1.0)
    # #767676 is the lightest grey that reaches 4.5:1 on white; #777777 falls just short (WCAG's own examples).
    assert theme.contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    assert theme.contrast("#777777", "#ffffff") < 4.5


def test_the_default_accent_passes_and_a_light_one_is_refused_with_a_darker_shade_that_passes():
    theme.validate_accent("#0b5cad")
    with pytest.raises(ValidationError) as refused:
        theme.validate_accent("#ffcc00")
    text = refused.value.messages[0]
    suggestion = theme.darkened("#ffcc00")
    assert "#ffcc00 is too light" in text and "4.5:1" in text and suggestion in text
    theme.validate_accent(suggestion)
    assert theme.worst_contrast(suggestion) >= 4.5
    r, g, b = (int(suggestion[i:i + 2], 16) for i in (1, 3, 5))
    assert b == 0 and r / g == pytest.approx(255 / 204, rel=0.03)  # the same hue, darker
    # The lightest: one step lighter fails.
    assert theme.worst_contrast("#{:02x}{:02x}00".format(min(255, r + 3), min(255, g + 3))) < 4.5


@pytest.mark.parametrize("value", ["0b5cad", "#0b5", "#0b5cadd", "red", "#gg0000"])
def test_malformed_colours_are_refused(value):
    with pytest.raises(ValidationError, match="six hexadecimal digits"):
        theme.validate_accent(value)


# -- logo ------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind, content_type", [("PNG", "image/png"), ("JPEG", "image/jpeg"),
                                                ("WEBP", "image/webp")])
def test_png_jpeg_and_webp_logos_are_taken(kind, content_type):
    assert theme.read_logo(image(kind)).content_type == content_type


@pytest.mark.parametrize("data, message", [
    (b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "none of them"),
    (image("GIF"), "not GIF"),
    (image("PNG")[:30], "none of them"),
    (image("PNG", (1500, 10)), "1500×10 pixels"),
    (b"\x89PNG" + b"\0" * (theme.LOGO_MAX_BYTES + 1), "at most 200 KB"),
])
def test_other_files_are_refused_in_plain_words(data, message):
    with pytest.raises(ValidationError, match=message):
        theme.read_logo(data)


# -- the admin form --------------------------------------------------------------------------------------------------

@pytest.fixture
def admin_client(client):
    client.force_login(User.objects.create_superuser("admin", "admin@example.org", "pw"))
    return client


def test_the_admin_sets_colour_logo_and_end_page_and_refuses_a_light_colour(admin_client):
    survey = make_survey(status="draft")
    data = page_data(admin_client.get(change_url(survey)))
    refused = admin_client.post(change_url(survey), {**data, "accent_color": "#ffcc00"})
    assert refused.status_code == 200 and "is too light" in refused.content.decode()
    survey.refresh_from_db()
    assert survey.accent_color == ""
    logo = SimpleUploadedFile("logo.png", image(), content_type="image/png")
    saved = admin_client.post(change_url(survey), {**data, "accent_color": "#7a4a00", "logo_file": logo,
                                                   "end_text": "Danke!", "end_url": ""})
    assert saved.status_code == 302, saved.content.decode()[:3000]
    survey.refresh_from_db()
    assert survey.accent_color == "#7a4a00" and survey.end_text == "Danke!"
    assert SurveyLogo.objects.get(survey=survey).content_type == "image/png"
    bad_logo = SimpleUploadedFile("logo.svg", b"<svg/>", content_type="image/svg+xml")
    refused = admin_client.post(change_url(survey), {**data, "logo_file": bad_logo})
    assert refused.status_code == 200 and "PNG, JPEG or WebP" in refused.content.decode()
    removed = admin_client.post(change_url(survey), {**data, "accent_color": "#7a4a00", "remove_logo": "on"})
    assert removed.status_code == 302 and not SurveyLogo.objects.filter(survey=survey).exists()


# -- the respondent's pages ------------------------------------------------------------------------------------------

def test_the_page_links_the_theme_and_the_csp_stays_strict(client):
    survey = make_survey(accent_color="#7A4A00")
    set_logo(survey, theme.read_logo(image()))
    page = client.get("/s/health/")
    html = page.content.decode()
    digest = SurveyLogo.objects.get(survey=survey).digest
    assert '<link rel="stylesheet" href="/s/health/theme/7a4a00.css">' in html
    assert f'<img class="survey-logo" src="/s/health/logo/{digest}/" alt="">' in html
    assert "style=" not in html and "<style" not in html
    csp = page["Content-Security-Policy"]
    assert "unsafe-inline" not in csp and "style-src 'self' 'sha256-" in csp
    css = client.get("/s/health/theme/7a4a00.css")
    assert css["Content-Type"] == "text/css; charset=utf-8" and css.content == b":root { --accent: #7a4a00; }\n"
    assert client.get("/s/health/theme/0b5cad.css").status_code == 404  # not this survey's colour
    logo = client.get(f"/s/health/logo/{digest}/")
    assert logo["Content-Type"] == "image/png" and logo["X-Content-Type-Options"] == "nosniff"
    assert logo.content == image()
    assert client.get("/s/health/logo/0000/").status_code == 404


def test_a_survey_without_a_theme_links_none(client):
    make_survey()
    html = client.get("/s/health/").content.decode()
    assert "/theme/" not in html and "survey-logo" not in html


def test_the_end_page_shows_the_designers_text_in_the_page_language(client):
    make_survey(end_text="Thanks, see you next term.", translations={"de": {"end_text": "Danke, bis zum nächsten "
                                                                                         "Semester."}})
    assert "Thanks, see you next term." in client.get("/s/health/thanks/").content.decode()
    german = client.get("/s/health/thanks/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Danke, bis zum nächsten Semester." in german and "Thanks, see you" not in german


def test_the_redirect_carries_nothing_of_the_respondent_and_no_referer(client):
    make_survey(end_url="https://panel.example.org/complete?study=7")
    response = client.get("/s/health/thanks/?token=abc&answer=1", HTTP_REFERER="https://x.example/s/health/i/#tok")
    assert response.status_code == 303
    assert response["Location"] == "https://panel.example.org/complete?study=7"  # exactly the designer's address
    assert response["Referrer-Policy"] == "no-referrer"
    assert not response.cookies


@pytest.mark.parametrize("url, message", [
    ("http://panel.example.org/", "https://"),
    ("javascript:alert(1)", "https://"),
    ("https:///path", "name a host"),
    ("https://[::1/", "name a host"),
    ("https://user:pw@panel.example.org/", "user name or password"),
    ("https://panel.example.org/a b", "one address"),
])
def test_end_addresses_other_than_plain_https_are_refused(url, message):
    survey = make_survey(status="draft")
    survey.end_url = url
    with pytest.raises(ValidationError, match=message):
        survey.full_clean()


def test_the_management_api_sets_and_checks_colour_and_end_page():
    from tests.manage_support import COMMUTE, designer

    api = designer()
    refused = api.post("/api/manage/surveys/", {**COMMUTE, "accent_color": "#ffcc00",
                                                "end_url": "http://x.example/"}, format="json")
    assert refused.status_code == 400 and {"accent_color", "end_url"} <= set(refused.json())
    created = api.post("/api/manage/surveys/", {**COMMUTE, "accent_color": "#7a4a00", "end_text": "Thanks!",
                                                "end_url": "https://panel.example.org/done"}, format="json")
    assert created.status_code == 201, created.json()
    assert {k: created.json()[k] for k in ("accent_color", "end_text", "end_url")} == {
        "accent_color": "#7a4a00", "end_text": "Thanks!", "end_url": "https://panel.example.org/done"}


def test_the_page_says_before_send_where_it_goes_after(client):
    make_survey(end_url="https://panel.example.org/complete?study=7")
    english = " ".join(client.get("/s/health/").content.decode().split())
    assert "After “Send”, this page takes you to <strong>panel.example.org</strong>" in english
    german = " ".join(client.get("/s/health/", HTTP_ACCEPT_LANGUAGE="de").content.decode().split())
    assert "führt diese Seite Sie zu <strong>panel.example.org</strong>" in german
    assert "/complete" not in english.split('id="end-words"')[1].split("</p>")[0]
