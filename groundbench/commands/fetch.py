"""``groundbench fetch``: download a real source and record its provenance (``groundbench.fetch.run``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from groundbench.errors import GroundBenchError
from groundbench.stages.options import QUIET, console
from groundbench.stages.options import root as _root

NAME = "fetch"
HELP = """Download real sources from their official locations into data/sources/<source>/tree (licence and terms
printed first), check sizes, checksums and layout, write data/sources/<source>/provenance.json and `dvc add` the
tree. Sources: umd (HTTP archive), pointerbench, screenspot, screenspot_v2, screenspot_pro, ui_vision (Hugging
Face, pinned to a commit), osworld_g (GitHub files at a pinned commit), gapartnet (request form: --from your
download)."""
PARENTS = (QUIET,)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from groundbench.core.registry import FETCHES

    parser.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help=", ".join(FETCHES),  # the registry's fetchable sources
    )
    parser.add_argument("--from", dest="from_path", metavar="ARCHIVE_OR_FOLDER", help="gapartnet: your download")
    parser.add_argument(
        "--url", help="umd: a mirror of the official archive; osworld_g: a mirror of raw.githubusercontent.com"
    )
    parser.add_argument("--sha256", help="the archive's expected sha256 (default: the documented or recorded one)")
    parser.add_argument(
        "--revision",
        help="Hub sources: branch, tag or commit (default: the recorded commit, else main); osworld_g: a commit "
        "(default: the recorded one, else the catalogue's)",
    )
    parser.add_argument("--refresh", action="store_true", help="download again and compare with the recorded bytes")
    parser.add_argument("--update", action="store_true", help="accept new upstream bytes or a new revision")


def run(args: argparse.Namespace) -> int:
    from groundbench.core.locks import output_locks
    from groundbench.fetch.provenance import checksum
    from groundbench.fetch.run import FetchOptions, fetch

    root = _root(args)
    if args.from_path and len(args.sources) != 1:
        raise GroundBenchError("command line", "--from", "give exactly one source with --from")
    for source in args.sources:
        options = FetchOptions(
            from_path=Path(args.from_path) if args.from_path else None,
            url=args.url,
            sha256=args.sha256,
            revision=args.revision,
            refresh=args.refresh,
            update=args.update,
            progress=not args.quiet,
        )
        with output_locks(root, [f"fetch-{source}"]):  # two fetches would append to the same partial download
            result = fetch(root, source, options, lambda line: console.print(line, markup=False, highlight=False))
        record = result.record
        console.print(
            f"{source}: {result.status}, revision {record['revision']}, {checksum(record)}, "
            f"{record['tree']['files']} files -> data/sources/{source}/tree "
            f"(record: data/sources/{source}/provenance.json)",
            markup=False,
            highlight=False,
        )
    console.print("next: `make build SOURCES=real` (or `groundbench sources real` then `dvc repro`)")
    return 0
