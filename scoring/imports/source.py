"""One row of another framework's per-sample output, read by that framework's importer (pure).

Every importer (``scoring/imports/<kind>.py``) turns its framework's parsed file into :class:`SourceRow` items:
what the join needs (the image as the file names it, the instruction, the source's own id where it has one,
the target box it scored against), the raw answer, and what the framework itself concluded (its verdict and
its own parsed click), never re-read here. The helpers below name the file, the row and the field of every
problem (``GroundBenchError``).
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from groundbench.errors import GroundBenchError

CORRECT, WRONG, WRONG_FORMAT = "correct", "wrong", "wrong_format"
VERDICTS = (CORRECT, WRONG, WRONG_FORMAT)


@dataclass(frozen=True)
class Click:
    """A framework's own parsed click: in the row's pixels, or (``unit``) in fractions of its width and height."""

    x: float
    y: float
    unit: bool = False

    def pixels(self, width: float, height: float) -> tuple[float, float]:
        # multiplying (never dividing) keeps a whole-pixel click whole, as the frameworks' pixel `pred` is
        return (self.x * width, self.y * height) if self.unit else (self.x, self.y)


@dataclass(frozen=True)
class TargetBox:
    """The target box a framework scored against, xyxy, in the row's pixels or (``unit``) fractions."""

    box: tuple[float, float, float, float]
    unit: bool = False

    def pixels(self, width: float, height: float) -> tuple[float, float, float, float]:
        if not self.unit:
            return self.box
        x0, y0, x1, y1 = self.box
        return (x0 * width, y0 * height, x1 * width, y1 * height)


@dataclass(frozen=True)
class SourceRow:
    """One per-sample row of an imported file, as its framework wrote it."""

    file: str  # the file name as given on the command line
    index: int  # 0-based position of the row in that file
    image: str | None  # the image as the file names it (a path or a bare name); None where only the id joins
    instruction: str | None
    source_id: str | None  # the source's own row id (ScreenSpot-Pro `id`, PointerBench `id`), where the file has one
    response: str | None  # the raw answer (PointerBench: its answer object as JSON); None: a failed request
    verdict: str | None  # the framework's own correct / wrong / wrong_format, when the file records one
    stored: Click | None  # the framework's own parsed click (None: it parsed none, or the file records none)
    stored_box: tuple[float, float, float, float] | None = None  # a parsed box answer (PointerBench box rows)
    box: TargetBox | None = None  # the target box the framework scored against, when the file records it
    skip: str | None = None  # why this row can never join a GroundBench row (e.g. a negative ScreenSpot-Pro task)
    task: str | None = None  # the framework's task or dataset name, where the row says it

    @property
    def where(self) -> str:
        return f"{self.file}: row {self.index}"


def need(record: Mapping[str, Any], key: str, where: str, expected: str = "a value") -> Any:
    """``record[key]``, or an error naming the file, row and field."""
    if not isinstance(record, Mapping):
        raise GroundBenchError(where, "row", f"expected one JSON object per row, found {type(record).__name__}")
    if key not in record:
        raise GroundBenchError(where, key, f"expected {expected}, found no such field")
    return record[key]


def text(record: Mapping[str, Any], key: str, where: str) -> str:
    value = need(record, key, where, "a string")
    if not isinstance(value, str):
        raise GroundBenchError(where, key, f"expected a string, found {value!r}")
    return value


def optional_text(record: Mapping[str, Any], key: str, where: str) -> str | None:
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise GroundBenchError(where, key, f"expected a string, found {value!r}")
    return value


def number(value: Any) -> float | None:
    """A finite number (a numeric string too, as a TSV cell is), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def numbers(value: Any, length: int, where: str, key: str) -> tuple[float, ...]:
    """Exactly ``length`` finite numbers (a list, or a list written as text: a TSV cell ``[1, 2, 3, 4]``)."""
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = json.loads(value)
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != length:
        raise GroundBenchError(where, key, f"expected {length} numbers, found {value!r}")
    found = [number(v) for v in value]
    if any(v is None for v in found):
        raise GroundBenchError(where, key, f"expected {length} finite numbers, found {value!r}")
    return tuple(v for v in found if v is not None)


def box4(value: Any, where: str, key: str) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = numbers(value, 4, where, key)
    return (x0, y0, x1, y1)


def optional_point(value: Any, where: str, key: str) -> tuple[float, float] | None:
    if value is None:
        return None
    x, y = numbers(value, 2, where, key)
    return (x, y)
