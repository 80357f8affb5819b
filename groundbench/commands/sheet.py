"""``groundbench sheet``: contact sheets of a built config (``groundbench.review.sheet``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from groundbench.commands.options import DATA, WHERE
from groundbench.commands.options import data_folder as _data_folder
from groundbench.commands.options import output_root as _output_root
from groundbench.stages.options import QUIET, console

NAME = "sheet"
HELP = """Contact sheets of a built config: pages of overlaid thumbnails with captions (e.g. every row tagged
box_projection_mismatch), written to OUT/CONFIG[__TERM...]/page-NNN.png."""
PARENTS = (DATA, QUIET, WHERE)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="a built config, e.g. bulk_umd")
    parser.add_argument("--out", help="parent output folder (default: build/sheets)")
    parser.add_argument("--side", type=int, default=256, help="thumbnail cell size in pixels (default: 256)")
    parser.add_argument("--columns", type=int, default=6, help="thumbnails per line (default: 6)")
    parser.add_argument("--rows", type=int, default=8, help="lines per page (default: 8)")


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from groundbench.core.atomic import atomic_dir
    from groundbench.loaders.published import iter_rows
    from groundbench.review.rows import parse_where, select
    from groundbench.review.sheet import SheetLayout, pages

    where = [parse_where(t) for t in args.where]
    rows = select(iter_rows(_data_folder(args), args.config), where)
    layout = SheetLayout(side=args.side, columns=args.columns, rows=args.rows)
    name = "__".join([args.config, *(term.slug for term in where)])
    out = (Path(args.out) if args.out else _output_root(args) / "build" / "sheets") / name
    count = 0
    with atomic_dir(out) as tmp:  # the folder holds exactly this run's pages, never stale ones
        progress = tqdm(pages(rows, layout), desc=f"sheet {name}", unit="page", disable=True if args.quiet else None)
        for number, png in enumerate(progress, 1):
            (tmp / f"page-{number:03d}.png").write_bytes(png)
            count = number
    console.print(f"{name}: {count} contact-sheet pages in {out}")
    return 0
