"""One warning line when the headline looks like answers read in the wrong frame (never a correction).

Over each model's strict answers with a point (a box counts by its centre), in the row's pixels as the
declared format mapped them (one point for every row is a constant answer, which shows no frame):

- nearly all inside the top-left 1 x 1 pixel: 0-1 fractions read as pixels (``norm1``);
- nearly all inside the top-left 1000 x 1000 of frames mostly larger than it: a 0-1000 grid read as pixels
  (``norm1000``);
- most past the frame's right or bottom edge, or piled within 1 % of it: numbers of a frame smaller than the
  one they were read in (``pixels``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from groundbench.scoring.metrics import Scored
from groundbench.scoring.parse import STRICT

MINIMUM = 10  # strict answers a model needs before its frame is judged
SHARE = 0.9  # "nearly all"
EDGE = 0.01  # the band along an edge, as a share of the side


class Points:
    """What :func:`_suggestion` reads of one model's points (x, y in a w x h frame), counted as they come."""

    def __init__(self) -> None:
        self.n = self.unit = self.large = self.grid = self.past = 0
        self.first: tuple[float, float] | None = None
        self.varied = False  # does any point differ from the first?

    def add(self, x: float, y: float, w: int, h: int) -> None:
        self.n += 1
        if self.first is None:
            self.first = (x, y)
        elif (x, y) != self.first:
            self.varied = True
        self.unit += x <= 1 and y <= 1
        if w * h >= 2 * 1000 * 1000:
            self.large += 1
            self.grid += x <= 1000 and y <= 1000
        self.past += x > w or y > h or x >= (1 - EDGE) * w or y >= (1 - EDGE) * h


def _suggestion(points: Points) -> tuple[str, str] | None:
    n = points.n
    if not points.varied:  # one point for every row (the mock's [0, 0]): no frame shows
        return None
    if points.unit >= SHARE * n:
        return "norm1", "nearly every point lies inside the top-left 1 x 1 pixel"
    if points.large >= SHARE * n and points.grid >= SHARE * points.large:
        return "norm1000", "nearly every point lies inside the top-left 1000 x 1000 of frames at least twice that area"
    if points.past > n / 2:
        return "pixels", "most points lie past or against the right or bottom edge of the frame"
    return None


class FrameCheck:
    """:func:`frame_warning`, fed the scored items a group at a time."""

    def __init__(self) -> None:
        self._points: dict[str, Points] = defaultdict(Points)

    def add(self, items: Iterable[Scored]) -> None:
        for s in items:
            location = s.answer.location
            if s.answer.status == STRICT and location is not None:
                self._points[s.model].add(location[0], location[1], int(s.row["width"]), int(s.row["height"]))

    def warning(self, formats: Mapping[str, str]) -> str | None:
        """The warning line (the first model it applies to, and how many more), or None."""
        flagged = []
        for model, found in sorted(self._points.items()):
            if found.n < MINIMUM:
                continue
            suggestion = _suggestion(found)
            if suggestion is not None and suggestion[0] != formats.get(model, "").partition(":")[0]:
                flagged.append((model, *suggestion))
        if not flagged:
            return None
        model, name, why = flagged[0]
        more = f" ({len(flagged) - 1} more models look the same)" if len(flagged) > 1 else ""
        return (
            f"FRAME? {model}: {why}, read as {formats.get(model)}: if the model answers in that frame, score with "
            f"--answer-format {name} (or the family's own format){more}"
        )


def frame_warning(items: Iterable[Scored], formats: Mapping[str, str]) -> str | None:
    """The warning line (the first model it applies to, and how many more), or None."""
    check = FrameCheck()
    check.add(items)
    return check.warning(formats)
