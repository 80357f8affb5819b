"""The record schema, the condition design and the validation rules."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from datasets import Features

from groundbench.errors import GroundBenchError
from groundbench.schemas.conditions import ALL_CONDITIONS, BUNDLES, EDGES, edge_differences, valid_conditions
from groundbench.schemas.features import FEATURES, FORMAT_VERSION, arrow_schema, format_version_of, new_record
from groundbench.schemas.rules import validate_table
from groundbench.schemas.vocab import ACTIONS, normalize_action


def test_every_edge_adds_exactly_one_bundle() -> None:
    differences = edge_differences()
    assert differences.shape == (len(EDGES), len(BUNDLES))
    assert set(np.unique(differences)) <= {0, 1}
    assert (differences.sum(axis=1) == 1).all()


def test_bundle_effects_are_identifiable() -> None:
    assert np.linalg.matrix_rank(edge_differences()) == len(BUNDLES)


def test_highlighted_renders_allow_only_region_conditions() -> None:
    assert valid_conditions("bulk", "highlighted") == ("localization_shown", "mechanics_shown")
    assert valid_conditions("curated", "photo") == ALL_CONDITIONS
    assert valid_conditions("suite", "screenshot") == ()


def test_arrow_schema_is_derived_from_features_and_carries_the_format_version() -> None:
    schema = arrow_schema()
    assert Features.from_arrow_schema(schema) == FEATURES.to_datasets()  # what datasets reads back
    assert format_version_of(schema) == FORMAT_VERSION
    assert schema.metadata is not None and b"huggingface" in schema.metadata


def test_action_vocabulary_has_eleven_actions_and_normalizes_the_rest() -> None:
    assert len(ACTIONS) == 11
    assert normalize_action("w-grasp") == "wrap-grasp"
    assert normalize_action("Lift_Vertical") == "lift-vertical"
    assert normalize_action("teleport") == "none"


def _part(part_id: str, action: str, box: list[float], point: list[float]) -> dict[str, Any]:
    return {
        "part_id": part_id,
        "category": f"{part_id}_region",
        "action": action,
        "bbox_xyxy": box,
        "point_xy": point,
        "box_quality": "from-mask",
        "joint_type": "rigid",
        "motion_axis_3d": [],
        "motion_axis_2d": [1.0, 0.0],
        "mask_area": 10,
        "secondary_actions": [],
    }


def _row(example_id: str = "t/1") -> dict[str, Any]:
    return new_record(
        example_id=example_id,
        source="umd",
        stratum="curated",
        object_id="mug_01",
        object_category="mug",
        image={"bytes": b"\xff\xd8", "path": "x.jpg"},
        image_sha256="0" * 64,
        width=100,
        height=50,
        render={"kind": "photo", "highlighted_part_id": None, "camera": None},
        object_bbox_xyxy=[0.0, 0.0, 100.0, 50.0],
        parts=[
            # A 10 x 10 visible box whose first pixel row is the mask: runs 0, 10 (inside), 90 (outside).
            {
                **_part("grasp", "grasp", [10.0, 10.0, 20.0, 20.0], [15.5, 10.5]),
                "visible_bbox_xyxy": [10.0, 10.0, 20.0, 20.0],
                "mask_rle": [0, 10, 90],
            },
            _part("contain", "contain", [30.0, 5.0, 100.0, 50.0], [60.5, 30.5]),
        ],
        target_part_id="grasp",
        target_action="grasp",
        conditions=list(ALL_CONDITIONS),
    )


def _validate(rows: list[dict[str, Any]]) -> None:
    validate_table(pa.Table.from_pylist(rows, schema=arrow_schema()), "rows.arrow")


def test_a_good_row_validates() -> None:
    _validate([_row("t/1"), _row("t/2")])


def _broken(mutate: str) -> dict[str, Any]:
    row = copy.deepcopy(_row())
    if mutate == "box_outside":
        row["parts"][1]["bbox_xyxy"] = [30.0, 5.0, 101.0, 50.0]
    elif mutate == "box_inverted":
        row["parts"][0]["bbox_xyxy"] = [20.0, 10.0, 10.0, 20.0]
    elif mutate == "point_outside":
        row["parts"][0]["point_xy"] = [15.0, 51.0]
    elif mutate == "target_missing":
        row["target_part_id"] = "handle"
    elif mutate == "target_action_differs":
        row["target_action"] = "contain"
    elif mutate == "unknown_action":
        row["parts"][1]["action"] = "teleport"
    elif mutate == "condition_for_highlight":
        row["render"]["kind"] = "highlighted"
    elif mutate == "excluded_without_tag":
        row["excluded"] = True
    elif mutate == "tag_without_excluded":
        row["exclusion_tags"] = ["no_render"]
    elif mutate == "duplicate_part":
        row["parts"][1]["part_id"] = "grasp"
    elif mutate == "mask_runs_off_the_box":
        row["parts"][0]["mask_rle"] = [0, 10, 89]
    elif mutate == "mask_area_differs":
        row["parts"][0]["mask_area"] = 11
    elif mutate == "no_image_bytes":
        row["image"] = {"bytes": None, "path": "x.jpg"}
    return row


RULE_OF = {
    "box_outside": "part_boxes_inside_image",
    "box_inverted": "part_boxes_inside_image",
    "point_outside": "part_points_inside_image",
    "target_missing": "target_names_one_part",
    "target_action_differs": "target_names_one_part",
    "unknown_action": "part_vocabularies",
    "condition_for_highlight": "conditions_valid_for_stratum",
    "excluded_without_tag": "excluded_iff_tagged",
    "tag_without_excluded": "excluded_iff_tagged",
    "duplicate_part": "part_ids_unique_per_row",
    "no_image_bytes": "image_has_bytes",
    "mask_runs_off_the_box": "part_masks_cover_their_box",
    "mask_area_differs": "part_masks_cover_their_box",
}


@pytest.mark.parametrize("mutate", sorted(RULE_OF))
def test_each_rule_rejects_its_violation(mutate: str) -> None:
    with pytest.raises(GroundBenchError) as caught:
        _validate([_row("t/0"), _broken(mutate)])
    assert caught.value.path == "rows.arrow"
    assert RULE_OF[mutate] in caught.value.reason
    assert "t/1" in caught.value.reason  # names the offending example


def test_duplicate_example_ids_are_rejected() -> None:
    with pytest.raises(GroundBenchError, match="uniqueness"):
        _validate([_row("t/1"), _row("t/1")])


def test_a_schema_with_a_missing_column_is_rejected() -> None:
    table = pa.Table.from_pylist([_row()], schema=arrow_schema()).drop_columns(["baselines"])
    with pytest.raises(GroundBenchError, match="baselines"):
        validate_table(table, "rows.arrow")
