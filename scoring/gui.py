"""GUI suite metrics: the official rule first (``scoring.gui_rules``), everything else beside it.

- rows without a target (``success_rule.kind`` ``refusal``: OSWorld-G's refusal rows, ``schemas.rows.target_absent``)
  are scored by their source's rule: a click below 0 on both axes (``[-1, -1]`` in any format that reads it as a
  point) is a refusal, credited there and a miss elsewhere; a declared family's documented "no target" answer
  (``parse.REFUSED``: UI-Venus-2's ``[-1, -1]``, InfiGUI-G1's ``[]``) counts as the same refusal (``headline_success``);
- ``gui_success`` (the headline): PointerBench's ``eval.py`` verdict when each row's prediction
  record is the bare JSON object its response parsed to strictly (or the parsed fields a line
  carried, which is eval.py's own prediction format), and no record otherwise: a fenced or
  embedded answer, a malformed one and a missing one all fail, as eval.py counts them;
- ``gui_success_lenient``: the same rule with the lenient recoveries handed over as well;
- ``gui_success_diagnostic_0_1000`` / ``_0_1``: the strict answers' coordinates re-read as
  0-1000 or 0-1 fractions of the frame (a diagnostic of a model answering in the wrong frame,
  never the official figure);
- breakdowns as the PointerBench paper and eval.py report them: target type, answer type (point /
  box), data type, language, region kind (box, polygon, none) and, for the generated suites, frame size;
  OSWorld-G rows also by capability (its five groups, a row in each group listing it), UI-Vision rows by
  instruction kind (basic, functional, spatial) and category; box answers that fail are
  split into clipped (target not covered enough) and oversized (covered, but too loose);
- ``gui_success_mean_of_suites`` (in ``scoring.metrics``): the unweighted mean over the PointerBench
  suites only; ScreenSpot variants are reported beside it, never inside it.

Every rate carries the centre-click baseline of the same rows and a bootstrap interval resampled by
screenshot.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from groundbench.schemas.rows import target_absent
from groundbench.schemas.rows import target_type as row_target_type
from groundbench.scoring import osworld_g
from groundbench.scoring.bootstrap import cluster_of, rate_interval
from groundbench.scoring.gui_rules import (
    CLIPPED,
    OVERSIZED,
    answer_type,
    centre_click_hit,
    judge,
    official_box,
    official_point,
    read_box,
    read_point,
)
from groundbench.scoring.osworld_g import capability_groups, is_osworld_g
from groundbench.scoring.parse import FIELDS, LENIENT, REFUSED, STRICT, Answer, non_finite

Row = Mapping[str, Any]
DIAGNOSTIC_NOTE = "diagnostic only: strict answers' coordinates re-read in another frame; never the official figure"
HEADLINE_NOTE = "official PointerBench rule on strictly parsed answers; missing and non-strict answers fail"
UI_VISION_RULE = "uivision_element"  # extras.gui.eval_type of UI-Vision element-grounding rows
POINTERBENCH_CONFIGS = ("gui_pro", "gui_sheets", "gui_text")  # the suites the mean of suites covers
MEAN_OF_SUITES = "PointerBench suites"  # the `config` of gui_success_mean_of_suites


def headline_record(answer: Answer) -> Mapping[str, Any] | None:
    return answer.record if answer.status in (STRICT, FIELDS) else None


def refusal_credited(answer: Answer, row: Row) -> bool:
    """A declared family's refusal (``parse.REFUSED``, no point to read) is a success only on a row without a target
    (``schemas.rows.target_absent``: OSWorld-G's refusal rows), as the official rule credits a click below 0 there;
    on every other row it is a failure."""
    return answer.status == REFUSED and target_absent(row)


def headline_success(answer: Answer, row: Row) -> bool:
    """The headline verdict on one GUI row: the official rule on the strict record, or a credited refusal. Every
    figure that reports ``gui_success`` (score, layouts, compare, import) reads it through here."""
    return judge(headline_record(answer), row).success or refusal_credited(answer, row)


def lenient_record(answer: Answer) -> Mapping[str, Any] | None:
    return answer.record if answer.status in (STRICT, FIELDS, LENIENT) else None


def official_answer(answer: Answer, row: Row) -> Answer:
    """The answer's point or box as the official rule reads its record for this row (so a report's parsed
    fields are what ``gui_success`` scored); a NaN or infinite number anywhere in it makes it unreadable."""
    if answer.record is None:
        return answer
    unreadable = non_finite(answer.record)
    if answer_type(row) == "box":
        box, strings = read_box(answer.record)
        return replace(answer, point=None, box=None if unreadable else box, from_strings=strings, unreadable=unreadable)
    point, strings = read_point(answer.record)
    return replace(answer, point=None if unreadable else point, box=None, from_strings=strings, unreadable=unreadable)


def usable(record: Mapping[str, Any] | None, row: Row) -> bool:
    """Does the object give this row an answer eval.py can read (a point for point rows, a box for box rows)?"""
    return judge(record, row).answered


def rescaled_record(record: Mapping[str, Any] | None, row: Row, frame: float) -> Mapping[str, Any] | None:
    if not record:
        return None
    sx, sy = row["width"] / frame, row["height"] / frame
    if answer_type(row) == "box":
        box = official_box(record)
        return None if box is None else {"bbox": [box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy]}
    point = official_point(record)
    return None if point is None else {"point": [point[0] * sx, point[1] * sy]}


def target_type(row: Row) -> str:
    """The source's data_type, else ui_type, else element_type (as the card), else the target part's category; a
    row without a target "no target (refusal)": the one definition ``preview --where target_type=`` filters on too."""
    return row_target_type(row)


def _gui_field(name: str) -> Callable[[Row], str | None]:
    def read(row: Row) -> str | None:
        value = ((row.get("extras") or {}).get("gui") or {}).get(name)
        return None if value is None else str(value)

    return read


def _frame(row: Row) -> str | None:
    generated = ((row.get("extras") or {}).get("gui") or {}).get("layout_id") is not None
    return f"{row['width']}x{row['height']}" if generated else None


BREAKDOWNS: dict[str, Callable[[Row], str | None]] = {
    "target_type": target_type,
    "answer_type": answer_type,
    "data_type": _gui_field("data_type"),
    "language": _gui_field("language"),
    "frame": _frame,
    "region_kind": _gui_field("region_kind"),  # box, polygon, none (refusal rows)
}


def gui_metrics(
    head: Mapping[str, Any],
    rows: Sequence[Row],
    answers: Sequence[Answer],
    entry: Callable[..., dict[str, Any]],
    seed: int,
    resamples: int,
) -> list[dict[str, Any]]:
    verdicts = [judge(headline_record(a), r) for a, r in zip(answers, rows, strict=True)]
    clusters = [cluster_of(r) for r in rows]
    clicks = [centre_click_hit(r) for r in rows]

    def rate_entry(metric: str, hits: Sequence[bool], members: Sequence[int], **extra: Any) -> dict[str, Any]:
        low, high = rate_interval(((clusters[i], float(hits[i])) for i in members), seed, resamples)
        click = sum(clicks[i] for i in members)
        return entry(
            head,
            metric,
            sum(hits[i] for i in members),
            len(members),
            baseline_center_click=click / len(members) if members else None,
            ci_low=low,
            ci_high=high,
            **extra,
        )

    everything = list(range(len(rows)))
    credited = [refusal_credited(a, r) for a, r in zip(answers, rows, strict=True)]
    success = [v.success or c for v, c in zip(verdicts, credited, strict=True)]
    out = [rate_entry("gui_success", success, everything, note=HEADLINE_NOTE)]
    lenient = [
        judge(lenient_record(a), r).success or refusal_credited(a, r) for a, r in zip(answers, rows, strict=True)
    ]
    out.append(rate_entry("gui_success_lenient", lenient, everything, note="lenient recoveries handed over too"))
    unanswered = [not v.answered and not c for v, c in zip(verdicts, credited, strict=True)]
    out.append(
        entry(
            head,
            "gui_unanswered_rate",
            sum(unanswered),
            len(rows),
            note="no strict answer of the row's type (eval.py's missing_predictions); each is a failure (a refusal "
            "credited on a row without a target is not counted)",
        )
    )
    for frame, label in ((1000.0, "0_1000"), (1.0, "0_1")):
        diag = [
            judge(rescaled_record(headline_record(a), r, frame), r).success for a, r in zip(answers, rows, strict=True)
        ]
        out.append(entry(head, f"gui_success_diagnostic_{label}", sum(diag), len(rows), note=DIAGNOSTIC_NOTE))
    for axis, key in BREAKDOWNS.items():
        groups: dict[str, list[int]] = defaultdict(list)
        for i, row in enumerate(rows):
            value = key(row)
            if value is not None:
                groups[value].append(i)
        for value, members in sorted(groups.items()):
            out.append(rate_entry(f"gui_success_by_{axis}", success, members, detail=value))
    # OSWorld-G's capabilities: a row counts in every group listing it (unclassified when none does), as the
    # release's tally counts it (the `osworld-g` layout in scoring/layouts.py prints the same as its table).
    capabilities: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        if is_osworld_g(row):
            for group in capability_groups(row):
                capabilities[group].append(i)
    for value, members in sorted(capabilities.items()):
        out.append(rate_entry("gui_success_by_capability", success, members, detail=value))
    refusal_rows = [i for i, r in enumerate(rows) if is_osworld_g(r) and target_absent(r)]
    if refusal_rows:  # what answering [-1, -1] everywhere scores (never refusing, as the centre click: 0 there)
        refuses = [judge(osworld_g.refusal_answer(r), r).success for r in rows]
        for detail, members in (("every row", list(range(len(rows)))), ("refusal rows", refusal_rows)):
            out.append(
                entry(
                    head,
                    "gui_baseline_always_refuse",
                    sum(refuses[i] for i in members),
                    len(members),
                    detail=detail,
                    note="every row answered [-1, -1] (the refusal the prompts offer), scored by the official rule",
                )
            )
    # UI-Vision's element grounding: by instruction kind (its three files) and by category (its application groups).
    for axis, field in (("instruction_kind", "subset"), ("category", "category")):
        groups = defaultdict(list)
        for i, row in enumerate(rows):
            gui = (row.get("extras") or {}).get("gui") or {}
            if gui.get("eval_type") == UI_VISION_RULE and gui.get(field) is not None:
                groups[str(gui[field])].append(i)
        for value, members in sorted(groups.items()):
            out.append(rate_entry(f"gui_success_by_{axis}", success, members, detail=value))
    boxes = [i for i, r in enumerate(rows) if answer_type(r) == "box"]
    if boxes:
        for kind in (CLIPPED, OVERSIZED):
            count = sum(verdicts[i].box_failure == kind for i in boxes)
            out.append(entry(head, "gui_box_failure", count, len(boxes), detail=kind, note="share of box-answer rows"))
    return out
