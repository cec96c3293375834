"""The dashboard's glossary page, ``/dashboard/glossary/``: every term of the dashboard and the planner in plain words
(``glossary.entries``), one anchor per term, which the pages' ``{% term %}`` links point at.
Staff only, like every dashboard page."""
from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.http import require_GET

from .glossary import entries
from .views import staff_required


@staff_required
@require_GET
def glossary(request):
    return render(request, "dashboard/glossary.html", {"entries": entries()})
