"""Write the whole gallery into one folder, atomically: pages, thumbnails, detail images, plots, assets.

Layout (relative links only, so the folder works from file:// or any static server)::

    index.html                    configs, overview plots
    assets/gallery.css, .js
    plots/<name>.png|svg           overview plots; plots/<config>/centres|sizes.png|svg
    <config>/index.html           thumbnails + filters
    <config>/thumbs/<stem>.jpg    overlay thumbnail of a row
    <config>/detail/<stem>.jpg    larger overlay, part ids on the image
    <config>/rows/<stem>.html     every field of a row
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from tqdm import tqdm

from groundbench.core.atomic import atomic_dir
from groundbench.core.params import ReportParams
from groundbench.review.preview import jpeg_bytes
from groundbench.review.report import html
from groundbench.review.report.collect import RowSummary, summarize
from groundbench.review.report.images import row_images
from groundbench.review.report.plots import ConfigRows, Plot, all_plots

T = TypeVar("T")
ASSETS = ("gallery.css", "gallery.js")


@dataclass(frozen=True)
class ConfigSource:
    name: str
    stratum: str
    source: str
    rows: Callable[[], Iterator[dict[str, Any]]]  # every row of the config, sorted by example_id


def with_neighbours(items: Iterable[T]) -> Iterator[tuple[T | None, T, T | None]]:
    """(previous, item, next) with one item of look-ahead, so memory holds at most two rows."""
    previous: T | None = None
    pending: T | None = None
    have = False
    for item in items:
        if have:
            yield previous, pending, item  # type: ignore[misc]
            previous = pending
        pending, have = item, True
    if have:
        yield previous, pending, None  # type: ignore[misc]


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _write_config(
    tmp: Path, config: ConfigSource, settings: ReportParams, progress: bool, notice: str
) -> tuple[list[RowSummary], dict[str, tuple[int, int]]]:
    """Thumbnails, detail images and row pages; returns the rows' summaries and thumbnail sizes."""
    folder = tmp / config.name
    summaries: list[RowSummary] = []
    stems: dict[str, str] = {}
    sizes: dict[str, tuple[int, int]] = {}

    def stem_of(record: dict[str, Any] | None) -> str | None:
        if record is None:
            return None
        key = str(record["example_id"])
        if key not in stems:
            stems[key] = summarize(record).stem
        return stems[key]

    rows = tqdm(config.rows(), desc=f"report {config.name}", unit="row", disable=None if progress else True)
    for previous, record, following in with_neighbours(rows):
        summary = summarize(record)
        summaries.append(summary)
        # The thumbnail as on a contact sheet, the detail's part ids up to 40 parts.
        thumb, detail = row_images(
            record, settings.thumb_side, settings.detail_side, "id" if summary.parts <= 40 else "number"
        )
        sizes[summary.stem] = thumb.size
        _write(folder / "thumbs" / f"{summary.stem}.jpg", jpeg_bytes(thumb, settings.jpeg_quality))
        _write(folder / "detail" / f"{summary.stem}.jpg", jpeg_bytes(detail, settings.jpeg_quality))
        page = html.row_page(record, summary, config.name, stem_of(previous), stem_of(following), notice)
        _write(folder / "rows" / f"{summary.stem}.html", page.encode())
    return summaries, sizes


def _write_plot(tmp: Path, plot: Plot) -> None:
    _write(tmp / "plots" / f"{plot.name}.png", plot.png)
    _write(tmp / "plots" / f"{plot.name}.svg", plot.svg)


def build_report(
    out: Path, configs: Sequence[ConfigSource], settings: ReportParams, progress: bool = True, notice: str = ""
) -> dict[str, int]:
    """Write the gallery of ``configs`` (in the given order) to ``out``; returns rows per config. ``notice``
    (a synthetic build's warning) opens every page."""
    with atomic_dir(out) as tmp:
        for name in ASSETS:
            _write(tmp / "assets" / name, resources.files("groundbench.review.report").joinpath(name).read_bytes())
        collected: list[ConfigRows] = []
        thumb_sizes: dict[str, dict[str, tuple[int, int]]] = {}
        for config in configs:
            summaries, thumb_sizes[config.name] = _write_config(tmp, config, settings, progress, notice)
            collected.append(ConfigRows(config.name, config.stratum, tuple(summaries)))
        overview, per_config = all_plots(collected)
        for plot in overview:
            _write_plot(tmp, plot)
        for c in collected:
            for plot in per_config[c.name]:
                _write_plot(tmp, plot)
            page = html.config_page(c.name, c.stratum, c.rows, thumb_sizes[c.name], per_config[c.name], notice)
            _write(tmp / c.name / "index.html", page.encode())
        index = html.index_page(
            [(c.name, c.stratum, src.source, c.rows) for c, src in zip(collected, configs, strict=True)],
            overview,
            notice,
        )
        _write(tmp / "index.html", index.encode())
    return {c.name: len(c.rows) for c in collected}
