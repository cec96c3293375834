"""Who may see and manage which survey (designer permissions per survey).

Superusers manage every survey. Other staff manage the surveys they design (``Survey.designers``); Django's model
permissions (``survey_app.change_survey`` …, granted per user or group in the admin) still decide *what* they may do
with them. The admin and the dashboard both ask here, so the rule lives in one place.
"""
from __future__ import annotations

from django.db.models import QuerySet

from .models import Survey


def surveys_for(user, queryset: QuerySet | None = None) -> QuerySet:
    """The surveys ``user`` may see: all for superusers, the ones they design for other active staff, else none."""
    queryset = Survey.objects.all() if queryset is None else queryset
    if not (user.is_active and user.is_staff):
        return queryset.none()
    if user.is_superuser:
        return queryset
    return queryset.filter(designers=user)


def can_manage(user, survey: Survey | None) -> bool:
    """Whether ``user`` may see and act on ``survey`` (``None``: the survey list itself, open to active staff)."""
    if not (user.is_active and user.is_staff):
        return False
    if survey is None or user.is_superuser:
        return True
    return survey.designers.filter(pk=user.pk).exists()
