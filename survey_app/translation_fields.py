"""The designers' translations as form inputs: a ``translations`` JSON value (``survey_app.languages`` gives its shapes)
edited as one input per configured language and translatable text, side by side, instead of raw JSON. An empty input
is no translation (the original is shown); the model's ``clean`` still checks the result (``check_translations``)."""
from __future__ import annotations

from typing import Any, Mapping

from django import forms
from django.conf import settings
from django.utils.translation import gettext, gettext_lazy

__all__ = ["TranslationsField", "TranslationsWidget"]

#: Texts edited in a box of a few lines rather than one line.
LONG_TEXTS = ("description", "help_text", "personal_text")


class TranslationsWidget(forms.MultiWidget):
    """One input per (text, language): a table with a column per language and a row per text, or, for a choice's
    label (``texts`` None), one small input per language in a row."""

    template_name = "survey_app/widgets/translations.html"

    def __init__(self, texts: Mapping[str, Any] | None, languages, attrs=None):
        self.texts = dict(texts) if texts is not None else None
        self.languages = list(languages)
        self.keys = [(code, text) for text in (self.texts or (None,)) for code, _name in self.languages]
        widgets: dict[str, forms.Widget | type[forms.Widget]] = {}
        for code, text in self.keys:
            if text in LONG_TEXTS:
                widget: forms.Widget = forms.Textarea(attrs={"rows": 2, "cols": 30})
            else:
                widget = forms.TextInput(attrs={"size": 30 if text else 14})
            widgets[f"{code}_{text}" if text else code] = widget
        super().__init__(widgets, attrs)

    def decompress(self, value):
        value = value if isinstance(value, dict) else {}
        out = []
        for code, text in self.keys:
            entry = value.get(code)
            if text is not None:
                entry = entry.get(text) if isinstance(entry, dict) else None
            out.append(entry if isinstance(entry, str) else "")
        return out

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        names = dict(self.languages)
        subwidgets = context["widget"]["subwidgets"]
        for (code, text), sub in zip(self.keys, subwidgets, strict=True):
            what = self.texts[text] if text is not None and self.texts is not None else gettext("Label")
            sub["attrs"]["aria-label"] = gettext("%(text)s in %(language)s") % {"text": what,
                                                                               "language": names[code]}
            sub["attrs"]["lang"] = code
            if self.texts is None:  # a row of small inputs without headings: each says its language
                sub["attrs"]["placeholder"] = names[code]
        width = len(self.languages)
        context["widget"]["languages"] = [{"code": code, "name": lang} for code, lang in self.languages]
        if self.texts is None:
            context["widget"]["cells"] = subwidgets
        else:
            context["widget"]["rows"] = [{"label": label, "cells": subwidgets[i * width:(i + 1) * width]}
                                         for i, label in enumerate(self.texts.values())]
        return context


class TranslationsField(forms.MultiValueField):
    """A ``translations`` value from its inputs: ``{language: {text: …}}``, or ``{language: label}`` for a choice
    (``texts`` None); empty inputs left out, so that emptying every input removes the translations.

    Parameters
    ----------
    texts : mapping of str to str (or a lazy translation), or None
        The translatable texts (model field name → label shown), or ``None`` for a choice's label.
    languages : list of (code, name), optional
        The languages offered (default: ``settings.LANGUAGES``).
    """

    default_help_text = gettext_lazy("An empty box shows the original text in that language.")

    def __init__(self, texts: Mapping[str, Any] | None, languages=None, **kwargs):
        widget = TranslationsWidget(texts, languages or settings.LANGUAGES)
        self.keys = widget.keys
        fields = [forms.CharField(required=False) for _ in self.keys]
        kwargs.setdefault("help_text", self.default_help_text)
        super().__init__(fields, widget=widget, require_all_fields=False, required=False, **kwargs)

    def compress(self, data_list) -> dict:
        out: dict = {}
        for (code, text), value in zip(self.keys, data_list or [], strict=False):
            if not value:
                continue
            if text is None:
                out[code] = value
            else:
                out.setdefault(code, {})[text] = value
        return out
