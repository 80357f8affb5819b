"""Which configs exist, which source feeds each, what a row of each is, and which converter builds it.

Adding a source format: its folder under ``converters/`` (a ``source(ctx)`` factory returning a
:class:`groundbench.core.runner.Source`; a sample writer if it embeds a sample),
one :class:`SourceInfo` line in ``SOURCES`` and one :class:`ConfigInfo` line per config it writes (see
docs/adding-a-source.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ConfigInfo:
    name: str
    source: str  # key under `sources:` in params.yaml
    stratum: str
    row: str  # what one row is
    interim: str = ""  # folder under data/interim/ holding its rows; "" = the source's converter folder

    @property
    def interim_folder(self) -> str:
        return self.interim or self.source


CONFIGS: tuple[ConfigInfo, ...] = (
    ConfigInfo("curated_umd", "umd", "curated", "one audited tool, one representative frame, grasp target"),
    ConfigInfo("bulk_umd", "umd", "bulk", "one (frame, affordance region)"),
    ConfigInfo("gui_sheets", "pointerbench", "suite", "one spreadsheet screenshot + instruction + point target"),
    ConfigInfo("gui_text", "pointerbench", "suite", "one document screenshot + instruction + point or box target"),
    ConfigInfo("gui_pro", "pointerbench", "suite", "one professional-app screenshot + instruction + point target"),
    ConfigInfo("gui_screenspot", "screenspot", "suite", "one ScreenSpot v1 screenshot + instruction + box"),
    ConfigInfo("gui_screenspot_v2", "screenspot_v2", "suite", "one ScreenSpot-v2 screenshot + instruction + box"),
    ConfigInfo("gui_screenspot_pro", "screenspot_pro", "suite", "one ScreenSpot-Pro screenshot + instruction + box"),
    ConfigInfo(
        "curated_gapartnet",
        "gapartnet",
        "curated",
        "one audited object: clean render, its target part and every visible annotated part as candidates",
    ),
    ConfigInfo("bulk_gapartnet", "gapartnet", "bulk", "one (object, visible target part), target-highlighted render"),
    ConfigInfo(
        "counterfactual_gapartnet",
        "gapartnet",
        "counterfactual",
        "one re-ask of a curated object: same image and candidate parts, a non-target part declared the target, "
        "the original target and action kept",
        interim="gapartnet_counterfactual",
    ),
    ConfigInfo(
        "contrast_gapartnet",
        "gapartnet",
        "contrast",
        "one (object, original target, contrast part with another action) on a clean render; rows failing a "
        "check kept, tagged, excluded",
        interim="gapartnet_contrast",
    ),
)

BY_NAME = {c.name: c for c in CONFIGS}
DEFAULT_CONFIG = "curated_gapartnet"


@dataclass(frozen=True)
class SourceInfo:
    """A converter: ``groundbench convert NAME`` (or ``derive NAME``) runs its source through the runner."""

    name: str
    factory: str  # "module:function" making its runner.Source from a runner.Context (imported when run)
    reads: str = ""  # key under `sources:` whose null leaves it out; "" = its name
    interim: str = ""  # folder under data/interim/ it writes; "" = its name
    derived: bool = False  # made by `groundbench derive` from rows other sources converted
    # "module:function" writing its embedded sample, ``write(root, params, progress=False) -> int`` (root = the
    # project root); "" = none of its own (derived sources; the GUI sources' is the `generate-gui` stage)
    sample: str = ""

    @property
    def reads_from(self) -> str:
        return self.reads or self.name

    @property
    def interim_folder(self) -> str:
        return self.interim or self.name


GUI = "groundbench.converters.gui.convert:source"
SOURCES: dict[str, SourceInfo] = {
    s.name: s
    for s in (
        SourceInfo("umd", "groundbench.converters.umd.convert:source", sample="groundbench.stages.samplers.umd:write"),
        SourceInfo("pointerbench", GUI),
        SourceInfo("screenspot", GUI),
        SourceInfo("screenspot_v2", GUI),
        SourceInfo("screenspot_pro", GUI),
        SourceInfo(
            "gapartnet",
            "groundbench.converters.gapartnet.convert:source",
            sample="groundbench.stages.samplers.gapartnet:write",
        ),
        SourceInfo(
            "counterfactual",
            "groundbench.converters.gapartnet.counterfactual:source",
            "gapartnet",
            "gapartnet_counterfactual",
            derived=True,
        ),
        SourceInfo(
            "contrast", "groundbench.converters.gapartnet.contrast:source", "gapartnet", "gapartnet_contrast", True
        ),
    )
}
