"""The respondents' body checks (``survey_app.bodies``) answer exactly as the DRF serializers built from the same
declaration: the same values kept, the same errors under the same keys, in English and in German."""
from __future__ import annotations

import json

import pytest
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from survey_app.respondent_views import REDEEM_BODY, REPORT_BODY, RedeemSerializer, ReportSerializer

NONCE = "A" * 21 + "Q"

# Values chosen to reach every check: blank, whitespace, null, numbers taken as text, booleans, containers, NUL and
# surrogate characters, lengths at and beyond each limit, the nonce's pattern and its near misses.
TEXTS = ["", " ", "\t\n", "x", " x ", "\x00", "a\x00b", "\ud800", "ok\udfff", "é" * 64, "é" * 65, "y" * 2048,
         "y" * 2049, NONCE, " " + NONCE + " ", NONCE[:-1] + "B", NONCE + "A", "A" * 22, "+" * 22]
VALUES = TEXTS + [None, 0, 7, -1.5, 1e100, True, False, [], ["x"], {}, {"a": 1}]

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                           | st.text(max_size=30) | st.sampled_from(VALUES),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                                        max_size=3),
                           max_leaves=6)


def bodies(keys):
    names = st.sampled_from(list(keys) + ["other", "Token", ""])
    return st.one_of(st.dictionaries(names, st.sampled_from(VALUES) | json_values, max_size=6), json_values)


def drf(serializer_class, data):
    serializer = serializer_class(data=data)
    if serializer.is_valid():
        return dict(serializer.validated_data), {}
    return {}, json.loads(json.dumps(serializer.errors))


def ours(body, data):
    values, errors = body.check(data)
    return values, json.loads(json.dumps(errors))


def same(body, serializer_class, data) -> bool:
    """Ours equals the serializer's answer; a ``null`` body, the one intended difference, is refused as a value of
    type NoneType (the serializer: "No data provided")."""
    if data is None:
        return ours(body, data) == ({}, {"non_field_errors": [
            str(serializer_class.default_error_messages["invalid"]).format(datatype="NoneType")]})
    return ours(body, data) == drf(serializer_class, data)


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize(("body", "serializer_class"), [(REPORT_BODY, ReportSerializer),
                                                        (REDEEM_BODY, RedeemSerializer)], ids=["report", "redeem"])
def test_every_listed_value_of_every_key(body, serializer_class, language):
    with translation.override(language):
        for name in body.keys:
            for value in VALUES:
                base = {"report": {"r": 1}} if body is REPORT_BODY else {"token": "t", "blinded_msg": "m"}
                data = {**base, name: value}
                assert same(body, serializer_class, data), (name, value)
            assert same(body, serializer_class, {k: v for k, v in data.items() if k != name}), name


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize(("body", "serializer_class"), [(REPORT_BODY, ReportSerializer),
                                                        (REDEEM_BODY, RedeemSerializer)], ids=["report", "redeem"])
@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_body(body, serializer_class, language, data):
    """Any JSON value as a body (objects of the declared keys, others and near misses among them)."""
    value = data.draw(bodies(body.keys))
    with translation.override(language):
        assert same(body, serializer_class, value)


def test_the_messages_are_translated():
    with translation.override("de"):
        _, errors = REDEEM_BODY.check({"blinded_msg": "m", "key_id": "k" * 65})
        assert errors == drf(RedeemSerializer, {"blinded_msg": "m", "key_id": "k" * 65})[1]
    assert errors["token"] != ["This field is required."] and "64" in errors["key_id"][0]
