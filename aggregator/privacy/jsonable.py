"""Plain JSON values from engine results (numpy arrays and scalars, tuples, non-finite floats)."""
from __future__ import annotations

import json
import math
from decimal import Decimal

import numpy as np

__all__ = ["json_safe", "browser_json"]


def json_safe(value):
    """numpy arrays/scalars → Python lists/numbers, tuples → lists, ±∞ → "Infinity"/"-Infinity", NaN → None."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


def format_epsilon(value, spec: str = ".3g") -> str:
    """A stored or computed ε for people: "∞" for +∞ (``json_safe`` stores it as "Infinity"), else ``format(spec)``."""
    number = float(value)  # float("Infinity") is inf
    return "∞" if math.isinf(number) and number > 0 else format(number, spec)


def _js_number(value: float) -> str:
    """``value`` as JavaScript's ``Number.prototype.toString()`` writes it (ECMA-262 Number::toString, radix 10):
    the same shortest round-trip digits as Python's ``repr``, placed by the specification's rules."""
    if value == 0:
        return "0"
    if value < 0:
        return "-" + _js_number(-value)
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    s = "".join(map(str, digits))
    k = len(s)
    n = k + int(exponent)
    if k <= n <= 21:
        return s + "0" * (n - k)
    if 0 < n <= 21:
        return s[:n] + "." + s[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + s
    e = n - 1
    mantissa = s if k == 1 else s[0] + "." + s[1:]
    return f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def _array_index(key: str) -> int | None:
    """``key`` as a JavaScript array index (a canonical integer string below 2³² − 1), else ``None``: such keys come
    first, in numeric order, in every JavaScript object."""
    if key.isdigit() and key.isascii() and (key == "0" or key[0] != "0") and int(key) < 2**32 - 1:
        return int(key)
    return None


def browser_json(value) -> str:
    """``JSON.stringify(JSON.parse(json))`` as a browser computes it for ``json``, the JSON of ``value`` (a
    JSON-ready value: ``json_safe``): no spaces, numbers as JavaScript writes them, objects' array-index keys first.
    The page hashes this text (static/js/memo.mjs ``protocolVersion``), so the server can hash the same."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, np.generic):
        return browser_json(value.item())
    if isinstance(value, int):
        return _js_number(float(value)) if abs(value) >= 2**53 else str(value)
    if isinstance(value, float):
        return _js_number(value) if math.isfinite(value) else "null"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        items = [(str(k), v) for k, v in value.items()]
        indexed = sorted((i, kv) for kv in items if (i := _array_index(kv[0])) is not None)
        ordered = [kv for _, kv in indexed] + [kv for kv in items if _array_index(kv[0]) is None]
        return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{browser_json(v)}" for k, v in ordered) + "}"
    if isinstance(value, (list, tuple, np.ndarray)):
        return "[" + ",".join(browser_json(v) for v in value) + "]"
    raise TypeError(f"not JSON: {type(value).__name__}")
