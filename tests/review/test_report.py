"""The audit gallery: byte-identical rebuilds (whatever the shards' batches), every row in its config's
index with its image in the store and its fields in the details file its position names, a file count that
grows with the rows by ``rows_per_file``, plots, no network resources, the CLI."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from groundbench.core.atomic import HOST
from groundbench.core.params import ReportParams
from groundbench.core.shards import ShardWriter, read_table, shard_files
from groundbench.loaders.prompts import build_prompt, build_prompts
from groundbench.review.preview import DASHES, role_of
from groundbench.review.report.build import ASSETS, build_report
from groundbench.review.report.collect import RowSummary
from groundbench.review.report.rowdata import DASH_STYLES, ROLES, thumbnail_parts
from groundbench.review.rows import facets_of, iter_rows
from groundbench.schemas.request_conditions import conditions_of
from tests.conftest import dead_pid, digests, run_cli
from tests.support.viz_records import build_umd_project, gallery_sources, gapartnet_rows, gui_rows, table

SETTINGS = ReportParams(thumb_side=160, detail_side=400, rows_per_page=50, rows_per_file=16)
CONFIGS = ("curated_umd", "bulk_umd", "handmade_gapartnet", "handmade_gui")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path) -> Path:
    root = build_umd_project(tmp_path_factory.mktemp("report") / "project", umd_sample)
    assert run_cli(root, "store") == 0  # the gallery shows the store's images
    return root


@pytest.fixture(scope="module")
def gallery(built: Path) -> Path:
    out = built / "data" / "gallery"  # beside the store, as data/report is
    build_report(out, gallery_sources(built), SETTINGS, built / "data/images", progress=False)
    return out


def call(path: Path, name: str) -> list[Any]:
    """The arguments of a gallery data file's one call, ``groundbenchGallery.<name>(...);``."""
    text = path.read_text()
    head = f"groundbenchGallery.{name}("
    assert text.startswith(head) and text.endswith(");\n"), path
    return json.loads(f"[{text[len(head) : -3]}]")


def expected_rows(built: Path) -> dict[str, list[dict[str, Any]]]:
    return {
        "curated_umd": list(iter_rows(built / "data/shards/curated_umd")),
        "bulk_umd": list(iter_rows(built / "data/shards/bulk_umd")),
        "handmade_gapartnet": table(gapartnet_rows()).to_pylist(),
        "handmade_gui": table(gui_rows()).to_pylist(),
    }


def test_two_builds_are_byte_identical(built: Path, gallery: Path) -> None:
    again = built / "data" / "gallery_again"  # beside the first: the same way to the store
    build_report(again, gallery_sources(built), SETTINGS, built / "data/images", progress=False)
    first = digests(gallery, (".",))
    assert first == digests(again, (".",))
    assert len(first) > 30


def test_every_row_is_in_the_index_with_its_image_and_in_its_details_file(built: Path, gallery: Path) -> None:
    for config, rows in expected_rows(built).items():
        (index,) = call(gallery / config / "rows.js", "index")
        column = {name: at for at, name in enumerate(index["columns"])}
        assert [line[column["id"]] for line in index["rows"]] == [r["example_id"] for r in rows]
        assert index["rowsPerFile"] == SETTINGS.rows_per_file and index["rowsPerPage"] == SETTINGS.rows_per_page
        for position, (line, row) in enumerate(zip(index["rows"], rows, strict=True)):
            stored = line[column["image"]]
            if (row["image"] or {}).get("bytes"):
                # relative to the config's page, as the browser resolves it
                assert (gallery / config / index["images"] / stored).read_bytes() == row["image"]["bytes"]
            else:
                assert stored is None, row["example_id"]  # no image: the page draws a grey placeholder
            number, at = divmod(position, SETTINGS.rows_per_file)
            _, details = call(gallery / config / "details" / f"{number}.js", "details")
            record = details["rows"][at]
            assert record["example_id"] == row["example_id"] and record["excluded"] == row["excluded"]
            assert [p["part_id"] for p in record["parts"]] == [p["part_id"] for p in row["parts"]]
            assert "mask_rle" not in json.dumps(record)  # the run lengths are most of a row and no view shows them
        files = sorted((gallery / config / "details").iterdir())
        assert len(files) == math.ceil(len(rows) / SETTINGS.rows_per_file)


def test_the_gallery_does_not_depend_on_how_the_shards_are_cut(built: Path, gallery: Path) -> None:
    """The same rows in batches of 7 rows and shards of about 1 MB give the same files: details files start
    mid-batch and span batches and shard files."""
    [source] = [s for s in gallery_sources(built) if s.name == "bulk_umd"]
    rows = read_table(source.shards).combine_chunks().to_batches()[0]
    recut = built / "recut" / "bulk_umd"
    recut.parent.mkdir(exist_ok=True)
    with ShardWriter(recut, 2**20, 7) as writer:
        writer.add_rows(rows)
    assert len(shard_files(recut)) > 1
    out = built / "data" / "gallery_recut"
    build_report(out, [dataclasses.replace(source, shards=recut)], SETTINGS, built / "data/images", progress=False)
    assert digests(out / "bulk_umd", (".",)) == digests(gallery / "bulk_umd", (".",))


def test_the_file_count_grows_with_the_rows_by_rows_per_file(built: Path, gallery: Path) -> None:
    """A config is its page, its index and one details file per rows_per_file rows: no file per row."""
    rows = {config: len(r) for config, r in expected_rows(built).items()}
    plots = 3 * 2 + len(CONFIGS) * 2 * 2  # overview and per-config plots, PNG and SVG
    per_config = sum(2 + math.ceil(n / SETTINGS.rows_per_file) for n in rows.values())
    files = [p for p in gallery.rglob("*") if p.is_file()]
    assert len(files) == 1 + len(ASSETS) + plots + per_config
    assert sum(rows.values()) > len(files)  # fewer files than rows (the old gallery wrote three per row)


def test_each_row_carries_the_prompt_of_every_valid_condition(built: Path, gallery: Path) -> None:
    for config, rows in expected_rows(built).items():
        for position, row in enumerate(rows):
            number, at = divmod(position, SETTINGS.rows_per_file)
            _, details = call(gallery / config / "details" / f"{number}.js", "details")
            shown = {c: "\n\n".join(details["paragraphs"][i] for i in p) for c, p in details["prompts"][at]}
            assert shown == {c: build_prompt(row, c) for c in conditions_of(row)}, row["example_id"]
    excluded = next(r for r in gapartnet_rows() if "no_render" in r["exclusion_tags"])
    assert conditions_of(excluded) == []  # the row the browser test shows "No valid condition" for


def test_build_prompts_is_build_prompt_of_each_condition(built: Path) -> None:
    rows = expected_rows(built)
    for row in [r for rs in rows.values() for r in rs]:
        conditions = conditions_of(row)
        assert build_prompts(row, conditions) == [build_prompt(row, c) for c in conditions]


def test_thumbnails_draw_every_part_by_role_and_quality_and_gui_ones_the_target_only() -> None:
    """The index's thumbnail geometry is what preview.overlay draws on a contact sheet's thumbnail
    (sheet.thumbnail_view): a GUI suite row keeps only its target, unnumbered, whose many numbered
    neighbours pile up at thumbnail size (issue 34 item 11)."""
    for record in table(gapartnet_rows() + gui_rows()).to_pylist():
        drawn, numbered = thumbnail_parts(record)
        parts = record["parts"]
        if record["stratum"] == "suite":
            assert len(parts) == 3 and [d[0] for d in drawn] == [1] and numbered == 0  # the target is part 1
        else:
            assert [d[0] for d in drawn] == list(range(1, len(parts) + 1)) and numbered == 1
        for number, role, dash, box, point in drawn:
            part = parts[number - 1]
            assert ROLES[role] == role_of(record, part["part_id"])
            assert DASH_STYLES[dash] == DASHES[part["box_quality"]]
            assert box == part["bbox_xyxy"] and point == part["point_xy"]


def test_plots_exist_as_png_and_deterministic_svg(gallery: Path) -> None:
    names = ["actions_by_stratum", "box_quality", "exclusions"]
    names += [f"{c}/{kind}" for c in CONFIGS for kind in ("centres", "sizes")]
    for name in names:
        png = (gallery / "plots" / f"{name}.png").read_bytes()
        svg = (gallery / "plots" / f"{name}.svg").read_text()
        assert png.startswith(b"\x89PNG") and b"tEXt" not in png  # no Software/date text chunks
        assert "<dc:date>" not in svg and "svg" in svg[:400]


def test_pages_reference_only_local_files(gallery: Path) -> None:
    for page in gallery.rglob("*.html"):
        text = page.read_text()
        assert not re.search(r"""(src|href)=["'](https?:)?//""", text), page
        for link in re.findall(r"""(?:src|href)="([^"#:]+)\"""", text):  # data: URLs stay inline
            assert (page.parent / link).resolve().is_file(), f"{page}: {link}"
    for script in gallery.rglob("*.js"):
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", script.read_text()), script


def test_report_cli_writes_the_gallery_of_every_built_config(built: Path) -> None:
    assert run_cli(built, "report", "--quiet") == 0
    report = built / "data" / "report"
    index = (report / "index.html").read_text()
    assert 'href="curated_umd/index.html"' in index and 'href="bulk_umd/index.html"' in index
    assert (report / "assets" / "gallery.js").is_file() and (report / "assets" / "overlay.js").is_file()
    (payload,) = call(report / "bulk_umd" / "rows.js", "index")
    assert payload["images"] == "../../images/"  # data/images, beside data/report
    column = payload["columns"].index("image")
    assert all((report / "bulk_umd" / payload["images"] / line[column]).is_file() for line in payload["rows"])


def test_report_clears_what_a_killed_report_left_behind(built: Path) -> None:
    """`report` is a pipeline stage (cli.STAGES): the gallery is swapped in whole (atomic_dir), and the
    hidden temporary a killed run leaves beside it is removed by the next run."""
    leftover = built / "data" / f".report.{dead_pid()}@{HOST}.killed.tmp"  # named as atomic_dir names it
    (leftover / "curated_umd").mkdir(parents=True)
    (leftover / "index.html").write_text("<half")
    assert run_cli(built, "report", "--quiet") == 0
    assert not leftover.exists()
    assert not [p for p in (built / "data").iterdir() if p.name.startswith(".report.")]
    assert (built / "data" / "report" / "index.html").read_text().endswith("</html>\n")


def _row_summary(example_id: str, stratum: str, action: str) -> RowSummary:
    facets = facets_of({"example_id": example_id, "stratum": stratum, "target_action": action, "parts": []})
    return RowSummary(example_id, facets, 0, (), None, None)


def test_a_stratum_of_one_action_gets_a_line_not_a_panel() -> None:
    """The GUI suites' every action is `none`: a panel of one bar; they get a line under the others."""
    from groundbench.review.report.plots import ConfigRows, actions_figure

    objects = ConfigRows(
        "curated_x", "curated", (_row_summary("a", "curated", "pull"), _row_summary("b", "curated", "push"))
    )
    suite = ConfigRows("gui_y", "suite", tuple(_row_summary(f"g{i}", "suite", "none") for i in range(3)))
    figure = actions_figure([objects, suite])
    assert [ax.get_title() for ax in figure.axes] == [
        "stratum curated: target action per row (hatched = excluded rows)"
    ]
    assert [t.get_text() for t in figure.axes[0].get_xticklabels()] == ["push", "pull"]  # no empty `none` slot
    assert figure._supxlabel is not None
    assert figure._supxlabel.get_text() == "stratum suite: every row's target action is none (3 rows)"
    alone = actions_figure([suite])  # nothing varies: the line alone, no bar panel
    assert [ax.axison for ax in alone.axes] == [False]
    assert [t.get_text() for t in alone.axes[0].texts] == ["stratum suite: every row's target action is none (3 rows)"]
