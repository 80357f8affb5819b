"""Card facts of the GUI configs, as plain data (the card template and ``groundbench summary`` print them):
what the GUI folder adds to its configs' card facts (its spec's ``facts``: :class:`GuiFacts`).

Per config (suite) and target type: rows, median target area (% of the frame), target width and
height as % of the frame's width / height (min, quartiles, max), languages, frames, and the
centre-click baseline: the share of rows a click on the frame's centre would solve, by the one definition
``scoring.gui_rules.centre_click_hit`` that ``score`` and the ``baselines`` config use too (a centre point
scored by the row's own official rule: point rows, centre inside the box, edges included; box rows need
a box, so a click never solves them; OSWorld-G rows by the release's GroundingEval rule, so a refusal row,
which has no target, is never solved by it). Target sizes are measured on rows with a target; polygons by
their bounding box.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pyarrow as pa

from groundbench.converters.gui.spec import SPEC
from groundbench.core.shards import open_shard, shard_files
from groundbench.schemas.rows import NO_TARGET, target_absent
from groundbench.scoring.gui_rules import centre_click_hit

COLUMNS = [
    "example_id",
    "width",
    "height",
    "parts",
    "target_part_id",
    "answer_type",
    "success_rule",
    "extras",
    "excluded",
]


def _quantiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    q = [ordered[0]] * 3 if len(ordered) == 1 else statistics.quantiles(ordered, n=4, method="inclusive")
    return {
        "min": round(ordered[0], 4),
        "p25": round(q[0], 4),
        "median": round(q[1], 4),
        "p75": round(q[2], 4),
        "max": round(ordered[-1], 4),
    }


def target_type(row: dict[str, Any]) -> str:
    if target_absent(row):  # a refusal row (OSWorld-G): the element is not on the screen
        return NO_TARGET
    gui = row["extras"]["gui"] or {}
    kind = gui.get("data_type") or gui.get("ui_type") or gui.get("element_type") or (gui.get("gui_types") or [None])[0]
    return str(kind or "unknown")


# Registry sources whose configs get these facts (the rows of the embedded sample say groundbench_gui).
GUI_SOURCES = tuple(s.name for s in SPEC.sources)


def is_gui(source: str) -> bool:
    return source in GUI_SOURCES


def narrow_rows(batch: pa.RecordBatch) -> list[dict[str, Any]]:
    """A batch's rows with the columns above, ``extras`` holding its ``gui`` part only: the other sources'
    extras are nulls on a GUI row, and turning their nested structs into Python cost most of the facts' time."""
    rows = batch.select([name for name in COLUMNS if name != "extras"]).to_pylist()
    guis = batch.column("extras").field("gui").to_pylist()
    for row, gui in zip(rows, guis, strict=True):
        row["extras"] = {"gui": gui}
    return rows


def rows_of(shards: Path) -> list[dict[str, Any]]:
    """The narrow columns of every row, batch by batch (the image bytes are never read into Python)."""
    rows: list[dict[str, Any]] = []
    for shard in shard_files(shards):
        reader = open_shard(shard)
        for index in range(reader.num_record_batches):
            rows += narrow_rows(reader.get_batch(index))
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Facts of one group of rows (one config, or one target type of it)."""
    areas, widths, heights, hits = [], [], [], 0
    languages: Counter[str] = Counter()
    frames: Counter[str] = Counter()
    answers: Counter[str] = Counter()
    regions: Counter[str] = Counter()
    for row in rows:
        w, h = row["width"], row["height"]
        regions[str((row["extras"]["gui"] or {}).get("region_kind") or "box")] += 1
        target = next((p for p in row["parts"] if p["part_id"] == row["target_part_id"]), None)
        if target is not None:  # a refusal row has no target: no size to measure (its centre click misses)
            x0, y0, x1, y1 = target["bbox_xyxy"]
            areas.append(100.0 * (x1 - x0) * (y1 - y0) / (w * h))
            widths.append(100.0 * (x1 - x0) / w)
            heights.append(100.0 * (y1 - y0) / h)
        hits += centre_click_hit(row)
        languages[str((row["extras"]["gui"] or {}).get("language") or "unknown")] += 1
        frames[f"{w}x{h}"] += 1
        answers[row["answer_type"]] += 1
    return {
        "rows": len(rows),
        "excluded": sum(1 for r in rows if r["excluded"]),
        "answer_types": dict(sorted(answers.items())),
        "median_target_area_pct": round(statistics.median(areas), 4) if areas else None,
        "target_width_pct": _quantiles(widths) if widths else None,
        "target_height_pct": _quantiles(heights) if heights else None,
        "languages": dict(sorted(languages.items())),
        "frames": dict(sorted(frames.items())),
        "center_click_hit_rate": round(hits / len(rows), 4) if rows else None,
        "region_kinds": dict(sorted(regions.items())),  # box, polygon, none (refusal rows: no target)
    }


def config_facts(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_type[target_type(row)].append(row)
    return {"all": summarise(rows), "by_target_type": {t: summarise(by_type[t]) for t in sorted(by_type)}}


def gui_facts(shards_root: Path, configs: list[str], absent: dict[str, str]) -> dict[str, Any]:
    """Facts for every built GUI config, and the absent ones with the reason (e.g. gui_pro)."""
    return {
        "built": {name: config_facts(rows_of(shards_root / name)) for name in sorted(configs)},
        "absent": dict(sorted(absent.items())),
    }


class GuiFacts:
    """The GUI folder's card facts of one config (``groundbench.core.spec.CardFacts``): ``gui`` (the tables
    above), ``languages`` (of the rows, beside English) and ``row_kind`` (its example row's heading)."""

    columns = tuple(COLUMNS)

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def add(self, batch: pa.RecordBatch) -> None:
        self.rows += narrow_rows(batch)

    def facts(self) -> dict[str, Any]:
        gui = config_facts(self.rows)
        languages = sorted(k for k in gui["all"]["languages"] if k and k != "unknown")
        return {"gui": gui, "languages": languages, "row_kind": "GUI"}
