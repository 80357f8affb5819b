"""Write the whole gallery into one folder, atomically: pages, row data, plots, assets.

Layout (relative links only, so the folder works from file:// or from a static server of its parent)::

    index.html                    configs, overview plots
    assets/gallery.css, .js, overlay.js
    plots/<name>.png|svg          overview plots; plots/<config>/centres|sizes.png|svg
    <config>/index.html           the config's page: filters, pages of thumbnails, a row's view at #<example_id>
    <config>/rows.js              the index of every row (rowdata.py)
    <config>/details/<k>.js       every field and prompt of rows k * rows_per_file onwards

No image is written: thumbnails and a row's view show the image store's file (``images``, e.g. data/images
beside data/report) with the boxes drawn over it in the browser. The file count grows with the rows by
``rows_per_file``, not three files a row, and no pixel is decoded here. One process: at 58,558 rows the
rows take ~7 CPU s; two spawned workers saved little of it and cost their start-up on a busy machine.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from tqdm import tqdm

from groundbench.core.atomic import atomic_dir
from groundbench.core.collector import paused
from groundbench.core.figures import Plot
from groundbench.core.params import ReportParams
from groundbench.core.shards import iter_batches
from groundbench.review.report import html
from groundbench.review.report.collect import RowSummary, summarize
from groundbench.review.report.plots import ConfigRows, all_plots
from groundbench.review.report.rowdata import DetailFile, RowIndex, index_entry, records, script

ASSETS = ("gallery.css", "gallery.js", "overlay.js")


@dataclass(frozen=True)
class ConfigSource:
    name: str
    stratum: str
    source: str
    shards: Path  # the config's shard folder (rows sorted by example_id)
    images: Mapping[str, str]  # image sha256 -> the image's path inside the image store


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _write_config(
    tmp: Path, config: ConfigSource, settings: ReportParams, images_url: str, progress: bool
) -> list[RowSummary]:
    """The config's details files and index; returns the rows' summaries (for the plots and the page)."""
    folder = tmp / config.name
    summaries: list[RowSummary] = []
    index = RowIndex(config.images)
    details = DetailFile()

    def flush() -> None:
        nonlocal details
        number = (len(summaries) - 1) // settings.rows_per_file
        _write(folder / "details" / f"{number}.js", script("details", number, details.payload()))
        details = DetailFile()

    rows = tqdm(
        records(iter_batches(config.shards)),
        desc=f"report {config.name}",
        unit="row",
        disable=None if progress else True,
    )
    for record in rows:
        summary = summarize(record)
        summaries.append(summary)
        index.add(index_entry(record, summary))
        details.add(record)
        if len(details) == settings.rows_per_file:
            flush()
    if len(details):
        flush()
    payload = index.payload(
        config=config.name,
        images=images_url,
        thumbSide=settings.thumb_side,
        detailSide=settings.detail_side,
        rowsPerPage=settings.rows_per_page,
        rowsPerFile=settings.rows_per_file,
    )
    _write(folder / "rows.js", script("index", payload))
    return summaries


def _write_plot(tmp: Path, plot: Plot) -> None:
    _write(tmp / "plots" / f"{plot.name}.png", plot.png)
    _write(tmp / "plots" / f"{plot.name}.svg", plot.svg)


def images_url(out: Path, images: Path, config: str) -> str:
    """The image store as a config page at ``out/<config>/`` links it: relative, ending in a slash."""
    return Path(os.path.relpath(images.absolute(), (out / config).absolute())).as_posix() + "/"


def build_report(
    out: Path,
    configs: Sequence[ConfigSource],
    settings: ReportParams,
    images: Path,
    progress: bool = True,
    notice: str = "",
) -> dict[str, int]:
    """Write the gallery of ``configs`` (in the given order) to ``out``, showing the images of the image store
    ``images``; returns rows per config. ``notice`` (a synthetic build's warning) opens every page."""
    with atomic_dir(out) as tmp:
        for name in ASSETS:
            _write(tmp / "assets" / name, resources.files("groundbench.review.report").joinpath(name).read_bytes())
        collected: list[ConfigRows] = []
        with paused():  # rows, summaries and index lines hold no cycles (groundbench/core/collector.py)
            for config in configs:
                url = images_url(out, images, config.name)
                summaries = _write_config(tmp, config, settings, url, progress)
                collected.append(ConfigRows(config.name, config.stratum, tuple(summaries)))
        overview, per_config = all_plots(collected)
        for plot in overview:
            _write_plot(tmp, plot)
        for c in collected:
            for plot in per_config[c.name]:
                _write_plot(tmp, plot)
            page = html.config_page(c.name, c.stratum, c.rows, per_config[c.name], notice)
            _write(tmp / c.name / "index.html", page.encode())
        index = html.index_page(
            [(c.name, c.stratum, src.source, c.rows) for c, src in zip(collected, configs, strict=True)],
            overview,
            notice,
        )
        _write(tmp / "index.html", index.encode())
    return {c.name: len(c.rows) for c in collected}
