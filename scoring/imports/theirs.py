"""Theirs beside ours (pure): the framework's own verdicts against GroundBench's score of the imported lines.

Theirs: the file's ``correct`` rows of every row that has a verdict (the framework's own denominator). Ours:
``gui_success`` of every row of the config (absent rows are failures). Each row where the two differ is
listed with the first reason that explains it:

- ``absent row``: a config row the file does not have (ours: a failure; theirs: not counted), or a file row
  counted correct there that no config row takes (extra or unresolved);
- ``syntax``: one side read a click from the answer and the other none;
- ``frame``: both read a click, at different places (more than half a pixel apart): the answer's numbers taken
  in another frame (lmms-eval's and VLMEvalKit's "above 1 means pixels" guess), or other numbers read;
- ``box``: the same click, but the box the framework scored against is not the row's (more than half a pixel);
- ``rule``: the same click on an OSWorld-G row with a four-value polygon, which lmms-eval reads as a box and the
  release's rule (``scoring.osworld_g``) as two vertices with nothing inside;
- ``edge``: the same click and box: the comparison itself, a click on the box's edge rounded differently.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from groundbench.scoring import osworld_g
from groundbench.scoring.imports.join import Joined, gui
from groundbench.scoring.imports.source import CORRECT, SourceRow

ABSENT, SYNTAX, FRAME, BOX, RULE, EDGE = "absent row", "syntax", "frame", "box", "rule", "edge"
REASONS = (ABSENT, SYNTAX, FRAME, BOX, RULE, EDGE)
CLOSE = 0.5  # pixels


@dataclass(frozen=True)
class Ours:
    """GroundBench's verdict on one row and the click it read (row pixels; None: no click)."""

    success: bool
    point: tuple[float, float] | None


@dataclass
class Comparison:
    theirs_correct: int = 0
    theirs_total: int = 0
    ours_correct: int = 0
    ours_total: int = 0
    differences: list[dict[str, Any]] = field(default_factory=list)

    def reasons(self) -> dict[str, int]:
        counts = dict.fromkeys(REASONS, 0)
        for difference in self.differences:
            counts[difference["reason"]] += 1
        return {reason: n for reason, n in counts.items() if n}

    def to_dict(self) -> dict[str, Any]:
        return {
            "theirs": {"correct": self.theirs_correct, "n": self.theirs_total},
            "ours": {"correct": self.ours_correct, "n": self.ours_total},
            "reasons": self.reasons(),
            "differences": self.differences,
        }


def _far(a: Sequence[float], b: Sequence[float]) -> bool:
    return any(abs(x - y) > CLOSE for x, y in zip(a, b, strict=True))


def reason(source: SourceRow, row: Mapping[str, Any], ours: Ours) -> str:
    theirs_point = source.stored.pixels(float(row["width"]), float(row["height"])) if source.stored else None
    if (theirs_point is None) != (ours.point is None):
        return SYNTAX
    if theirs_point is not None and ours.point is not None and _far(theirs_point, ours.point):
        return FRAME
    truth = gui(row).get("eval_bbox") or ()
    size = float(row["width"]), float(row["height"])
    if source.box is not None and len(truth) == 4 and _far(source.box.pixels(*size), truth):
        return BOX
    if osworld_g.is_osworld_g(row) and _two_vertices(row):
        return RULE
    return EDGE


def _two_vertices(row: Mapping[str, Any]) -> bool:
    kind, vertices = osworld_g.region(row)
    return kind == "polygon" and len(vertices) == 4


def _point(value: tuple[float, float] | None) -> list[float] | None:
    return None if value is None else list(value)


def _entry(source: SourceRow | None, example_id: str | None, theirs: str | None, ours: bool, why: str) -> dict:
    return {
        "example_id": example_id,
        "file": None if source is None else source.file,
        "index": None if source is None else source.index,
        "theirs": theirs,
        "ours": "correct" if ours else "wrong",
        "reason": why,
    }


def compare(joined: Joined, sources: Sequence[SourceRow], ours: Mapping[str, Ours]) -> Comparison:
    """Both counts and every difference; ``ours``: example id -> our verdict, for every config row."""
    result = Comparison()
    judged = [s for s in sources if s.verdict is not None]
    result.theirs_total = len(judged)
    result.theirs_correct = sum(s.verdict == CORRECT for s in judged)
    result.ours_total = len(ours)
    result.ours_correct = sum(o.success for o in ours.values())
    for match in joined.matched:
        source, row = match.source, match.row
        mine = ours[str(row["example_id"])]
        if source.verdict is None or (source.verdict == CORRECT) == mine.success:
            continue
        entry = _entry(source, str(row["example_id"]), source.verdict, mine.success, reason(source, row, mine))
        size = float(row["width"]), float(row["height"])
        entry["theirs_point"] = _point(source.stored.pixels(*size) if source.stored else None)
        entry["ours_point"] = _point(mine.point)
        result.differences.append(entry)
    for row in joined.absent:  # no line: a failure here, outside their count
        result.differences.append(_entry(None, str(row["example_id"]), None, False, ABSENT))
    unjoined = [s for s, _ in joined.extra] + [s for s, _, why in joined.ambiguous if not why.startswith("paired")]
    for source in unjoined:
        if source.verdict == CORRECT:
            result.differences.append(_entry(source, None, source.verdict, False, ABSENT))
    return result
