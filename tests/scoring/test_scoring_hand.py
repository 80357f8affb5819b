"""Hand-worked examples for every metric of `groundbench score` and every aggregate baseline.

The records are made by hand (``new_record`` -> Arrow with the record schema -> the real per-row
baking), written as shards of a small GroundBench folder, and scored through the CLI; every expected
number below is derived by hand in the comments.

Example A (config ``hand_curated``): four rows, every image 300 x 400 (diagonal 500, centre (150, 200)).

    row  object     category         parts (id: category, action, box, point)                target
    r1   washer_1   washing_machine  door: hinge_door pull [160,220,200,260] (180,240)        door / pull
                                     button: slider_button push [10,10,30,30] (20,20)
    r2   washer_2   washing_machine  button: slider_button push [80,110,100,130] (90,120)     button / push
                                     door: hinge_door pull [220,270,280,330] (250,300)
    r3   oven_1     oven             door: hinge_door pull [100,140,140,180] (120,160)        door / pull
                                     knob: hinge_knob rotate [240,40,260,60] (250,50)
    r4   oven_2     oven             knob: hinge_knob rotate [200,270,220,290] (210,280)      knob / rotate
                                     door: hinge_door pull [20,20,100,100] (60,60)

Target offsets from the image centre, in diagonals: r1 (30,40)/500 -> 0.1; r2 (-60,-80)/500 -> 0.2;
r3 (-30,-40)/500 -> 0.1; r4 (60,80)/500 -> 0.2. Their mean is (0, 0), so the distances from the
mean are 0.1, 0.2, 0.1, 0.2 and tau = median = 0.15. The image-centre answer is within tau of r1 and
r3: hit rate 2/4 = 0.5, mean distance (0.1+0.2+0.1+0.2)/4 = 0.15. Object boxes are centred at
r1 (180,240) -> 0; r2 (90,70) -> 50/500 = 0.1; r3 (120,310) -> 150/500 = 0.3; r4 (60,280) -> 0.3:
object-centre hit rate 2/4 = 0.5, mean distance 0.7/4 = 0.175.
Target actions pull, push, pull, rotate: majority pull, 2/4 = 0.5.
Blind bounds: image_only 0.5 (majority); object_named / localization_only keyed on the object
category: washing_machine {pull, push} -> 1, oven {pull, rotate} -> 1, (1+1)/4 = 0.5, no leakage;
part_named / localization_shown / mechanics_shown: four distinct keys -> 4/4 = 1.0, leakage.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
import yaml

from groundbench.loaders.published import write_config
from groundbench.schemas.conditions import ALL_CONDITIONS
from groundbench.schemas.features import FORMAT_VERSION, arrow_schema, new_record
from groundbench.scoring.api import score
from groundbench.scoring.baselines import bake_row_baselines, config_baselines
from groundbench.scoring.gate import card_key
from groundbench.scoring.gui_rules import coverage_precision
from groundbench.scoring.metrics import (
    box_iou,
    cluster_bootstrap,
    every_keyword_answer,
    free_form_actions,
    keyword_table,
    selected_parts,
)
from groundbench.scoring.parse import LENIENT, MALFORMED, STRICT, Answer, has_answer_fields, parse_response, settle
from groundbench.scoring.sanity import sanity
from tests.conftest import run_cli


def part(pid: str, category: str, action: str, box: list[float], point: list[float]) -> dict[str, Any]:
    return {
        "part_id": pid,
        "category": category,
        "action": action,
        "bbox_xyxy": [float(v) for v in box],
        "point_xy": [float(v) for v in point],
        "box_quality": "exact",
        "joint_type": "revolute",
        "motion_axis_3d": [],
        "motion_axis_2d": [],
        "mask_area": None,
        "secondary_actions": [],
    }


def record(
    eid: str,
    obj: str,
    category: str,
    parts: list[dict[str, Any]],
    target: str,
    object_box: list[float] | None = None,
    stratum: str = "curated",
    width: int = 300,
    height: int = 400,
    **fields: Any,
) -> dict[str, Any]:
    action = next(p["action"] for p in parts if p["part_id"] == target)
    fields.setdefault("conditions", list(ALL_CONDITIONS))
    fields.setdefault("source", "gapartnet")
    fields.setdefault("render", {"kind": "clean", "highlighted_part_id": None, "camera": None})
    return new_record(
        example_id=eid,
        stratum=stratum,
        object_id=obj,
        object_category=category,
        image_sha256="0" * 64,
        width=width,
        height=height,
        object_bbox_xyxy=object_box,
        parts=parts,
        target_part_id=target,
        target_action=action,
        **fields,
    )


def baked(records: list[dict[str, Any]]) -> pa.Table:
    table = pa.Table.from_pylist(records, schema=arrow_schema())
    return pa.Table.from_batches([bake_row_baselines(b) for b in table.to_batches()], schema=arrow_schema())


EXAMPLE_A = [
    record(
        "a/r1",
        "washer_1",
        "washing_machine",
        [
            part("door", "hinge_door", "pull", [160, 220, 200, 260], [180, 240]),
            part("button", "slider_button", "push", [10, 10, 30, 30], [20, 20]),
        ],
        "door",
        [130, 190, 230, 290],
    ),
    record(
        "a/r2",
        "washer_2",
        "washing_machine",
        [
            part("button", "slider_button", "push", [80, 110, 100, 130], [90, 120]),
            part("door", "hinge_door", "pull", [220, 270, 280, 330], [250, 300]),
        ],
        "button",
        [40, 20, 140, 120],
    ),
    record(
        "a/r3",
        "oven_1",
        "oven",
        [
            part("door", "hinge_door", "pull", [100, 140, 140, 180], [120, 160]),
            part("knob", "hinge_knob", "rotate", [240, 40, 260, 60], [250, 50]),
        ],
        "door",
        [70, 260, 170, 360],
    ),
    record(
        "a/r4",
        "oven_2",
        "oven",
        [
            part("knob", "hinge_knob", "rotate", [200, 270, 220, 290], [210, 280]),
            part("door", "hinge_door", "pull", [20, 20, 100, 100], [60, 60]),
        ],
        "knob",
        [10, 230, 110, 330],
    ),
]

# Counterfactual re-asks: object A has two informative pairs, B one, C one non-informative pair
# (requested push, original push), D one excluded pair.
_CF_PARTS = [
    part("door", "hinge_door", "pull", [10, 10, 50, 50], [30, 30]),
    part("button", "slider_button", "push", [100, 100, 120, 120], [110, 110]),
    part("knob", "hinge_knob", "rotate", [200, 200, 220, 220], [210, 210]),
]
_C_PARTS = [
    part("button1", "slider_button", "push", [10, 10, 20, 20], [15, 15]),
    part("button2", "slider_button", "push", [30, 30, 40, 40], [35, 35]),
]


def _cf(eid: str, obj: str, parts: list[dict[str, Any]], target: str, original: str, **kw: Any) -> dict[str, Any]:
    original_action = next(p["action"] for p in parts if p["part_id"] == original)
    return record(
        eid,
        obj,
        "microwave",
        parts,
        target,
        stratum="counterfactual",
        original_target_part_id=original,
        original_action=original_action,
        **kw,
    )


COUNTERFACTUAL = [
    _cf("cf/A/button", "A", _CF_PARTS, "button", "door"),  # pull -> push
    _cf("cf/A/knob", "A", _CF_PARTS, "knob", "door"),  # pull -> rotate
    _cf("cf/B/door", "B", _CF_PARTS, "door", "button"),  # push -> pull
    _cf("cf/C/button2", "C", _C_PARTS, "button2", "button1"),  # push -> push: not informative
    _cf("cf/D/knob", "D", _CF_PARTS, "knob", "door", excluded=True, exclusion_tags=["highlight_mismatch"]),
]

# Blind bound with colliding keys: three mugs whose target is ("mug", "handle", "handle") with actions
# grasp, grasp, wrap-grasp -> best lookup gets 2; one knife ("knife", "blade", "blade") -> 1.
# part_named bound (2+1)/4 = 0.75, no leakage; object_named: mug 2 + knife 1 -> 0.75 too.
_MUG = [[10, 10, 50, 50], [30, 30]]
COLLIDE = [
    record(f"k/mug{i}", f"mug_{i}", "mug", [part("handle", "handle", a, *_MUG)], "handle", width=100, height=100)
    for i, a in enumerate(("grasp", "grasp", "wrap-grasp"))
] + [record("k/knife", "knife_1", "knife", [part("blade", "blade", "cut", *_MUG)], "blade", width=100, height=100)]


def _gui(eid: str, obj: str, box: list[float], kind: str, answer_type: str = "point") -> dict[str, Any]:
    centre = [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]
    rule = {"kind": "point_in_box" if answer_type == "point" else "box", "coverage_min": 0.9, "precision_min": 0.7}
    return record(
        eid,
        obj,
        "screen",
        [
            part("target", kind, "none", box, centre),
            part("neighbour", "text", "none", [900, 700, 950, 750], [925, 725]),
        ],
        "target",
        stratum="suite",
        width=1000,
        height=800,
        conditions=[],
        instruction="Click the thing.",
        answer_type=answer_type,
        success_rule=rule,
        source="pointerbench",
        render={"kind": "screenshot", "highlighted_part_id": None, "camera": None},
    )


# GUI suite a (1000 x 800, centre (500, 400)):
#   g1 point, icon, box [400,300,600,500]: answer (600,500) on the corner -> hit (edges included); centre hits.
#   g2 point, text, box [0,0,100,100]: answer (100.5,50) -> miss; centre misses.
#   g3 box, text, [100,100,300,300] (area 40000): answer [100,100,300,280] -> overlap 200*180 = 36000,
#      coverage 36000/40000 = 0.90 >= 0.90, precision 36000/36000 = 1 -> success; centre misses.
#   g4 box, icon, same box: answer [80,80,320,320] -> overlap 40000, coverage 1, precision
#      40000/57600 = 0.694 < 0.70 -> failure; centre misses.
#   success 2/4 = 0.5, center click 1/4 = 0.25; icon 1/2 = 0.5 (click 1/2), text 1/2 = 0.5 (click 0/2).
#   0-1000 diagnostic (x * 1000/1000, y * 800/1000): g1 (600,400) hit; g2 (100.5,40) miss; g3 box
#      [100,80,300,224]: overlap 200*124 = 24800, coverage 0.62 -> fail; g4 [80,64,320,256]: overlap
#      200*156 = 31200, coverage 0.78 -> fail: 1/4 = 0.25. 0-1 diagnostic: everything lands far outside: 0/4.
# GUI suite b:
#   h1 point, icon, box [450,350,550,450]: answer (500,500) (a 0-1000 answer) -> miss officially; centre hits;
#      0-1000: (500,400) hit; 0-1: (500000, 400000) miss.
#   h2 point, text, box [20,20,40,40]: answer (0.03,0.0375) (a 0-1 answer) -> miss; centre misses;
#      0-1000: (0.03,0.03) miss; 0-1: (30,30) hit.
#   success 0/2 = 0.0, center click 1/2 = 0.5, each diagnostic 1/2 = 0.5.
# Unweighted mean of suites: (0.5 + 0.0) / 2 = 0.25 over n = 2 suites.
GUI_A = [
    _gui("ga/1", "s1", [400, 300, 600, 500], "icon"),
    _gui("ga/2", "s2", [0, 0, 100, 100], "text"),
    _gui("ga/3", "s3", [100, 100, 300, 300], "text", "box"),
    _gui("ga/4", "s4", [100, 100, 300, 300], "icon", "box"),
]
GUI_B = [_gui("gb/1", "t1", [450, 350, 550, 450], "icon"), _gui("gb/2", "t2", [20, 20, 40, 40], "text")]

PREDICTIONS: list[dict[str, Any]] = [
    # image_only (task-free):
    # r1 names the button (push) and says push: a valid selection with its own action -> gated right,
    #    ungated wrong (target pull); (20,20) is sqrt(160^2+220^2)/500 = sqrt(74000)/500 = 0.544 away: miss.
    {"example_id": "a/r1", "response": '{"part": "button", "action": "push", "point": [20, 20]}'},
    # r2 fenced (lenient): names the door (pull), says pull: valid + gated right, ungated wrong (push);
    #    (250,300) is sqrt(160^2+180^2)/500 = sqrt(58000)/500 = 0.482 away: miss.
    {"example_id": "a/r2", "response": '```json\n{"part": "door", "action": "pull", "point": [250, 300]}\n```'},
    # r3 prose around JSON (lenient), no name: the point (121,161) lies in the door's box -> the target is
    #    selected by geometry; pull is right; distance sqrt(2)/500 = 0.0028 <= tau: hit.
    {"example_id": "a/r3", "response": 'Sure! {"action": "pull", "point": [121, 161]} hope it helps'},
    # r4 malformed: no selection, action none, no point.
    {"example_id": "a/r4", "response": "I think you rotate it."},
]
for p in PREDICTIONS:
    p["condition"] = "image_only"
PREDICTIONS += [
    # part_named: r1 names the target, right action, its exact point (distance 0, hit).
    {
        "example_id": "a/r1",
        "condition": "part_named",
        "parsed": {"part": "door", "action": "pull", "point": [180, 240]},
    },
    # r2 names the target, wrong action (pull), no point (a miss).
    {"example_id": "a/r2", "condition": "part_named", "response": '{"part": "button", "action": "pull"}'},
    # r3 names the knob (not the target), wrong action; (250,50) is sqrt(130^2+110^2)/500 = sqrt(29000)/500 away.
    {
        "example_id": "a/r3",
        "condition": "part_named",
        "response": '{"part": "knob", "action": "rotate", "point": [250, 50]}',
    },
    # r4 names the target by its category (unique in the row); "twist" is out of vocabulary -> none, wrong;
    #    (212,283) is sqrt(13)/500 away: hit.
    {
        "example_id": "a/r4",
        "condition": "part_named",
        "response": '{"part": "hinge_knob", "action": "twist", "point": [212, 283]}',
    },
    # localization_shown: r1 copies point and box; r2 copies the point to within 0.5 px; r3 moves 5 px
    # (not an echo); r4 copies the box. Echo 3/4.
    {
        "example_id": "a/r1",
        "condition": "localization_shown",
        "response": '{"action": "pull", "point": [180, 240], "box": [160, 220, 200, 260]}',
    },
    {"example_id": "a/r2", "condition": "localization_shown", "response": '{"action": "push", "point": [90.4, 120.3]}'},
    {"example_id": "a/r3", "condition": "localization_shown", "response": '{"action": "grasp", "point": [125, 165]}'},
    {
        "example_id": "a/r4",
        "condition": "localization_shown",
        "response": '{"part": "knob", "action": "push", "box": [200, 270, 220, 290]}',
    },
    # free form (part_named variant): r1 "pull" matches pull; r2 "click" matches the permissive push entry;
    # r3 "Swing it open." matches no pull keyword; r4 "Turn" matches rotate. 3/4.
    {"example_id": "a/r1", "condition": "part_named_free_form", "response": "Grab the handle and pull the door open."},
    {"example_id": "a/r2", "condition": "part_named_free_form", "response": "Click it to start the machine."},
    {"example_id": "a/r3", "condition": "part_named_free_form", "response": "Swing it open."},
    {"example_id": "a/r4", "condition": "part_named_free_form", "text": "Turn the knob to set the temperature."},
    # text-only control of part_named: the constant "pull" -> 2/4 = 0.5 (r1, r3).
    *(
        {"example_id": f"a/r{i}", "condition": "part_named/text_only", "parsed": {"action": "pull"}}
        for i in range(1, 5)
    ),
    # counterfactual: A/button push = requested (compliant); A/knob pull = original (shortcut);
    # B/door push = original (shortcut); C is not informative and is left out of both rates.
    {"example_id": "cf/A/button", "condition": "counterfactual", "parsed": {"action": "push"}},
    {"example_id": "cf/A/knob", "condition": "counterfactual", "parsed": {"action": "pull"}},
    {"example_id": "cf/B/door", "condition": "counterfactual", "parsed": {"action": "push"}},
    {"example_id": "cf/C/button2", "condition": "counterfactual", "parsed": {"action": "push"}},
    # GUI (see the table above).
    {"example_id": "ga/1", "condition": "gui", "response": '{"point": [600, 500]}'},
    {"example_id": "ga/2", "condition": "gui", "response": '{"point": [100.5, 50]}'},
    {"example_id": "ga/3", "condition": "gui", "response": '{"box": [100, 100, 300, 280]}'},
    {"example_id": "ga/4", "condition": "gui", "response": '{"bbox": [80, 80, 320, 320]}'},
    {"example_id": "gb/1", "condition": "gui", "response": '{"point": [500, 500]}'},
    {"example_id": "gb/2", "condition": "gui", "response": '{"point": [0.03, 0.0375]}'},
]


HAND_CONFIGS = {
    "hand_curated": EXAMPLE_A,
    "hand_counterfactual": COUNTERFACTUAL,
    "hand_collide": COLLIDE,
    "gui_text": GUI_A,  # a PointerBench suite name: its gui_success enters the mean of suites
    "gui_screenspot": GUI_B,  # a ScreenSpot variant: reported beside the mean, never inside it
}
HAND_MANIFESTS = {name: f"{index:064x}" for index, name in enumerate(HAND_CONFIGS)}


def _write_folder(root: Path) -> Path:
    folder = root / "groundbench"
    for name, records in HAND_CONFIGS.items():
        # a published folder: Parquet data files (their schema metadata carries the format version)
        rows = baked(sorted(records, key=lambda r: r["example_id"]))
        write_config(folder / "data" / name, rows.to_batches(), arrow_schema(), 64)
    # The published folder's gate, as `groundbench assemble` writes it into the card's front matter.
    key = {"groundbench": card_key(FORMAT_VERSION, "0.0.0-hand", HAND_MANIFESTS)}
    (folder / "README.md").write_text("---\n" + yaml.safe_dump(key) + "---\n\nhand-made folder\n")
    return folder


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, str, str | None], dict[str, Any]]:
    root = tmp_path_factory.mktemp("hand")
    folder = _write_folder(root)
    predictions = root / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"model": "m", **p}) + "\n" for p in PREDICTIONS))
    assert (
        run_cli(
            root,
            "score",
            str(predictions),
            "--data",
            str(folder),
            "--json",
            str(root / "s.json"),
            "--csv",
            str(root / "s.csv"),
            "--seed",
            "0",
        )
        == 0
    )
    payload = json.loads((root / "s.json").read_text())
    assert (root / "s.csv").read_text().startswith("model,config,stratum,condition,metric,value,n,")
    assert len(payload["predictions"]) == len(PREDICTIONS)  # every raw response is kept
    table = {}
    for m in payload["metrics"]:
        assert {"config", "condition", "metric", "value", "n"} <= set(m)
        table[(m["config"], m["condition"], m["metric"], m["detail"])] = m
    return table


def get(scored: dict, config: str, condition: str, metric: str, detail: str | None = None) -> dict[str, Any]:
    return scored[(config, condition, metric, detail)]


def check(entry: dict[str, Any], value: float | None, n: int) -> None:
    assert entry["n"] == n
    assert entry["value"] == (None if value is None else pytest.approx(value, abs=1e-12))


def test_parse_strict_lenient_malformed_and_vocabulary() -> None:
    assert parse_response(' {"action": "push"} \n').status == STRICT
    assert parse_response('```json\n{"action": "push"}\n```').status == LENIENT
    assert parse_response('The answer: {"action": "push"}.').status == LENIENT
    assert parse_response("push").status == MALFORMED
    assert parse_response("[1, 2]").status == MALFORMED
    oov = parse_response('{"action": "Twist"}')
    assert oov.action == "none" and oov.out_of_vocabulary
    assert parse_response('{"action": "Lift_Vertical"}').action == "lift-vertical"
    # numbers inside strings are read, as the GUI rule reads them, and counted as such
    mixed = parse_response('{"point": [1, "2"]}')
    assert (mixed.status, mixed.point, mixed.from_strings) == (STRICT, (1.0, 2.0), True)
    # a point that cannot be read makes the answer malformed (a failure), never strict with a null point
    unreadable = parse_response('{"action": "push", "point": "top left"}')
    assert unreadable.unreadable and settle(unreadable, has_answer_fields(unreadable)).status == MALFORMED
    # --strict (seed 001's gate): no lenient recovery at all
    assert parse_response('```json\n{"action": "push"}\n```', strict_only=True).status == MALFORMED
    assert parse_response(' {"action": "push"} ', strict_only=True).status == STRICT
    # a bare object without a usable answer is malformed, not strict
    bare = parse_response('{"answer": "top left"}')
    assert settle(bare, has_answer_fields(bare)).status == MALFORMED
    assert settle(oov, has_answer_fields(oov)).status == STRICT  # an action was given (out of vocabulary)


def test_image_only_task_free(scored: dict) -> None:
    c, k = "hand_curated", "image_only"
    check(get(scored, c, k, "strict_parse_rate"), 1 / 4, 4)  # r1
    check(get(scored, c, k, "lenient_recovered_rate"), 2 / 4, 4)  # r2 fenced, r3 prose
    check(get(scored, c, k, "malformed_rate"), 1 / 4, 4)  # r4
    check(get(scored, c, k, "out_of_vocabulary_rate"), 0.0, 4)
    check(get(scored, c, k, "part_selection_accuracy"), 3 / 4, 4)  # r1 button, r2 door, r3 door by geometry
    check(get(scored, c, k, "exact_target_rate"), 1 / 4, 4)  # r3 only
    ungated = get(scored, c, k, "action_accuracy")
    check(ungated, 1 / 4, 4)  # r3 only (against the target's action)
    assert (ungated["baseline_majority"], ungated["blind_bound"], ungated["leakage"]) == (0.5, 0.5, False)
    check(get(scored, c, k, "action_accuracy_gated"), 3 / 4, 4)  # r1, r2, r3 right for the part they chose
    check(get(scored, c, k, "action_accuracy_given_exact_part_named"), None, 0)  # nobody named the target
    within = get(scored, c, k, "action_accuracy_given_point_within_tau")
    check(within, 1.0, 1)  # r3
    assert within["tau"] == pytest.approx(0.15)
    hit = get(scored, c, k, "localization_hit_rate")
    check(hit, 1 / 4, 4)
    assert hit["tau"] == pytest.approx(0.15) and hit["measures"] == "localization"
    assert (hit["baseline_image_center"], hit["baseline_object_center"]) == (0.5, 0.5)
    mean = get(scored, c, k, "mean_center_distance")
    check(mean, (math.sqrt(74000) + math.sqrt(58000) + math.sqrt(2)) / 500 / 3, 3)
    assert mean["baseline_image_center"] == pytest.approx(0.15)
    assert mean["baseline_object_center"] == pytest.approx(0.175)
    assert (c, k, "echo_rate", None) not in scored  # nothing was supplied to echo


def test_part_named(scored: dict) -> None:
    c, k = "hand_curated", "part_named"
    check(get(scored, c, k, "strict_parse_rate"), 3 / 4, 4)  # three strict responses
    check(get(scored, c, k, "fields_rate"), 1 / 4, 4)  # one parsed line: its own status, never "strict"
    check(get(scored, c, k, "coverage", "4/4"), 1.0, 4)
    check(get(scored, c, k, "out_of_vocabulary_rate"), 1 / 4, 4)  # "twist"
    check(get(scored, c, k, "part_selection_accuracy"), 3 / 4, 4)  # r1, r2, r4 (by category)
    check(get(scored, c, k, "exact_target_rate"), 3 / 4, 4)
    acc = get(scored, c, k, "action_accuracy")
    check(acc, 1 / 4, 4)  # r1
    assert (acc["baseline_majority"], acc["blind_bound"], acc["leakage"]) == (0.5, 1.0, True)
    check(get(scored, c, k, "action_accuracy_gated"), 1 / 4, 4)  # the gate changes nothing here
    check(get(scored, c, k, "action_accuracy_given_exact_part_named"), 1 / 3, 3)  # r1 right; r2, r4 wrong
    check(get(scored, c, k, "action_accuracy_given_point_within_tau"), 1 / 2, 2)  # r1 right, r4 wrong
    check(get(scored, c, k, "localization_hit_rate"), 2 / 4, 4)
    check(get(scored, c, k, "mean_center_distance"), (0 + math.sqrt(29000) / 500 + math.sqrt(13) / 500) / 3, 3)
    # the text-only control supplies the same text: same bound, its own accuracy
    control = get(scored, c, "part_named/text_only", "action_accuracy")
    check(control, 2 / 4, 4)
    assert (control["blind_bound"], control["leakage"]) == (1.0, True)


def test_localization_shown_is_an_echo_and_selection_is_not_measurable(scored: dict) -> None:
    c, k = "hand_curated", "localization_shown"
    check(get(scored, c, k, "echo_rate"), 3 / 4, 4)
    selection = get(scored, c, k, "part_selection_accuracy")
    check(selection, None, 4)
    assert selection["note"].startswith("not measurable")
    check(get(scored, c, k, "exact_target_rate"), None, 4)
    check(get(scored, c, k, "action_accuracy"), 2 / 4, 4)  # r1 pull, r2 push
    check(get(scored, c, k, "action_accuracy_given_exact_part_named"), 0.0, 1)  # r4 named knob, said push
    # every answer lies within tau (0, 0.5/500, sqrt(50)/500, box centre 0), but it is labelled an echo
    hit = get(scored, c, k, "localization_hit_rate")
    check(hit, 1.0, 4)
    assert hit["measures"] == "echo" and "copying" in hit["note"]


def test_free_form_keywords(scored: dict) -> None:
    entry = get(scored, "hand_curated", "part_named_free_form", "free_form_action_accuracy")
    check(entry, 3 / 4, 4)
    assert entry["ambiguous"] == 0 and entry["baseline_every_keyword"] == 0.0
    assert "more permissive" in entry["note"] and "one action the answer names" in entry["note"]
    assert free_form_actions("Press the button") == {"push"}
    assert free_form_actions("Swing it open.") == set()
    assert "rotate" in free_form_actions("Twisting it")
    # a keyword inside a longer keyword's match names nothing more
    assert free_form_actions("Wrap-grasp the mug's body.") == {"wrap-grasp"}
    assert free_form_actions("Turn on the kettle.") == {"push"}
    assert free_form_actions("Hold around the cup") == {"wrap-grasp"}
    assert free_form_actions("Hold the handle and turn it") == {"grasp", "rotate"}
    # each distinct answer is scanned once (memoized): a caller changing its copy changes no later answer
    found = free_form_actions("Press the button")
    found.add("pull")
    assert free_form_actions("Press the button") == {"push"}


def test_free_form_cannot_be_gamed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer listing every action's keywords names every action: ambiguous on every row, 0 (version 1
    credited it on every row); hedging between two actions fails too, and both count as ambiguous."""
    assert keyword_table()["version"] == 2
    gaming = every_keyword_answer()
    assert free_form_actions(gaming) == set(keyword_table()["keywords"])  # all 11 actions
    folder = _write_folder(tmp_path)
    hedges = {"a/r1": "Pull it, or push it.", "a/r2": "Push it.", "a/r3": "Pull it or lift it.", "a/r4": "Turn it."}
    lines = [
        *({"model": "gamer", "example_id": f"a/r{i}", "response": gaming} for i in range(1, 5)),
        *({"model": "hedger", "example_id": eid, "response": text} for eid, text in hedges.items()),
    ]
    for line in lines:
        line["condition"] = "part_named_free_form"
    metrics = {
        m["model"]: m
        for m in score(lines, folder=folder, configs=["hand_curated"], subset=True, resamples=50).metrics
        if m["metric"] == "free_form_action_accuracy"
    }
    gamer, hedger = metrics["gamer"], metrics["hedger"]
    assert (gamer["value"], gamer["count"], gamer["n"], gamer["ambiguous"]) == (0.0, 0, 4, 4)
    assert (hedger["value"], hedger["count"], hedger["ambiguous"]) == (0.5, 2, 2)  # r2 push, r4 rotate
    assert gamer["baseline_every_keyword"] == hedger["baseline_every_keyword"] == 0.0
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    monkeypatch.setenv("COLUMNS", "240")  # a table row per line
    report = tmp_path / "scores.json"
    command = ["score", str(predictions), "--data", str(folder), "--config", "hand_curated", "--subset"]
    assert run_cli(tmp_path, *command, "--json", str(report)) == 0
    shown = capsys.readouterr().out
    assert shown.count("every-keyword answer 0.000") == 2 and "4 ambiguous answers" in shown  # beside the figure
    assert run_cli(tmp_path, "table", str(report), "--format", "csv", "--data", str(folder)) == 0
    table = {r["model"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert (table["gamer"]["ambiguous"], table["gamer"]["baseline_every_keyword"]) == ("4", "0.0")  # own column
    assert (table["hedger"]["ambiguous"], table["hedger"]["value"]) == ("2", "0.5")


def test_counterfactual_compliance_shortcut_bootstrap_and_transitions(scored: dict) -> None:
    c, k = "hand_counterfactual", "counterfactual"
    compliance = get(scored, c, k, "compliance")
    check(compliance, 1 / 3, 3)  # 3 informative pairs: A/button complied
    # Objects in order [A (1 of 2), B (0 of 1)]; resampling two objects gives {A,A} 2/4 = 0.5 with
    # probability 1/4, {A,B} 1/3 with 1/2, {B,B} 0 with 1/4: both tails hold far more than 2.5% of
    # 2000 resamples, so the percentile interval is exactly [0.0, 0.5].
    assert (compliance["ci_low"], compliance["ci_high"]) == (0.0, 0.5)
    shortcut = get(scored, c, k, "shortcut_rate")
    check(shortcut, 2 / 3, 3)  # A/knob, B/door
    # A (1 of 2), B (1 of 1): {A,A} 0.5, {A,B} 2/3, {B,B} 1.0 -> [0.5, 1.0]
    assert (shortcut["ci_low"], shortcut["ci_high"]) == (0.5, 1.0)
    check(get(scored, c, k, "compliance_object_macro"), (1 / 2 + 0) / 2, 2)
    check(get(scored, c, k, "shortcut_rate_object_macro"), (1 / 2 + 1) / 2, 2)
    check(get(scored, c, k, "transition_compliance", "pull -> push"), 1.0, 1)
    check(get(scored, c, k, "transition_shortcut_rate", "pull -> push"), 0.0, 1)
    check(get(scored, c, k, "transition_compliance", "pull -> rotate"), 0.0, 1)
    check(get(scored, c, k, "transition_shortcut_rate", "pull -> rotate"), 1.0, 1)
    check(get(scored, c, k, "transition_compliance", "push -> pull"), 0.0, 1)
    check(get(scored, c, k, "transition_shortcut_rate", "push -> pull"), 1.0, 1)
    assert (c, k, "transition_compliance", "push -> push") not in scored


def test_bootstrap_follows_its_documented_draw() -> None:
    per_object = [(3, 4), (0, 2), (2, 2), (1, 3)]
    draw = np.random.default_rng(7).integers(0, 4, size=(500, 4))
    hits, pairs = np.array([3.0, 0, 2, 1]), np.array([4.0, 2, 2, 3])
    expected = np.percentile(hits[draw].sum(1) / pairs[draw].sum(1), [2.5, 97.5])
    assert cluster_bootstrap(per_object, 7, 500) == (float(expected[0]), float(expected[1]))
    assert cluster_bootstrap(per_object, 7, 500) == cluster_bootstrap(per_object, 7, 500)


def test_gui_suites(scored: dict) -> None:
    a = get(scored, "gui_text", "gui", "gui_success")
    check(a, 0.5, 4)
    assert a["baseline_center_click"] == 0.25
    icon = get(scored, "gui_text", "gui", "gui_success_by_target_type", "icon")
    check(icon, 0.5, 2)
    assert icon["baseline_center_click"] == 0.5
    text = get(scored, "gui_text", "gui", "gui_success_by_target_type", "text")
    check(text, 0.5, 2)
    assert text["baseline_center_click"] == 0.0
    check(get(scored, "gui_text", "gui", "gui_success_diagnostic_0_1000"), 0.25, 4)
    check(get(scored, "gui_text", "gui", "gui_success_diagnostic_0_1"), 0.0, 4)
    b = get(scored, "gui_screenspot", "gui", "gui_success")
    check(b, 0.0, 2)
    assert b["baseline_center_click"] == 0.5
    check(get(scored, "gui_screenspot", "gui", "gui_success_diagnostic_0_1000"), 0.5, 2)
    check(get(scored, "gui_screenspot", "gui", "gui_success_diagnostic_0_1"), 0.5, 2)
    # The mean covers the PointerBench suites only: gui_text's 0.5 over n = 1 suite (gui_screenspot is beside it).
    mean = get(scored, "PointerBench suites", "gui", "gui_success_mean_of_suites", "gui_text")
    check(mean, 0.5, 1)
    assert coverage_precision([0, 0, 10, 9], [0, 0, 10, 10]) == (0.9, 1.0)  # coverage exactly 0.90 passes
    assert coverage_precision([0, 0, 10, 8.9], [0, 0, 10, 10])[0] < 0.9
    # Breakdowns as eval.py reports them: answer type; box failures split clipped / oversized.
    check(get(scored, "gui_text", "gui", "gui_success_by_answer_type", "point"), 1 / 2, 2)  # g1
    check(get(scored, "gui_text", "gui", "gui_success_by_answer_type", "box"), 1 / 2, 2)  # g3
    check(get(scored, "gui_text", "gui", "gui_box_failure", "oversized"), 1 / 2, 2)  # g4: covered, precision 0.694
    check(get(scored, "gui_text", "gui", "gui_box_failure", "clipped"), 0.0, 2)


def test_aggregate_baselines_by_hand() -> None:
    rows = baked(EXAMPLE_A).drop_columns(["image"]).to_pylist()
    values = {(b["condition"], b["baseline"]): b for b in config_baselines("hand_curated", rows)}
    assert values[("image_only", "majority_action")]["value"] == 0.5
    assert values[("image_only", "majority_action")]["detail"] == "pull"
    assert values[("image_only", "text_only_blind_bound")]["value"] == 0.5
    assert values[("object_named", "text_only_blind_bound")]["value"] == 0.5
    assert values[("localization_only", "text_only_blind_bound")]["supplied_keys"] == ["object_category"]
    assert values[("part_named", "text_only_blind_bound")]["leakage"] is True
    assert values[("mechanics_shown", "text_only_blind_bound")]["supplied_keys"][-1] == "target_joint_type"
    assert values[("object_named", "text_only_blind_bound")]["leakage"] is False
    assert values[("image_only", "localization_tau")]["value"] == pytest.approx(0.15)
    assert values[("image_only", "image_center_hit_rate_at_tau")]["value"] == 0.5
    assert values[("image_only", "object_center_hit_rate_at_tau")]["value"] == 0.5
    assert values[("image_only", "image_center_mean_distance")]["value"] == pytest.approx(0.15)
    assert values[("image_only", "object_center_mean_distance")]["value"] == pytest.approx(0.175)

    collide = {
        (b["condition"], b["baseline"]): b
        for b in config_baselines("hand_collide", baked(COLLIDE).drop_columns(["image"]).to_pylist())
    }
    bound = collide[("part_named", "text_only_blind_bound")]
    assert (bound["value"], bound["leakage"], bound["detail"]) == (0.75, False, "3/4")
    assert collide[("image_only", "text_only_blind_bound")]["value"] == 0.5  # grasp 2 of 4

    cf = config_baselines("hand_counterfactual", baked(COUNTERFACTUAL).drop_columns(["image"]).to_pylist())
    cf_majority = next(b for b in cf if b["condition"] == "counterfactual" and b["baseline"] == "majority_action")
    assert cf_majority["n"] == 4  # the excluded pair D is not scored

    gui = config_baselines("gui_text", baked(GUI_A).drop_columns(["image"]).to_pylist())
    assert [(b["condition"], b["baseline"], b["value"], b["n"]) for b in gui] == [("gui", "center_click", 0.25, 4)]


def test_score_rejects_bad_predictions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _write_folder(tmp_path)
    cases = [
        ({"model": "m", "example_id": "nope", "condition": "part_named", "response": "{}"}, "example_id"),
        ({"model": "m", "example_id": "a/r1", "condition": "telepathy", "response": "{}"}, "condition"),
        ({"model": "m", "example_id": "a/r1", "condition": "part_named"}, "response"),
        ({"example_id": "a/r1", "condition": "part_named", "response": "{}"}, "model"),  # model is required
        ({"model": "", "example_id": "a/r1", "condition": "part_named", "response": "{}"}, "model"),
    ]
    for line, field in cases:
        path = tmp_path / "p.jsonl"
        path.write_text(json.dumps(line) + "\n")
        assert run_cli(tmp_path, "score", str(path), "--data", str(folder)) == 2
        err = capsys.readouterr().err
        assert "line 1" in err and field in err


@pytest.mark.parametrize(
    "name, records",
    [
        ("hand_curated", EXAMPLE_A),
        ("hand_counterfactual", COUNTERFACTUAL),
        ("hand_collide", COLLIDE),
        ("gui_text", GUI_A),
        ("gui_screenspot", GUI_B),
    ],
)
def test_sanity_self_test_on_hand_made_configs(name: str, records: list[dict[str, Any]]) -> None:
    """The self-test is generic over the schema: re-asks and GUI suites pass it too."""
    rows = baked(records).drop_columns(["image"]).to_pylist()
    deviations, groups = sanity(name, rows, config_baselines(name, rows))
    assert deviations == []
    assert groups >= 1


def test_geometric_selection_with_overlapping_projected_boxes() -> None:
    # A bucket: the lid's box [100,100,200,160] (area 6000) lies inside the arched handle's box
    # [80,40,220,170] (area 18200); the handle's own pixel (150,120) lies in both boxes. A third part,
    # a drawer-like neighbour [190,100,300,200], overlaps the lid's box at its right edge.
    parts = [
        part("handle", "hinge_handle", "lift-vertical", [80, 40, 220, 170], [150, 120]),
        part("lid", "slider_lid", "pull", [100, 100, 200, 160], [130, 140]),
        part("drawer", "slider_drawer", "pull", [190, 100, 300, 200], [250, 150]),
    ]
    row = record("geo/1", "o", "Bucket", parts, "handle", width=320, height=240)

    def pick(condition: str, **fields: Any) -> list[str]:
        return [p["part_id"] for p in selected_parts(Answer(status=STRICT, **fields), row, condition)]

    # (150,120) is in the handle's and the lid's boxes: the nearest own point is the handle's (0 px; the
    # lid's is sqrt(20^2+20^2) = 28.3 px away). The old rule (smallest box) picked the lid.
    assert pick("image_only", point=(150.0, 120.0)) == ["handle"]
    # (135,145) is in the same two boxes, 5*sqrt(2) px from the lid's point, sqrt(15^2+25^2) from the handle's.
    assert pick("image_only", point=(135.0, 145.0)) == ["lid"]
    # (195,130) lies in all three boxes; own points: handle sqrt(45^2+10^2) = 46.1, lid sqrt(65^2+10^2) = 65.8,
    # drawer sqrt(55^2+20^2) = 58.5: the handle.
    assert pick("part_named", point=(195.0, 130.0)) == ["handle"]
    # Outside every box: nothing.
    assert pick("image_only", point=(10.0, 10.0)) == []
    # Box only: the handle's own box has IoU 1 with itself, 6000/18200 = 0.33 with the lid's.
    assert box_iou([80, 40, 220, 170], [100, 100, 200, 160]) == pytest.approx(6000 / 18200)
    assert pick("object_named", box=(80.0, 40.0, 220.0, 170.0)) == ["handle"]
    # A box matching nothing at IoU >= 0.5 ([120,110,160,130], IoU with the lid 800/6000 = 0.13): its
    # centre (140,120) is a point in the handle's and lid's boxes, 10 px from the handle's own point.
    assert pick("object_named", box=(120.0, 110.0, 160.0, 130.0)) == ["handle"]
    # A category shared by two parts is narrowed by the answer's geometry.
    row2 = record(
        "geo/2",
        "o",
        "Keyboard",
        [
            part("k1", "slider_button", "push", [0, 0, 20, 20], [10, 10]),
            part("k2", "slider_button", "push", [18, 0, 40, 20], [29, 10]),
        ],
        "k2",
        width=320,
        height=240,
    )
    chosen = selected_parts(Answer(status=STRICT, part="slider_button", point=(19.0, 10.0)), row2, "part_named")
    assert [p["part_id"] for p in chosen] == ["k1"]  # in both boxes; 9 px from k1's point, 10 px from k2's
    # Where the prompt supplied the region, geometry never selects: a name only.
    assert pick("localization_only", point=(150.0, 120.0)) == []
