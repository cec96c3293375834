"""Pages, actions and downloads of the staff dashboard (docs/dashboard.md).

Access: every view needs an active staff user (``staff_required``: anonymous visitors are sent to the admin login,
signed-in users who are not active staff get 403), and a survey's pages need a user who may manage that survey —
its designers and superusers (``survey_app.permissions``, the admin's rule); other surveys answer 404.

Views read what the pipeline stored (``SurveyStatistics``, ``ModelVersion``, ``Job``) and never fold or estimate
themselves, except "Retrain now", which starts ``tasks.retrain_job`` through ``aggregator.jobs`` (the page then
polls ``job_status``). Figures for the charts come from ``charts`` and reach the page through ``json_script``.
"""
from __future__ import annotations

import json
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse, HttpResponseBase, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from aggregator import jobs, services, tasks
from aggregator.api import records_to_matrix
from aggregator.models import Job, ModelVersion, SurveyStatistics
from aggregator.privacy import mechanisms
from aggregator.privacy.naive_bayes.model import NaiveBayesModel
from aggregator.privacy.protocol import SETTING_SYMBOLS, SurveyProtocol
from survey_app import inbox
from survey_app.models import Survey, feature_labels, settings_config
from survey_app.permissions import can_manage, surveys_for
from survey_app.protocol import get_protocol
from survey_app.reports import todays_assignment

from . import charts
from .exports import reports_csv as report_export
from .exports import scikit_learn
from .forms import PredictionForm

#: Reports read per database round trip while streaming the CSV export.
CSV_CHUNK = 2000


# -- access ----------------------------------------------------------------------------------------------------
def staff_required(view):
    """Anonymous → redirect to the admin login (then back); signed in but not active staff → 403."""
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        user = request.user
        if not user.is_authenticated:
            return redirect_to_login(request.get_full_path(), reverse("admin:login"))
        if not (user.is_active and user.is_staff):
            raise PermissionDenied("The dashboard is for staff only.")
        return view(request, *args, **kwargs)
    return wrapped


def managed_survey(request, slug: str) -> Survey:
    """The survey ``slug`` if the user may manage it (designer or superuser), else 404."""
    return get_object_or_404(surveys_for(request.user), slug=slug)


def _protocol_privacy(survey: Survey) -> dict | None:
    """The privacy figures the survey's settings give before any model (``None`` for an incomplete draft)."""
    try:
        return get_protocol(survey).privacy()
    except ValueError:
        return None


def _unprotected(survey: Survey) -> list[str]:
    """The questions the survey's settings give no privacy (``SurveyProtocol.unprotected``: ε = ∞ against every
    reader); empty for an incomplete draft."""
    try:
        return get_protocol(survey).unprotected()
    except ValueError:
        return []


def _accuracy_at_publication(survey: Survey) -> bool | None:
    """Whether a version's accuracy is measured when it is published (``SurveyProtocol.accuracy_at_publication``),
    ``None`` for an incomplete draft."""
    try:
        return get_protocol(survey).accuracy_at_publication
    except ValueError:
        return None


def _privacy_setting(survey: Survey) -> dict:
    """What the survey's mode decides about its privacy (``SurveyProtocol.for_mode``, so incomplete drafts too): the
    name (a glossary anchor), symbol and value of the setting that sets the privacy level, and whether ε and PSE come
    per group of questions."""
    protocol = SurveyProtocol.for_mode(survey.mode)
    level = protocol.privacy_settings[0]
    return {"name": level, "symbol": SETTING_SYMBOLS[level], "value": getattr(survey, level),
            "grouped": protocol.grouped_privacy}


def _mechanism_terms(survey: Survey) -> list[list[tuple[str, str]]]:
    """Per mechanism the survey's settings name beyond its mode — the encoding's oracle (after the word "encoding"),
    the Gaussian approach — its (glossary anchor, label) terms, from its own description (``privacy.describe``)."""
    try:
        used = mechanisms.of_settings(settings_config(survey))
    except ValueError:  # settings the survey's own checks refuse: nothing to name
        return []
    kinds = {"oracle": [("encoding", gettext("encoding"))]}
    return [kinds.get(family, []) + [(m.description.anchor, gettext(m.description.term))]
            for family, m in used if family != "mode"]


def _pending_reports(survey: Survey, statistics: SurveyStatistics | None) -> int:
    """Reports in the inbox: received, not yet folded into any model."""
    return inbox.pending_count(survey)


def _with_percent(accuracy: dict | None) -> dict | None:
    """An accuracy dict (``AccuracyEstimate.to_dict()``) with its estimate and interval in per cent, for display."""
    if accuracy is None:
        return None
    return {**accuracy, **{f"{key}_pct": 100.0 * accuracy[key] for key in ("estimate", "low", "high")}}


def _accuracy(pair) -> dict | None:
    """``services.latest_accuracy``'s (version, accuracy) as one dict with the version in it."""
    return _with_percent({"version": pair[0], **pair[1]}) if pair else None


# -- surveys list ----------------------------------------------------------------------------------------------
def _survey_row(survey: Survey) -> dict:
    statistics = SurveyStatistics.objects.filter(survey=survey).first()
    latest = services.latest_version(survey)
    privacy = latest.privacy if latest else _protocol_privacy(survey)
    return {
        "survey": survey,
        "training": statistics.report_count + statistics.open_report_count if statistics else 0,
        "validation": statistics.validation_count + statistics.open_validation_count if statistics else 0,
        "pending": _pending_reports(survey, statistics),
        "latest": latest,
        "accuracy": _accuracy(services.latest_accuracy(survey)) if latest else None,
        "privacy": charts.privacy_summary(privacy),
        "warnings": charts.warning_count(latest.metrics) if latest else 0,
    }


@staff_required
@require_GET
def survey_list(request):
    surveys = surveys_for(request.user).order_by("-created_at")
    return render(request, "dashboard/survey_list.html", {"rows": [_survey_row(s) for s in surveys]})


# -- survey page -----------------------------------------------------------------------------------------------
def _reports_by_day(survey: Survey) -> list[tuple]:
    """(received_on, training, validation) per day with reports (folded, and still in the inbox)."""
    return inbox.reports_by_day(survey)


#: Largest id or version number a query parameter may name (PostgreSQL's bigint).
_MAX_ID = (1 << 63) - 1


def ascii_int(value: str) -> int | None:
    """A non-negative id from a query parameter: ASCII digits only (``str.isdigit`` accepts "²", which ``int`` refuses)
    and within bigint; ``None`` otherwise."""
    if not (value.isascii() and value.isdigit()):
        return None
    number = int(value)
    return number if number <= _MAX_ID else None


def _requested_job(request, survey: Survey) -> Job | None:
    job_id = ascii_int(request.GET.get("job", ""))
    return Job.objects.filter(pk=job_id, survey=survey).first() if job_id is not None else None


def _allocation(survey: Survey, latest: ModelVersion | None) -> list[dict] | None:
    """Adaptive allocation: each input's chance (%) today and from the day after the newest version, as the
    protocol API serves them (``served_assignment``: uniform where nothing fits); ``None`` for other surveys."""
    protocol = get_protocol(survey)
    if not protocol.publishes_assignment:
        return None
    labels = [label.rstrip(": ") for label, _ in protocol.checked_oracles()]
    uniform = [1 / len(labels)] * len(labels)
    served = protocol.served_assignment(todays_assignment(survey)[0])
    today = uniform if served is None else served.tolist()
    served_next = protocol.served_assignment(latest.metrics.get("assignment")) if latest else None
    following = today if served_next is None else served_next.tolist()
    return [{"label": label, "today": 100 * a, "next": 100 * b}
            for label, a, b in zip(labels, today, following, strict=True)]


@staff_required
@require_GET
def survey_detail(request, slug: str):
    survey = managed_survey(request, slug)
    versions = list(ModelVersion.objects.filter(survey=survey).defer("model").order_by("-version"))
    requested = request.GET.get("version", "")
    selected = None  # the version whose distributions and privacy the charts show: ?version=N, else the latest
    if ascii_int(requested) is not None:
        selected = get_object_or_404(ModelVersion, survey=survey, version=ascii_int(requested))
    elif versions:
        selected = ModelVersion.objects.get(pk=versions[0].pk)
    accuracies = services.accuracy_by_version(survey) if versions else {}
    by_day = _reports_by_day(survey)
    statistics = SurveyStatistics.objects.filter(survey=survey).first()
    privacy = selected.privacy if selected else _protocol_privacy(survey)
    job = _requested_job(request, survey)
    all_findings = charts.findings((v.version, v.metrics) for v in versions)
    chart_data = {
        "reports": charts.reports_over_time(by_day),
        "accuracy": charts.accuracy_series([v.version for v in versions], accuracies),
        "distributions": charts.attribute_distributions(selected.model, get_protocol(survey)) if selected else [],
        "privacy": charts.privacy_per_attribute(privacy) if privacy else None,
    }
    # The charts' label of each select-all question's choice ("sports — swimming", not its feature name sports__1).
    chart_data["labels"] = feature_labels(survey.questions.prefetch_related("choices"))
    context = {
        "survey": survey,
        "versions": [{"version": v, "accuracy": _with_percent(accuracies.get(v.version)),
                      "warnings": charts.warning_count(v.metrics)} for v in versions],
        "selected": selected,
        "latest": versions[0] if versions else None,
        "latest_accuracy": _accuracy(services.latest_accuracy(survey)) if versions else None,
        "received_training": sum(r[1] for r in by_day),
        "received_validation": sum(r[2] for r in by_day),
        "statistics": statistics,
        "pending": _pending_reports(survey, statistics),
        "privacy_summary": charts.privacy_summary(privacy),
        "accuracy_at_publication": _accuracy_at_publication(survey),
        "privacy_setting": _privacy_setting(survey),
        "mechanism_terms": _mechanism_terms(survey),
        "warnings": [f for f in all_findings if f["warning"]],
        "unprotected": (unprotected := _unprotected(survey)),
        "warning_total": sum(f["warning"] for f in all_findings) + bool(unprotected),
        # Per-report checks run on every input of every version: only their warnings are worth showing.
        "notes": [f for f in all_findings if not f["warning"] and selected and f["version"] == selected.version
                  and f["kind"] != "report_check"],
        "job": job,
        "chart_data": chart_data,
        # A mixed survey's model has no scikit-learn counterpart (scikit_learn.sklearn_estimator): no such download.
        "sklearn_export": selected is None
        or scikit_learn.has_sklearn_estimator(NaiveBayesModel.from_dict(selected.model)),
        "allocation": _allocation(survey, versions[0] if versions else None),
        "admin_url": reverse("admin:survey_app_survey_change", args=[survey.pk]),
    }
    return render(request, "dashboard/survey_detail.html", context)


# -- actions ---------------------------------------------------------------------------------------------------
@staff_required
@require_POST
def retrain(request, slug: str):
    """Start a "retrain now" job and go back to the survey page, which follows its progress."""
    survey = managed_survey(request, slug)
    job = jobs.start(Job.Kind.RETRAIN, tasks.retrain_job, survey=survey, user=request.user)
    return redirect(f"{reverse('dashboard:survey', args=[survey.slug])}?job={job.pk}#retrain")


@staff_required
@require_GET
def job_status(request, job_id: int):
    """``Job.as_dict()`` as JSON for the polling page (survey jobs: its managers; others: superusers, the starter)."""
    job = get_object_or_404(Job.objects.select_related("survey"), pk=job_id)
    user = request.user
    allowed = can_manage(user, job.survey) if job.survey_id else (user.is_superuser or job.created_by_id == user.pk)
    if not allowed:
        raise Http404("No such job.")
    if jobs.reap_stale(job):  # its worker died: the page stops waiting now, not at the next periodic reap
        job.refresh_from_db()
    response = JsonResponse(job.as_dict())
    response["Cache-Control"] = "no-store"
    return response


@staff_required
@require_http_methods(["GET", "POST"])
def predict(request, slug: str):
    """Classify one record typed in by staff with the latest published version: predicted class and probabilities."""
    survey = managed_survey(request, slug)
    latest = services.latest_version(survey)
    form = PredictionForm(survey, request.POST if request.method == "POST" else None)
    result = None
    if latest is not None and form.is_bound and form.is_valid():
        model = NaiveBayesModel.from_dict(latest.model)
        X = get_protocol(survey).to_model_input(records_to_matrix(survey, [form.record()]))
        probabilities = model.predict_proba(X)[0]
        result = {"predicted": model.predict_labels(X)[0],
                  "probabilities": sorted(zip(model.classes, probabilities.tolist(), strict=True), key=lambda p: -p[1])}
    return render(request, "dashboard/predict.html",
                  {"survey": survey, "latest": latest, "form": form, "result": result})


# -- downloads -------------------------------------------------------------------------------------------------
def _attachment(response: HttpResponseBase, filename: str) -> HttpResponseBase:
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response


def _version(request, slug: str, version: int) -> ModelVersion:
    return get_object_or_404(ModelVersion, survey=managed_survey(request, slug), version=version)


@staff_required
@require_GET
def model_json(request, slug: str, version: int):
    """The version's ``NaiveBayesModel.to_dict()`` (``NaiveBayesModel.from_dict`` reads it back)."""
    v = _version(request, slug, version)
    body = json.dumps(v.model, indent=1, ensure_ascii=False)
    return _attachment(HttpResponse(body, content_type="application/json"), f"{slug}-v{version}.json")


@staff_required
@require_GET
def reports_csv(request, slug: str):
    """Every stored report (folded, and still in the inbox), streamed as CSV: id, received_on, kind, payload
    (``report_export.report_rows``), by day and, within a day, by random key (no order survives)."""
    survey = managed_survey(request, slug)
    reports = inbox.all_reports(survey, chunk_size=CSV_CHUNK)
    response = StreamingHttpResponse(report_export.report_rows(reports), content_type="text/csv; charset=utf-8")
    return _attachment(response, f"{slug}-reports.csv")
