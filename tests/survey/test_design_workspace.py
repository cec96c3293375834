"""The designer's workspace at /design/ (survey_app/design.py): who may use it, and every form path — a valid edit
saves the survey, its questions (in the order posted), choices and translations; bad input answers 400 with a clear
message and stores nothing; an opened survey keeps its privacy settings; open, close and clone are confirmed."""
import pytest
from django import forms
from django.contrib.auth.models import Permission, User
from django.template.loader import render_to_string

from aggregator.models import Job
from survey_app.models import SKIP_MESSAGES, Choice, Question, Survey
from tests.factories import SMOKER_LABELS, make_designer, make_draft_survey

pytestmark = pytest.mark.django_db


def edit_url(survey) -> str:
    return f"/design/survey/{survey.slug}/"


def page_data(response) -> dict:
    """The POST data of the workspace page as rendered: the survey, privacy and question forms with the formset's
    management form (the blank question left out); a test changes what it needs."""
    context = response.context
    formset = context["formset"]
    data = {}
    management = formset.management_form
    for name in management.fields:
        data[management.add_prefix(name)] = management[name].value()
    data[management.add_prefix("TOTAL_FORMS")] = formset.initial_form_count()
    for form in [context["survey_form"], context["privacy_form"], *formset.initial_forms]:
        for field in form:
            value = field.value()
            if isinstance(field.field, forms.BooleanField):
                if value:
                    data[field.html_name] = "on"
            elif isinstance(field.field, forms.DateTimeField):
                data[field.html_name] = "" if value is None else value
            else:
                data[field.html_name] = "" if value is None else value
    return data


def prefix_of(data: dict, survey, name: str) -> str:
    pk = str(survey.questions.get(name=name).pk)
    return next(key.removesuffix("-id") for key, value in data.items() if key.endswith("-id") and str(value) == pk)


def snapshot(survey) -> tuple:
    survey = Survey.objects.get(pk=survey.pk)
    return (
        [(f.name, f.value_from_object(survey)) for f in Survey._meta.concrete_fields if f.name != "updated_at"],
        list(Question.objects.filter(survey=survey).order_by("pk").values()),
        list(Choice.objects.filter(question__survey=survey).order_by("pk").values()),
    )


@pytest.fixture
def alice(client):
    user = make_designer("alice")
    client.force_login(user)
    return user


@pytest.fixture
def draft(alice):
    survey = make_draft_survey()
    survey.designers.add(alice)
    return survey


# -- who may use it ----------------------------------------------------------------------------------------------------

def test_anonymous_users_are_sent_to_sign_in(client, django_user_model):
    survey = make_draft_survey()
    for url in ("/design/", "/design/new/", edit_url(survey), f"/design/survey/{survey.slug}/open/"):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/?next=")
    assert client.post(f"/design/survey/{survey.slug}/figures/", {}).status_code == 302


def test_staff_without_survey_permissions_and_non_staff_are_refused(client):
    survey = make_draft_survey()
    staff = User.objects.create_user("carol", password="pw", is_staff=True)
    survey.designers.add(staff)
    client.force_login(staff)
    assert client.get("/design/").status_code == 403
    assert client.get(edit_url(survey)).status_code == 403
    member = User.objects.create_user("dave", password="pw")
    member.user_permissions.set(Permission.objects.filter(codename__endswith="_survey"))
    client.force_login(member)
    assert client.get("/design/").status_code == 403


def test_designers_see_only_their_surveys_and_others_are_404(client, alice, draft):
    other = make_draft_survey(slug="others", title="Bob's secret")
    listing = client.get("/design/").content.decode()
    assert "Health" in listing and "Bob&#x27;s secret" not in listing and "Bob's secret" not in listing
    before = snapshot(other)
    for url in (edit_url(other), f"/design/survey/{other.slug}/clone/", f"/design/survey/{other.slug}/open/"):
        assert client.get(url).status_code == 404
        assert client.post(url, {}).status_code == 404
    assert client.post(f"/design/survey/{other.slug}/figures/", {"p-mode": "ldp"}).status_code == 404
    assert snapshot(other) == before and Survey.objects.count() == 2


def test_superusers_see_every_survey(admin_client, draft):
    assert "Health" in admin_client.get("/design/").content.decode()
    assert admin_client.get(edit_url(draft)).status_code == 200


def test_a_viewer_without_the_change_permission_cannot_save(client, draft):
    viewer = User.objects.create_user("vera", password="pw", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename="view_survey"))
    draft.designers.add(viewer)
    client.force_login(viewer)
    page = client.get(edit_url(draft))
    assert page.status_code == 200
    data = page_data(page)
    data["s-title"] = "Changed"
    before = snapshot(draft)
    assert client.post(edit_url(draft), data).status_code == 403
    assert client.post(f"/design/survey/{draft.slug}/open/").status_code == 403
    assert client.post(f"/design/survey/{draft.slug}/clone/").status_code == 403
    assert snapshot(draft) == before and Survey.objects.count() == 1


# -- creating ------------------------------------------------------------------------------------------------------

def test_a_new_draft_is_created_designed_by_its_creator(client, alice):
    response = client.post("/design/new/", {"title": "Commuting", "slug": "commuting", "mode": "ldp"})
    survey = Survey.objects.get(slug="commuting")
    assert response.status_code == 302 and response["Location"] == edit_url(survey)
    assert survey.status == "draft" and survey.epsilon == 1.0 and list(survey.designers.all()) == [alice]


@pytest.mark.parametrize("data, field, message", [
    ({"title": "", "slug": "x", "mode": "ldp"}, "title", "This field is required."),
    ({"title": "T", "slug": "not a slug!", "mode": "ldp"}, "slug", "Enter a valid “slug”"),
    ({"title": "T", "slug": "health", "mode": "ldp"}, "slug", "Survey with this Slug already exists."),
    ({"title": "T", "slug": "t", "mode": "quantum"}, "mode", "Select a valid choice."),
    ({}, "title", "This field is required."),
])
def test_a_bad_new_survey_is_refused_with_a_message_and_nothing_stored(client, alice, data, field, message):
    make_draft_survey()
    response = client.post("/design/new/", data)
    assert response.status_code == 400
    assert any(message in e for e in response.context["form"].errors[field])
    assert Survey.objects.count() == 1


# -- editing -------------------------------------------------------------------------------------------------------

def test_the_page_shows_translations_side_by_side_and_the_privacy_figures(client, draft):
    page = client.get(edit_url(draft)).content.decode()
    assert 'name="s-title__de"' in page and 'name="q-0-text__de"' in page and 'name="q-0-choices__de"' in page
    assert "{}" not in page.split('name="s-title__de"')[1][:200]
    assert "ε per respondent: 1" in page  # the engine's figure for ε = 1 (one report per respondent)
    assert 'src="/s/health/preview/"' in page


def test_a_valid_edit_saves_texts_translations_order_choices_and_settings(client, draft):
    data = page_data(client.get(edit_url(draft)))
    sick, smoker = prefix_of(data, draft, "sick"), prefix_of(data, draft, "smoker")
    data.update({
        "s-title": "Health 2026", "s-title__de": "Gesundheit", "s-description__de": "Über Ihre Gesundheit",
        f"{smoker}-text__de": "Rauchen Sie?", f"{smoker}-position": "0", f"{sick}-position": "1",
        f"{smoker}-choices_text": "never\noccasionally\ndaily", f"{smoker}-choices__de": "nie\n\ntäglich",
        "p-epsilon": "2",
    })
    response = client.post(edit_url(draft), data)
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.title == "Health 2026" and draft.epsilon == 2.0
    assert draft.translations == {"de": {"title": "Gesundheit", "description": "Über Ihre Gesundheit"}}
    assert [q.name for q in draft.questions.all()] == ["smoker", "sick"]
    question = draft.questions.get(name="smoker")
    assert question.translations == {"de": {"text": "Rauchen Sie?"}}
    assert [(c.label, c.translations) for c in question.choices.all()] == [
        ("never", {"de": "nie"}), ("occasionally", {}), ("daily", {"de": "täglich"})]


def test_a_question_is_added_and_one_deleted(client, draft):
    data = page_data(client.get(edit_url(draft)))
    smoker = prefix_of(data, draft, "smoker")
    data.update({"q-TOTAL_FORMS": "3", "q-2-name": "sport", "q-2-text": "Do you do sport?", "q-2-kind": "binary",
                 "q-2-style": "auto", "q-2-position": "2", "q-2-choices_text": "", f"{smoker}-DELETE": "on"})
    assert client.post(edit_url(draft), data).status_code == 302
    assert [q.name for q in draft.questions.all()] == ["sick", "sport"]


@pytest.mark.parametrize("change, field, message", [
    ({"{smoker}-choices_text": "never\nnever"}, "choices_text", "is given twice"),
    ({"{smoker}-choices_text": "only one"}, "choices_text", "at least two answers"),
    ({"{smoker}-choices__de": "nie\nja"}, "choices__de", "one line per choice"),
    ({"{smoker}-kind": "numeric", "{smoker}-choices_text": ""}, "high", "lower and upper bounds"),
    ({"{smoker}-name": "not a slug!"}, "name", "valid “slug”"),
    ({"{smoker}-text": ""}, "text", "This field is required."),
])
def test_a_bad_question_is_refused_with_its_message_and_nothing_stored(client, draft, change, field, message):
    data = page_data(client.get(edit_url(draft)))
    smoker = prefix_of(data, draft, "smoker")
    data["s-title"] = "Changed too"  # the valid parts are not saved either
    data.update({key.format(smoker=smoker): value for key, value in change.items()})
    before = snapshot(draft)
    response = client.post(edit_url(draft), data)
    assert response.status_code == 400
    form = next(f for f in response.context["formset"].forms if f.prefix == smoker)
    assert any(message in e for e in form.errors[field]), form.errors
    assert "Nothing was saved" in response.content.decode()
    assert snapshot(draft) == before


@pytest.mark.parametrize("change, where, message", [
    ({"p-epsilon": "-1"}, "epsilon", "ε must be a number > 0"),
    ({"p-epsilon": "abc"}, "epsilon", "Enter a number."),
    ({"p-mode": "mrr", "p-theta": "1.5"}, "theta", "θ must be in (0, 1]."),
    ({"p-validation_share": "0.9"}, "validation_share", "The validation share must be in [0, 0.5]."),
    ({"s-slug": ""}, "slug", "This field is required."),
    ({"s-title__de": "x" * 201}, "title__de", "at most 200 characters"),
])
def test_bad_settings_are_refused_with_their_message_and_nothing_stored(client, draft, change, where, message):
    data = page_data(client.get(edit_url(draft)))
    data.update(change)
    before = snapshot(draft)
    response = client.post(edit_url(draft), data)
    assert response.status_code == 400
    form = response.context["privacy_form"] if where in response.context["privacy_form"].fields \
        else response.context["survey_form"]
    assert any(message in e for e in form.errors[where]), form.errors
    assert snapshot(draft) == before


def test_two_class_questions_are_refused(client, draft):
    data = page_data(client.get(edit_url(draft)))
    data[f"{prefix_of(data, draft, 'smoker')}-is_class"] = "on"
    before = snapshot(draft)
    response = client.post(edit_url(draft), data)
    assert response.status_code == 400
    assert "Only one question can be the class" in str(response.context["formset"].non_form_errors())
    assert snapshot(draft) == before


def test_two_questions_with_one_name_are_refused(client, draft):
    data = page_data(client.get(edit_url(draft)))
    data[f"{prefix_of(data, draft, 'smoker')}-name"] = "sick"
    before = snapshot(draft)
    response = client.post(edit_url(draft), data)
    assert response.status_code == 400
    assert "duplicate data for name" in str(response.context["formset"].non_form_errors())
    assert snapshot(draft) == before


# -- an opened survey ----------------------------------------------------------------------------------------------

def test_an_opened_surveys_privacy_settings_and_answers_are_locked_but_texts_edit(client, draft):
    draft.status = Survey.Status.OPEN
    draft.save()
    page = client.get(edit_url(draft))
    assert page.context["privacy_form"].fields["epsilon"].disabled
    data = page_data(page)
    smoker = prefix_of(data, draft, "smoker")
    data.update({"p-epsilon": "8", "p-mode": "mrr", f"{smoker}-choices_text": "a\nb", f"{smoker}-name": "renamed",
                 f"{smoker}-position": "7", f"{smoker}-text": "Do you smoke at all?",
                 f"{smoker}-choices__de": "nie\nmanchmal\ntäglich"})
    assert "q-0-DELETE" not in page.content.decode() and "empty-question" not in page.content.decode()
    before = snapshot(draft)
    added = {**data, "q-TOTAL_FORMS": "3", "q-2-name": "new", "q-2-text": "New?", "q-2-kind": "binary"}
    refused = client.post(edit_url(draft), added)
    assert refused.status_code == 400 and "no question can be added" in refused.content.decode()
    assert snapshot(draft) == before
    assert client.post(edit_url(draft), data).status_code == 302
    draft.refresh_from_db()
    assert draft.epsilon == 1.0 and draft.mode == "ldp"  # disabled fields keep their saved values
    question = draft.questions.get(name="smoker")
    assert question.text == "Do you smoke at all?" and question.position == 1
    assert [c.label for c in question.choices.all()] == list(SMOKER_LABELS)
    assert [c.translations for c in question.choices.all()] == [{"de": "nie"}, {"de": "manchmal"}, {"de": "täglich"}]
    assert draft.questions.count() == 2


# -- the figures as the settings change ------------------------------------------------------------------------------

def test_the_figures_follow_the_posted_settings_without_saving(client, draft):
    before = snapshot(draft)
    response = client.post(f"/design/survey/{draft.slug}/figures/", {"p-mode": "ldp", "p-epsilon": "0.5",
                                                                      "p-encoding": "oue", "p-strategy": "one-report",
                                                                      "p-allocation": "uniform",
                                                                      "p-postprocess": "bayes",
                                                                      "p-validation_share": "0.1"})
    assert response.status_code == 200 and "ε per respondent: 0.5" in response.content.decode()
    mrr = client.post(f"/design/survey/{draft.slug}/figures/", {"p-mode": "mrr", "p-theta": "0.7",
                                                                 "p-postprocess": "bayes", "p-validation_share": "0",
                                                                 "p-encoding": "oue", "p-strategy": "one-report",
                                                                 "p-allocation": "uniform"})
    assert "PSE (uniform prior)" in mrr.content.decode() and "smoker" in mrr.content.decode()
    bad = client.post(f"/design/survey/{draft.slug}/figures/", {"p-mode": "ldp", "p-epsilon": "0",
                                                                "p-encoding": "oue", "p-strategy": "one-report",
                                                                "p-allocation": "uniform", "p-postprocess": "bayes",
                                                                "p-validation_share": "0.1"})
    assert bad.status_code == 400 and "ε must be a number &gt; 0" in bad.content.decode()
    assert snapshot(draft) == before


def test_the_figures_show_the_planners_expected_accuracy_for_the_setting(client, alice, draft):
    def setting(value, accuracy):
        return {"method": "oue", "parameter": "epsilon", "value": value, "accuracy": accuracy, "low": accuracy - 0.02,
                "high": accuracy + 0.02, "config": {"mode": "ldp", "ldp": {"epsilon": value, "encoding": "oue"}}}
    Job.objects.create(kind=Job.Kind.PLANNER, state=Job.State.DONE, created_by=alice, params={"dataset": "adult"},
                       result={"settings": [setting(1.0, 0.75), setting(4.0, 0.8)], "n_train": 800})
    fields = {"p-mode": "ldp", "p-encoding": "oue", "p-strategy": "one-report", "p-allocation": "uniform",
              "p-postprocess": "bayes", "p-validation_share": "0.1"}
    exact = client.post(f"/design/survey/{draft.slug}/figures/", {**fields, "p-epsilon": "1"}).content.decode()
    assert "Expected accuracy: 75.0 %" in exact and "73.0–77.0 %" in exact and "adult" in exact
    between = client.post(f"/design/survey/{draft.slug}/figures/", {**fields, "p-epsilon": "2"}).content.decode()
    assert "no figure for exactly this value" in between and "75.0 %" in between and "80.0 %" in between
    other = client.post(f"/design/survey/{draft.slug}/figures/", {**fields, "p-encoding": "olh",
                                                                  "p-epsilon": "1"}).content.decode()
    assert "no planner run of yours covers this mode and encoding" in other


# -- open, close, clone ----------------------------------------------------------------------------------------------

def test_open_close_and_clone_are_confirmed_then_done(client, alice, draft):
    confirm = client.get(f"/design/survey/{draft.slug}/open/").content.decode()
    assert "Open “Health”?" in confirm and "Yes, open it" in confirm
    draft.refresh_from_db()
    assert draft.status == "draft"  # asking changes nothing
    assert client.post(f"/design/survey/{draft.slug}/open/").status_code == 302
    draft.refresh_from_db()
    assert draft.status == "open"
    assert "Close “Health”?" in client.get(f"/design/survey/{draft.slug}/close/").content.decode()
    client.post(f"/design/survey/{draft.slug}/close/")
    draft.refresh_from_db()
    assert draft.status == "closed"
    response = client.post(f"/design/survey/{draft.slug}/clone/")
    copy = Survey.objects.exclude(pk=draft.pk).get()
    assert response["Location"] == edit_url(copy) and copy.status == "draft" and alice in copy.designers.all()


def test_a_survey_that_cannot_open_says_why_and_stays_a_draft(client, draft):
    draft.questions.filter(is_class=True).delete()
    response = client.post(f"/design/survey/{draft.slug}/open/")
    assert response.status_code == 409 and "class question" in response.content.decode()
    draft.refresh_from_db()
    assert draft.status == "draft"


def test_only_a_draft_opens_and_only_an_open_survey_closes(client, draft):
    response = client.post(f"/design/survey/{draft.slug}/close/")
    assert response.status_code == 409 and "Only an open survey can be closed" in response.content.decode()
    assert client.get(f"/design/survey/{draft.slug}/delete/").status_code == 404
    draft.refresh_from_db()
    assert draft.status == "draft"


# -- the page's policy -------------------------------------------------------------------------------------------------

def test_only_this_site_may_frame_the_preview_and_the_workspace_has_no_inline_code(client, draft):
    preview = client.get(f"/s/{draft.slug}/preview/")
    assert preview["X-Frame-Options"] == "SAMEORIGIN"
    assert "frame-ancestors 'self'" in preview["Content-Security-Policy"]
    page = client.get(edit_url(draft))
    assert page["X-Frame-Options"] == "DENY" and "frame-ancestors 'none'" in page["Content-Security-Policy"]
    html = page.content.decode()
    assert "<script>" not in html and "<style" not in html and " style=" not in html and " on" + "click=" not in html
    assert '<script type="module" src="/static/js/design/workspace.mjs"></script>' in html
    # the public survey page may still be framed by no one
    draft.status = Survey.Status.OPEN
    draft.save()
    assert client.get(f"/s/{draft.slug}/")["X-Frame-Options"] == "DENY"


# -- skip logic, question types, shuffling, theme and end page ---------------------------------------------------------

@pytest.fixture
def sport(draft):
    """A third question, after the class (sick) and smoker: the one shown on a condition."""
    return Question.objects.create(survey=draft, name="sport", text="Do you do sport?", kind="binary", position=2)


def test_skip_logic_offers_earlier_choice_questions_and_their_answers_as_checkboxes(client, draft, sport):
    page = client.get(edit_url(draft))
    data = page_data(page)
    prefix = prefix_of(data, draft, "sport")
    form = next(f for f in page.context["formset"].forms if f.prefix == prefix)
    smoker = draft.questions.get(name="smoker")
    assert [value for value, _label in form.fields["show_if_question"].widget.choices] == ["", smoker.pk]  # no class
    assert 'type="checkbox" name="%s-show_if_answers" value="%d:daily"' % (prefix, smoker.pk) in page.content.decode()
    new = page.context["formset"].extra_forms[0]
    assert "show_if_question" not in new.fields  # set once saved
    assert "can be set once this question is saved" in page.content.decode()
    data.update({f"{prefix}-show_if_question": str(smoker.pk), f"{prefix}-show_if_answers": [f"{smoker.pk}:daily"]})
    assert client.post(edit_url(draft), data).status_code == 302
    sport.refresh_from_db()
    assert (sport.show_if_question, sport.show_if_answers) == (smoker, ["daily"])
    form = next(f for f in client.get(edit_url(draft)).context["formset"].forms if f.prefix == prefix)
    assert form["show_if_answers"].value() == [f"{smoker.pk}:daily"]


@pytest.mark.parametrize("gate, answers, message", [
    ("smoker", [], SKIP_MESSAGES["no_answers"] % {"gate": "smoker"}),
    ("smoker", list(SMOKER_LABELS), SKIP_MESSAGES["all_answers"] % {"gate": "smoker"}),
    ("sick", ["yes"], SKIP_MESSAGES["gate_class"]),
])
def test_a_bad_condition_is_refused_with_the_models_message_and_nothing_stored(client, draft, sport, gate, answers,
                                                                               message):
    data = page_data(client.get(edit_url(draft)))
    prefix = prefix_of(data, draft, "sport")
    gate_pk = draft.questions.get(name=gate).pk
    data.update({f"{prefix}-show_if_question": str(gate_pk),
                 f"{prefix}-show_if_answers": [f"{gate_pk}:{a}" for a in answers]})
    before = snapshot(draft)
    response = client.post(edit_url(draft), data)
    assert response.status_code == 400
    form = next(f for f in response.context["formset"].forms if f.prefix == prefix)
    assert message in [str(e) for errors in form.errors.values() for e in errors], form.errors
    assert snapshot(draft) == before


def test_question_types_shuffling_theme_and_end_page_are_saved(client, draft):
    page = client.get(edit_url(draft))
    data = page_data(page)
    smoker = prefix_of(data, draft, "smoker")
    for name in ("s-shuffle_questions", "s-accent_color", "s-end_text__de", "s-end_url", f"{smoker}-matrix__de",
                 f"{smoker}-step"):
        assert f'name="{name}"' in page.content.decode(), name
    data.update({"s-shuffle_questions": "on", "s-shuffle_choices": "on", "s-accent_color": "#0b5cad",
                 "s-end_text": "Thank you!", "s-end_text__de": "Danke!", "s-end_url": "https://example.org/done",
                 f"{smoker}-matrix": "Habits", f"{smoker}-matrix__de": "Gewohnheiten", f"{smoker}-style": "buttons"})
    response = client.post(edit_url(draft), data)
    assert response.status_code == 302, response.context and [f.errors for f in response.context["formset"]]
    draft.refresh_from_db()
    assert (draft.shuffle_questions, draft.shuffle_choices, draft.accent_color, draft.end_text, draft.end_url) == (
        True, True, "#0b5cad", "Thank you!", "https://example.org/done")
    assert draft.translations["de"]["end_text"] == "Danke!"
    question = draft.questions.get(name="smoker")
    assert (question.matrix, question.translations["de"]["matrix"]) == ("Habits", "Gewohnheiten")


@pytest.mark.parametrize("change, where, message", [
    ({"s-accent_color": "blue"}, "accent_color", "Enter a colour as # and six hexadecimal digits, e.g. #0b5cad."),
    ({"s-end_url": "http://example.org/"}, "end_url",
     "The address after Send must start with https:// and name a host."),
    ({"{sick}-step": "1"}, "step", "Only a slider has a step: empty it, or choose the style Slider."),
    ({"{sick}-matrix": "Grid", "{sick}-kind": "numeric", "{sick}-low": "0", "{sick}-high": "9", "{sick}-is_class": ""},
     "matrix", "Only a yes/no question or a question with choices can be a row of a matrix."),
])
def test_bad_types_theme_or_end_page_are_refused_with_the_models_message(client, draft, change, where, message):
    data = page_data(client.get(edit_url(draft)))
    sick = prefix_of(data, draft, "sick")
    data.update({key.format(sick=sick): value for key, value in change.items()})
    data = {key: value for key, value in data.items() if value != "" or not key.endswith("is_class")}
    before = snapshot(draft)
    response = client.post(edit_url(draft), data)
    assert response.status_code == 400
    form = response.context["survey_form"] if where in response.context["survey_form"].fields else next(
        f for f in response.context["formset"].forms if f.prefix == sick)
    assert message in form.errors[where], form.errors
    assert snapshot(draft) == before


def test_the_previews_way_back_leads_to_the_workspace(client, draft):
    page = client.get(f"/s/{draft.slug}/preview/").content.decode()
    assert f'<a href="/design/survey/{draft.slug}/">' in page


def test_the_admin_takes_the_answers_that_show_a_question_one_per_line(admin_client, draft, sport):
    smoker = draft.questions.get(name="smoker")
    url = f"/admin/survey_app/question/{sport.pk}/change/"
    data = {"survey": draft.pk, "position": 2, "name": "sport", "text": sport.text, "kind": "binary", "style": "auto",
            "show_if_question": smoker.pk, "show_if_answers": "sometimes\r\ndaily\r\n", "group": 0,
            "personal_mode": "simulated", "translations": ""}
    assert admin_client.post(url, data).status_code == 302
    sport.refresh_from_db()
    assert sport.show_if_answers == ["sometimes", "daily"]
    assert "sometimes\ndaily</textarea>" in admin_client.get(url).content.decode()
    page = admin_client.post(url, {**data, "show_if_answers": "weekly"}).content.decode()
    assert "“smoker” has no answer “weekly”" in page.replace("&quot;", "\"").replace("&#x27;", "'")
    sport.refresh_from_db()
    assert sport.show_if_answers == ["sometimes", "daily"]


def test_the_dashboards_messages_are_a_plain_list_inside_a_status_region(rf, alice):
    """axe's list rule: a <ul> with a role is no list; the status region wraps it (as the workspace's layout)."""
    request = rf.get("/dashboard/")
    request.user = alice
    message = type("Message", (), {"tags": "success", "__str__": lambda self: "Saved."})()
    html = render_to_string("dashboard/layout.html", {"messages": [message]}, request=request)
    assert '<div role="status"><ul class="messages"><li class="success">Saved.</li></ul></div>' in html


def test_the_previews_way_back_leads_to_the_admin_for_staff_who_cannot_use_the_workspace(client, draft):
    bob = User.objects.create_user("bob", password="x", is_staff=True)  # a designer of it, no survey permission
    draft.designers.add(bob)
    client.force_login(bob)
    page = client.get(f"/s/{draft.slug}/preview/").content.decode()
    assert f'<a href="/admin/survey_app/survey/{draft.pk}/change/">' in page
