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
    """At most ``size`` values, the oldest dropped first, keyed by (``id(obj)``, ``extra``); with ``weight``, also
    at most ``budget`` of their summed weights (one value heavier than the budget is kept alone)."""

    def __init__(self, size: int = 1024, weight: Callable[[V], int] | None = None, budget: int = 0) -> None:
        self.size, self.weight, self.budget = size, weight, budget
        self._values: dict[tuple[int, Hashable], tuple[object, V, int]] = {}
        self.total = 0  # the summed weights of the values held

    def get(self, obj: object, extra: Hashable, compute: Callable[[], V]) -> V:
        """The value remembered for ``obj`` and ``extra``, else ``compute()`` (remembered)."""
        key = (id(obj), extra)
        found = self._values.get(key)
        if found is not None and found[0] is obj:
            return found[1]
        value = compute()
        heavy = 0 if self.weight is None else self.weight(value)
        while self._values and (len(self._values) >= self.size or (heavy and self.total + heavy > self.budget)):
            self.total -= self._values.pop(next(iter(self._values)))[2]
        self._values[key] = (obj, value, heavy)
        self.total += heavy
        return value

    def __len__(self) -> int:
        return len(self._values)
