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
from collections.abc import Mapping, Sequence

from groundbench.scoring.metrics import Scored
from groundbench.scoring.parse import STRICT

MINIMUM = 10  # strict answers a model needs before its frame is judged
SHARE = 0.9  # "nearly all"
EDGE = 0.01  # the band along an edge, as a share of the side


def _suggestion(points: Sequence[tuple[float, float, int, int]]) -> tuple[str, str] | None:
    n = len(points)
    if len({(x, y) for x, y, _, _ in points}) == 1:  # one point for every row (the mock's [0, 0]): no frame shows
        return None
    unit = sum(x <= 1 and y <= 1 for x, y, _, _ in points)
    if unit >= SHARE * n:
        return "norm1", "nearly every point lies inside the top-left 1 x 1 pixel"
    large = [(x, y, w, h) for x, y, w, h in points if w * h >= 2 * 1000 * 1000]
    grid = sum(x <= 1000 and y <= 1000 for x, y, _, _ in large)
    if len(large) >= SHARE * n and grid >= SHARE * len(large):
        return "norm1000", "nearly every point lies inside the top-left 1000 x 1000 of frames at least twice that area"
    past = sum(x > w or y > h or x >= (1 - EDGE) * w or y >= (1 - EDGE) * h for x, y, w, h in points)
    if past > n / 2:
        return "pixels", "most points lie past or against the right or bottom edge of the frame"
    return None


def frame_warning(items: Sequence[Scored], formats: Mapping[str, str]) -> str | None:
    """The warning line (the first model it applies to, and how many more), or None."""
    points: dict[str, list[tuple[float, float, int, int]]] = defaultdict(list)
    for s in items:
        location = s.answer.location
        if s.answer.status == STRICT and location is not None:
            points[s.model].append((location[0], location[1], int(s.row["width"]), int(s.row["height"])))
    flagged = []
    for model, found in sorted(points.items()):
        if len(found) < MINIMUM:
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
