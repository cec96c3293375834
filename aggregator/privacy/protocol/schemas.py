"""JSON Schemas of report bodies: one survey's exact schema, and the mechanisms' generic shapes.

* ``SurveyProtocol.report_schema()`` — the JSON Schema (2020-12) of one report a survey accepts, training or
  validation: composed by each protocol from its oracles' ``wire_schema()`` (``oracles.wire``) with the builders
  below, with the bounds ``parse_one`` checks (keys, inputs, groups, answer codes, wire values). A report it admits
  is one ``parse_one`` accepts, except what no schema knows: a validation report's model version must be published
  (``survey_app.reports``), and JSON Schema's "integer" also admits 1.0, which the wire refuses (``wire.is_int``).
  Base64 is admitted in its canonical form only (zero filler bits), which every browser sends.
* ``report_shapes()`` (package ``protocol``) — one generic shape per mechanism's report, whatever the survey: the
  same builders over ``loosen``ed wire schemas of every registered oracle and Gaussian approach. The OpenAPI document
  types the report body as their ``oneOf`` (``survey_app.api``); they are OpenAPI 3.0 schemas (no 2020-12 keywords).
"""
from __future__ import annotations

import json
from typing import Iterable

from .. import oracles
from ..oracles.wire import INT64_MAX, integer_schema, tuple_schema

__all__ = ["DIALECT", "obj", "keyed_cases", "array_of", "document", "loosen", "any_of", "validation_shape",
           "ldp_validation_inner", "any_oracle_wire", "INDEX"]

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def obj(properties: dict, required: Iterable[str] | None = None) -> dict:
    """An object holding exactly ``properties`` (all required unless ``required`` says otherwise)."""
    return {"type": "object", "properties": properties,
            "required": sorted(properties if required is None else required), "additionalProperties": False}


def keyed_cases(key: str, cases: list[tuple[int, dict]], value_key: str = "report") -> dict:
    """``{key: i, value_key: <cases[i]'s schema>}`` for each (i, schema) of ``cases``; indices sharing a schema share
    one branch (``enum``), and several branches are a ``oneOf`` (they differ by ``key``, so exactly one holds)."""
    groups: dict[str, tuple[list[int], dict]] = {}
    for index, schema in cases:
        groups.setdefault(json.dumps(schema, sort_keys=True), ([], schema))[0].append(int(index))
    branches = [obj({key: {"enum": indices}, value_key: schema}) for indices, schema in groups.values()]
    return branches[0] if len(branches) == 1 else {"oneOf": branches}


def array_of(items: list[dict]) -> dict:
    """A list of exactly ``len(items)`` values, the i-th admitted by ``items[i]`` (``wire.tuple_schema``), written
    as one ``items`` schema with fixed length when every entry has the same schema."""
    if items and all(item == items[0] for item in items):
        return {"type": "array", "items": items[0], "minItems": len(items), "maxItems": len(items)}
    return tuple_schema(items)


def validation_shape(inner: dict) -> dict:
    """A validation report ``{"validation": inner}``."""
    return obj({"validation": inner})


def ldp_validation_inner(report: dict, version: dict | None = None) -> dict:
    """The LDP validation payload: the model version evaluated (an integer ≥ 1) and the binary RR report."""
    return obj({"version": version or integer_schema(1, INT64_MAX), "report": report})


def document(training: dict, validation: dict | None, title: str) -> dict:
    """A standalone JSON Schema of one report: training, or (with a validation share) either kind."""
    body = training if validation is None else {"oneOf": [training, validation]}
    return {"$schema": DIALECT, "title": title, **body}


# -- generic shapes ------------------------------------------------------------------------------------------------

_DROPPED = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "pattern", "minLength",
            "maxLength", "minItems", "maxItems", "$schema", "title"}


#: A generic index (an input, an answer code): an integer ≥ 0.
INDEX = {"type": "integer", "minimum": 0}


def any_oracle_wire() -> dict:
    """The union of the loosened wire schemas of every registered frequency oracle (at ε = 1, d = 4: the shape does
    not depend on them)."""
    shapes = []
    for name in oracles.names(sort=False):
        try:
            oracles.oracle_class(name)
        except ValueError:  # a factory choosing among the others (adaptive)
            continue
        shapes.append(loosen(oracles.get(name, epsilon=1.0, domain=4).wire_schema()))
    return any_of(shapes)


def _json_type(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return {str: "string", list: "array", dict: "object", type(None): "null"}[type(value)]


def any_of(schemas: Iterable[dict]) -> dict:
    """The union of ``schemas`` without repeats (the schema itself when there is one)."""
    unique: dict[str, dict] = {}
    for schema in schemas:
        unique.setdefault(json.dumps(schema, sort_keys=True), schema)
    values = list(unique.values())
    return values[0] if len(values) == 1 else {"anyOf": values}


def loosen(schema: dict) -> dict:
    """The shape of ``schema`` without what depends on one survey (bounds, lengths, patterns, enumerated values),
    in OpenAPI 3.0's subset: tuples become lists of the union of their entries, ``enum`` its values' type, a base64
    string ``format: byte``. Everything ``schema`` admits, its loosened form admits."""
    if not schema:
        return {}
    if "enum" in schema or "const" in schema:
        values = schema.get("enum", [schema.get("const")])
        types = sorted({_json_type(v) for v in values})
        return {"type": types[0]} if len(types) == 1 else {"anyOf": [{"type": t} for t in types]}
    out: dict = {}
    for key, value in schema.items():
        if key in _DROPPED:
            continue
        if key == "contentEncoding":
            out["format"] = "byte"
        elif key == "properties":
            out[key] = {name: loosen(sub) for name, sub in value.items()}
        elif key in ("oneOf", "anyOf"):  # loosened branches may overlap: any of them
            out["anyOf"] = [loosen(sub) for sub in value]
        elif key == "prefixItems":
            out["items"] = any_of(loosen(sub) for sub in value)
        elif key == "items":
            if value is not False:
                out[key] = loosen(value)
        else:
            out[key] = value
    return out
