"""``groundbench preview``: rows of a built config drawn as PNGs (``groundbench.review.preview``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from groundbench.commands.options import DATA, WHERE
from groundbench.commands.options import data_folder as _data_folder
from groundbench.commands.options import output_root as _output_root
from groundbench.errors import GroundBenchError
from groundbench.stages.options import QUIET, console

NAME = "preview"
HELP = """Draw rows of a built config as PNGs: every candidate part's box and point, labelled, the target in red, a
re-ask's original target in blue, line style = box quality; a legend lists every part."""
PARENTS = (DATA, QUIET, WHERE)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="a built config, e.g. curated_umd")
    parser.add_argument("example_ids", nargs="*", metavar="EXAMPLE_ID", help="rows to draw (default: every row)")
    parser.add_argument("--out", help="output folder (default: build/preview/CONFIG)")
    parser.add_argument("--side", type=int, default=960, help="longest image side in pixels (default: 960)")


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from groundbench.core.atomic import write_bytes
    from groundbench.loaders.published import iter_rows
    from groundbench.review.preview import preview_png
    from groundbench.review.rows import WHERE_WORDS, file_stem, no_match, parse_where, select

    folder = _data_folder(args)
    where = [parse_where(t) for t in args.where]
    rows = select(iter_rows(folder, args.config), where)
    wanted = set(args.example_ids)  # ids still to find; empty = draw every row
    every = not wanted
    out = Path(args.out) if args.out else _output_root(args) / "build" / "preview" / args.config
    written = 0
    for row in tqdm(rows, desc=f"preview {args.config}", unit="row", disable=True if args.quiet else None):
        if not every and row["example_id"] not in wanted:
            continue
        write_bytes(out / f"{file_stem(row['example_id'])}.png", preview_png(row, args.side))
        wanted.discard(row["example_id"])
        written += 1
    if written == 0 and every and any(term.key not in WHERE_WORDS for term in where):  # say what would match
        said = no_match(iter_rows(folder, args.config), where)
        console.print(f"{args.config}: no row matches {' and '.join(args.where)}: {said}", markup=False, soft_wrap=True)
    if wanted:
        raise GroundBenchError(
            folder / "data" / args.config, "example_id", f"not in this config (or filtered out): {sorted(wanted)}"
        )
    console.print(f"{args.config}: {written} previews in {out}")
    return 0
