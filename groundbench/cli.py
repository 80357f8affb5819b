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


def cmd_derive(args: argparse.Namespace) -> int:
    from groundbench.pipeline import run_derive

    summary = run_derive(_root(args), _params(args), args.construction, progress=not args.quiet)
    if not summary:
        console.print("source gapartnet is null in params.yaml: left out of the build")
        return 0
    pool = summary["pool"]
    console.print(
        f"{args.construction}: {summary['rows']} rows, {summary['excluded']} excluded; "
        f"frozen pool {pool['objects']} objects, {pool['pairs']} pairs"
    )
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
    console.print(f"data/groundbench: {len(facts.configs)} configs, card and croissant.json, version {facts.version}")
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


# Commands that write pipeline outputs: each starts by clearing what a killed run left behind.
STAGES = ("sample", "convert", "derive", "bake", "store", "assemble")


def _check_card(root: Path) -> list[str]:
    from groundbench.cardcheck import check_folder
    from groundbench.params import load_params
    from groundbench.pipeline import HF_FOLDER, MANIFESTS, built_configs, facts_meta
    from groundbench.registry import BY_NAME

    configs = [BY_NAME[name] for name in sorted(built_configs(root))]
    return check_folder(root / HF_FOLDER, root / MANIFESTS, configs, facts_meta(root, load_params(root)))


def cmd_check_card(args: argparse.Namespace) -> int:
    problems = _check_card(_root(args))
    for line in problems:
        print(f"CARD {line}")
    console.print(f"card check {'FAILED' if problems else 'ok'}: {len(problems)} problems")
    return 1 if problems else 0


def cmd_publish(args: argparse.Namespace) -> int:
    from groundbench.params import get
    from groundbench.pipeline import HF_FOLDER, built_configs
    from groundbench.publish import git_commit, plan, preflight, upload
    from groundbench.verify import verify

    root = _root(args)
    version = str(get(_params(args), "dataset.version"))
    folder = root / HF_FOLDER
    report = verify(root / "data", built_configs(root))
    problems = preflight(folder, report.mismatches, _check_card(root))
    for line in problems:
        print(f"REFUSED {line}")
    if problems:
        console.print(f"publish refused: {len(problems)} problems (fix them, rebuild with `make build`)")
        return 1
    publish_plan = plan(folder, args.repo_id, args.revision or f"v{version}", git_commit(root))
    for path, size in publish_plan.files:
        print(f"{size:>12} {path}")
    count = len(publish_plan.files)
    print(f"{publish_plan.total_bytes:>12} total, {count} files -> {args.repo_id} tag {publish_plan.tag}")
    if args.dry_run:
        console.print("dry run: nothing uploaded")
        return 0
    url = upload(folder, publish_plan, version)
    console.print(f"published {args.repo_id} {publish_plan.tag}: {url}")
    return 0


def cmd_pull(args: argparse.Namespace) -> int:
    from groundbench.dvcpull import pull_config
    from groundbench.registry import BY_NAME

    if args.config not in BY_NAME:
        raise GroundBenchError("command line", "config", f"expected one of {sorted(BY_NAME)}, found {args.config!r}")
    _, images = pull_config(_root(args), args.config, args.remote)
    console.print(f"{args.config}: shards, manifest, published folder and {images} store images pulled")
    return 0


def cmd_version(args: argparse.Namespace) -> int:
    from groundbench.params import get
    from groundbench.pipeline import SHARDS, built_configs
    from groundbench.version import bump

    root = _root(args)
    if args.action == "show":
        print(get(_params(args), "dataset.version"))
        return 0
    new, changes = bump(root, root / SHARDS, built_configs(root), args.part)
    for c in changes:
        console.print(f"{c.config}: +{c.added} -{c.removed} ~{c.changed} ={c.unchanged}")
    console.print(f"dataset version {new}: params.yaml and CHANGELOG-data.md updated; run `make build` to stamp it")
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from groundbench.converters.gapartnet.render_cli import render_object

    name = render_object(
        Path(args.object).resolve(),
        Path(args.out).resolve(),
        qpos=args.qpos,
        theta=args.theta,
        phi=args.phi,
        distance=args.distance,
        width=args.width,
        height=args.height,
        camera_idx=args.camera_idx,
        render_idx=args.render_idx,
        category=args.category,
        engine=args.engine,
    )
    console.print(f"rendered {name} into {args.out}")
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
    p.add_argument("source", choices=["umd", "gapartnet"], help="which source's sample to write")
    p = add("convert", cmd_convert, "Convert one source (as set in params.yaml) into data/interim/<source>/.")
    p.add_argument("source", choices=["umd", "gapartnet"], help="which source to convert")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p = add(
        "derive",
        cmd_derive,
        "Build a re-ask config from the converted GAPartNet rows: counterfactual (every curated row re-asked "
        "about each non-target part) or contrast (every object mined for parts with different actions; raw "
        "objects rendered clean; failing rows kept, tagged, excluded). Prints the frozen pool's size.",
    )
    p.add_argument("construction", choices=["counterfactual", "contrast"], help="which re-ask config to build")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p = add("bake", cmd_bake, "Bake per-row baselines into configs, validate them, write shards and manifests.")
    p.add_argument("configs", nargs="+", help="config names, e.g. curated_umd bulk_umd")
    add("store", cmd_store, "Fill the content-addressed image store data/images/ from the shards.")
    add(
        "assemble",
        cmd_assemble,
        "Write the Hugging Face dataset folder data/groundbench/ (card, croissant.json, version-stamped shards).",
    )
    add("summary", cmd_summary, "Print rows, excluded rows, images and bytes per config.")
    p = add(
        "render",
        cmd_render,
        "Render one clean view of a GAPartNet object folder (URDF + OBJ meshes) on the CPU, in GAPartNet's "
        "render format (rgb/ segmentation/ depth/ metafile/ bbox/), the camera persisted in the metafile.",
    )
    p.add_argument("object", help="GAPartNet object folder (annotation URDF, link annotations, meshes)")
    p.add_argument("--out", required=True, help="renders folder to add the view to")
    p.add_argument("--qpos", action="append", default=[], metavar="JOINT=VALUE", help="joint position (repeatable)")
    p.add_argument("--theta", type=float, default=60.0, help="camera polar angle from +z, degrees (default 60)")
    p.add_argument("--phi", type=float, default=180.0, help="camera azimuth, degrees; fronts face -x (default 180)")
    p.add_argument("--distance", type=float, default=3.0, help="camera distance from the origin (default 3)")
    p.add_argument("--width", type=int, default=320, help="image width in pixels (default 320)")
    p.add_argument("--height", type=int, default=240, help="image height in pixels (default 240)")
    p.add_argument("--camera-idx", type=int, default=0, help="camera index in the view name (default 0)")
    p.add_argument("--render-idx", type=int, default=0, help="render index in the view name (default 0)")
    p.add_argument("--category", help="object category (default: meta.json model_cat)")
    p.add_argument("--engine", choices=["embree", "triangle"], default="embree", help="ray caster (default embree)")
    p = add(
        "verify",
        cmd_verify,
        "Re-hash the image store and embedded images against the manifests; exit 1 on any mismatch.",
    )
    p.add_argument("configs", nargs="*", help="configs to check (default: every built config)")
    add(
        "check-card",
        cmd_check_card,
        "Regenerate the card and croissant.json from data/groundbench's shards and compare; validate both "
        "offline (huggingface_hub, mlcroissant). Exit 1 on any difference.",
    )
    p = add(
        "publish",
        cmd_publish,
        "Upload data/groundbench/ to a Hugging Face dataset repo (create_repo, upload_folder, create_tag). "
        "Refuses unless verify, shard validation and the card check pass. Needs a token (HF_TOKEN or `hf auth "
        "login`) and HF_HUB_OFFLINE unset; HF_ENDPOINT selects another Hub.",
    )
    p.add_argument("--repo-id", required=True, help="ORG/NAME of the dataset repo (created when missing)")
    p.add_argument("--revision", help="tag to create for this version (default: v<dataset.version>)")
    p.add_argument("--dry-run", action="store_true", help="print the exact files and bytes; upload nothing")
    p = add(
        "pull",
        cmd_pull,
        "`dvc pull` one config only: its shards, manifest, published folder and exactly the images its "
        "manifest lists from the shared store.",
    )
    p.add_argument("config", help="config name, e.g. curated_umd")
    p.add_argument("--remote", help="DVC remote name (default: the project's default remote)")
    p = add(
        "version",
        cmd_version,
        "Show the dataset version, or bump it: params.yaml dataset.version plus a CHANGELOG-data.md entry "
        "(rows added/removed/changed per config since the previous bump, computed from the built shards).",
    )
    p.add_argument("action", choices=["show", "bump"], help="show the version, or bump it")
    p.add_argument("part", nargs="?", choices=["major", "minor", "patch"], default="patch", help="what to bump")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command in STAGES:
            from groundbench.pipeline import clear_leftovers

            clear_leftovers(_root(args))
        return int(args.func(args))
    except GroundBenchError as exc:
        console.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        return 2


if __name__ == "__main__":
    sys.exit(main())
