"""The mechanisms' texts (``privacy.describe``: titles, glossary entries, planner labels, parameters) reach the
catalogue through the generated ``aggregator/mechanism_texts.py``: it must list exactly what the registered
mechanisms say, and every one has its German (tests/survey/test_languages.py: makemessages finds nothing the .po
lacks)."""
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import translation

from aggregator.mechanism_texts import TEXTS
from aggregator.privacy import describe


def test_the_generated_catalogue_is_current():
    assert list(TEXTS) == describe.texts()
    call_command("mechanism_texts", check=True)


def test_a_stale_catalogue_is_refused(monkeypatch):
    monkeypatch.setattr(describe, "texts", lambda: ["A text no mechanism has yet"])
    with pytest.raises(CommandError, match="stale"):
        call_command("mechanism_texts", check=True)


def test_every_mechanism_text_has_its_german():
    with translation.override("de"):
        untranslated = [text for text in TEXTS if translation.gettext(text) == text]
    assert not untranslated, untranslated
