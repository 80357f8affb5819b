"""``groundbench report``: the static audit gallery ``data/report/`` of the built configs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from groundbench.stages.options import QUIET, console, params, root

if TYPE_CHECKING:
    from groundbench.core.params import Params

NAME = "report"
HELP = """Write the static audit gallery data/report/ (open data/report/index.html): per config, pages of thumbnails
drawn over the image store's files, with filters and a view of every row, plus distribution plots (PNG and SVG)."""
PARENTS = (QUIET,)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", help="output folder (default: data/report)")


def run_report(top: Path, settings: Params, out: Path, progress: bool = False) -> dict[str, int]:
    """The gallery of every built config of the project at ``top`` into ``out``; rows per config."""
    from groundbench.cards.notice import synthetic_notice
    from groundbench.core.manifests import read_manifest
    from groundbench.core.registry import BY_NAME
    from groundbench.review.report.build import ConfigSource, build_report
    from groundbench.review.rows import config_folder
    from groundbench.stages.built import built_configs, synthetic_configs
    from groundbench.stages.paths import IMAGES, MANIFESTS

    sources = []
    for name in built_configs(top):
        folder = config_folder(top, name)
        info = BY_NAME[name]
        # Where the store stage puts each image (stages/store.py): the same manifest entries.
        manifest = read_manifest(top / MANIFESTS / f"{name}.jsonl")
        images = {sha: entry.store_path() for sha, entry in manifest.items()}
        sources.append(ConfigSource(name, info.stratum, info.source, folder, images))
    synthetic = [name for name in synthetic_configs(settings) if name in {s.name for s in sources}]
    notice = synthetic_notice(synthetic)
    return build_report(out, sources, settings.report, top / IMAGES, progress=progress, notice=notice)


def run(args: argparse.Namespace) -> int:
    top = root(args)
    out = Path(args.out) if args.out else top / "data" / "report"
    counts = run_report(top, params(args), out, progress=not args.quiet)
    console.print(f"audit gallery: {len(counts)} configs, {sum(counts.values())} rows in {out}/index.html")
    return 0
