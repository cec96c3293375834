"""A survey's look and its end: an accent colour, a logo, a thank-you text or a redirect after Send.

The accent colour is where static/css/coinflip.css uses ``--accent``: the buttons' background under white text, and
the links' and secondary buttons' text on the page's light backgrounds. So it must reach WCAG 2.2's AA contrast for
normal text (4.5:1, success criterion 1.4.3) against white and every light background of those pages
(``BACKGROUNDS``); a colour that does not is refused, with the nearest darker shade of the same hue that does.

The page gets the colour from a stylesheet of its own (``/s/<slug>/theme.css``), never an inline style, so the
Content-Security-Policy keeps ``style-src 'self'``. The logo is served by the site (``/s/<slug>/logo``), PNG, JPEG or
WebP only (no SVG: it can carry script), at most ``LOGO_MAX_BYTES`` and ``LOGO_MAX_SIDE`` pixels a side.
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

#: The light backgrounds the accent colour is read on (coinflip.css): the page, the explanations, the warnings.
BACKGROUNDS = ("#ffffff", "#f3f6fb", "#fff4e5")
#: WCAG 2.2 AA, normal text (success criterion 1.4.3).
AA_CONTRAST = 4.5
HEX_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")

LOGO_MAX_BYTES = 200 * 1024
LOGO_MAX_SIDE = 1200
#: Pillow's format name → the content type the logo is served with.
LOGO_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}

END_URL_MAX = 500


def _channel(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(colour: str) -> float:
    """The relative luminance of ``#rrggbb`` (WCAG 2.2's definition; sRGB)."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * _channel(r) + 0.7152 * _channel(g) + 0.0722 * _channel(b)


def contrast(first: str, second: str) -> float:
    """The contrast ratio (L1 + 0.05) / (L2 + 0.05) of two ``#rrggbb`` colours, from 1 to 21."""
    a, b = sorted((luminance(first), luminance(second)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def worst_contrast(colour: str) -> float:
    """The accent's lowest contrast against the backgrounds it is read on (white text on it included)."""
    return min(contrast(colour, background) for background in BACKGROUNDS)


def darkened(colour: str) -> str:
    """The lightest shade of ``colour`` (its channels scaled down together, so its hue stays) that reaches
    ``AA_CONTRAST`` on every background; black at worst."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    for step in range(100, -1, -1):
        shade = "#{:02x}{:02x}{:02x}".format(*(round(c * step / 100) for c in (r, g, b)))
        if worst_contrast(shade) >= AA_CONTRAST:
            return shade
    return "#000000"


def validate_accent(value: str) -> None:
    """An accent colour: ``#rrggbb`` reaching AA contrast (4.5:1) as text on the pages' light backgrounds and under
    white text; else ValidationError naming the ratio and a darker shade that passes."""
    if not value:
        return
    if not HEX_COLOUR.match(value):
        raise ValidationError(_("Enter a colour as # and six hexadecimal digits, e.g. #0b5cad."), code="colour")
    ratio = worst_contrast(value.lower())
    if ratio < AA_CONTRAST:
        raise ValidationError(
            _("%(colour)s is too light: text in it (and white text on it) has a contrast of %(ratio).2f:1 where "
              "WCAG AA asks for 4.5:1. The nearest darker shade that passes is %(suggestion)s.")
            % {"colour": value, "ratio": ratio, "suggestion": darkened(value.lower())}, code="contrast")


def validate_end_url(value: str) -> None:
    """An end page's address: https, a host, no user name or password; it is the same for every respondent."""
    if not value:
        return
    try:
        parts = urlsplit(value)
        hostname = parts.hostname
    except ValueError:  # e.g. an unclosed IPv6 bracket
        hostname = None
    if not hostname or parts.scheme != "https":
        raise ValidationError(_("The address after Send must start with https:// and name a host."), code="end_url")
    if parts.username is not None or parts.password is not None:
        raise ValidationError(_("The address after Send may not contain a user name or password."), code="end_url")
    if len(value) > END_URL_MAX or any(c.isspace() for c in value):
        raise ValidationError(_("The address after Send must be one address of at most 500 characters."),
                              code="end_url")


@dataclass(frozen=True)
class Logo:
    data: bytes
    content_type: str


def check_logo_size(size: int) -> None:
    """ValidationError if a logo of ``size`` bytes is too large."""
    if size > LOGO_MAX_BYTES:
        raise ValidationError(_("The logo is %(size)d KB; at most %(limit)d KB.")
                              % {"size": -(-size // 1024), "limit": LOGO_MAX_BYTES // 1024}, code="logo")


def read_logo(data: bytes) -> Logo:
    """``data`` as a survey logo if it is a PNG, JPEG or WebP image within the limits, else ValidationError."""
    from PIL import Image, UnidentifiedImageError

    check_logo_size(len(data))
    try:
        with Image.open(io.BytesIO(data)) as image:
            kind, size = image.format, image.size
            image.verify()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        raise ValidationError(_("The logo must be a PNG, JPEG or WebP image; this file is none of them."),
                              code="logo") from None
    if kind not in LOGO_TYPES:
        raise ValidationError(_("The logo must be a PNG, JPEG or WebP image, not %(kind)s.") % {"kind": kind},
                              code="logo")
    if max(size) > LOGO_MAX_SIDE:
        raise ValidationError(_("The logo is %(width)d×%(height)d pixels; at most %(limit)d on a side.")
                              % {"width": size[0], "height": size[1], "limit": LOGO_MAX_SIDE}, code="logo")
    return Logo(data, LOGO_TYPES[kind])


def stylesheet(accent: str) -> str:
    """The survey's stylesheet: the accent colour as ``--accent`` (checked by ``validate_accent`` when saved)."""
    if not HEX_COLOUR.match(accent or ""):
        return ""
    return f":root {{ --accent: {accent.lower()}; }}\n"
