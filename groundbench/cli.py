"""``groundbench``: one command line for every pipeline stage and for the users' checks."""

from __future__ import annotations

import argparse
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


def cmd_baselines(args: argparse.Namespace) -> int:
    from groundbench.pipeline import run_baselines

    rows = run_baselines(_root(args), _params(args))
    console.print(f"baselines: {rows} rows (one per config, stratum, condition and baseline)")
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


def _data_folder(args: argparse.Namespace) -> Path:
    folder = Path(args.data)
    return folder if folder.is_absolute() else _root(args) / folder


def cmd_requests(args: argparse.Namespace) -> int:
    from groundbench.scoring.requests import write_requests

    count = write_requests(_data_folder(args), _root(args), args.config, args.condition, args.out)
    console.print(f"{args.config} / {args.condition}: {count} requests" + (f" -> {args.out}" if args.out else ""))
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    from groundbench.scoring.run import run_sanity, run_score

    if args.sanity:
        return run_sanity(_data_folder(args), args.sanity, out, console)
    if args.predictions is None:
        console.print("error: give a PREDICTIONS file, or --sanity CONFIG")
        return 2
    return run_score(
        _data_folder(args), Path(args.predictions), args.json, args.csv, args.seed, args.resamples, out, console
    )


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
    add(
        "baselines",
        cmd_baselines,
        "Compute the `baselines` config (majority, text-only blind bound, tau, centre baselines) from the shards.",
    )
    add("store", cmd_store, "Fill the content-addressed image store data/images/ from the shards.")
    add("assemble", cmd_assemble, "Write the Hugging Face dataset folder data/groundbench/ (card + shards).")
    add("summary", cmd_summary, "Print rows, excluded rows, images and bytes per config.")
    p = add(
        "verify",
        cmd_verify,
        "Re-hash the image store and embedded images against the manifests; exit 1 on any mismatch.",
    )
    p.add_argument("configs", nargs="*", help="configs to check (default: every built config)")
    p = add(
        "requests",
        cmd_requests,
        "Write one JSONL line per row valid under a condition: example_id, condition, prompt, image reference "
        "and template hash, for any model harness. Conditions: the six, counterfactual, part_named_free_form, "
        "gui, and any non-GUI condition + '/text_only' (same prompt, image withheld).",
    )
    p.add_argument("config", help="a built config, e.g. curated_umd")
    p.add_argument("--condition", required=True, help="e.g. part_named, localization_only/text_only, counterfactual")
    p.add_argument("--out", type=Path, help="output JSONL file (default: standard output)")
    p.add_argument("--data", default="data/groundbench", help="the GroundBench folder (default: data/groundbench)")
    p = add(
        "score",
        cmd_score,
        "Score a predictions JSONL (example_id, condition, model, raw `response` and/or parsed part/action/point/box) "
        "with the paper's metrics, baselines in the same row; or run the built-in sanity self-test on a config.",
    )
    p.add_argument("predictions", nargs="?", help="predictions JSONL")
    p.add_argument("--json", type=Path, help='write {"metrics": [...], "predictions": [...]} here')
    p.add_argument("--csv", type=Path, help="write the metrics as CSV here")
    p.add_argument(
        "--sanity", metavar="CONFIG", help="run oracle/constant/echo emitters on CONFIG; exit 1 on deviation"
    )
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    p.add_argument("--data", default="data/groundbench", help="the GroundBench folder (default: data/groundbench)")
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
