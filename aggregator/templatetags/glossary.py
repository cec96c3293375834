"""``{% term anchor label [tooltip] %}``: a dashboard term linked to its glossary entry (``/dashboard/glossary/``), with
a tooltip — the entry's one-sentence definition, or ``tooltip`` when the page has a more precise one. Load with
``{% load glossary %}`` (``aggregator/dashboard/glossary.py`` holds the entries)."""
from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.html import format_html

from aggregator.dashboard.glossary import entry as glossary_entry

register = template.Library()


@register.simple_tag
def term(anchor: str, label: str | None = None, tooltip: str | None = None) -> str:
    entry = glossary_entry(anchor)
    if entry is None:  # a term without an entry: the plain label, unlinked
        return format_html("{}", label if label is not None else anchor)
    url = f"{reverse('dashboard:glossary')}#{anchor}"
    return format_html('<a class="term" href="{}" title="{}">{}</a>', url, tooltip or entry.short,
                       label if label is not None else entry.term)
