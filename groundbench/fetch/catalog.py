"""Where each real source lives, under which terms, and what the build makes of it.

Locations, sizes, pins and licences were read from each source's dataset card, repository or
host page (docs/sources.md, "Real sources", names them). Nothing here is fetched at import.
"""

from __future__ import annotations

from dataclasses import dataclass, field

HTTP = "http"  # one archive over HTTP(S), unpacked
HUB = "hub"  # a Hugging Face dataset repository, pinned to a commit
MANUAL = "manual"  # the user downloads it (request form); `--from` checks and unpacks it


@dataclass(frozen=True)
class SourceSpec:
    name: str  # the folder under data/sources/ and the converter's source name
    title: str
    kind: str
    origin: str  # URL (http), repo id (hub) or request page (manual)
    licence: str
    terms: str  # what a user agrees to by downloading; printed before every download
    size: str  # expected download size, as documented
    makes: tuple[str, ...]  # configs the build makes from it
    params_key: str  # key under `sources:` in params.yaml
    # http: the archive's documented size and sha256 (None: recorded at the first fetch)
    archive_bytes: int | None = None
    archive_sha256: str | None = None
    # hub: files to take (fnmatch on repo paths) and files to skip; archives to unpack in place
    allow: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    unzip: tuple[str, ...] = ()
    # hub: repo path prefix -> folder in the tree (the converter's layout)
    relocate: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)


SOURCES: dict[str, SourceSpec] = {
    "umd": SourceSpec(
        name="umd",
        title="UMD Part Affordance dataset (tools)",
        kind=HTTP,
        origin="https://obj.umiacs.umd.edu/part-affordance/part-affordance-dataset-tools.tar.gz",
        licence="no licence stated; the dataset README asks users to cite Myers et al. (ICRA 2015)",
        terms="research use; cite Myers, Teo, Fermüller, Aloimonos, 'Affordance Detection of Tool Parts "
        "from Geometric Features', ICRA 2015. Page: https://users.umiacs.umd.edu/~fermulcm/affordance/"
        "part-affordance-dataset/",
        size="2.99 GB archive (2,986,470,339 bytes), about 5-6 GB unpacked; 105 tools, 28,843 frames",
        makes=("curated_umd", "bulk_umd"),
        params_key="umd",
        archive_bytes=2_986_470_339,
        archive_sha256="e43c97e37fa1e33da43ed083059572efaa3625dfdde4b038d6010a00987ee0f6",
    ),
    "pointerbench": SourceSpec(
        name="pointerbench",
        title="PointerBench (Sheets, Text, Pro)",
        kind=HUB,
        origin="WarmwindOS/pointerbench",
        licence="images and annotations CC BY 4.0; evaluation scripts MIT",
        terms="CC BY 4.0: attribution required when redistributing images or annotations",
        size="372 MB; 1,500 PNG screenshots (500 per suite)",
        makes=("gui_sheets", "gui_text", "gui_pro"),
        params_key="gui.pointerbench",
        allow=("pointerbench-*/data/test/*",),
        ignore=("*/__pycache__/*", "*.pyc"),
    ),
    "screenspot": SourceSpec(
        name="screenspot",
        title="ScreenSpot (SeeClick), Hugging Face copy in the original layout",
        kind=HUB,
        origin="KevinQHLin/ScreenSpot",
        licence="Apache-2.0 (SeeClick repository); the copy's card states none",
        terms="Apache-2.0. The official files are on NJU Box (https://box.nju.edu.cn/d/5b8892c1901c4dbeb715/, "
        "unversioned); this Hub copy keeps their JSON and PNG layout",
        size="about 0.6 GB; 610 screenshots, 1,272 instructions",
        makes=("gui_screenspot",),
        params_key="gui.screenspot",
        allow=("metadata/screenspot_*.json", "images/*"),
        relocate=(("metadata/", ""),),
    ),
    "screenspot_v2": SourceSpec(
        name="screenspot_v2",
        title="ScreenSpot-v2 (OS-Atlas)",
        kind=HUB,
        origin="OS-Copilot/ScreenSpot-v2",
        licence="Apache-2.0 (dataset card)",
        terms="Apache-2.0",
        size="1.33 GB zip of screenshots plus 0.3 MB of JSON",
        makes=("gui_screenspot_v2",),
        params_key="gui.screenspot_v2",
        allow=("screenspot_*_v2.json", "screenspotv2_image.zip"),
        unzip=("screenspotv2_image.zip",),
    ),
    "screenspot_pro": SourceSpec(
        name="screenspot_pro",
        title="ScreenSpot-Pro",
        kind=HUB,
        origin="likaixin/ScreenSpot-Pro",
        licence="MIT (dataset card)",
        terms="MIT",
        size="about 3.4 GB; 1,581 PNG screenshots, 26 annotation files",
        makes=("gui_screenspot_pro",),
        params_key="gui.screenspot_pro",
        allow=("annotations/*.json", "images/*"),
        ignore=("*.DS_Store",),
    ),
    "gapartnet": SourceSpec(
        name="gapartnet",
        title="GAPartNet (part annotations on PartNet-Mobility and AKB-48 assets)",
        kind=MANUAL,
        origin="https://forms.gle/3qzv8z5vP2BT5ARN7",
        licence="GAPartNet Terms & Conditions; PartNet-Mobility: SAPIEN terms (non-commercial research and "
        "education only); ShapeNet terms",
        terms="request the data through the form above and accept the Terms & Conditions "
        "(https://docs.google.com/document/d/1kjFCTcDLtaycZiJVmSVhT9Yw8oCAHl-3XKdJapvRdW0); the raw assets "
        "must not be redistributed",
        size="not documented; 1,045 PartNet-Mobility + 121 AKB-48 objects",
        makes=("curated_gapartnet", "bulk_gapartnet", "counterfactual_gapartnet", "contrast_gapartnet"),
        params_key="gapartnet",
        notes=(
            "the release ships object folders only; the configs also need rendered views "
            "(rgb/ segmentation/ metafile/) in the same download, or made with `groundbench render`",
        ),
    ),
}


def spec(name: str) -> SourceSpec:
    from groundbench.errors import GroundBenchError

    if name not in SOURCES:
        raise GroundBenchError("command line", "source", f"expected one of {sorted(SOURCES)}, found {name!r}")
    return SOURCES[name]
