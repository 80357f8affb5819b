"""``groundbench summary``: rows, images and bytes per config, and the GUI suites' facts
(``groundbench.tools.summary``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.table import Table

from groundbench.commands.options import out
from groundbench.stages.options import console
from groundbench.stages.options import params as _params
from groundbench.stages.options import root as _root

NAME = "summary"
HELP = "Print rows, excluded rows, images and bytes per config."


def run(args: argparse.Namespace) -> int:
    from groundbench.scoring.notice import say_synthetic
    from groundbench.stages.built import built_configs, synthetic_configs
    from groundbench.tools.summary import collect_facts

    built = set(built_configs(_root(args)))
    say_synthetic(console, [name for name in synthetic_configs(_params(args)) if name in built])  # on stderr
    facts = collect_facts(_root(args))
    table = Table(title="GroundBench build (per config; strata are not pooled)")
    for column in ("config", "stratum", "rows", "excluded", "images", "image bytes", "shard bytes"):
        table.add_column(column, justify="left" if column in ("config", "stratum") else "right")
    for f in facts:
        table.add_row(
            f.name, f.stratum, str(f.rows), str(f.excluded), str(f.images), f"{f.image_bytes:,}", f"{f.shard_bytes:,}"
        )
    out.print(table)
    _print_gui_facts(_root(args))
    return 0


def _number(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _print_gui_facts(root: Path) -> None:
    from groundbench.converters.gui.facts import gui_facts, is_gui
    from groundbench.core.registry import CONFIGS
    from groundbench.stages.built import absent_reasons, built_configs
    from groundbench.stages.paths import SHARDS

    gui = [c.name for c in CONFIGS if is_gui(c.source)]
    built = [name for name in built_configs(root) if name in gui]
    absent = {name: reason for name, reason in absent_reasons(root).items() if name in gui}
    if not built and not absent:
        return
    facts = gui_facts(root / SHARDS, built, absent)
    table = Table(title="GUI suites per target type (target size as % of the frame; centre-click hit rate)")
    for column in (
        "config",
        "target type",
        "rows",
        "median area %",
        "median w %",
        "median h %",
        "languages",
        "centre click",
    ):
        table.add_column(column)
    for name, config in facts["built"].items():
        for kind, f in [("(all)", config["all"]), *config["by_target_type"].items()]:
            table.add_row(
                name,
                kind,
                str(f["rows"]),
                _number(f["median_target_area_pct"], 4),  # None: refusal rows only (no target to measure)
                _number((f["target_width_pct"] or {}).get("median"), 2),
                _number((f["target_height_pct"] or {}).get("median"), 2),
                ",".join(f["languages"]),
                f"{f['center_click_hit_rate']:.3f}",
            )
    out.print(table)
    for name, reason in facts["absent"].items():
        out.print(f"{name}: absent from this build ({reason})")
