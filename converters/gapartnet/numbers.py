"""Real numbers read from JSON or a pickle, checked before numpy turns them into floats.

``np.asarray(value, dtype=float64)`` is too lenient for file contents and fails in the wrong way:
it accepts ``true``, numeric strings, bytes and complex numbers, and it raises ``OverflowError``
(not ``ValueError``) on a JSON integer beyond the float range such as ``10**400``. Fuzzing found
each of these reaching the user as a traceback.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from groundbench.errors import GroundBenchError


def _is_real(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def real_array(value: Any, where: str, field: str, expected: str) -> np.ndarray:
    """``value`` (nested lists of numbers, or a numeric array) as float64; every entry finite."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "iuf":
            raise GroundBenchError(where, field, f"expected {expected}, got an array of dtype {value.dtype}")
        candidate: Any = value
    else:
        stack = [value]
        while stack:  # iterative: a pickle can nest lists deeper than the recursion limit
            item = stack.pop()
            if isinstance(item, (list, tuple)):
                stack.extend(item)
            elif not _is_real(item):
                raise GroundBenchError(where, field, f"expected {expected}, found {type(item).__name__} {item!r:.40}")
        candidate = value
    try:
        array = np.asarray(candidate, dtype=np.float64)
    except (ValueError, OverflowError) as exc:  # ragged lists; integers beyond the float range
        raise GroundBenchError(where, field, f"expected {expected} ({exc})") from exc
    if not np.all(np.isfinite(array)):
        raise GroundBenchError(where, field, f"expected {expected}, found a non-finite number")
    return array


def real_number(value: Any, where: str, field: str) -> float:
    """One finite real number (not a bool)."""
    if not _is_real(value):
        raise GroundBenchError(where, field, f"expected a finite number, got {value!r:.40}")
    try:
        number = float(value)
    except OverflowError as exc:
        raise GroundBenchError(where, field, "expected a finite number, got an integer beyond the float range") from exc
    if not np.isfinite(number):
        raise GroundBenchError(where, field, f"expected a finite number, got {value!r}")
    return number
