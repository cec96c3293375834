"""The planner's pages (docs/dashboard.md): a form that starts a planner job, the job's page —
its progress, then the accuracy-vs-ε/θ curves with intervals, the privacy of each setting, the respondents needed and
the recommendation — and "apply to a draft survey". Staff only; a job is visible to its starter and superusers, and
a setting can be applied only to a draft the user manages (``survey_app.permissions``)."""
from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from aggregator import jobs, planning, tasks
from aggregator.lab import methods as registry
from aggregator.lab.planner import survey_methods
from aggregator.models import Job
from aggregator.privacy.protocol import SETTING_SYMBOLS
from survey_app.models import Survey
from survey_app.permissions import surveys_for

from .forms import ApplySettingForm, PlannerForm
from .views import staff_required


def _method_choices() -> list[tuple[str, str]]:
    return [(name, f"{name} — {registry.get(name).summary}") for name in survey_methods()]


def _drafts(user):
    return surveys_for(user).filter(status=Survey.Status.DRAFT).order_by("title")


def _planner_job(request, job_id: int) -> Job:
    job = get_object_or_404(Job, pk=job_id, kind=Job.Kind.PLANNER)
    if not (request.user.is_superuser or job.created_by_id == request.user.pk):
        raise Http404("No such planner run.")
    return job


@staff_required
@require_http_methods(["GET", "POST"])
def planner(request):
    """The planner's form; a valid submission starts a job and goes to its page."""
    posted = request.method == "POST"
    form = PlannerForm(request.POST if posted else None, request.FILES if posted else None,
                       datasets=planning.bundled_datasets(), methods=_method_choices())
    if posted and form.is_valid():
        job = jobs.start(Job.Kind.PLANNER, tasks.planner_job, params=form.params(), user=request.user)
        return redirect("dashboard:planner-result", job_id=job.pk)
    recent = Job.objects.filter(kind=Job.Kind.PLANNER, created_by=request.user).order_by("-created_at")[:10]
    return render(request, "dashboard/planner.html", {"form": form, "recent": recent})


def _rows(result: dict) -> list[dict]:
    """The settings as table rows: their index (what "apply" posts) and whether it is the recommendation."""
    chosen = result.get("recommendation") or {}
    return [{**s, "index": i, "symbol": SETTING_SYMBOLS.get(s["parameter"], s["parameter"]),
             "recommended": (s["method"], s["value"]) == (chosen.get("method"), chosen.get("value")),
             "regret_points": _points(s.get("regret"))}
            for i, s in enumerate(result.get("settings", []))]


def _points(interval: dict | None) -> dict | None:
    """A paired interval of accuracies ({"mean", "low", "high"}) in percentage points."""
    if not interval:
        return None
    return {key: None if value is None else 100 * value for key, value in interval.items()}


@staff_required
@require_http_methods(["GET"])
def planner_result(request, job_id: int):
    job = _planner_job(request, job_id)
    context = {"job": job, "source": job.params.get("dataset") or job.params.get("filename", "uploaded CSV"),
               "apply_form": ApplySettingForm(surveys=_drafts(request.user)), "chart_data": None}
    if job.state == Job.State.DONE:
        result = cast(dict, job.result)  # a finished job has its result
        recommendation: dict = result.get("recommendation") or {}
        rows = _rows(result)
        context |= {"result": result, "rows": rows, "warning": planning.usefulness_warning(result),
                    "rec_symbol": SETTING_SYMBOLS.get(recommendation.get("parameter", ""), ""),
                    "edge_notes": any(row.get("epsilon_note") for row in rows),
                    "floors": any(row.get("private_majority") is not None for row in rows),
                    "majority": (planning.percent(result["majority_accuracy"])
                                 if result.get("majority_accuracy") is not None else None)}
        context["chart_data"] = {"settings": result["settings"], "nonprivate": result["nonprivate_accuracy"],
                                 "target": result["target"], "curve": result["learning_curve"],
                                 "majority": result.get("majority_accuracy")}
    return render(request, "dashboard/planner_result.html", context)


@staff_required
@require_POST
def planner_apply(request, job_id: int):
    """Apply one of the job's settings to a draft survey the user manages."""
    job = _planner_job(request, job_id)
    form = ApplySettingForm(request.POST, surveys=surveys_for(request.user))
    result_url = reverse("dashboard:planner-result", args=[job.pk])
    settings = (job.result or {}).get("settings", [])
    if not form.is_valid() or form.cleaned_data["setting"] >= len(settings):
        messages.error(request, "Choose a planned setting and one of your surveys.")
        return redirect(result_url)
    setting, survey = settings[form.cleaned_data["setting"]], form.cleaned_data["survey"]
    try:
        planning.apply_setting(survey, setting)
    except planning.NotADraft as exc:
        messages.error(request, str(exc))
        return redirect(result_url)
    except ValidationError as exc:
        messages.error(request, f"“{survey.title}” cannot take this setting: {'; '.join(exc.messages)}")
        return redirect(result_url)
    parameter = SETTING_SYMBOLS[setting["parameter"]]
    messages.success(request, f"“{survey.title}” now uses {setting['method']} with {parameter} = {setting['value']:g}.")
    return redirect(result_url)
