"""``groundbench report``: the static audit gallery ``data/report/`` of the built configs."""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from groundbench.stages.options import QUIET, console, params, root

NAME = "report"
HELP = """Write the static audit gallery data/report/ (open data/report/index.html): per config, overlaid thumbnails
with filters and a page per row, plus distribution plots (PNG and SVG)."""
PARENTS = (QUIET,)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", help="output folder (default: data/report)")


def run(args: argparse.Namespace) -> int:
    from groundbench.cards.render import synthetic_notice
    from groundbench.core.registry import BY_NAME
    from groundbench.review.report.build import ConfigSource, build_report
    from groundbench.review.rows import config_folder, iter_rows
    from groundbench.stages.built import built_configs, synthetic_configs

    top = root(args)
    settings = params(args).report
    sources = []
    for name in built_configs(top):
        folder = config_folder(top, name)
        info = BY_NAME[name]
        sources.append(ConfigSource(name, info.stratum, info.source, functools.partial(iter_rows, folder)))
    out = Path(args.out) if args.out else top / "data" / "report"
    synthetic = [name for name in synthetic_configs(params(args)) if name in {s.name for s in sources}]
    counts = build_report(out, sources, settings, progress=not args.quiet, notice=synthetic_notice(synthetic))
    console.print(f"audit gallery: {len(counts)} configs, {sum(counts.values())} rows in {out}/index.html")
    return 0
