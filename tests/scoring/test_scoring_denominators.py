"""Official denominators: every suite with an official scorer is scored on every row its source publishes, against
the box the source annotated (tests/fixtures/gui: the real ScreenSpot v1 (UGround copy), ScreenSpot-v2 (GUI-Actor
copy) and PointerBench metadata, blank screenshots of the recorded sizes; a ScreenSpot-Pro-layout tree with the
real ``inventor_windows_60`` box ``[135, -1, 151, 19]``). The row totals are the sources' counts: ScreenSpot v1
1,272, ScreenSpot-v2 1,272, each PointerBench suite 500 (research/gui.md). Also: every tag of the vocabulary is
documented with its reason, in docs/scoring.md and in the card."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from groundbench.converters.gui.convert import convert_pointerbench, convert_screenspot
from groundbench.core.params import load_params
from groundbench.core.shards import read_table
from groundbench.loaders.published import write_config
from groundbench.schemas.features import FORMAT_VERSION
from groundbench.schemas.vocab import EXCLUSION_TAGS, FLAGS
from groundbench.scoring import score
from groundbench.scoring.gate import card_key
from tests.conftest import REPO
from tests.converters.gui.test_gui_real import _pro, _pro_root, _uground_root, pointerbench, screenspot_v2_root

PARAMS = load_params(REPO)
__all__ = ["pointerbench"]  # the module-scoped fixture of test_gui_real (real metadata, blank screenshots)


def _publish(interim: Path, configs: list[str], published: Path) -> Path:
    """The interim configs as a published folder (Parquet data files and the card's gate), as assemble writes."""
    for name in configs:
        table = read_table(interim / name)
        write_config(published / "data" / name, table.to_batches(), table.schema, 256)
    manifests = {name: f"{index:064x}" for index, name in enumerate(sorted(configs))}
    key = {"groundbench": card_key(FORMAT_VERSION, "0.0.0-test", manifests)}
    (published / "README.md").write_text("---\n" + yaml.safe_dump(key) + "---\n")
    return published


def _headline(report: Any, config: str, metric: str = "gui_success") -> dict[str, Any]:
    return next(m for m in report.metrics if m["config"] == config and m["metric"] == metric)


def _centre_lines(folder: Path, config: str) -> list[dict[str, Any]]:
    """One strict answer per row: the centre of the box the source annotated (a hit under the official rule)."""
    rows = read_table(folder).drop_columns(["image"]).to_pylist()
    lines = []
    for row in rows:
        x0, y0, x1, y1 = row["extras"]["gui"]["eval_bbox"]
        answer = (
            {"point": [(x0 + x1) / 2, (y0 + y1) / 2]} if row["answer_type"] == "point" else {"bbox": [x0, y0, x1, y1]}
        )
        lines.append(
            {"model": "m", "example_id": row["example_id"], "condition": "gui", "response": json.dumps(answer)}
        )
    return lines


def test_screenspot_v2_scores_all_1272_rows_and_the_box_past_the_edge(tmp_path: Path) -> None:
    interim = tmp_path / "interim"
    convert_screenspot(
        screenspot_v2_root(tmp_path), interim, "screenspot_v2", "gui_screenspot_v2", PARAMS.gui, PARAMS.shards, False
    )
    folder = _publish(interim, ["gui_screenspot_v2"], tmp_path / "published")
    lines = _centre_lines(interim / "gui_screenspot_v2", "gui_screenspot_v2")
    assert len(lines) == 1272
    report = score(lines, folder=folder, resamples=5)
    headline = _headline(report, "gui_screenspot_v2")
    assert (headline["count"], headline["n"]) == (1272, 1272)
    # mobile_02e9bl.png: annotated xyxy [645, 625, 2361, 1590] on a 2360-wide image. A click at x = 2360.5 is past
    # the frame but inside the annotated box: the official scorer counts it, and so does the headline.
    rows = read_table(interim / "gui_screenspot_v2").drop_columns(["image"]).to_pylist()
    (edge,) = [r for r in rows if "box_clamped" in r["flags"]]
    assert edge["extras"]["gui"]["file_name"] == "mobile_02e9bl.png" and edge["width"] == 2360
    assert edge["extras"]["gui"]["eval_bbox"] == [645, 625, 2361, 1590]
    past = [
        {**line, "response": json.dumps({"point": [2360.5, 1000]})}
        if line["example_id"] == edge["example_id"]
        else line
        for line in lines
    ]
    assert _headline(score(past, folder=folder, resamples=5), "gui_screenspot_v2")["count"] == 1272
    beyond = [
        {**line, "response": json.dumps({"point": [2361.5, 1000]})}
        if line["example_id"] == edge["example_id"]
        else line
        for line in lines
    ]
    assert _headline(score(beyond, folder=folder, resamples=5), "gui_screenspot_v2")["count"] == 1271


def test_screenspot_v1_scores_all_1272_rows(tmp_path: Path) -> None:
    interim = tmp_path / "interim"
    convert_screenspot(
        _uground_root(tmp_path), interim, "screenspot", "gui_screenspot", PARAMS.gui, PARAMS.shards, False
    )
    folder = _publish(interim, ["gui_screenspot"], tmp_path / "published")
    lines = _centre_lines(interim / "gui_screenspot", "gui_screenspot")
    report = score(lines, folder=folder, resamples=5)
    headline = _headline(report, "gui_screenspot")
    assert (headline["count"], headline["n"]) == (1272, 1272)
    # an empty file is an error, but a file answering one row is scored over every row (the rest missing)
    one = score(lines[:1], folder=folder, resamples=5)
    assert (_headline(one, "gui_screenspot")["count"], _headline(one, "gui_screenspot")["n"]) == (1, 1272)


def test_pointerbench_suites_score_all_500_rows_each(pointerbench: Path, tmp_path: Path) -> None:
    interim = tmp_path / "interim"
    counts = convert_pointerbench(pointerbench, interim, PARAMS.gui, PARAMS.shards, progress=False)
    assert counts == {"gui_pro": 500, "gui_sheets": 500, "gui_text": 500}
    folder = _publish(interim, sorted(counts), tmp_path / "published")
    lines = [line for config in sorted(counts) for line in _centre_lines(interim / config, config)]
    report = score(lines, folder=folder, resamples=5)
    for config in counts:
        headline = _headline(report, config)
        assert (headline["count"], headline["n"]) == (500, 500), config
        assert _headline(report, config, "coverage")["n"] == 500


def test_screenspot_pro_box_past_the_frame_edge_scores_as_annotated(tmp_path: Path) -> None:
    # inventor_windows_60's real box [135, -1, 151, 19] on a 200 x 100 stand-in, beside an ordinary row
    records = [_pro([135, -1, 151, 19], id="inventor_windows_60"), _pro([10, 10, 50, 40], id="inventor_windows_1")]
    root = _pro_root(tmp_path, records)
    interim = tmp_path / "interim"
    convert_screenspot(root, interim, "screenspot_pro", "gui_screenspot_pro", PARAMS.gui, PARAMS.shards, False)
    folder = _publish(interim, ["gui_screenspot_pro"], tmp_path / "published")
    rows = {r["example_id"]: r for r in read_table(interim / "gui_screenspot_pro").drop_columns(["image"]).to_pylist()}
    edge = rows["gui_screenspot_pro/inventor_windows_60"]
    assert edge["parts"][0]["bbox_xyxy"] == [135, 0, 151, 19] and edge["flags"] == ["box_clamped"]
    assert not edge["excluded"]

    def run(point: list[float]) -> dict[str, Any]:
        lines = [
            {
                "model": "m",
                "example_id": "gui_screenspot_pro/inventor_windows_60",
                "condition": "gui",
                "response": json.dumps({"point": point}),
            },
            {
                "model": "m",
                "example_id": "gui_screenspot_pro/inventor_windows_1",
                "condition": "gui",
                "response": json.dumps({"point": [30, 25]}),
            },
        ]
        return _headline(score(lines, folder=folder, resamples=5), "gui_screenspot_pro")

    # y = -0.5: outside the frame and the clamped box, inside the annotated one: a hit, out of 2 rows
    assert (run([140, -0.5])["count"], run([140, -0.5])["n"]) == (2, 2)
    assert run([140, -1])["count"] == 2  # on the annotated top edge (edges included)
    assert run([140, -1.5])["count"] == 1  # above it: a miss
    assert run([152, 5])["count"] == 1  # right of it: a miss


def _sections(text: str, *titles: str) -> str:
    parts = []
    for title in titles:
        start = text.index(title)
        end = text.find("\n## ", start + len(title))
        parts.append(text[start : end if end > 0 else None])
    return "\n".join(parts)


def test_every_tag_is_listed_with_its_reason_in_the_docs_and_the_card() -> None:
    docs = (REPO / "docs" / "scoring.md").read_text(encoding="utf-8")
    card = _sections((REPO / "cards" / "body.md").read_text(encoding="utf-8"), "## Exclusion reasons", "## Flags")
    table = _sections(docs, "## Which tags exclude a row")
    for tag in EXCLUSION_TAGS:
        assert f"| `{tag}` | excludes" in table, tag
        assert f"`{tag}`" in card, tag
    for tag in FLAGS:
        assert f"| `{tag}` | flag" in table, tag
        assert f"`{tag}`" in card, tag
    assert "box_clamped" not in EXCLUSION_TAGS and "box_clamped" in FLAGS
