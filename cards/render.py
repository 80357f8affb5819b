"""Render the dataset card body from the built data's facts (never hand-edited)."""

from __future__ import annotations

from importlib import resources
from string import Template
from typing import TYPE_CHECKING

from groundbench.schemas.features import FORMAT_VERSION

if TYPE_CHECKING:
    from groundbench.hffolder import ConfigFacts

LICENCES = {
    "umd": "UMD Part Affordance dataset: no licence stated; the authors ask for a citation (Myers et al. 2015)",
    "gapartnet": "GAPartNet: no licence file; data under its request-form terms (Geng et al. 2023). "
    "The embedded sample is synthetic, authored and rendered by GroundBench",
}


def _text(name: str) -> str:
    return resources.files("groundbench.cards").joinpath(name).read_text(encoding="utf-8")


def render_body(facts: list[ConfigFacts], version: str, default: str) -> str:
    rows = "\n".join(
        f"| `{f.name}` | {f.source} | {f.stratum} | {f.rows} | {f.excluded} | {f.images} "
        f"| {f.image_bytes} | {f.shard_bytes} |"
        for f in facts
    )
    sources = sorted({f.source for f in facts})
    return Template(_text("body.md")).substitute(
        version=version,
        format_version=FORMAT_VERSION,
        config_rows=rows or "| (no config built) | | | | | | | |",
        default=default,
        licence_rows="\n".join(f"| {s} | {LICENCES[s]} |" for s in sources),
        citations=_text("citations.bib").strip(),
    )
