"""GAPartNet and the two configs derived from its converted rows (counterfactual, contrast); read by every
stage: strings only."""

from groundbench.converters.gapartnet.params import (
    ContrastParams,
    GapartnetParams,
    GapartnetSampleParams,
    GapartnetSources,
)
from groundbench.core.spec import MANUAL, Card, ConfigInfo, Fetch, Folder, Sample, SourceSpec

AUDIT = "data/audits/curated_gapartnet.yaml"
VERIFY = (  # the knobs of the converter's checks, which contrast reuses to verify its pairs
    "gapartnet.audit",
    "gapartnet.iou_min",
    "gapartnet.coverage_min",
    "gapartnet.instance_coverage_min",
    "gapartnet.instance_ambiguity_margin",
    "gapartnet.min_mask_pixels",
    "gapartnet.max_image_pixels",
)

SPEC = Folder(
    sources=(
        SourceSpec(
            "gapartnet",
            "groundbench.converters.gapartnet.convert:source",
            configs=(
                ConfigInfo(
                    "curated_gapartnet",
                    "gapartnet",
                    "curated",
                    "one audited object: clean render, its target part and every visible annotated part as candidates",
                    audit="gapartnet.audit",
                ),
                ConfigInfo(
                    "bulk_gapartnet",
                    "gapartnet",
                    "bulk",
                    "one (object, visible target part), target-highlighted render",
                ),
            ),
            sample="gapartnet",
            card=Card(
                "GAPartNet (part annotations) on PartNet-Mobility / SAPIEN assets",
                "GAPartNet: no licence file; released through a request form under its Terms & Conditions. "
                "PartNet-Mobility assets: SAPIEN terms of use (non-commercial research)",
                ("geng2023gapartnet", "xiang2020sapien", "mo2019partnet"),
            ),
            fetch=Fetch(
                title="GAPartNet (part annotations on PartNet-Mobility and AKB-48 assets)",
                kind=MANUAL,
                origin="https://forms.gle/3qzv8z5vP2BT5ARN7",
                licence="GAPartNet Terms & Conditions; PartNet-Mobility: SAPIEN terms (non-commercial research and "
                "education only); ShapeNet terms",
                terms="request the data through the form above and accept the Terms & Conditions "
                "(https://docs.google.com/document/d/1kjFCTcDLtaycZiJVmSVhT9Yw8oCAHl-3XKdJapvRdW0); the raw assets "
                "must not be redistributed",
                size="not documented; 1,045 PartNet-Mobility + 121 AKB-48 objects",
                notes=(
                    "the release ships object folders only; the configs also need rendered views "
                    "(rgb/ segmentation/ metafile/) in the same download, or made with `groundbench render`",
                ),
                layout="groundbench.converters.gapartnet.fetched:check_layout",
                tree_params=(("assets", "assets"), ("renders", "renders")),
                requires=("renders",),
                incomplete="the fetched GAPartNet has no rendered views (rgb/ segmentation/ metafile/): the release "
                "ships object folders only; render views with `groundbench render` and fetch them together",
                automatic=False,
            ),
            data=(AUDIT,),
            params=VERIFY,
        ),
        SourceSpec(
            "counterfactual",
            "groundbench.converters.gapartnet.counterfactual:source",
            configs=(
                ConfigInfo(
                    "counterfactual_gapartnet",
                    "gapartnet",
                    "counterfactual",
                    "one re-ask of a curated object: same image and candidate parts, a non-target part declared the "
                    "target, the original target and action kept",
                    interim="gapartnet_counterfactual",
                ),
            ),
            reads="gapartnet",
            interim="gapartnet_counterfactual",
            derived=True,
            params=("gapartnet.min_mask_pixels",),
        ),
        SourceSpec(
            "contrast",
            "groundbench.converters.gapartnet.contrast:source",
            configs=(
                ConfigInfo(
                    "contrast_gapartnet",
                    "gapartnet",
                    "contrast",
                    "one (object, original target, contrast part with another action) on a clean render; rows "
                    "failing a check kept, tagged, excluded",
                    interim="gapartnet_contrast",
                ),
            ),
            reads="gapartnet",
            interim="gapartnet_contrast",
            derived=True,
            reads_raw=True,
            data=(AUDIT, "data/audits/contrast_pool.yaml"),
            params=(
                *VERIFY,
                "contrast.pool",
                "contrast.closed_pose_min_mask_share",
                "contrast.render.width",
                "contrast.render.height",
                "contrast.render.theta",
                "contrast.render.phi",
                "contrast.render.margin",
                "contrast.render.engine",
            ),
        ),
    ),
    samples=(Sample("gapartnet", "groundbench.converters.gapartnet.sample:write", GapartnetSampleParams),),
    sources_params={"gapartnet": (GapartnetSources | None, ...)},
    sections={"gapartnet": GapartnetParams, "contrast": ContrastParams},
    facts="groundbench.converters.gapartnet.facts:GapartnetFacts",
    cards={
        "partnet_mobility": Card(
            "PartNet-Mobility (SAPIEN)",
            "SAPIEN terms of use (non-commercial research)",
            ("xiang2020sapien", "mo2019partnet"),
        ),
    },
)
