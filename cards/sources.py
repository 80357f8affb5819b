"""What the card says about each source: its name, licence or terms, and which BibTeX entries to cite.

Keyed by the rows' ``source`` value (or a config's registry source); :func:`source_info` also accepts
longer spellings such as ``screenspot_pro`` or ``pointerbench-text`` by longest matching prefix.
The licence texts were read from each source's repository or dataset card (see the research notes
in ../shared/research/ and fixtures' SOURCES.md files); a source missing here is printed as
uncatalogued, and the card test fails until it is added.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceInfo:
    title: str
    licence: str
    citations: tuple[str, ...]  # keys in cards/citations.bib


GROUNDBENCH_CITATION = "groundbench"
DERIVED_SOURCE = "all"  # the `baselines` config's source: derived from every config, matched exactly

SOURCES: dict[str, SourceInfo] = {
    # The `baselines` config: aggregates GroundBench computes from every record config's rows. It
    # carries no source image or annotation, only counts and rates; the sources of the configs it
    # summarises are listed (and cited) on their own lines.
    DERIVED_SOURCE: SourceInfo(
        "GroundBench baselines (derived from every config above)",
        "GroundBench's own terms (Apache-2.0): aggregate numbers computed by `groundbench baselines`; "
        "no source images or annotations",
        (),
    ),
    "umd": SourceInfo(
        "UMD Part Affordance dataset",
        "no licence stated; the dataset README asks users to cite Myers et al. (ICRA 2015)",
        ("myers2015affordance",),
    ),
    "gapartnet": SourceInfo(
        "GAPartNet (part annotations) on PartNet-Mobility / SAPIEN assets",
        "GAPartNet: no licence file; released through a request form under its Terms & Conditions. "
        "PartNet-Mobility assets: SAPIEN terms of use (non-commercial research)",
        ("geng2023gapartnet", "xiang2020sapien", "mo2019partnet"),
    ),
    "partnet_mobility": SourceInfo(
        "PartNet-Mobility (SAPIEN)",
        "SAPIEN terms of use (non-commercial research)",
        ("xiang2020sapien", "mo2019partnet"),
    ),
    "pointerbench": SourceInfo(
        "PointerBench (Sheets, Text, Pro)",
        "images and annotations CC BY 4.0 (attribution required); evaluation scripts MIT",
        ("sacco2026pointerbench",),
    ),
    "screenspot": SourceInfo(
        "ScreenSpot (SeeClick)",
        "Apache-2.0 (SeeClick repository and ScreenSpot dataset card)",
        ("cheng2024seeclick",),
    ),
    "screenspot_v2": SourceInfo(
        "ScreenSpot-v2 (OS-Atlas)",
        "Apache-2.0 (OS-Copilot/ScreenSpot-v2 dataset card)",
        ("wu2025osatlas", "cheng2024seeclick"),
    ),
    "screenspot_pro": SourceInfo(
        "ScreenSpot-Pro",
        "MIT (likaixin/ScreenSpot-Pro dataset card; the code repository has no licence file)",
        ("li2025screenspotpro",),
    ),
}


def _normalise(name: str) -> str:
    return name.lower().replace("-", "_")


def source_key(name: str) -> str | None:
    """The catalogue key for a source name: exact, else the longest key the name starts with."""
    norm = _normalise(name)
    if norm in SOURCES:
        return norm
    for stripped in (norm, norm.removeprefix("gui_")):
        matches = [key for key in SOURCES if key != DERIVED_SOURCE and stripped.startswith(key)]
        if matches:
            return max(matches, key=len)
    return None


def source_info(name: str) -> SourceInfo | None:
    key = source_key(name)
    return None if key is None else SOURCES[key]
