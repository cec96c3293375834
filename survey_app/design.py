"""The designer's workspace outside the admin (``/design/``): the surveys a designer designs, a new draft, and one
page per survey — its texts with their translations side by side, its questions and choices inline (ordered by drag
and drop or the move buttons, static/js/design/workspace.mjs), its privacy settings with the exact ε/PSE and the
planner's expected accuracy as they change, and its preview beside them — with open, close and clone, each
confirmed on a page of its own.

Designers are active staff with Django's permissions on surveys (``survey_app.view_survey`` to see, ``add_survey``
to create and clone, ``change_survey`` to edit, open and close), on the surveys they design
(``permissions.can_manage``; superusers: every survey). Views are thin: the forms (survey_app/design_forms.py) hold
the layout, the models the rules, ``services`` write and ``selectors`` read."""
from __future__ import annotations

import functools

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from . import services
from .design_forms import NewSurveyForm, PrivacyForm, SurveyForm, other_languages, question_formset
from .fitting import LEVELS, refit
from .models import Survey
from .permissions import can_manage, surveys_for
from .selectors import planned_accuracy, privacy_figures


def designer_required(permission: str):
    """Anonymous: to the sign-in page and back; signed in without ``survey_app.<permission>_survey`` as active staff:
    403."""
    def decorate(view):
        @functools.wraps(view)
        def wrapped(request, *args, **kwargs):
            user = request.user
            if not user.is_authenticated:
                return redirect_to_login(request.get_full_path(), reverse("admin:login"))
            if not (user.is_active and user.is_staff and user.has_perm(f"survey_app.{permission}_survey")):
                raise PermissionDenied("The workspace is for survey designers.")
            return view(request, *args, **kwargs)
        return never_cache(wrapped)
    return decorate


def _designed(request, slug: str) -> Survey:
    """The survey ``slug`` if the user designs it (or is a superuser); 404 otherwise, so that other staff do not
    learn which surveys exist."""
    survey = Survey.objects.filter(slug=slug).first()
    if survey is None or not can_manage(request.user, survey):
        raise Http404("No survey of yours has this address.")
    return survey


@designer_required("view")
@require_http_methods(["GET"])
def survey_list(request):
    surveys = surveys_for(request.user).order_by("-updated_at")
    return render(request, "design/list.html", {
        "surveys": surveys, "can_add": request.user.has_perm("survey_app.add_survey")})


@designer_required("add")
@require_http_methods(["GET", "POST"])
def survey_new(request):
    form = NewSurveyForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        survey = services.create_draft(form, request.user)
        messages.success(request, gettext("Draft “%(title)s” created: add its questions below.")
                         % {"title": survey.title})
        return redirect("design-edit", slug=survey.slug)
    return render(request, "design/new.html", {"form": form}, status=400 if form.errors else 200)


def _figures_context(request, survey: Survey, privacy_form: PrivacyForm) -> dict:
    """The privacy panel's figures for the settings as ``privacy_form`` holds them (``selectors``), or its errors."""
    if privacy_form.is_bound and not privacy_form.is_valid():
        return {"figure_errors": [
            f"{privacy_form.fields[name].label}: {error}" if name in privacy_form.fields else error
            for name, errors in privacy_form.errors.items() for error in errors]}
    return {"figures": privacy_figures(survey), "planned": planned_accuracy(request.user, survey)}


@designer_required("view")
@require_http_methods(["GET", "POST"])
def survey_edit(request, slug: str):
    survey = _designed(request, slug)
    posted = request.method == "POST"
    if posted and not request.user.has_perm("survey_app.change_survey"):
        raise PermissionDenied("Changing a survey needs the permission to change surveys.")
    data = request.POST if posted else None
    survey_form, privacy_form = SurveyForm(data, instance=survey, prefix="s"), PrivacyForm(data, instance=survey,
                                                                                            prefix="p")
    formset = question_formset(survey, data)
    if posted:
        if survey_form.is_valid() and privacy_form.is_valid() and formset.is_valid():
            services.save_design(survey_form, privacy_form, formset)
            messages.success(request, gettext("Saved “%(title)s”.") % {"title": survey.title})
            for notice in refit(survey):  # what the survey derives from its reference sample, as the admin does
                messages.add_message(request, LEVELS[notice.level], notice.text)
            return redirect("design-edit", slug=survey.slug)
        messages.error(request, gettext("Nothing was saved: correct the fields marked below."))
        survey = Survey.objects.get(pk=survey.pk)  # the figures and preview stay those of the saved survey
    context = {"survey": survey, "survey_form": survey_form, "privacy_form": privacy_form, "formset": formset,
               "languages": other_languages(), "opened": survey.has_opened(),
               "can_change": request.user.has_perm("survey_app.change_survey"),
               **_figures_context(request, survey, PrivacyForm(instance=survey))}
    return render(request, "design/edit.html", context, status=400 if posted else 200)


@designer_required("view")
@require_POST
def survey_figures(request, slug: str):
    """The privacy panel for the settings being edited (posted, not saved): the page asks it as they change."""
    survey = _designed(request, slug)
    form = PrivacyForm(request.POST, instance=survey, prefix="p")
    context = _figures_context(request, survey, form)
    return render(request, "design/figures.html", {"survey": survey, **context},
                  status=400 if "figure_errors" in context else 200)


ACTIONS = {"open": "change", "close": "change", "clone": "add"}


@designer_required("view")
@require_http_methods(["GET", "POST"])
def survey_action(request, slug: str, action: str):
    """Open, close or clone ``slug``: a page that says what it means (GET), and does it (POST)."""
    survey = _designed(request, slug)
    if action not in ACTIONS:
        raise Http404("No such action.")
    if not request.user.has_perm(f"survey_app.{ACTIONS[action]}_survey"):
        raise PermissionDenied("This action needs another permission.")
    problem = None
    if action == "open" and survey.status != Survey.Status.DRAFT:
        problem = gettext("Only a draft can be opened: this survey is %(status)s.") % {
            "status": survey.get_status_display().lower()}
    if action == "close" and survey.status != Survey.Status.OPEN:
        problem = gettext("Only an open survey can be closed.")
    if request.method == "POST" and problem is None:
        try:
            target = services.act_on_survey(survey, action, request.user)
        except ValueError as exc:
            problem = str(exc)
        else:
            done = {"open": gettext("“%(title)s” is open: respondents can answer at %(link)s."),
                    "close": gettext("“%(title)s” is closed: it takes no more reports."),
                    "clone": gettext("“%(title)s” cloned as a new draft.")}[action]
            messages.success(request, done % {"title": survey.title, "link": reverse("survey", args=[survey.slug])})
            return redirect("design-edit", slug=target.slug)
    return render(request, "design/confirm.html", {"survey": survey, "action": action, "problem": problem},
                  status=409 if problem and request.method == "POST" else 200)
