"""UMD's own vocabularies: its label ids (mapped onto the shared action vocabulary) and tool categories.

Used by the UMD converter and sample only; the vocabularies every source shares are in schemas/vocab.py."""

from __future__ import annotations

# UMD `gt_label` ids (README.txt of the release; SRFAff_v1 label_classes.m). 0 is background.
UMD_LABELS: dict[int, str] = {
    1: "grasp",
    2: "cut",
    3: "scoop",
    4: "contain",
    5: "pound",
    6: "support",
    7: "wrap-grasp",
}

# UMD tool categories with their ids from `tool_categories.txt` (alphabetical, 1-based).
UMD_CATEGORIES: dict[str, int] = {
    name: index
    for index, name in enumerate(
        (
            "bowl",
            "cup",
            "hammer",
            "knife",
            "ladle",
            "mallet",
            "mug",
            "pot",
            "saw",
            "scissors",
            "scoop",
            "shears",
            "shovel",
            "spoon",
            "tenderizer",
            "trowel",
            "turner",
        ),
        start=1,
    )
}
