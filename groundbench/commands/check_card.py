"""``groundbench check-card``: the card and croissant.json regenerated and compared
(``groundbench.tools.cardcheck``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from groundbench.stages.options import console
from groundbench.stages.options import root as _root

NAME = "check-card"
HELP = """Regenerate the card and croissant.json from data/groundbench's shards and compare; validate both offline
(huggingface_hub, mlcroissant). Exit 1 on any difference."""


def run(args: argparse.Namespace) -> int:
    problems = card_problems(_root(args))
    for line in problems:
        print(f"CARD {line}")
    console.print(f"card check {'FAILED' if problems else 'ok'}: {len(problems)} problems")
    return 1 if problems else 0


def card_problems(root: Path) -> list[str]:
    """What differs between the built card (and croissant.json) and one regenerated from the shards."""
    from groundbench.core.params import load_params
    from groundbench.core.registry import BY_NAME
    from groundbench.stages.assemble import facts_meta
    from groundbench.stages.built import published_configs
    from groundbench.stages.paths import HF_FOLDER, MANIFESTS
    from groundbench.tools.cardcheck import check_folder

    configs = [BY_NAME[name] for name in sorted(published_configs(root))]
    return check_folder(root / HF_FOLDER, root / MANIFESTS, configs, facts_meta(root, load_params(root)))
