"""Privacy figures in templates, written one way everywhere: ``{{ value|epsilon }}`` prints "∞" for +∞ (as stored:
``"Infinity"``), "—" when absent, else two decimals (``{{ value|epsilon:".3f" }}`` for another format)."""
from django import template

from aggregator.privacy.jsonable import format_epsilon

register = template.Library()


@register.filter
def epsilon(value, spec: str = ".2f") -> str:
    """``value`` as ``aggregator.privacy.jsonable.format_epsilon`` writes it; "—" for ``None`` or ``""``."""
    if value is None or value == "":
        return "—"
    try:
        return format_epsilon(value, spec)
    except (TypeError, ValueError):
        return "—"
