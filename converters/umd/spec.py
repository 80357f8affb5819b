"""The UMD source: what it is, what it yields, where it comes from (read by every stage: strings only)."""

from groundbench.converters.umd.params import UmdParams, UmdSampleParams
from groundbench.core.spec import HTTP, Card, ConfigInfo, Fetch, Folder, Sample, SourceSpec

SPEC = Folder(
    sources=(
        SourceSpec(
            "umd",
            "groundbench.converters.umd.convert:source",
            configs=(
                ConfigInfo(
                    "curated_umd",
                    "umd",
                    "curated",
                    "one audited tool, one representative frame, grasp target",
                    audit="umd.audit",
                ),
                ConfigInfo("bulk_umd", "umd", "bulk", "one (frame, affordance region)"),
            ),
            sample="umd",
            card=Card(
                "UMD Part Affordance dataset",
                "no licence stated; the dataset README asks users to cite Myers et al. (ICRA 2015)",
                ("myers2015affordance",),
            ),
            fetch=Fetch(
                title="UMD Part Affordance dataset (tools)",
                kind=HTTP,
                origin="https://obj.umiacs.umd.edu/part-affordance/part-affordance-dataset-tools.tar.gz",
                licence="no licence stated; the dataset README asks users to cite Myers et al. (ICRA 2015)",
                terms="research use; cite Myers, Teo, Fermüller, Aloimonos, 'Affordance Detection of Tool Parts "
                "from Geometric Features', ICRA 2015. Page: https://users.umiacs.umd.edu/~fermulcm/affordance/"
                "part-affordance-dataset/",
                size="2.99 GB archive (2,986,470,339 bytes), about 5-6 GB unpacked; 105 tools, 28,843 frames",
                archive_bytes=2_986_470_339,
                archive_sha256="e43c97e37fa1e33da43ed083059572efaa3625dfdde4b038d6010a00987ee0f6",
                layout="groundbench.converters.umd.fetched:check_layout",
            ),
            data=("data/audits/curated_umd.yaml",),
            params=("umd.audit", "umd.max_image_pixels", "umd.min_region_pixels"),
        ),
    ),
    samples=(Sample("umd", "groundbench.converters.umd.sample:write", UmdSampleParams),),
    sources_params={"umd": (str | None, ...)},
    sections={"umd": UmdParams},
    facts="groundbench.converters.umd.facts:UmdFacts",
)
