"""``groundbench report``: the static audit gallery ``data/report/`` of the built configs."""

from __future__ import annotations

import argparse
import functools
from pathlib import Path
from typing import TYPE_CHECKING

from groundbench.stages.options import QUIET, console, params, root

if TYPE_CHECKING:
    from groundbench.core.params import Params

NAME = "report"
HELP = (
    "Write the static audit gallery data/report/ (open data/report/index.html): per config, overlaid "
    "thumbnails with filters and a page per row, plus distribution plots (PNG and SVG)."
)
PARENTS = (QUIET,)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", help="output folder (default: data/report)")


def run_report(top: Path, settings: Params, out: Path, progress: bool = False) -> dict[str, int]:
    """The gallery of every built config of the project at ``top`` into ``out``; rows per config."""
    from groundbench.cards.render import synthetic_notice
    from groundbench.core.registry import BY_NAME
    from groundbench.review.report.build import ConfigSource, build_report
    from groundbench.review.rows import config_folder, iter_rows
    from groundbench.stages.built import built_configs, synthetic_configs

    sources = []
    for name in built_configs(top):
        folder = config_folder(top, name)
        info = BY_NAME[name]
        sources.append(ConfigSource(name, info.stratum, info.source, functools.partial(iter_rows, folder)))
    synthetic = [name for name in synthetic_configs(settings) if name in {s.name for s in sources}]
    return build_report(out, sources, settings.report, progress=progress, notice=synthetic_notice(synthetic))


def run(args: argparse.Namespace) -> int:
    top = root(args)
    out = Path(args.out) if args.out else top / "data" / "report"
    counts = run_report(top, params(args), out, progress=not args.quiet)
    console.print(f"audit gallery: {len(counts)} configs, {sum(counts.values())} rows in {out}/index.html")
    return 0
