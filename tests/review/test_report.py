"""The audit gallery: byte-identical rebuilds, every row and plot present, no network resources, the CLI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from groundbench.core.atomic import HOST
from groundbench.core.params import ReportParams
from groundbench.review.report.build import build_report, with_neighbours
from groundbench.review.report.collect import RowSummary
from groundbench.review.rows import facets_of, file_stem, iter_rows
from tests.conftest import dead_pid, digests, run_cli
from tests.support.viz_records import build_umd_project, gallery_sources, gapartnet_rows, gui_rows

SETTINGS = ReportParams(thumb_side=160, detail_side=400, jpeg_quality=85)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path) -> Path:
    return build_umd_project(tmp_path_factory.mktemp("report") / "project", umd_sample)


@pytest.fixture(scope="module")
def gallery(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gallery") / "report"
    build_report(out, gallery_sources(built), SETTINGS, progress=False)
    return out


def test_two_builds_are_byte_identical(built: Path, gallery: Path, tmp_path: Path) -> None:
    again = tmp_path / "report"
    build_report(again, gallery_sources(built), SETTINGS, progress=False)
    first, second = digests(gallery, (".",)), digests(again, (".",))
    assert first == second
    assert len(first) > 250


def test_every_row_has_a_thumbnail_a_detail_image_and_a_page(built: Path, gallery: Path) -> None:
    expected = {
        "curated_umd": [r["example_id"] for r in iter_rows(built / "data/shards/curated_umd")],
        "bulk_umd": [r["example_id"] for r in iter_rows(built / "data/shards/bulk_umd")],
        "handmade_gapartnet": [r["example_id"] for r in gapartnet_rows()],
        "handmade_gui": [r["example_id"] for r in gui_rows()],
    }
    for config, ids in expected.items():
        page = (gallery / config / "index.html").read_text()
        assert page.count('<figure class="row') == len(ids)
        for example_id in ids:
            stem = file_stem(example_id)
            for path in (f"thumbs/{stem}.jpg", f"detail/{stem}.jpg", f"rows/{stem}.html"):
                assert (gallery / config / path).is_file(), path
            assert f'data-id="{example_id}"' in page


def test_plots_exist_as_png_and_deterministic_svg(gallery: Path) -> None:
    names = ["actions_by_stratum", "box_quality", "exclusions"]
    names += [
        f"{c}/{kind}"
        for c in ("curated_umd", "bulk_umd", "handmade_gapartnet", "handmade_gui")
        for kind in ("centres", "sizes")
    ]
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


def test_detail_page_lists_every_part_with_its_box(gallery: Path) -> None:
    row = next(r for r in gapartnet_rows() if r["original_target_part_id"])
    page = (gallery / "handmade_gapartnet" / "rows" / f"{file_stem(row['example_id'])}.html").read_text()
    assert 'data-role="target" data-part-id="link_2"' in page
    assert 'data-role="original" data-part-id="link_0"' in page
    assert "[300, 200, 330, 230]" in page and "[40, 40, 200, 300]" in page
    assert "original_target_part_id" in page and "provenance" in page


def test_with_neighbours_pairs_each_item_with_its_neighbours() -> None:
    assert list(with_neighbours([1, 2, 3])) == [(None, 1, 2), (1, 2, 3), (2, 3, None)]
    assert list(with_neighbours([])) == []


def test_report_cli_writes_the_gallery_of_every_built_config(built: Path) -> None:
    assert run_cli(built, "report", "--quiet") == 0
    index = (built / "data" / "report" / "index.html").read_text()
    assert 'href="curated_umd/index.html"' in index and 'href="bulk_umd/index.html"' in index
    assert (built / "data" / "report" / "assets" / "gallery.js").is_file()


def test_report_clears_what_a_killed_report_left_behind(built: Path) -> None:
    """`report` is a pipeline stage (the command table's STAGES): the gallery is swapped in whole (atomic_dir),
    and the hidden temporary a killed run leaves beside it is removed by the next run."""
    leftover = built / "data" / f".report.{dead_pid()}@{HOST}.killed.tmp"  # named as atomic_dir names it
    (leftover / "curated_umd").mkdir(parents=True)
    (leftover / "index.html").write_text("<half")
    assert run_cli(built, "report", "--quiet") == 0
    assert not leftover.exists()
    assert not [p for p in (built / "data").iterdir() if p.name.startswith(".report.")]
    assert (built / "data" / "report" / "index.html").read_text().endswith("</html>\n")


def _row_summary(example_id: str, stratum: str, action: str) -> RowSummary:
    facets = facets_of({"example_id": example_id, "stratum": stratum, "target_action": action, "parts": []})
    return RowSummary(example_id, file_stem(example_id), facets, 0, (), None, None)


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


def test_gallery_images_draw_what_overlay_draws_at_the_same_sizes() -> None:
    """row_images resizes once and draws with preview.overlay on the scaled image: the drawing is
    pixel-identical to overlay's on the same pixels, and both images have overlay's sizes."""
    from PIL import Image, ImageChops

    from groundbench.review.preview import decode, overlay, scaled_size
    from groundbench.review.report.images import row_images, scaled_record
    from tests.support.viz_records import table

    for record in table(gapartnet_rows() + gui_rows()).to_pylist():
        full = decode(record)
        thumb, detail = row_images(record, 64, 200, "id")
        assert thumb.size == overlay(record, 64, "number").size
        assert detail.size == overlay(record, 200, "id").size
        scale, size = scaled_size(full.size, 200)
        if scale < 1.0:
            clean = full.resize(size, Image.Resampling.LANCZOS)
            ours = overlay(scaled_record(record, scale), 200, tags="id", base=clean)
            assert ImageChops.difference(ours, overlay(record, 200, tags="id", base=full)).getbbox() is None
