"""One process-local cache for the respondent path: bounded, least recently used first out, shared by a worker's
threads (``BoundedCache``). Every cache of survey_app uses it: the public surveys by slug (``survey_app.surveys``),
the engine protocols by survey version and by configuration (``survey_app.protocol``), the protocol GET's fixed
parts (``survey_app.api``), the survey keys (``survey_app.credentials``).

Entries are never mutated once stored; a key names what the value was built from (a row version, a configuration,
a content-addressed key id), so no entry needs invalidating: a changed row is a new key, and the oldest entries leave
when the cache is full.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """At most ``size`` entries, the least recently used evicted first; every operation under one lock.

    Parameters
    ----------
    size
        The most entries kept (at least 1).
    """

    def __init__(self, size: int):
        if size < 1:
            raise ValueError("a cache holds at least one entry")
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value of ``key`` (now the most recently used), or ``None``."""
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> V:
        """Store ``value`` under ``key`` (replacing any), evicting the least recently used beyond ``size``;
        returns ``value``."""
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return value

    def get_or_build(self, key: K, build: Callable[[], V]) -> V:
        """The value of ``key``, built by ``build()`` outside the lock and stored when missing (two threads missing
        at once may both build; the last stored wins, and both values are equal by the key's meaning)."""
        value = self.get(key)
        if value is None:
            value = self.put(key, build())
        return value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __iter__(self) -> Iterator[K]:
        """The keys, least recently used first (a copy: the cache may change meanwhile)."""
        with self._lock:
            return iter(list(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._entries
