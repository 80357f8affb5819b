"""preview and sheet: what is drawn where, deterministic bytes, --where selection, the CLI on a real build."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from groundbench.review.preview import COLORS, ORIGINAL, OTHER, TARGET, overlay, preview_png
from groundbench.review.rows import facets_of, file_stem, iter_rows, parse_where, select
from groundbench.review.sheet import SheetLayout, pages
from tests.conftest import run_cli
from tests.support.viz_records import build_umd_project, gapartnet_rows, gui_rows, table


def _rows() -> list[dict[str, Any]]:
    # Through Arrow and back, exactly as rows come out of a shard.
    return table(gapartnet_rows() + gui_rows()).to_pylist()


def _by_id(example_id: str) -> dict[str, Any]:
    return next(r for r in _rows() if r["example_id"] == example_id)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path) -> Path:
    """A project built from the embedded UMD sample (convert + bake), shared by this module's tests."""
    return build_umd_project(tmp_path_factory.mktemp("viz") / "project", umd_sample)


def _left_edge_colour(record: dict[str, Any], part_id: str, side: int = 800) -> tuple[int, int, int]:
    """The overlay's pixel on the middle of a part's left box edge."""
    image = overlay(record, side, tags="none")
    scale = image.width / record["width"]
    part = next(p for p in record["parts"] if p["part_id"] == part_id)
    x0, y0, _, y1 = part["bbox_xyxy"]
    return image.getpixel((round(x0 * scale), round((y0 + y1) / 2 * scale)))  # type: ignore[return-value]


def test_a_reask_draws_target_and_original_target_in_different_colours() -> None:
    row = _by_id("gapartnet/counterfactual/45135/link_2")
    assert _left_edge_colour(row, "link_2") == COLORS[TARGET]
    assert _left_edge_colour(row, "link_0") == COLORS[ORIGINAL]
    assert COLORS[TARGET] != COLORS[ORIGINAL] != COLORS[OTHER]


def test_without_a_reask_the_other_candidates_are_yellow() -> None:
    row = _by_id("gapartnet/curated/45135")
    assert _left_edge_colour(row, "link_0") == COLORS[TARGET]
    assert _left_edge_colour(row, "link_2") == COLORS[OTHER]


def test_gui_rows_draw_target_and_neighbours() -> None:
    row = _by_id("gui/sheets/0001")
    assert _left_edge_colour(row, "target") == COLORS[TARGET]
    assert _left_edge_colour(row, "neighbour_1") == COLORS[OTHER]


def test_a_gui_thumbnail_draws_the_target_alone() -> None:
    """At thumbnail size a screenshot's neighbour boxes and their numbers piled up over the target: a GUI
    row's thumbnail (contact sheet, teaser, gallery) draws its target alone, untagged; the detail keeps all."""
    from PIL import ImageChops

    from groundbench.review.report.rowdata import thumbnail_parts
    from groundbench.review.sheet import thumbnail

    row = _by_id("gui/sheets/0001")
    alone = {**row, "parts": [p for p in row["parts"] if p["part_id"] == row["target_part_id"]]}
    side = 240
    drawn = thumbnail(row, side)
    assert ImageChops.difference(drawn, overlay(alone, side, tags="none")).getbbox() is None
    assert ImageChops.difference(drawn, overlay(row, side, tags="number")).getbbox() is not None  # neighbours
    # The gallery's thumbnail (drawn by the page over the store's image) draws the same: the target, unnumbered;
    # its row view draws every part (tests/review/test_report_browser.py).
    parts, numbered = thumbnail_parts(row)
    assert [p[0] for p in parts] == [row["parts"].index(alone["parts"][0]) + 1] and numbered == 0
    cabinet = _by_id("gapartnet/curated/45135")  # an object's thumbnail: every part, numbered, as before
    assert ImageChops.difference(thumbnail(cabinet, side), overlay(cabinet, side, tags="number")).getbbox() is None


@pytest.mark.parametrize("at", [(400, 250), (400, 0), (795, 100), (0, 495), (795, 495)])
def test_a_small_targets_label_leaves_the_target_and_its_surroundings_visible(at: tuple[int, int]) -> None:
    """A 5x5 px GUI target (a cell corner) anywhere, edges and corners included: its label is drawn where it
    covers nothing within a label's height of the target, so the target and what it is read with stay visible."""
    from PIL import ImageChops

    row = _by_id("gui/sheets/0001")
    x, y = at
    target = {**row["parts"][0], "bbox_xyxy": [float(x), float(y), float(x + 5), float(y + 5)], "point_xy": None}
    small = {**row, "parts": [target, *row["parts"][1:]]}
    side = 960
    labelled, bare = overlay(small, side, tags="id"), overlay(small, side, tags="none")
    scale = labelled.width / row["width"]
    margin = max(10, round(side / 45))  # a label's height
    x0, y0 = max(0, round(x * scale) - margin), max(0, round(y * scale) - margin)
    x1, y1 = min(labelled.width, round((x + 5) * scale) + margin), min(labelled.height, round((y + 5) * scale) + margin)
    around = (x0, y0, x1, y1)
    assert ImageChops.difference(labelled.crop(around), bare.crop(around)).getbbox() is None
    assert ImageChops.difference(labelled, bare).getbbox() is not None  # the labels are drawn, elsewhere


def test_where_target_type_is_the_type_summary_and_score_show() -> None:
    """A generated sheet's corner row: summary and score call its type ``corner`` (the source's data_type), its
    target part's class is ``cell_corner``; ``--where target_type=corner`` selects it, and a ``class=corner``
    that selects nothing is told the values class takes and the key ``corner`` is found under."""
    from groundbench.review.rows import no_match
    from groundbench.scoring.gui import target_type

    row = _by_id("gui/sheets/0000")
    parts = [{**row["parts"][0], "category": "cell_corner"}, *row["parts"][1:]]
    corner = {**row, "example_id": "gui/sheets/corner", "parts": parts, "extras": {"gui": {"data_type": "corner"}}}
    rows = [*_rows(), corner]
    assert target_type(corner) == facets_of(corner).target_type == "corner"

    def ids(*terms: str) -> list[str]:
        return [r["example_id"] for r in select(iter(rows), [parse_where(t) for t in terms])]

    assert ids("target_type=corner") == ids("class=cell_corner") == ["gui/sheets/corner"]
    assert ids("target_type=button") == ["gui/sheets/0000", "gui/sheets/0001"]  # no data_type: the part's class
    assert ids("class=corner") == []
    said = no_match(iter(rows), [parse_where("class=corner")])
    assert "class takes " in said and "cell_corner" in said and "(did you mean target_type=corner?)" in said


def test_preview_bytes_are_deterministic_png_without_metadata() -> None:
    for row in _rows():
        first, second = preview_png(row), preview_png(row)
        assert first == second
        image = Image.open(io.BytesIO(first))
        assert image.format == "PNG" and image.width >= 640
        assert not set(image.info) - {"dpi"}  # no text chunks, no timestamps


def test_a_row_without_an_image_is_drawn_on_a_blank_canvas() -> None:
    row = _by_id("gapartnet/curated/45136")
    assert row["image"] is None
    image = Image.open(io.BytesIO(preview_png(row)))
    assert image.height > row["height"]


def test_where_terms_select_rows_by_tag_status_and_target_facets() -> None:
    rows = _rows()

    def ids(*terms: str) -> list[str]:
        return [r["example_id"] for r in select(iter(rows), [parse_where(t) for t in terms])]

    assert ids("box_projection_mismatch") == ["gapartnet/bulk/45135/link_1"]
    assert ids("tag=no_render") == ["gapartnet/curated/45136"]
    assert len(ids("excluded")) == 2 and len(ids("included")) == len(rows) - 2
    assert ids("reask") == ["gapartnet/counterfactual/45135/link_2"]
    assert ids("action=push", "stratum=bulk") == ["gapartnet/bulk/45135/link_2"]
    assert ids("quality=approximate") == ["gapartnet/bulk/45135/link_1"]
    assert ids("class=slider_button") == ["gapartnet/bulk/45135/link_2", "gapartnet/counterfactual/45135/link_2"]
    assert len(ids("stratum=suite", "answer_type=box")) == 1
    assert facets_of(_by_id("gui/sheets/0000")).answer_type == "point"
    clamped = {**_by_id("gui/sheets/0000"), "flags": ["box_clamped"]}  # a flag: kept and scored, still selectable
    for term in ("box_clamped", "flag=box_clamped"):
        assert [r["example_id"] for r in select(iter([*rows, clamped]), [parse_where(term)])] == ["gui/sheets/0000"]


@pytest.mark.parametrize("term", ["nope", "colour=red", "tag=not_a_tag", "flag=not_a_flag", "tag=box_clamped"])
def test_unknown_where_terms_are_refused(term: str) -> None:
    from groundbench.errors import GroundBenchError

    with pytest.raises(GroundBenchError, match="--where"):
        parse_where(term)


def test_contact_sheet_pages_hold_every_selected_row() -> None:
    layout = SheetLayout(side=120, columns=3, rows=1)
    out = list(pages(iter(_rows()), layout))
    assert len(out) == 3  # 7 rows, 3 per page
    first = Image.open(io.BytesIO(out[0]))
    last = Image.open(io.BytesIO(out[-1]))
    assert first.width > 3 * 120 and last.width < 2 * 120 + 20  # the last page holds one row
    assert out == list(pages(iter(_rows()), layout))


def test_file_stems_are_safe_and_unique() -> None:
    assert file_stem("a/b") != file_stem("a_b")
    assert "/" not in file_stem("umd/bulk/x/00000001/grasp")


def test_preview_cli_draws_every_row_of_every_built_config(built: Path, tmp_path: Path) -> None:
    for config in ("curated_umd", "bulk_umd"):
        rows = list(iter_rows(built / "data" / "shards" / config))
        out = tmp_path / config
        assert run_cli(built, "preview", config, "--out", str(out), "--side", "320", "--quiet") == 0
        assert sorted(p.name for p in out.iterdir()) == sorted(f"{file_stem(r['example_id'])}.png" for r in rows)


def test_preview_cli_selected_ids_and_unknown_ids(built: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    first = next(iter_rows(built / "data" / "shards" / "curated_umd"))["example_id"]
    assert run_cli(built, "preview", "curated_umd", first, "--out", str(tmp_path / "one"), "--quiet") == 0
    assert [p.name for p in (tmp_path / "one").iterdir()] == [f"{file_stem(first)}.png"]
    assert run_cli(built, "preview", "curated_umd", "umd/curated/nothing", "--out", str(tmp_path / "x")) == 2
    assert "umd/curated/nothing" in capsys.readouterr().err
    assert run_cli(built, "preview", "curated_gapartnet") == 2


def test_sheet_cli_writes_pages_per_filter(built: Path, tmp_path: Path) -> None:
    grasp = [r for r in iter_rows(built / "data" / "shards" / "bulk_umd") if r["target_action"] == "grasp"]
    args = ("--out", str(tmp_path), "--columns", "4", "--rows", "2", "--side", "96", "--quiet")
    assert run_cli(built, "sheet", "bulk_umd", "--where", "action=grasp", *args) == 0
    folder = tmp_path / "bulk_umd__action-grasp"
    assert len(list(folder.iterdir())) == -(-len(grasp) // 8)
    # Nothing matches: the folder is emptied, never left with stale pages.
    assert run_cli(built, "sheet", "bulk_umd", "--where", "box_projection_mismatch", *args) == 0
    assert list((tmp_path / "bulk_umd__tag-box_projection_mismatch").iterdir()) == []
    assert run_cli(built, "sheet", "bulk_umd", "--where", "bogus", *args) == 2
