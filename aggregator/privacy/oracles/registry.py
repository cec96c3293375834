"""The registry of frequency oracles: each class (or factory, as ``adaptive``) under its name; everything generic
finds an oracle here by name. The package registers SPEC §3's oracles when imported (``oracles/__init__.py``)."""
from __future__ import annotations

import inspect

from .base import FrequencyOracle

_REGISTRY: dict[str, type] = {}


def register(cls):
    """Class decorator / call registering an oracle (a class, or a factory with ``name`` and ``label`` attributes)
    under its ``name``; everything generic (surveys' ``ldp.encoding``, wire codec, plausibility, browser arithmetic,
    the lab's methods) then finds it here."""
    _REGISTRY[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    """Remove the oracle registered as ``name`` (e.g. a test's throwaway oracle); ``ValueError`` if there is none."""
    if _REGISTRY.pop(str(name).lower(), None) is None:
        raise ValueError(f"no frequency oracle {name!r} is registered")


def names(*, sort: bool = True) -> list[str]:
    """The registered names, sorted, or (``sort=False``) in registration order: SPEC §3's table, then additions."""
    return sorted(_REGISTRY) if sort else list(_REGISTRY)


def lookup(name: str):
    """The class (or factory, as ``adaptive``) registered as ``name``, case-insensitive; ``ValueError`` if unknown."""
    key = str(name).lower()
    if key not in _REGISTRY:
        raise ValueError(f"unknown frequency oracle {name!r}; choose one of {', '.join(names())}")
    return _REGISTRY[key]


def oracle_class(name: str) -> type[FrequencyOracle]:
    """The ``FrequencyOracle`` class registered as ``name``, for its classmethods (``realized_epsilon``,
    ``max_supported_epsilon``); ``ValueError`` if unknown, or a factory choosing a class by ε and d (``adaptive``)."""
    found = lookup(name)
    if not (isinstance(found, type) and issubclass(found, FrequencyOracle)):
        raise ValueError(f"{name!r} is not one frequency oracle but a choice among them by ε and domain")
    return found


def get(name: str, *, epsilon: float, domain: int, **params) -> FrequencyOracle:
    """The oracle called ``name`` (case-insensitive) for the given ε and domain size.

    Names: de, sue, oue, she, the (``threshold=``: a float in [0, 1], default None = the variance-optimal t in
    (0.5, 1); seed 000 used 0.25), olh (g = max(2, round(e^ε + 1))), ss (subset selection, the variance-optimal
    subset size), and adaptive (an instance of the protocol ``choose(ε, d)`` names: DE, OLH, SS or OUE). Unknown
    names or parameters raise ``ValueError``.
    """
    key = str(name).lower()
    factory = lookup(name)
    try:
        inspect.signature(factory).bind(epsilon=epsilon, domain=domain, **params)
    except TypeError:
        raise ValueError(f"unexpected parameter(s) {', '.join(sorted(params))} for frequency oracle {key!r}") from None
    return factory(epsilon=epsilon, domain=domain, **params)
