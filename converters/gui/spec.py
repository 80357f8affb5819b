"""The GUI-grounding sources (PointerBench, ScreenSpot v1/v2, ScreenSpot-Pro, OSWorld-G) and the one generator
that writes the embedded sample of all of them (read by every stage: strings only)."""

from groundbench.converters.gui.params import GuiParams, GuiSampleParams, GuiSources
from groundbench.core.spec import GITHUB, HUB, Card, ConfigInfo, Fetch, Folder, Sample, SourceSpec

CONVERT = "groundbench.converters.gui.convert:source"
PARAMS = ("gui.max_image_pixels",)
# OSWorld-G is read at the commit other harnesses pin (trycua/cua libs/cua-bench/tasks/osworld_g/main.py, allenai's
# olmo-eval task); the benchmark file's sha256 at that commit is the one trycua/cua pins (not recomputed here).
OSWORLD_G_COMMIT = "daa6bd8e0e629f0917ad2984df930bf0bd967540"
OSWORLD_G_JSON_SHA256 = "8d8f210461a16702b99410658b605708f963b70aa5fc03fca897b4bafd9e3962"

SPEC = Folder(
    sources=(
        SourceSpec(
            "pointerbench",
            CONVERT,
            configs=(
                ConfigInfo(
                    "gui_sheets", "pointerbench", "suite", "one spreadsheet screenshot + instruction + point target"
                ),
                ConfigInfo(
                    "gui_text", "pointerbench", "suite", "one document screenshot + instruction + point or box target"
                ),
                ConfigInfo(
                    "gui_pro", "pointerbench", "suite", "one professional-app screenshot + instruction + point target"
                ),
            ),
            sources_key="gui.pointerbench",
            sample="gui",
            card=Card(
                "PointerBench (Sheets, Text, Pro)",
                "images and annotations CC BY 4.0 (attribution required); evaluation scripts MIT",
                ("sacco2026pointerbench",),
                "WarmwindOS/pointerbench",
            ),
            fetch=Fetch(
                title="PointerBench (Sheets, Text, Pro)",
                kind=HUB,
                origin="WarmwindOS/pointerbench",
                licence="images and annotations CC BY 4.0; evaluation scripts MIT",
                terms="CC BY 4.0: attribution required when redistributing images or annotations",
                size="372 MB; 1,500 PNG screenshots (500 per suite)",
                allow=("pointerbench-*/data/test/*",),
                ignore=("*/__pycache__/*", "*.pyc"),
            ),
            params=PARAMS,
        ),
        SourceSpec(
            "screenspot",
            CONVERT,
            configs=(
                ConfigInfo("gui_screenspot", "screenspot", "suite", "one ScreenSpot v1 screenshot + instruction + box"),
            ),
            sources_key="gui.screenspot",
            sample="gui",
            card=Card(
                "ScreenSpot (SeeClick)",
                "Apache-2.0 (SeeClick repository and ScreenSpot dataset card)",
                ("cheng2024seeclick",),
            ),
            fetch=Fetch(
                title="ScreenSpot (SeeClick), Hugging Face copy in the original layout",
                kind=HUB,
                origin="KevinQHLin/ScreenSpot",
                licence="Apache-2.0 (SeeClick repository); the copy's card states none",
                terms="Apache-2.0. The official files are on NJU Box (https://box.nju.edu.cn/d/5b8892c1901c4dbeb715/, "
                "unversioned); this Hub copy keeps their JSON and PNG layout",
                size="about 0.6 GB; 610 screenshots, 1,272 instructions",
                allow=("metadata/screenspot_*.json", "images/*"),
                relocate=(("metadata/", ""),),
            ),
            params=PARAMS,
        ),
        SourceSpec(
            "screenspot_v2",
            CONVERT,
            configs=(
                ConfigInfo(
                    "gui_screenspot_v2", "screenspot_v2", "suite", "one ScreenSpot-v2 screenshot + instruction + box"
                ),
            ),
            sources_key="gui.screenspot_v2",
            sample="gui",
            card=Card(
                "ScreenSpot-v2 (OS-Atlas)",
                "Apache-2.0 (OS-Copilot/ScreenSpot-v2 dataset card)",
                ("wu2025osatlas", "cheng2024seeclick"),
            ),
            fetch=Fetch(
                title="ScreenSpot-v2 (OS-Atlas)",
                kind=HUB,
                origin="OS-Copilot/ScreenSpot-v2",
                licence="Apache-2.0 (dataset card)",
                terms="Apache-2.0",
                size="1.33 GB zip of screenshots plus 0.3 MB of JSON",
                allow=("screenspot_*_v2.json", "screenspotv2_image.zip"),
                unzip=("screenspotv2_image.zip",),
            ),
            params=PARAMS,
        ),
        SourceSpec(
            "screenspot_pro",
            CONVERT,
            configs=(
                ConfigInfo(
                    "gui_screenspot_pro", "screenspot_pro", "suite", "one ScreenSpot-Pro screenshot + instruction + box"
                ),
                ConfigInfo(
                    "gui_screenspot_pro_cn",
                    "screenspot_pro",
                    "suite",
                    "one ScreenSpot-Pro screenshot + its Chinese instruction (instruction_cn) + box",
                ),
            ),
            sources_key="gui.screenspot_pro",
            sample="gui",
            card=Card(
                "ScreenSpot-Pro",
                "MIT (likaixin/ScreenSpot-Pro dataset card; the code repository has no licence file)",
                ("li2025screenspotpro",),
            ),
            fetch=Fetch(
                title="ScreenSpot-Pro",
                kind=HUB,
                origin="likaixin/ScreenSpot-Pro",
                licence="MIT (dataset card)",
                terms="MIT",
                size="about 3.4 GB; 1,581 PNG screenshots, 26 annotation files",
                allow=("annotations/*.json", "images/*"),
                ignore=("*.DS_Store",),
            ),
            params=PARAMS,
        ),
        SourceSpec(
            "osworld_g",
            CONVERT,
            configs=(
                ConfigInfo(
                    "gui_osworld_g",
                    "osworld_g",
                    "suite",
                    "one OSWorld-G desktop screenshot + instruction + box, polygon or no target (refusal)",
                ),
                ConfigInfo(
                    "gui_osworld_g_refined",
                    "osworld_g",
                    "suite",
                    "one OSWorld-G row asked with its refined instruction (OSWorld-G_refined.json): same targets",
                ),
            ),
            sources_key="gui.osworld_g",
            sample="gui",
            card=Card(
                "OSWorld-G (Jedi release)",
                "Apache-2.0 (third-party statement: trycua/cua's adapter; the repository's licence file was not "
                "opened here)",
                ("xie2025jedi",),
            ),
            fetch=Fetch(
                title="OSWorld-G",
                kind=GITHUB,
                origin="xlang-ai/OSWorld-G",
                licence="Apache-2.0 as a third party states it (not read here): read the xlang-ai/OSWorld-G "
                "repository's LICENSE before use",
                terms="as the repository's licence states; cite Xie et al. 2025 (Jedi / OSWorld-G)",
                size="564 instructions on 264 desktop screenshots, about 130 MB (third-party counts)",
                allow=(
                    "benchmark/OSWorld-G.json",
                    "benchmark/OSWorld-G_refined.json",
                    "benchmark/classification_result.json",
                ),
                revision=OSWORLD_G_COMMIT,
                pins=(("benchmark/OSWorld-G.json", OSWORLD_G_JSON_SHA256),),
                listing="groundbench.converters.gui.fetched:osworld_g_images",
                notes=(
                    "the release is the code repository's benchmark/ folder (OSWorld-G.json, the refined "
                    "instructions OSWorld-G_refined.json, classification_result.json and the screenshots it names "
                    "under images/), taken file by file at the pinned commit; the Hub copy MMInstruction/OSWorld-G "
                    "is another cut (no refusal rows, polygons replaced by boxes) and is not used",
                ),
            ),
            params=PARAMS,
        ),
        SourceSpec(
            "ui_vision",
            CONVERT,
            configs=(
                ConfigInfo(
                    "gui_ui_vision",
                    "ui_vision",
                    "suite",
                    "one UI-Vision desktop screenshot + basic, functional or spatial instruction + box",
                ),
            ),
            sources_key="gui.ui_vision",
            sample="gui",
            card=Card(
                "UI-Vision (element grounding)",
                "not verified here: see the ServiceNow/ui-vision dataset card",
                ("nayak2025uivision",),
                "ServiceNow/ui-vision",
            ),
            fetch=Fetch(
                title="UI-Vision (element grounding)",
                kind=HUB,
                origin="ServiceNow/ui-vision",
                licence="not verified offline: read the ServiceNow/ui-vision dataset card before use",
                terms="as the dataset card states; cite Nayak et al. 2025 (UI-Vision)",
                size="element grounding: basic, functional and spatial instructions on desktop screenshots "
                "(size not known offline)",
                allow=("*element_grounding_*.json", "*mapdict_cat2platform.json", "*uivision_imgs/*", "images/*"),
                ignore=("*.DS_Store",),
                notes=(
                    "the layout is the one eval/grounding/sample_script.sh of uivision/UI-Vision reads; the Hub "
                    "files were not reachable when this was written, so no checksum is pinned beyond the Hub's own",
                ),
            ),
            params=PARAMS,
        ),
    ),
    # One generator feeds the GUI sources: <sample.root>/gui/{pointerbench,screenspot,screenspot_v2,screenspot_pro}
    samples=(
        Sample(
            "gui",
            "groundbench.converters.gui.sample.write:write",
            GuiSampleParams,
            parts=("pointerbench", "screenspot", "screenspot_v2", "screenspot_pro", "osworld_g", "ui_vision"),
            stage="generate_gui",
            command="bin/groundbench generate-gui --quiet",
        ),
    ),
    sources_params={"gui": (GuiSources, ...)},
    sections={"gui": GuiParams},
    facts="groundbench.converters.gui.facts:GuiFacts",
    bibtex=(
        "@misc{xie2025jedi,\n"
        "  title         = {Scaling Computer-Use Grounding via User Interface Decomposition and Synthesis},\n"
        "  author        = {Xie, Tianbao and Deng, Jiaqi and Li, Xiaochuan and Yang, Junlin and Wu, Haoyuan and "
        "Chen, Jixuan and Hu, Wenjing and Wang, Xinyuan and Xu, Yuhui and Wang, Zekun and Xu, Yiheng and "
        "Wang, Junli and Sahoo, Doyen and Yu, Tao and Xiong, Caiming},\n"
        "  year          = {2025},\n"
        "  eprint        = {2505.13227},\n"
        "  archivePrefix = {arXiv}\n"
        "}",
        "@inproceedings{nayak2025uivision,\n"
        "  title     = {{UI-Vision}: A Desktop-centric {GUI} Benchmark for Visual Perception and Interaction},\n"
        "  author    = {Nayak, Shravan and Jian, Xiangru and Lin, Kevin Qinghong and Rodriguez, Juan A. and "
        'Kalsi, Montek and Chapados, Nicolas and {\\"O}zsu, M. Tamer and Agrawal, Aishwarya and Vazquez, David '
        "and Pal, Christopher and Taslakian, Perouz and Gella, Spandana and Rajeswar, Sai},\n"
        "  booktitle = {Proceedings of the 42nd International Conference on Machine Learning},\n"
        "  series    = {PMLR},\n"
        "  volume    = {267},\n"
        "  pages     = {45817--45851},\n"
        "  year      = {2025}\n"
        "}",
    ),
    cards={
        # The embedded GUI sample (`groundbench generate-gui`): rows of every GUI config built from it say
        # this source. Suite design and file formats follow PointerBench and the ScreenSpot family.
        # Nothing of PointerBench is read, so nothing of it is cited.
        "groundbench_gui": Card(
            "GroundBench generated GUI suites (synthetic embedded sample in PointerBench / ScreenSpot file formats)",
            "Apache-2.0, like GroundBench's code: generated by GroundBench, no third-party screenshots or "
            "annotations; glyphs drawn with the DejaVu fonts (Bitstream Vera licence, which allows rendering them)",
            (),
        ),
    },
)
