"""``groundbench``: one command line for every pipeline stage and for the users' checks."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from groundbench import __version__
from groundbench.errors import GroundBenchError

console = Console(stderr=True)
out = Console()


def _root(args: argparse.Namespace) -> Path:
    return Path(args.root).resolve()


def _params(args: argparse.Namespace) -> dict:
    from groundbench.params import load_params

    return load_params(_root(args))


def cmd_sample(args: argparse.Namespace) -> int:
    from groundbench.pipeline import run_sample

    frames = run_sample(_root(args), _params(args), args.source)
    console.print(f"wrote the embedded {args.source} sample: {frames} frames")
    return 0


def cmd_convert(args: argparse.Namespace) -> int:
    from groundbench.pipeline import run_convert

    counts = run_convert(_root(args), _params(args), args.source, progress=not args.quiet)
    if not counts:
        console.print(f"source {args.source} is null in params.yaml: left out of the build")
    for config, rows in counts.items():
        console.print(f"{config}: {rows} rows converted")
    return 0


def cmd_bake(args: argparse.Namespace) -> int:
    from groundbench.pipeline import run_bake

    for config in args.configs:
        result = run_bake(_root(args), _params(args), config)
        state = "absent (source is null)" if result.absent else f"{result.rows} rows, {result.excluded} excluded, valid"
        console.print(f"{config}: {state}")
    return 0


def cmd_store(args: argparse.Namespace) -> int:
    from groundbench.pipeline import run_store

    images, size = run_store(_root(args))
    console.print(f"image store: {images} images, {size} bytes")
    return 0


def cmd_assemble(args: argparse.Namespace) -> int:
    from groundbench.pipeline import run_assemble

    facts = run_assemble(_root(args), _params(args))
    console.print(f"data/groundbench: {len(facts)} configs")
    return 0


def cmd_summary(args: argparse.Namespace) -> int:
    from groundbench.pipeline import collect_facts

    facts = collect_facts(_root(args))
    table = Table(title="GroundBench build (per config; strata are not pooled)")
    for column in ("config", "stratum", "rows", "excluded", "images", "image bytes", "shard bytes"):
        table.add_column(column, justify="left" if column in ("config", "stratum") else "right")
    for f in facts:
        table.add_row(
            f.name, f.stratum, str(f.rows), str(f.excluded), str(f.images), f"{f.image_bytes:,}", f"{f.shard_bytes:,}"
        )
    out.print(table)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from groundbench.pipeline import built_configs
    from groundbench.verify import verify

    root = _root(args)
    configs = args.configs or built_configs(root)
    report = verify(root / "data", configs)
    for line in report.mismatches:
        print(f"MISMATCH {line}")  # plain print: one unwrapped line per mismatch, for grep
    status = "FAILED" if report.mismatches else "ok"
    console.print(
        f"verify {status}: {len(configs)} configs, {report.checked_files} files, "
        f"{report.checked_images} embedded images, {len(report.mismatches)} mismatches"
    )
    return 1 if report.mismatches else 0


def cmd_preview(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from groundbench.atomic import write_bytes
    from groundbench.preview import preview_png
    from groundbench.rows import config_folder, file_stem, iter_rows, parse_where, select

    root = _root(args)
    rows = select(iter_rows(config_folder(root, args.config)), [parse_where(t) for t in args.where])
    wanted = set(args.example_ids)  # ids still to find; empty = draw every row
    every = not wanted
    out = Path(args.out) if args.out else root / "build" / "preview" / args.config
    written = 0
    for row in tqdm(rows, desc=f"preview {args.config}", unit="row", disable=args.quiet):
        if not every and row["example_id"] not in wanted:
            continue
        write_bytes(out / f"{file_stem(row['example_id'])}.png", preview_png(row, args.side))
        wanted.discard(row["example_id"])
        written += 1
    if wanted:
        raise GroundBenchError(
            f"data/shards/{args.config}", "example_id", f"not in this config (or filtered out): {sorted(wanted)}"
        )
    console.print(f"{args.config}: {written} previews in {out}")
    return 0


def cmd_sheet(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from groundbench.atomic import atomic_dir
    from groundbench.rows import config_folder, iter_rows, parse_where, select
    from groundbench.sheet import SheetLayout, pages

    root = _root(args)
    where = [parse_where(t) for t in args.where]
    rows = select(iter_rows(config_folder(root, args.config)), where)
    layout = SheetLayout(side=args.side, columns=args.columns, rows=args.rows)
    name = "__".join([args.config, *(term.slug for term in where)])
    out = (Path(args.out) if args.out else root / "build" / "sheets") / name
    count = 0
    with atomic_dir(out) as tmp:  # the folder holds exactly this run's pages, never stale ones
        progress = tqdm(pages(rows, layout), desc=f"sheet {name}", unit="page", disable=args.quiet)
        for number, png in enumerate(progress, 1):
            (tmp / f"page-{number:03d}.png").write_bytes(png)
            count = number
    console.print(f"{name}: {count} contact-sheet pages in {out}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from groundbench.params import get
    from groundbench.pipeline import built_configs
    from groundbench.registry import BY_NAME
    from groundbench.report.build import ConfigSource, ReportSettings, build_report
    from groundbench.rows import config_folder, iter_rows

    root = _root(args)
    knobs = get(_params(args), "report")
    settings = ReportSettings(
        thumb_side=knobs["thumb_side"], detail_side=knobs["detail_side"], jpeg_quality=knobs["jpeg_quality"]
    )
    sources = []
    for name in built_configs(root):
        folder = config_folder(root, name)
        info = BY_NAME[name]
        sources.append(ConfigSource(name, info.stratum, info.source, functools.partial(iter_rows, folder)))
    out = Path(args.out) if args.out else root / "data" / "report"
    counts = build_report(out, sources, settings, progress=not args.quiet)
    console.print(f"audit gallery: {len(counts)} configs, {sum(counts.values())} rows in {out}/index.html")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="groundbench",
        description="Build, check and use the GroundBench dataset. Stages are normally run by `dvc repro`.",
    )
    parser.add_argument("--version", action="version", version=f"groundbench {__version__}")
    parser.add_argument("--root", default=".", help="repository root holding params.yaml and data/ (default: .)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, func: Callable[[argparse.Namespace], int], help_text: str) -> argparse.ArgumentParser:
        command = sub.add_parser(name, help=help_text, description=help_text)
        command.set_defaults(func=func)
        return command

    p = add("sample", cmd_sample, "Write the embedded sample of a source, in its real on-disk format.")
    p.add_argument("source", choices=["umd"], help="which source's sample to write")
    p = add("convert", cmd_convert, "Convert one source (as set in params.yaml) into data/interim/<source>/.")
    p.add_argument("source", choices=["umd"], help="which source to convert")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p = add("bake", cmd_bake, "Bake per-row baselines into configs, validate them, write shards and manifests.")
    p.add_argument("configs", nargs="+", help="config names, e.g. curated_umd bulk_umd")
    add("store", cmd_store, "Fill the content-addressed image store data/images/ from the shards.")
    add("assemble", cmd_assemble, "Write the Hugging Face dataset folder data/groundbench/ (card + shards).")
    add("summary", cmd_summary, "Print rows, excluded rows, images and bytes per config.")
    p = add(
        "verify",
        cmd_verify,
        "Re-hash the image store and embedded images against the manifests; exit 1 on any mismatch.",
    )
    p.add_argument("configs", nargs="*", help="configs to check (default: every built config)")
    where_help = (
        "keep rows matching TERM (repeatable, ANDed): an exclusion tag (e.g. box_projection_mismatch), "
        "excluded, included, reask, or key=value with key in stratum, source, action, class, quality, tag, "
        "object_category, answer_type (action, class and quality describe the target part)"
    )
    p = add(
        "preview",
        cmd_preview,
        "Draw rows of a built config as PNGs: every candidate part's box and point, labelled, the target in red, "
        "a re-ask's original target in blue, line style = box quality; a legend lists every part.",
    )
    p.add_argument("config", help="a built config, e.g. curated_umd")
    p.add_argument("example_ids", nargs="*", metavar="EXAMPLE_ID", help="rows to draw (default: every row)")
    p.add_argument("--out", help="output folder (default: build/preview/CONFIG)")
    p.add_argument("--where", action="append", default=[], metavar="TERM", help=where_help)
    p.add_argument("--side", type=int, default=960, help="longest image side in pixels (default: 960)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p = add(
        "sheet",
        cmd_sheet,
        "Contact sheets of a built config: pages of overlaid thumbnails with captions "
        "(e.g. every row tagged box_projection_mismatch), written to OUT/CONFIG[__TERM...]/page-NNN.png.",
    )
    p.add_argument("config", help="a built config, e.g. bulk_umd")
    p.add_argument("--where", action="append", default=[], metavar="TERM", help=where_help)
    p.add_argument("--out", help="parent output folder (default: build/sheets)")
    p.add_argument("--side", type=int, default=256, help="thumbnail cell size in pixels (default: 256)")
    p.add_argument("--columns", type=int, default=6, help="thumbnails per line (default: 6)")
    p.add_argument("--rows", type=int, default=8, help="lines per page (default: 8)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p = add(
        "report",
        cmd_report,
        "Write the static audit gallery data/report/ (open data/report/index.html): per config, overlaid "
        "thumbnails with filters and a page per row, plus distribution plots (PNG and SVG).",
    )
    p.add_argument("--out", help="output folder (default: data/report)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except GroundBenchError as exc:
        console.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        return 2


if __name__ == "__main__":
    sys.exit(main())
