"""The synthetic-build notice and its one-line form, in a small module of their own: ``score`` prints them
without importing the card renderer (its sources, parameters and pydantic: about a quarter of ``score``'s
start-up). ``groundbench.cards.render`` re-exports both."""

from __future__ import annotations

from collections.abc import Sequence


def synthetic_notice(configs: Sequence[str], markdown: bool = False) -> str:
    """The warning a sample build carries at the top of its card and of `groundbench summary` ("" when none)."""
    if not configs:
        return ""
    names = ", ".join(f"`{c}`" if markdown else c for c in configs)
    text = (
        "SYNTHETIC SAMPLE BUILD, NOT THE BENCHMARK. "
        f"These configs were built from GroundBench's embedded samples: {names}. Their images and annotations "
        "are synthetic, made by GroundBench's own code in the sources' file formats; they contain no UMD, "
        "GAPartNet, SAPIEN, PartNet, PointerBench, ScreenSpot, OSWorld-G or UI-Vision material, and a score on them "
        "means nothing about a model. Do not cite or publish them as GroundBench results; build from the real "
        "sources first."
    )
    return f"> **⚠️ {text}**\n\n" if markdown else text


def synthetic_line(configs: Sequence[str]) -> str:
    """The one line a command prints (once) about synthetic configs in what it read ("" when none); the card and
    ``eval.yaml`` carry the whole :func:`synthetic_notice`."""
    if not configs:
        return ""
    return (
        f"SYNTHETIC SAMPLE BUILD, NOT THE BENCHMARK: {', '.join(configs)} were built from GroundBench's embedded "
        "samples; a score on them means nothing about a model (build from the real sources first)."
    )
