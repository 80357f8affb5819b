"""``groundbench requests``: one request line per row valid under a condition (``groundbench.scoring.requests``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from groundbench.commands.options import DATA, PROFILE_HELP
from groundbench.commands.options import data_folder as _data_folder
from groundbench.core.collector import loading
from groundbench.stages.options import console

NAME = "requests"
HELP = """Write one JSONL line per row valid under a condition: example_id, condition, prompt, image reference and
template hash, for any model harness. Conditions: the six, counterfactual, part_named_free_form, gui, and any non-GUI
condition + '/text_only' (same prompt, image withheld)."""
PARENTS = (DATA,)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="a built config, e.g. curated_umd")
    parser.add_argument(
        "--condition", required=True, help="e.g. part_named, localization_only/text_only, counterfactual"
    )
    parser.add_argument("--out", type=Path, help="output JSONL file (default: standard output)")
    parser.add_argument(
        "--images", type=Path, help="write each requested image here (<sha256>.png/.jpg); lines point at it"
    )
    parser.add_argument("--profile", metavar="NAME[:KEY=VALUE,...]", help=PROFILE_HELP)


def run(args: argparse.Namespace) -> int:
    with loading():  # the scorer's modules, without the cyclic collector (groundbench/core/collector.py)
        from groundbench.scoring.requests import write_requests

    count = write_requests(_data_folder(args), args.config, args.condition, args.out, args.images, args.profile)
    console.print(f"{args.config} / {args.condition}: {count} requests" + (f" -> {args.out}" if args.out else ""))
    return 0
