"""What the card says about each source: its name, licence or terms, and which BibTeX entries to cite.

Keyed by the rows' ``source`` value (or a config's registry source); :func:`source_info` also accepts
longer spellings such as ``screenspot_pro`` or ``pointerbench-text`` by longest matching prefix.
The sources' entries come from their specs (``converters/<name>/spec.py``); the licence texts were read
from each source's repository or dataset card. A source missing here is printed as uncatalogued, and the
card test fails until its spec gives a ``card``.
"""

from __future__ import annotations

from groundbench.core.registry import BIBTEX, CARDS
from groundbench.core.spec import Card

SourceInfo = Card  # a line of the table (the name its readers use)
__all__ = ["BIBTEX", "SOURCES", "SourceInfo", "catalogue_key", "licence_text", "source_info", "source_key"]

GROUNDBENCH_CITATION = "groundbench"
SAMPLE_SOURCE = "groundbench_sample"  # rows of a config built from an embedded (synthetic) sample
GENERATED_GUI_SOURCE = "groundbench_gui"  # rows of the generated GUI suites (their own `source` value)
# Catalogue entries for material GroundBench made itself: nothing third-party to license or cite.
SYNTHETIC_KEYS = frozenset({SAMPLE_SOURCE, GENERATED_GUI_SOURCE})
DERIVED_SOURCE = "all"  # the `baselines` config's source: derived from every config, matched exactly

SOURCES: dict[str, Card] = {
    # The `baselines` config: aggregates GroundBench computes from every record config's rows. It
    # carries no source image or annotation, only counts and rates; the sources of the configs it
    # summarises are listed (and cited) on their own lines.
    DERIVED_SOURCE: Card(
        "GroundBench baselines (derived from every config above)",
        "GroundBench's own terms (Apache-2.0): aggregate numbers computed by `groundbench assemble`; "
        "no source images or annotations",
        (),
    ),
    # Each source folder's entries (converters/<name>/spec.py: the source's `card`, the folder's `cards`).
    **CARDS,
    # The embedded UMD and GAPartNet samples (`groundbench sample`): synthetic files in the sources'
    # formats, made by GroundBench's code; no UMD, GAPartNet, SAPIEN or PartNet material.
    SAMPLE_SOURCE: Card(
        "GroundBench embedded samples (synthetic objects and photos-like frames made by GroundBench's code)",
        "Apache-2.0, like GroundBench's code: no third-party images, meshes or annotations",
        (),
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


def catalogue_key(row_source: str, synthetic: bool) -> str | None:
    """The catalogue entry whose terms apply to a row: the embedded sample's own when the config was built
    from a sample (whatever source format the sample imitates), else the row's source."""
    key = source_key(row_source)
    if synthetic and key not in SYNTHETIC_KEYS:
        return SAMPLE_SOURCE
    return key


def licence_text(row_source: str, synthetic: bool) -> str:
    """A row's ``license`` value: the catalogued terms of the material it carries."""
    key = catalogue_key(row_source, synthetic)
    if key is None:
        return "NOT CATALOGUED: add this source to cards/sources.py"
    info = SOURCES[key]
    return f"{info.title}: {info.licence}"
