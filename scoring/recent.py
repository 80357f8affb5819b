"""Values worked out for recent objects, remembered by the object's identity (and a hashable extra key).

The join reads many lines that share one answer object (``parse_response`` and the free-form answers are
remembered per text, and an answer is immutable): what is derived from the answer alone (its record's JSON text,
its copy without a record) is the same for each of them. Keying by identity, not equality, keeps apart answers
that compare equal yet are written differently (``1`` and ``1.0``; ``record`` takes no part in equality). Each
object is held beside its value, so its ``id`` cannot be reused by another object while it is remembered.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class RecentByIdentity(Generic[V]):
    """At most ``size`` values, the oldest dropped first, keyed by (``id(obj)``, ``extra``)."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._values: dict[tuple[int, Hashable], tuple[object, V]] = {}

    def get(self, obj: object, extra: Hashable, compute: Callable[[], V]) -> V:
        """The value remembered for ``obj`` and ``extra``, else ``compute()`` (remembered)."""
        key = (id(obj), extra)
        found = self._values.get(key)
        if found is not None and found[0] is obj:
            return found[1]
        value = compute()
        if len(self._values) >= self.size:
            del self._values[next(iter(self._values))]
        self._values[key] = (obj, value)
        return value

    def __len__(self) -> int:
        return len(self._values)
