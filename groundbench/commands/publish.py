"""``groundbench publish``: upload the dataset folder to the Hub, after the checks (``groundbench.tools.publish``)."""

from __future__ import annotations

import argparse

from groundbench.commands.check_card import card_problems
from groundbench.stages.options import console
from groundbench.stages.options import params as _params
from groundbench.stages.options import root as _root

NAME = "publish"
HELP = """Upload data/groundbench/ to a Hugging Face dataset repo (create_repo, upload_folder, create_tag). Refuses
unless verify, shard validation and the card check pass. Needs a token (HF_TOKEN or `hf auth login`) and
HF_HUB_OFFLINE unset; HF_ENDPOINT selects another Hub."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo-id", required=True, help="ORG/NAME of the dataset repo (created when missing)")
    parser.add_argument("--revision", help="tag to create for this version (default: v<dataset.version>)")
    parser.add_argument("--dry-run", action="store_true", help="print the exact files and bytes; upload nothing")
    parser.add_argument(
        "--allow-synthetic",
        action="store_true",
        help="publish a build made from the embedded samples anyway (refused by default; its card says synthetic)",
    )


def run(args: argparse.Namespace) -> int:
    from groundbench.stages.built import built_configs
    from groundbench.stages.paths import HF_FOLDER
    from groundbench.tools.publish import git_commit, plan, preflight, upload
    from groundbench.tools.verify import verify

    root = _root(args)
    version = _params(args).dataset.version
    folder = root / HF_FOLDER
    report = verify(root / "data", built_configs(root))
    problems = preflight(folder, report.mismatches, card_problems(root))
    for line in problems:
        print(f"REFUSED {line}")
    if problems:
        console.print(f"publish refused: {len(problems)} problems (fix them, rebuild with `make build`)")
        return 1
    from groundbench.loaders.published import CARD_KEY, card_metadata

    synthetic = card_metadata(folder).get("synthetic_configs") or []
    if synthetic and not args.allow_synthetic:
        print(f"REFUSED {CARD_KEY}.synthetic_configs: {', '.join(synthetic)} were built from embedded samples")
        console.print(
            "publish refused: this is a synthetic sample build, not the benchmark; point params.yaml at the real "
            "sources and rebuild, or pass --allow-synthetic to publish it anyway (its card says it is synthetic)"
        )
        return 1
    publish_plan = plan(folder, args.repo_id, args.revision or f"v{version}", git_commit(root))
    for path, size in publish_plan.files:
        print(f"{size:>12} {path}")
    count = len(publish_plan.files)
    print(f"{publish_plan.total_bytes:>12} total, {count} files -> {args.repo_id} tag {publish_plan.tag}")
    if args.dry_run:
        console.print("dry run: nothing uploaded")
        return 0
    published = upload(folder, publish_plan, version)
    console.print(
        f"{published.status}: {args.repo_id} {publish_plan.tag}: {published.url}", markup=False, soft_wrap=True
    )
    return 0
