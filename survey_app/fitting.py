"""What a draft survey derives from its public reference sample once its questions are saved: the PCA/DCA projection
(SPEC §5c, ``services.fit_projection``), adaptive allocation's first days' assignment (``pilot.fit_pilot``) and the
answers per class the model starts from (``pilot.fit_reference_counts``). The sample is public, so none costs
privacy; an opened survey keeps what it was opened with."""
from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.utils.translation import gettext

from .models import Survey
from .pilot import fit_pilot, fit_reference_counts
from .services import fit_projection

__all__ = ["Notice", "refit", "LEVELS"]

#: A notice's level as a ``django.contrib.messages`` level.
LEVELS = {"success": messages.SUCCESS, "warning": messages.WARNING, "error": messages.ERROR}


@dataclass(frozen=True)
class Notice:
    """A sentence for the designer, in the page's language, and how it went: "success", "warning" or "error"."""

    level: str
    text: str


def refit(survey: Survey) -> list[Notice]:
    """Refit the projection and the first days' assignment of a survey not yet opened, after its questions were saved;
    what happened, one ``Notice`` each (none when there is nothing to fit)."""
    if survey.has_opened() or survey.has_reports():
        return []
    notices = []
    if survey.projection != Survey.Projection.NONE:
        try:
            fit_projection(survey)
        except ValueError as exc:
            notices.append(Notice("error", gettext("PCA/DCA not fitted: %(reason)s") % {"reason": exc}))
        else:
            notices.append(Notice("success", gettext("%(projection)s fitted on the reference sample.")
                                  % {"projection": survey.projection.upper()}))
    try:
        if fit_pilot(survey) is not None:
            notices.append(Notice("success", gettext("The first days' assignment of respondents was set from the "
                                                     "reference sample.")))
    except ValueError as exc:
        notices.append(Notice("warning", gettext(
            "The reference sample cannot set the first days' assignment (%(reason)s); respondents are assigned "
            "uniformly until the first model.") % {"reason": exc}))
    try:
        if fit_reference_counts(survey) is not None:
            notices.append(Notice("success", gettext("The model will start from the reference sample's answers per "
                                                     "class; the reports decide how far to trust them.")))
    except ValueError as exc:
        notices.append(Notice("error", gettext(
            "The reference sample cannot be the model's prior (%(reason)s); the model starts from the reports "
            "alone.") % {"reason": exc}))
    return notices
