"""A survey's own texts in several languages.

The pages are in the language Django's LocaleMiddleware chose (the language cookie of the switch at the foot of every
page, else the browser's Accept-Language; ``settings.LANGUAGES``). A survey's title and description, a question's
text, help text and unrelated ("personal") question, and a choice's label can be given in other languages in their
``translations`` field; a respondent reads them in the page's language, else in the original. Only the display
changes: the protocol, the engine's categories and the reports keep the original labels (the page sends choice
numbers, never labels).

Shapes (checked by ``check_translations``, which the admin's forms call):

- ``Survey.translations``: ``{"de": {"title": "…", "description": "…", "end_text": "…"}}``
- ``Question.translations``: ``{"de": {"text": "…", "help_text": "…", "personal_text": "…", "section": "…"}}`` (a
  section's title is that of the first of its questions that gives one, so that its questions stay on one page)
- ``Choice.translations``: ``{"de": "…"}`` (the label)
"""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import get_language
from django.utils.translation import gettext as _

#: The canonical label of the answer every question may offer (shown translated: ``display_labels``).
PREFER_NOT_TO_SAY = "Prefer not to say"
#: The canonical label of the answer a question shown only on a condition (skip logic) has when it is hidden: one more
#: answer of that question, randomized like the others (``Question.labels``).
NOT_ASKED = "Not asked"

SURVEY_FIELDS = ("title", "description", "end_text")
QUESTION_FIELDS = ("text", "help_text", "personal_text", "section", "matrix")


def language_codes() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def active_language() -> str:
    """The language of the page being made (``en`` outside a request)."""
    return (get_language() or settings.LANGUAGE_CODE).split("-")[0].lower()


def _entry(translations, language: str | None):
    if not isinstance(translations, dict):
        return None
    language = language or active_language()
    return translations.get(language) or translations.get(language.split("-")[0])


def text_in(translations, field: str | None, original: str, language: str | None = None) -> str:
    """``original`` in ``language`` (default: the active one) from ``translations`` — ``{lang: {field: text}}``, or
    ``{lang: text}`` with ``field`` None (a choice's label) — falling back to the original when that language or field
    is missing or empty."""
    entry = _entry(translations, language)
    if field is not None:
        entry = entry.get(field) if isinstance(entry, dict) else None
    return entry if isinstance(entry, str) and entry.strip() else original


def survey_title(survey, language: str | None = None) -> str:
    return text_in(survey.translations, "title", survey.title, language)


def survey_description(survey, language: str | None = None) -> str:
    return text_in(survey.translations, "description", survey.description, language)


def survey_end_text(survey, language: str | None = None) -> str:
    return text_in(survey.translations, "end_text", survey.end_text, language)


def check_translations(value, fields: tuple[str, ...] | None) -> dict:
    """``value`` if it is a valid translations object, else ValidationError with every problem in plain words.

    ``fields``: the names each language may give (``{lang: {field: text}}``); None for a choice's ``{lang: label}``.
    Languages are those of ``settings.LANGUAGES``; texts are strings.
    """
    if value in (None, ""):
        return {}
    if not isinstance(value, dict):
        raise ValidationError(_("Enter a JSON object keyed by language code, e.g. {example}.").format(
            example='{"de": {…}}' if fields else '{"de": "…"}'), code="translations")
    codes = language_codes()
    errors = []
    for language, entry in value.items():
        if language not in codes:
            errors.append(_("“{language}” is not a language of this site (choose from: {codes}).").format(
                language=language, codes=", ".join(codes)))
            continue
        if fields is None:
            if not isinstance(entry, str):
                errors.append(_("The label in “{language}” must be a text.").format(language=language))
            continue
        if not isinstance(entry, dict):
            errors.append(_("The texts in “{language}” must be an object of fields and texts, e.g. {example}.").format(
                language=language, example='{"%s": "…"}' % fields[0]))
            continue
        for field, text in entry.items():
            if field not in fields:
                errors.append(_("“{field}” (in “{language}”) is not a text that can be translated here (choose "
                                "from: {fields}).").format(field=field, language=language, fields=", ".join(fields)))
            elif not isinstance(text, str):
                errors.append(_("“{field}” in “{language}” must be a text.").format(field=field, language=language))
    if errors:
        raise ValidationError(errors, code="translations")
    return value


def _fixed_labels() -> dict[str, str]:
    """The labels the platform itself adds (a yes/no question's, “Prefer not to say”, “Not asked”), in the page's
    language."""
    from django.utils.translation import pgettext

    return {"no": pgettext("answer", "no"), "yes": pgettext("answer", "yes"), PREFER_NOT_TO_SAY: _("Prefer not to say"),
            NOT_ASKED: _("Not asked")}


def display_labels(question, labels: list[str]) -> list[str]:
    """``labels`` (canonical: a question's ``labels()`` or ``options()``) as a respondent reads them: a choice's label
    from its ``translations``, the platform's own labels from the catalogue, in the same order (so the choice numbers
    the page sends are unchanged)."""
    choices = {c.label: c for c in question.choices.all()}
    fixed = _fixed_labels()
    out = []
    for label in labels:
        if label in choices:
            out.append(text_in(choices[label].translations, None, label))
        else:
            out.append(fixed.get(label, label))
    return out


def question_texts(question) -> dict[str, str]:
    """A question's ``text``, ``help_text``, ``personal_text``, ``section`` and ``matrix`` in the page's language
    (each falling back to the original)."""
    return {field: text_in(question.translations, field, getattr(question, field)) for field in QUESTION_FIELDS}


def section_titles(questions, field: str = "section") -> dict[str, str]:
    """{section: its title in the page's language} for the sections of ``questions`` (in order): the translation of
    the first question of the section that gives one, so that every question of a section shows the same title (the
    page groups questions by it). ``field="matrix"``: the same for the titles of matrices."""
    titles: dict[str, str] = {}
    for q in questions:
        key = getattr(q, field)
        if key and key not in titles:
            title = text_in(q.translations, field, "")
            if title:
                titles[key] = title
    return titles


def translation_errors(value, fields: tuple[str, ...] | None) -> dict[str, list[str]]:
    """``{"translations": [messages]}`` when ``value`` is not a valid translations object (``check_translations``),
    else ``{}``: what a model's clean() adds to its errors."""
    try:
        check_translations(value, fields)
    except ValidationError as exc:
        return {"translations": exc.messages}
    return {}
