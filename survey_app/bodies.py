"""The keys of the respondents' two JSON bodies (a report, a redemption), declared once: checked on every request by
``check`` and described to the OpenAPI document by ``serializer`` (a DRF serializer built from the same declaration).

``check`` answers as the generated serializer's ``is_valid`` would — the same checks in the same order, DRF's and
Django's own messages (so in the request's language), the same error shape — without building a serializer and its
fields for every request; a ``null`` body is refused as any other value that is not an object (DRF's serializer
says "No data provided"). tests/survey/test_bodies.py holds the two to each other on hostile bodies.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.core.validators import ProhibitNullCharactersValidator
from rest_framework import serializers
from rest_framework.settings import api_settings
from rest_framework.validators import ProhibitSurrogateCharactersValidator

_FIELD = serializers.Field.default_error_messages
_TEXT = serializers.CharField.default_error_messages
_OBJECT = serializers.Serializer.default_error_messages
_NUL = ProhibitNullCharactersValidator.message
_SURROGATE = ProhibitSurrogateCharactersValidator.message
_SURROGATES = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Key:
    """One key of a body.

    Parameters
    ----------
    help
        Its description in the OpenAPI document.
    text
        A string (DRF's ``CharField``: a number is taken as its text, surrounding whitespace trimmed, blank, NUL and
        surrogate characters refused); otherwise any JSON value but ``null`` (``JSONField``; the view's reader has
        refused the values JSON cannot carry: ``respondent_views.read_json``).
    required
        Whether a body must hold it.
    max_length, pattern, invalid
        A string's longest length; a regular expression it must match and the message when it does not (also the
        message for a value that is not a string).
    field
        The serializer field class describing it (default: ``CharField``, ``RegexField`` or ``JSONField``).
    """

    help: str
    text: bool = False
    required: bool = True
    max_length: int | None = None
    pattern: str | None = None
    invalid: str | None = None
    field: type | None = None

    def check(self, value: Any) -> tuple[Any, list[str]]:
        """(the value as stored, []) or (None, the messages)."""
        if not self.text:
            return (value, []) if value is not None else (None, [str(_FIELD["null"])])
        if value == "" or (value is not None and str(value).strip() == ""):
            return None, [str(_TEXT["blank"])]
        if value is None:
            return None, [str(_FIELD["null"])]
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            return None, [self.invalid or str(_TEXT["invalid"])]
        text = str(value).strip()
        errors = []
        if self.max_length is not None and len(text) > self.max_length:
            errors.append(str(_TEXT["max_length"]).format(max_length=self.max_length))
        if "\x00" in text:
            errors.append(str(_NUL))
        surrogate = _SURROGATES.search(text)
        if surrogate is not None:
            errors.append(str(_SURROGATE).format(code_point=ord(surrogate.group())))
        if self.pattern is not None and not re.search(self.pattern, text):
            errors.append(self.invalid or str(_TEXT["invalid"]))
        return (None, errors) if errors else (text, [])

    def serializer_field(self) -> serializers.Field:
        """The DRF field describing this key (``serializer``)."""
        options: dict[str, Any] = {"required": self.required, "help_text": self.help}
        if not self.text:
            return (self.field or serializers.JSONField)(**options)
        if self.max_length is not None:
            options["max_length"] = self.max_length
        if self.pattern is not None:
            return (self.field or serializers.RegexField)(self.pattern, error_messages={"invalid": self.invalid},
                                                          **options)
        return (self.field or serializers.CharField)(**options)


@dataclass(frozen=True)
class Body:
    """A JSON object holding only ``keys`` (name → ``Key``, in the order their errors are listed)."""

    keys: dict[str, Key]
    unexpected: str  # the message for a key not in ``keys``

    def check(self, data: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
        """(the values of the keys present, {}) or ({}, the errors by key: ``{key: [messages]}``, or
        ``{"non_field_errors": [message]}`` for a body that is not an object)."""
        if not isinstance(data, dict):  # ``null`` too (where DRF's serializer says "No data provided")
            return {}, {api_settings.NON_FIELD_ERRORS_KEY: [str(_OBJECT["invalid"]).format(
                datatype=type(data).__name__)]}
        values: dict[str, Any] = {}
        errors: dict[str, list[str]] = {}
        for name, key in self.keys.items():
            if name not in data:
                if key.required:
                    errors[name] = [str(_FIELD["required"])]
                continue
            values[name], problems = key.check(data[name])
            if problems:
                errors[name] = problems
        if errors:
            return {}, errors
        unknown = sorted(str(name) for name in data if name not in self.keys)
        if unknown:
            return {}, {unknown[0][:40]: [self.unexpected]}
        return values, {}

    def serializer(self, name: str) -> type[serializers.Serializer]:
        """A DRF serializer class ``name`` with one field per key: the OpenAPI document's description of the body
        (drf-spectacular names its component ``name`` without the ``Serializer`` suffix)."""
        fields = {key_name: key.serializer_field() for key_name, key in self.keys.items()}

        def validate(serializer, attrs):
            unknown = sorted(str(key) for key in serializer.initial_data if key not in serializer.fields)
            if unknown:
                raise serializers.ValidationError({unknown[0][:40]: [self.unexpected]})
            return attrs

        return type(name, (serializers.Serializer,), {**fields, "validate": validate, "__module__": __name__})
