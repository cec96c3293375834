"""The dashboard's per-version exports (docs/dashboard.md, "Downloads"): the estimated frequency
tables as CSV and as an Excel workbook, and the model card as an HTML page and as Markdown.

Same access as every dashboard page (``views.staff_required``, then the survey's managers only: others get 404); a
version the survey does not have is 404 — the URL converter takes ASCII digits only, so "²" or "-1" never reach a
view (a NUL is refused with 400 before), and a number beyond PostgreSQL's integer finds no row. The work is in
``exports``: these views read the stored ``ModelVersion``, ask for the survey's protocol and hand both over.
"""
from __future__ import annotations

from functools import wraps

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from survey_app.protocol import get_protocol

from . import exports
from .views import _attachment, _version, staff_required

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def version_export(view):
    """Staff only, GET only; the view gets the ``ModelVersion`` (404 if the survey has no such version or the user
    may not manage it) and the survey's protocol — 409 when the survey's settings no longer build one."""
    @staff_required
    @require_GET
    @wraps(view)
    def wrapped(request, slug: str, version: int):
        v = _version(request, slug, version)
        try:
            protocol = get_protocol(v.survey)
        except ValueError as exc:
            return HttpResponse(f"The survey's settings do not make a protocol: {exc}", status=409,
                                content_type="text/plain; charset=utf-8")
        return view(request, v, protocol)
    return wrapped


def _rows(v, protocol) -> list[dict]:
    return exports.frequency_rows(v.model, protocol, exports.question_texts(v.survey))


def _name(v, suffix: str) -> str:
    return f"{v.survey.slug}-v{v.version}-{suffix}"


@version_export
def frequencies_csv(request, v, protocol):
    """The version's estimated frequency tables, one row per parameter with its standard error (``exports``)."""
    body = exports.frequencies_csv(_rows(v, protocol))
    return _attachment(HttpResponse(body, content_type="text/csv; charset=utf-8"), _name(v, "frequencies.csv"))


@version_export
def frequencies_xlsx(request, v, protocol):
    """The same tables as an .xlsx workbook: a "Summary" sheet, then one sheet per question."""
    body = exports.frequencies_xlsx(_rows(v, protocol), exports.frequency_summary(exports.card_for(v, protocol)))
    return _attachment(HttpResponse(body, content_type=XLSX_TYPE), _name(v, "frequencies.xlsx"))


@version_export
def model_card(request, v, protocol):
    """The version's model card as a page."""
    return render(request, "dashboard/model_card.html",
                  {"survey": v.survey, "version": v, "card": exports.card_for(v, protocol)})


@version_export
def model_card_markdown(request, v, protocol):
    """The version's model card as a Markdown file."""
    body = exports.model_card_markdown(exports.card_for(v, protocol))
    return _attachment(HttpResponse(body, content_type="text/markdown; charset=utf-8"), _name(v, "model-card.md"))
