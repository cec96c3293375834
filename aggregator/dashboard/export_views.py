"""The dashboard's per-version downloads (docs/dashboard.md, "Downloads"), one view for every format of
``exports.registry.FORMATS``, and the model card as a page.

Same access as every dashboard page (``views.staff_required``, then the survey's managers only: others get 404); a
version the survey does not have is 404 — the URL converter takes ASCII digits only, so "²" or "-1" never reach a
view (a NUL is refused with 400 before), and a number beyond PostgreSQL's integer finds no row. The work is in
``exports``: these views read the stored ``ModelVersion``, ask for the survey's protocol and hand both over.
"""
from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from survey_app.protocol import get_protocol

from .exports.model_card import card_for
from .exports.registry import BY_NAME
from .views import _attachment, _version, staff_required


def _conflict(message: str) -> HttpResponse:
    return HttpResponse(message, status=409, content_type="text/plain; charset=utf-8")


@staff_required
@require_GET
def download(request, slug: str, version: int, fmt: str):
    """The version in the format ``fmt`` (a name of ``exports.registry.BY_NAME``); 409 when the survey's settings no
    longer build a protocol the format needs, or the version has no such form (a mixed model in scikit-learn)."""
    export = BY_NAME[fmt]
    v = _version(request, slug, version)
    protocol = None
    if export.needs_protocol:
        try:
            protocol = get_protocol(v.survey)
        except ValueError as exc:
            return _conflict(f"The survey's settings do not make a protocol: {exc}")
    try:
        body = export.build(v, protocol)
    except ValueError as exc:
        return _conflict(str(exc))
    return _attachment(HttpResponse(body, content_type=export.content_type),
                       f"{v.survey.slug}-v{v.version}-{export.suffix}")


@staff_required
@require_GET
def model_card(request, slug: str, version: int):
    """The version's model card as a page."""
    v = _version(request, slug, version)
    try:
        protocol = get_protocol(v.survey)
    except ValueError as exc:
        return _conflict(f"The survey's settings do not make a protocol: {exc}")
    return render(request, "dashboard/model_card.html",
                  {"survey": v.survey, "version": v, "card": card_for(v, protocol)})
