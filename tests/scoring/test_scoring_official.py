"""The GUI headline equals PointerBench's official ``eval.py`` on the real metadata (tests/fixtures/gui/pointerbench,
CC BY 4.0; blank screenshots of the recorded size stand in for the images).

The predictions file cycles through answer kinds whose official verdict is fixed by construction
(eval.py's rules, restated: a point row reads ``point`` / ``pred`` / ``coordinate`` / ``prediction``
(a list of at least two items, each ``float()``-ed) or flat ``x``/``y``; a box row reads ``bbox`` / ``box``
/ ``pred`` / ``prediction`` (list numbers or numbers in a string), flat ``x0..y1``, or numbers in
``text`` / ``raw`` / ``answer``; a point hits when inside the box, edges included; a box hits when
coverage >= 0.90 and precision >= 0.70; anything else, and no record, is a failure). The record eval.py
is handed for a row is the bare JSON object its response parses to strictly, and nothing otherwise.
The expected counts are added up in this file from the kinds, never taken from our scorer.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from groundbench.converters.gui.convert import convert_pointerbench
from groundbench.core.params import load_params
from groundbench.core.shards import read_table
from groundbench.loaders.published import write_config
from groundbench.schemas.features import FORMAT_VERSION
from groundbench.scoring import score
from groundbench.scoring.gate import card_key
from tests.conftest import REPO
from tests.converters.gui.test_gui_real import FIXTURES, blank_png

PARAMS = load_params(REPO)

SUITES = {"gui_sheets": "pointerbench-sheets", "gui_text": "pointerbench-text", "gui_pro": "pointerbench-pro"}
Box = list[int]
Point = list[int]
# (name, build the prediction line's fields from (bbox, point) or None for no line, official hit?, strict?)
Kind = tuple[str, Callable[[Box, Point], dict[str, Any] | None], Callable[[Box, Point], bool], str]


def _response(obj: Any) -> dict[str, Any]:
    return {"response": json.dumps(obj)}


def _in(box: Box, x: float, y: float) -> bool:
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _k1000(box: Box, p: Point) -> tuple[int, int]:
    return round(p[0] * 1000 / 1024), round(p[1] * 1000 / 768)


def _yes(box: Box, p: Point) -> bool:
    return True


def _no(box: Box, p: Point) -> bool:
    return False


# Point rows. The reference point always lies inside the box (checked below).
POINT_KINDS: list[Kind] = [
    ("exact", lambda b, p: _response({"point": p}), _yes, "strict"),
    ("edge top-left", lambda b, p: _response({"point": [b[0], b[1]]}), _yes, "strict"),
    ("edge bottom-right", lambda b, p: _response({"point": [b[2], b[3]]}), _yes, "strict"),
    ("one pixel right", lambda b, p: _response({"point": [b[2] + 1, p[1]]}), _no, "strict"),
    ("one pixel above", lambda b, p: _response({"point": [p[0], b[1] - 1]}), _no, "strict"),
    ("fenced", lambda b, p: {"response": "```json\n" + json.dumps({"point": p}) + "\n```"}, _no, "lenient"),
    # 0-1000 coordinates: officially a hit only where the rescaled number happens to fall inside the box.
    ("0-1000", lambda b, p: _response({"point": list(_k1000(b, p))}), lambda b, p: _in(b, *_k1000(b, p)), "strict"),
    ("coordinate key", lambda b, p: _response({"coordinate": p}), _yes, "strict"),
    ("flat x y", lambda b, p: _response({"x": p[0], "y": p[1]}), _yes, "strict"),
    ("numbers as strings", lambda b, p: _response({"point": [str(p[0]), str(p[1])]}), _yes, "strict"),
    ("flat strings", lambda b, p: _response({"x": str(p[0]), "y": str(p[1])}), _yes, "strict"),
    ("third number", lambda b, p: _response({"point": [p[0], p[1], 0.87]}), _yes, "strict"),
    ("pred key", lambda b, p: _response({"pred": p}), _yes, "strict"),
    ("prediction key", lambda b, p: _response({"prediction": p}), _yes, "strict"),
    ("no usable answer", lambda b, p: _response({"answer": "top left"}), _no, "malformed"),
    ("not JSON", lambda b, p: {"response": f"I would click ({p[0]}, {p[1]})."}, _no, "lenient-or-malformed"),
    ("no prediction line", lambda b, p: None, _no, "missing"),
    ("box on a point row", lambda b, p: _response({"bbox": b}), _no, "malformed"),
    ("pre-parsed fields", lambda b, p: {"parsed": {"point": p}}, _yes, "fields"),
]


BOX_KINDS: list[Kind] = [
    ("bbox", lambda b, p: _response({"bbox": b}), _yes, "strict"),
    ("box key", lambda b, p: _response({"box": b}), _yes, "strict"),
    ("flat x0..y1", lambda b, p: _response({"x0": b[0], "y0": b[1], "x1": b[2], "y1": b[3]}), _yes, "strict"),
    ("box in a string", lambda b, p: _response({"bbox": f"[{b[0]}, {b[1]}, {b[2]}, {b[3]}]"}), _yes, "strict"),
    ("numbers in answer text", lambda b, p: _response({"answer": f"{b[0]} {b[1]} {b[2]} {b[3]}"}), _yes, "strict"),
    ("swapped corners", lambda b, p: _response({"bbox": [b[2], b[3], b[0], b[1]]}), _yes, "strict"),
    ("pred key", lambda b, p: _response({"pred": b}), _yes, "strict"),
    # Left half only: coverage <= 1/2 < 0.90 (clipped).
    ("clipped", lambda b, p: _response({"bbox": [b[0], b[1], (b[0] + b[2]) / 2, b[3]]}), _no, "strict"),
    # Three times as wide and high around it: precision 1/9 < 0.70 (oversized).
    (
        "oversized",
        lambda b, p: _response({"bbox": [2 * b[0] - b[2], 2 * b[1] - b[3], 2 * b[2] - b[0], 2 * b[3] - b[1]]}),
        _no,
        "strict",
    ),
    ("point on a box row", lambda b, p: _response({"point": p}), _no, "malformed"),
    ("fenced", lambda b, p: {"response": "```\n" + json.dumps({"bbox": b}) + "\n```"}, _no, "lenient"),
    ("no prediction line", lambda b, p: None, _no, "missing"),
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("official")
    sources = root / "pointerbench"
    shutil.copytree(FIXTURES / "pointerbench", sources)
    for metadata in sources.glob("pointerbench-*/data/test/metadata.jsonl"):
        for line in metadata.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            (metadata.parent / record["file_name"]).write_bytes(blank_png(tuple(record["image_size"])))
    published = root / "groundbench"
    interim = root / "interim"
    counts = convert_pointerbench(sources, interim, PARAMS.gui, PARAMS.shards, progress=False)
    assert counts == dict.fromkeys(SUITES, 500)
    for name in SUITES:  # published as `groundbench assemble` does: Parquet data files
        table = read_table(interim / name)
        write_config(published / "data" / name, table.to_batches(), table.schema, 64)
    manifests = {name: f"{index:064x}" for index, name in enumerate(sorted(SUITES))}
    key = {"groundbench": card_key(FORMAT_VERSION, "0.0.0-test", manifests)}
    (published / "README.md").write_text("---\n" + yaml.safe_dump(key) + "---\n")
    return published


def metadata(subset: str) -> list[dict[str, Any]]:
    path = FIXTURES / "pointerbench" / subset / "data" / "test" / "metadata.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def build(config: str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The prediction lines of one suite and the hand tally: official hits, lenient hits, statuses."""
    lines: list[dict[str, Any]] = []
    tally = {"hits": 0, "lenient_hits": 0, "strict": 0, "lenient": 0, "malformed": 0, "missing": 0, "fields": 0}
    counters = {"point": 0, "bbox": 0}
    for record in metadata(SUITES[config]):
        box, point, answer = record["bbox"], record["point"], record["answer_type"]
        assert _in(box, *point)  # the reference point lies inside its box
        kinds = BOX_KINDS if answer == "bbox" else POINT_KINDS
        name, make, hit, status = kinds[counters[answer] % len(kinds)]
        counters[answer] += 1
        fields = make(box, point)
        if status == "lenient-or-malformed":  # prose with no JSON object in it: nothing to recover
            status = "malformed"
        tally[status] += 1
        tally["hits"] += hit(box, point)
        tally["lenient_hits"] += hit(box, point) or name == "fenced"
        if fields is not None:
            lines.append({"model": "seeded", "example_id": f"{config}/{record['id']}", "condition": "gui", **fields})
    return lines, tally


def _metric(report: Any, config: str, metric: str, detail: str | None = None) -> dict[str, Any]:
    return next(
        m
        for m in report.metrics
        if m["config"] == config and m["metric"] == metric and (detail is None or m["detail"] == detail)
    )


@pytest.mark.parametrize("config", sorted(SUITES))
def test_gui_success_equals_the_official_rule(folder: Path, config: str) -> None:
    lines, tally = build(config)
    report = score(lines, folder=folder, resamples=50)
    headline = _metric(report, config, "gui_success")
    assert (headline["count"], headline["n"]) == (tally["hits"], 500)
    lenient = _metric(report, config, "gui_success_lenient")
    assert (lenient["count"], lenient["n"]) == (tally["lenient_hits"], 500)
    for status in ("strict", "lenient", "malformed", "missing", "fields"):
        metric = {"strict": "strict_parse_rate", "lenient": "lenient_recovered_rate"}.get(status, f"{status}_rate")
        assert _metric(report, config, metric)["count"] == tally[status], status
    coverage = _metric(report, config, "coverage")
    assert (coverage["count"], coverage["n"]) == (500 - tally["missing"], 500)
    assert headline["ci_low"] <= headline["value"] <= headline["ci_high"]


def test_mean_of_suites_covers_pointerbench_only(folder: Path) -> None:
    lines = [line for config in sorted(SUITES) for line in build(config)[0]]
    report = score(lines, folder=folder, resamples=20)
    mean = next(m for m in report.metrics if m["metric"] == "gui_success_mean_of_suites")
    expected = sum(build(c)[1]["hits"] / 500 for c in SUITES) / 3
    assert mean["n"] == 3 and mean["value"] == pytest.approx(expected)
    assert report.to_dict()["gate"]["status"] == "not gated"
