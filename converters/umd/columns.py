"""What a UMD row adds to the shared record: its `source` value and ``extras.umd`` (schemas/folders.py)."""

from __future__ import annotations

from groundbench.schemas.folders import Extras, FolderColumns
from groundbench.schemas.types import List, Value

STRING, FLOAT64 = Value("string"), Value("float64")

UMD_EXTRAS = {
    "tool_id": STRING,
    "frame_index": Value("int32"),
    "labelling": STRING,  # "hand" or "automatic"
    "labelling_evidence": STRING,  # "gt_type" (read from the file) or "frame_rule" (every third)
    "category_id": Value("int32"),
    "category_split": STRING,  # train / test / null when the tool is not listed
    "novel_split": STRING,
    "heldout_folds": List(Value("int32")),  # 1..10, numbered as category_10_fold.txt numbers its columns
    "has_label_rank": Value("bool"),
    # Operating-system clutter (Thumbs.db, .DS_Store, ._*, desktop.ini) skipped in the tool's folder.
    "skipped_files": List(STRING),
}

UMD_EXTRAS_DOC = {
    "tool_id": "UMD tool folder, e.g. mug_01.",
    "frame_index": "Frame number within the tool's sequence.",
    "labelling": "hand or automatic labelling of the frame.",
    "labelling_evidence": "Where labelling comes from: gt_type (read from the file) or frame_rule (every third).",
    "category_id": "UMD object category id.",
    "category_split": "The release's category split of the tool (train / test; null when not listed).",
    "novel_split": "The release's novel-instance split of the tool.",
    "heldout_folds": "Cross-validation folds holding the tool out.",
    "has_label_rank": "The frame has a label_rank.mat (ranked affordances).",
    "skipped_files": "Operating-system clutter skipped in the tool's folder (Thumbs.db, .DS_Store, ...).",
}

COLUMNS = FolderColumns(
    sources=("umd",),
    extras=(Extras("umd", UMD_EXTRAS, "UMD facts of the frame.", UMD_EXTRAS_DOC),),
)
