"""Render the dataset card body from the built data's facts (never hand-edited)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from string import Template
from typing import TYPE_CHECKING, Any

from groundbench.schemas.features import FORMAT_VERSION

if TYPE_CHECKING:
    from groundbench.hffolder import ConfigFacts

LICENCES = {
    "umd": "UMD Part Affordance dataset: no licence stated; the authors ask for a citation (Myers et al. 2015)",
}


def _text(name: str) -> str:
    return resources.files("groundbench.cards").joinpath(name).read_text(encoding="utf-8")


def render_body(
    facts: list[ConfigFacts], version: str, default: str, baselines: Sequence[Mapping[str, Any]] = ()
) -> str:
    rows = "\n".join(
        f"| `{f.name}` | {f.source} | {f.stratum} | {f.rows} | {f.excluded} | {f.images} "
        f"| {f.image_bytes} | {f.shard_bytes} |"
        for f in facts
    )
    sources = sorted({f.source for f in facts if f.source in LICENCES})
    body = Template(_text("body.md")).substitute(
        version=version,
        format_version=FORMAT_VERSION,
        config_rows=rows or "| (no config built) | | | | | | | |",
        default=default,
        licence_rows="\n".join(f"| {s} | {LICENCES[s]} |" for s in sources),
        citations=_text("citations.bib").strip(),
    )
    return body + baselines_section(baselines) if baselines else body


def _number(value: object) -> str:
    return "—" if value is None else f"{value:.4f}" if isinstance(value, float) else str(value)


def baselines_section(rows: Sequence[Mapping[str, Any]]) -> str:
    """The `baselines` config as a table: one line per (config, stratum, condition)."""
    cells: dict[tuple[str, str, str], dict[str, Mapping[str, Any]]] = {}
    for row in rows:
        cells.setdefault((row["config"], row["stratum"], row["condition"]), {})[row["baseline"]] = row
    lines = []
    for (config, stratum, condition), b in sorted(cells.items()):
        if "center_click" in b:
            c = b["center_click"]
            dashes = " — |" * 6
            lines.append(
                f"| `{config}` | {stratum} | {condition} | {c['n']} |{dashes} center click {_number(c['value'])} |"
            )
            continue
        bound = b["text_only_blind_bound"]
        keys = ", ".join(bound["supplied_keys"]) or "(none)"
        lines.append(
            f"| `{config}` | {stratum} | {condition} | {bound['n']} "
            f"| {_number(b['majority_action']['value'])} ({b['majority_action']['detail']}) "
            f"| {_number(bound['value'])} | {'**yes**' if bound['leakage'] else 'no'} "
            f"| {_number(b['localization_tau']['value'])} | {_number(b['image_center_hit_rate_at_tau']['value'])} "
            f"| {_number(b['object_center_hit_rate_at_tau']['value'])} | {keys} |"
        )
    return _text("baselines.md").format(rows="\n".join(lines))
