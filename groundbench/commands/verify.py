"""``groundbench verify``: every built file against its recorded sha256, and the repair
(``groundbench.tools.verify``)."""

from __future__ import annotations

import argparse

from groundbench.stages.options import console
from groundbench.stages.options import root as _root

NAME = "verify"
HELP = """Check every shard, Parquet file, manifest, card and store image against the sha256s recorded at build time
(docs/integrity.md); exit 1 naming each file and row that differs, with the command that repairs it."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "configs", nargs="*", help="configs to check (default: every built config and every config in the card)"
    )
    parser.add_argument(
        "--rows", action="store_true", help="also read every file row by row against its manifest (slower)"
    )
    parser.add_argument(
        "--repair",
        action="store_true",
        help="first remove each damaged DVC cache object and its links and restore them (dvc pull, else dvc repro)",
    )


def run(args: argparse.Namespace) -> int:
    from groundbench.schemas.baselines_features import configs_counted
    from groundbench.tools.verify import repair_hints, verify, verify_and_repair

    root = _root(args)
    if args.repair:
        for line in verify_and_repair(root, args.configs or None):
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    report = verify(root / "data", args.configs or None, rows=args.rows)
    for line in report.mismatches:
        print(f"MISMATCH {line}")  # plain print: one unwrapped line per mismatch, for grep
    for line in repair_hints(root, report):
        print(f"REPAIR {line}")
    status = "FAILED" if report.mismatches else "ok"
    console.print(
        f"verify {status}: {configs_counted(report.configs, report.baselines)}, {report.checked_files} files, "
        f"{report.checked_images} embedded images, {len(report.mismatches)} mismatches",
        soft_wrap=True,  # one line whatever the terminal's width: scripts and the fault suite read it whole
    )
    return 1 if report.mismatches else 0
