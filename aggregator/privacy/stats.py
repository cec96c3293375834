"""Additive sufficient statistics.

A frequency oracle's server half folds reports into ``Counts``: the number of reports ``n`` and one
support total per domain value. Statistics of disjoint shards add with ``+`` (``fold(A) + fold(B) ==
fold(A ∪ B)``), so several workers can fold in parallel and retraining costs O(parameters).
They serialize to plain JSON-able dicts for storage.

``Additive`` is the one base of every statistics class (``Counts`` here, ``LDPNBStats``, ``MRRStats``,
``MomentSums``, ``GaussianStats``, ``ReportSums``, ``PlausibilityStats``, ``RecordHistogram``, ``VersionCounts``):
a frozen dataclass inheriting it gets ``+`` (fieldwise), ``sum()`` from 0, ``==`` (fieldwise, arrays by shape and
value) and ``to_dict``/``from_dict`` (one JSON key per field, in field order). A field is

* ``int`` or ``float`` (by annotation): added, stored as a JSON number;
* another ``Additive`` class (by annotation): added, stored as its ``to_dict``;
* ``array(dtype)``: a numpy array, added elementwise (shapes must agree), stored as nested lists; options:
  ``optional`` (may be ``None`` — on both sides of a sum), ``dtype_key`` (integer or float, the kind stored under
  that key beside it), ``rtol``/``atol`` (equal up to floating-point reassociation);
* ``arrays(dtype)``: a tuple of such arrays; ``parts(cls)``: a tuple of ``cls`` statistics (same length to add);
* ``keyed(cls, key=int)``: a dict key → ``cls`` statistics (or ``int``), added as a union (shared keys added),
  stored with ``str(key)`` keys in sorted order.

A class whose stored form is irregular declares it: ``mismatch`` (the ``ValueError`` message when shapes differ,
formatted with ``a``, ``b``), ``json_field`` (the stored form is that one field's), or overrides of
``to_dict``/``from_dict`` that call ``super()``.
"""
from __future__ import annotations

import typing
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, cast

import numpy as np

__all__ = ["Additive", "array", "arrays", "parts", "keyed", "Counts"]

_SPEC = "additive"
#: (field name, spec) per ``Additive`` class, resolved once.
_SPECS: dict[type, list[tuple[str, Any]]] = {}


@dataclass(frozen=True)
class _Array:
    dtype: Any
    optional: bool = False
    dtype_key: str | None = None
    rtol: float = 0.0
    atol: float = 0.0


@dataclass(frozen=True)
class _Arrays:
    dtype: Any


@dataclass(frozen=True)
class _Parts:
    cls: type


@dataclass(frozen=True)
class _Keyed:
    cls: type
    key: Any


def array(dtype=np.int64, *, optional: bool = False, dtype_key: str | None = None, rtol: float = 0.0,
          atol: float = 0.0):
    """A numpy-array field (module docstring); an ``optional`` one defaults to ``None``."""
    spec = {_SPEC: _Array(dtype, optional, dtype_key, rtol, atol)}
    return field(default=None, metadata=spec) if optional else field(metadata=spec)


def arrays(dtype=np.int64):
    """A field holding a tuple of numpy arrays."""
    return field(metadata={_SPEC: _Arrays(dtype)})


def parts(cls: type):
    """A field holding a tuple of ``cls`` statistics."""
    return field(metadata={_SPEC: _Parts(cls)})


def keyed(cls: type, key=int):
    """A field holding a dict key → ``cls`` (an ``Additive`` class or ``int``); added as a union."""
    return field(default_factory=dict, metadata={_SPEC: _Keyed(cls, key)})


class _Mismatch(Exception):
    pass


def _check_same_shape(spec, a, b) -> None:
    """Raise ``_Mismatch`` when two field values cannot be added (nested statistics check themselves)."""
    if isinstance(spec, _Array):
        if (a is None) != (b is None) or (a is not None and a.shape != b.shape):
            raise _Mismatch
    elif isinstance(spec, (_Arrays, _Parts)):
        if len(a) != len(b):
            raise _Mismatch
        if isinstance(spec, _Arrays) and any(x.shape != y.shape for x, y in zip(a, b, strict=True)):
            raise _Mismatch


def _add(spec, a, b):
    if isinstance(spec, _Array):
        return None if a is None else a + b
    if isinstance(spec, (_Arrays, _Parts)):
        return tuple(x + y for x, y in zip(a, b, strict=True))
    if isinstance(spec, _Keyed):
        merged = dict(a)
        for k, v in b.items():
            merged[k] = merged[k] + v if k in merged else v
        return merged
    return a + b


def _equal(spec, a, b) -> bool:
    if isinstance(spec, _Array):
        if a is None or b is None:
            return a is None and b is None
        if a.shape != b.shape:
            return False
        if spec.rtol or spec.atol:
            return bool(np.allclose(a, b, rtol=spec.rtol, atol=spec.atol))
        return bool(np.array_equal(a, b))
    if isinstance(spec, _Arrays):
        return len(a) == len(b) and all(x.shape == y.shape and np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(spec, _Parts):
        return len(a) == len(b) and all(x == y for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _encode(spec, value):
    if isinstance(spec, _Array):
        return None if value is None else value.tolist()
    if isinstance(spec, _Arrays):
        return [x.tolist() for x in value]
    if isinstance(spec, _Parts):
        return [x.to_dict() for x in value]
    if isinstance(spec, _Keyed):
        return {str(k): (v.to_dict() if isinstance(v, Additive) else v) for k, v in sorted(value.items())}
    if spec is int:
        return int(value)
    if spec is float:
        return float(value)
    return value.to_dict()


def _decode(spec, data, kind=None):
    if isinstance(spec, _Array):
        if data is None and spec.optional:
            return None
        dtype = spec.dtype if spec.dtype_key is None else (np.float64 if kind == "f" else np.int64)
        return np.asarray(data, dtype=dtype)
    if isinstance(spec, _Arrays):
        return tuple(np.asarray(x, dtype=spec.dtype) for x in data)
    if isinstance(spec, _Parts):
        return tuple(cast(Any, spec.cls).from_dict(x) for x in data)
    if isinstance(spec, _Keyed):
        value: Any = cast(Any, spec.cls).from_dict if issubclass(spec.cls, Additive) else spec.cls
        return {spec.key(k): value(v) for k, v in (data or {}).items()}
    if spec is int:
        return int(data)
    if spec is float:
        return float(data)
    return cast(Any, spec).from_dict(data)


def _annotation(cls, name: str):
    """``int``, ``float`` or an ``Additive`` class: a field's annotation, resolved (string annotations too)."""
    hint = typing.get_type_hints(cls)[name]
    if hint in (int, float) or (isinstance(hint, type) and issubclass(hint, Additive)):
        return hint
    raise TypeError(f"{cls.__name__}.{name}: annotate int, float or an Additive class, or use array/arrays/parts/keyed")


class Additive:
    """Mixin for frozen dataclasses of additive statistics (module docstring): ``+``, ``sum()``, ``==``,
    ``to_dict``, ``from_dict``."""

    #: ``ValueError`` message when two statistics' shapes differ (``str.format`` with ``a`` and ``b``).
    mismatch: ClassVar[str] = "cannot add {a.__class__.__name__} statistics of different shapes"
    #: When set, the stored form is this one field's form (not a dict of fields).
    json_field: ClassVar[str | None] = None

    @classmethod
    def _specs(cls) -> list[tuple[str, Any]]:
        """(name, spec) per field: the ``array``/``parts``/``keyed`` metadata, else the resolved annotation."""
        cached = _SPECS.get(cls)
        if cached is None:
            cached = _SPECS[cls] = [(f.name, f.metadata[_SPEC] if _SPEC in f.metadata else _annotation(cls, f.name))
                                    for f in fields(cast(Any, cls))]
        return cached

    def __add__(self, other):
        if not isinstance(other, type(self)):
            return NotImplemented
        specs = self._specs()
        try:
            for name, spec in specs:
                _check_same_shape(spec, getattr(self, name), getattr(other, name))
        except _Mismatch:
            raise ValueError(self.mismatch.format(a=self, b=other)) from None
        return type(self)(**{name: _add(spec, getattr(self, name), getattr(other, name)) for name, spec in specs})

    def __radd__(self, other):  # lets sum([...]) start from 0
        return self if isinstance(other, int) and other == 0 else NotImplemented

    def __eq__(self, other) -> bool:
        return isinstance(other, type(self)) and all(
            _equal(spec, getattr(self, name), getattr(other, name)) for name, spec in self._specs())

    def to_dict(self):
        out: dict = {}
        for name, spec in self._specs():
            value = getattr(self, name)
            if self.json_field == name:
                return _encode(spec, value)
            out[name] = _encode(spec, value)
            if isinstance(spec, _Array) and spec.dtype_key is not None:
                out[spec.dtype_key] = value.dtype.kind
        return out

    @classmethod
    def from_dict(cls, data):
        if cls.json_field is not None:
            spec = dict(cls._specs())[cls.json_field]
            return cast(Any, cls)(**{cls.json_field: _decode(spec, data)})
        values = {}
        for name, spec in cls._specs():
            if isinstance(spec, _Array):
                raw = data.get(name) if spec.optional else data[name]
                values[name] = _decode(spec, raw, data.get(spec.dtype_key) if spec.dtype_key else None)
            else:
                values[name] = _decode(spec, data[name])
        return cast(Any, cls)(**values)


@dataclass(frozen=True, eq=False)
class Counts(Additive):
    """``n`` reports and ``support[v]`` = Σ over reports of the report's support for value ``v``.

    ``support`` is integer for protocols that count (DE, SUE, OUE, THE, OLH) and float for SHE,
    which sums noisy components; its kind is stored as ``"dtype"`` ("i" or "f").
    """

    n: int
    support: np.ndarray = array(np.int64, dtype_key="dtype")

    mismatch: ClassVar[str] = "cannot add statistics over domains {a.domain} and {b.domain}"

    @classmethod
    def zero(cls, domain: int, dtype=np.int64) -> "Counts":
        return cls(0, np.zeros(domain, dtype=dtype))

    @property
    def domain(self) -> int:
        return int(self.support.shape[0])
