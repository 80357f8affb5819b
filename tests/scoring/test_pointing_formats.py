"""The pointing families (molmo, robopoint, gemini), read in their real syntaxes as their official code reads them.

Answers are written from each family's documentation and official code: Molmo's from Ai2's own extractor tests
(allenai/olmo-ui ``molmo1/extractPointData.test.tsx``) and its training formatter (allenai/molmo
``points_to_text``: one decimal, percent); RoboPoint's from its README's training example; Gemini's from the
cookbook's printed output (``examples/Spatial_understanding_3d.ipynb``). Each with the malformed variants public
logs show: truncated output, a refusal sentence, y/x swapped, broken XML, an answer in prose.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from groundbench.loaders.records import read_config
from groundbench.schemas import mask_rle
from groundbench.scoring.api import score
from groundbench.scoring.formats import parse_format
from groundbench.scoring.formats.pointing import (
    gemini_answer,
    gemini_embedded,
    molmo_answer,
    molmo_embedded,
    robopoint_answer,
)
from groundbench.scoring.formats.read import gui_answer, part_answer
from groundbench.scoring.parse import LENIENT, MALFORMED, POINT_ONLY, STRICT
from tests.support.frames import CONFIG, frame_folder, target_box

Row = dict[str, Any]

MOLMO_ONE = '<point x="51.2" y="26.4" alt="cat">cat</point>'
MOLMO_MANY = (
    '<points x1="5.5" y1="81.0" x2="9.5" y2="73.5" x3="14.0" y3="78.8" x4="17.9" y4="65.0" x5="22.5" y5="73.5" '
    'alt="faders.">faders.</points>'
)
ROBOPOINT_README = "[(0.461, 0.527), (0.498, 0.521), (0.481, 0.521), (0.445, 0.529)]"
GEMINI_COOKBOOK = (
    "```json\n[\n"
    '  {"point": [130, 760], "label": "handle"},\n'
    '  {"point": [427, 517], "label": "screw"},\n'
    '  {"point": [472, 201], "label": "clamp arm"}\n'
    "]\n```\n"
)


# --- the readers, in their real syntaxes --------------------------------------------------------------------


def test_molmo_reads_as_its_pointing_evaluator() -> None:
    assert molmo_answer(MOLMO_ONE).coords == (51.2, 26.4)  # type: ignore[union-attr]
    many = molmo_answer(MOLMO_MANY)
    assert many is not None and many.coords == (5.5, 81.0) and len(many.shapes) == 5
    assert many.shapes[-1] == (22.5, 73.5)
    # the (x, y) lines the evaluator also accepts, and a point past 100 dropped as extract_points drops it
    assert molmo_answer("(61.5, 40.6)\n(120.5, 3.0)").shapes == ((61.5, 40.6),)  # type: ignore[union-attr]
    # strict is the whole answer: prose around the tag scores 0 in PointingEval
    assert molmo_answer(f"there is text around this {MOLMO_ONE} point") is None
    for broken in (
        MOLMO_ONE[:-2],  # truncated: no closing tag
        '<point x="51.2" y="26.4" alt="cat">cat',  # truncated after the label
        '<point y="26.4" x="51.2" alt="cat">cat</point>',  # y/x swapped: not Molmo's syntax
        "There are none.",  # Molmo's trained answer when nothing matches (data_formatter.format_points)
        "I cannot point to that in this image.",
    ):
        assert molmo_answer(broken) is None, broken


def test_molmo_lenient_reads_as_ai2s_chat_ui() -> None:
    """olmo-ui's extractPointData: tags inside prose; <point> elements first, then <points>; a coordinate
    without its pair skipped; broken XML gives nothing."""
    found = molmo_embedded(f"there is text around these {MOLMO_MANY} points and this {MOLMO_ONE} one")
    assert found is not None and found.coords == (51.2, 26.4) and len(found.shapes) == 6
    mismatched = '<points x1="1.0" y1="2.0" x2="3.0" x3="5.0" y3="6.0" alt="mismatched">mismatched</points>'
    assert molmo_embedded(mismatched).shapes == ((1.0, 2.0), (5.0, 6.0))  # type: ignore[union-attr]
    assert molmo_embedded('<point x="51.2" y="26.4" alt="a < b">cat</point>') is None  # broken XML
    assert molmo_embedded('<point y="26.4" x="51.2" alt="cat">cat</point>') is None
    assert molmo_embedded("There are none.") is None


def test_robopoint_reads_as_its_where2place_scorer() -> None:
    found = robopoint_answer(ROBOPOINT_README)
    assert found is not None and found.coords == (0.461, 0.527) and len(found.shapes) == 4
    assert found.pixels == (False,) * 4
    # decided by how a number is written, not its value: integers are pixels, a decimal point makes a fraction
    mixed = robopoint_answer("[(120, 240), (1, 0.5), (0.1, 0.2, 0.3, 0.4), (10, 20, 30), (5, 6, 70, 80)]")
    assert mixed is not None
    assert mixed.shapes == ((120, 240), (1, 0.5), (0.1, 0.2, 0.3, 0.4), (5, 6, 70, 80))  # the 3-tuple ignored
    assert mixed.pixels == (True, False, False, True)
    # truncated output: the complete tuples count, as text2pts reads them
    assert robopoint_answer("[(0.461, 0.527), (0.49").shapes == ((0.461, 0.527),)  # type: ignore[union-attr]
    assert robopoint_answer("I'm sorry, but there is no free space to the left of the mug.") is None
    assert robopoint_answer("[]") is None


def test_gemini_reads_y_first_as_the_cookbook() -> None:
    found = gemini_answer(GEMINI_COOKBOOK)
    assert found is not None and found.coords == (760, 130) and len(found.shapes) == 3  # [y, x] -> (x, y)
    bare = gemini_answer('[{"box_2d": [100, 200, 300, 400], "label": "door"}]')
    assert bare is not None and bare.coords == (200, 100, 400, 300)  # [ymin, xmin, ymax, xmax]
    reversed_box = gemini_answer('[{"box_2d": [300, 400, 100, 200]}]')
    assert reversed_box is not None and reversed_box.coords == (200, 100, 400, 300)  # corners swapped back
    skipped = gemini_answer('[{"label": "no coordinates"}, {"point": [10, 20], "label": "knob"}]')
    assert skipped is not None and skipped.shapes == ((20, 10),)  # an entry without coordinates is skipped
    for broken in (
        GEMINI_COOKBOOK[:60],  # truncated inside the array
        "I can't identify a handle in this image.",
        '```JSON\n[{"point": [130, 760], "label": "handle"}]\n```',  # parse_json cuts only at "```json"
        '{"point": [130, 760], "label": "handle"}',  # one object, not the array the cookbook iterates
        "[]",
    ):
        assert gemini_answer(broken) is None, broken
    # lenient: the same entries anywhere, still y first (never read as x, y)
    assert gemini_embedded('```JSON\n[{"point": [130, 760]}]\n```').coords == (760, 130)  # type: ignore[union-attr]
    assert gemini_embedded('Sure! {"point": [130, 760], "label": "handle"}').coords == (760, 130)  # type: ignore[union-attr]
    assert gemini_embedded(GEMINI_COOKBOOK[:60]).coords == (760, 130)  # type: ignore[union-attr]
    assert gemini_embedded("I can't identify a handle in this image.") is None


# --- object-part rows: point only ---------------------------------------------------------------------------

ROW = {"width": 640, "height": 480}
PART_CASES = [
    ("molmo", MOLMO_ONE, POINT_ONLY, (51.2 * 6.4, 26.4 * 4.8)),
    ("molmo", f"Sure. {MOLMO_ONE}", LENIENT, (51.2 * 6.4, 26.4 * 4.8)),
    ("molmo", "There are none.", MALFORMED, None),
    ("robopoint", ROBOPOINT_README, POINT_ONLY, (math.trunc(0.461 * 640), math.trunc(0.527 * 480))),
    ("robopoint", "[(120, 240)]", POINT_ONLY, (120, 240)),
    ("gemini", GEMINI_COOKBOOK, POINT_ONLY, (760 * 0.64, 130 * 0.48)),
    ("gemini", '{"point": [130, 760], "label": "handle"}', LENIENT, (760 * 0.64, 130 * 0.48)),
    ("gemini", "I can't identify a handle in this image.", MALFORMED, None),
]


@pytest.mark.parametrize(("spec", "response", "status", "point"), PART_CASES)
def test_an_object_part_row_reads_a_point_only_answer(
    spec: str, response: str, status: str, point: tuple[float, float] | None
) -> None:
    answer = part_answer(parse_format(spec), response, ROW, (640, 480), strict_only=False)
    assert answer.status == status
    assert answer.part is None and answer.action == "none"
    assert answer.point == (None if point is None else pytest.approx(point))
    if status == LENIENT:  # --strict: only the family's own syntax, as its scorer reads it
        assert part_answer(parse_format(spec), response, ROW, (640, 480), strict_only=True).status == MALFORMED


def test_a_groundbench_object_under_a_pointing_format_keeps_its_part_and_action() -> None:
    response = json.dumps({"part": "handle", "action": "grasp", "point": [50, 50]})
    answer = part_answer(parse_format("molmo"), response, ROW, (640, 480), strict_only=False)
    assert (answer.status, answer.part, answer.action, answer.point) == (STRICT, "handle", "grasp", (320, 240))


def test_robopoint_keeps_every_point_and_box_in_row_pixels() -> None:
    answer = part_answer(
        parse_format("robopoint"), "[(0.5, 0.5), (100, 50), (0.1, 0.2, 0.3, 0.4)]", ROW, (640, 480), False
    )
    assert answer.shapes == ((320, 240), (100, 50), (64, 96, 192, 192))
    assert answer.point == (320, 240)


# --- GUI rows: the first point is clicked -------------------------------------------------------------------


@pytest.fixture(scope="module")
def gui_rows(tmp_path_factory: pytest.TempPathFactory, published_sample: Path) -> tuple[Path, list[Row]]:
    folder = frame_folder(
        tmp_path_factory.mktemp("frames"), [(1920, 1080), (2560, 1440), (1080, 2400)], published_sample
    )
    return folder, sorted(read_config(folder, CONFIG), key=lambda r: r["example_id"])


def _gui_answers(row: Row, hit: bool) -> dict[str, str]:
    """Each family's answer, its first point at the target's centre (or a far corner) and a second one elsewhere."""
    x0, y0, x1, y1 = target_box(row)
    w, h = row["width"], row["height"]
    cx, cy = ((x0 + x1) / 2, (y0 + y1) / 2) if hit else ((w - 2, h - 2) if x0 < w / 2 else (1, 1))
    other = (w - 1 - cx, h - 1 - cy)
    return {
        "molmo": '<points x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" alt="t">t</points>'.format(  # noqa: UP032
            cx * 100 / w, cy * 100 / h, other[0] * 100 / w, other[1] * 100 / h
        ),
        "robopoint": f"[({cx / w:.4f}, {cy / h:.4f}), ({other[0] / w:.4f}, {other[1] / h:.4f})]",
        "gemini": json.dumps(
            [{"point": [round(cy * 1000 / h), round(cx * 1000 / w)]}, {"point": [round(other[1] * 1000 / h), 0]}]
        ),
    }


@pytest.mark.parametrize("spec", ["molmo", "robopoint", "gemini"])
def test_gui_rows_click_the_first_point(spec: str, gui_rows: tuple[Path, list[Row]]) -> None:
    folder, rows = gui_rows
    lines = []
    for index, row in enumerate(rows):
        response = _gui_answers(row, hit=index % 2 == 0)[spec]
        lines.append({"model": "m", "example_id": row["example_id"], "condition": "gui", "response": response})
        answer = gui_answer(parse_format(spec), response, row, (row["width"], row["height"]), False)
        assert answer.status == STRICT and len(answer.shapes) == 2
    report = score(lines, folder=folder, resamples=5, answer_format=spec)
    success = next(m for m in report.metrics if m["metric"] == "gui_success" and m.get("detail") is None)
    assert (success["count"], success["n"]) == (sum(i % 2 == 0 for i in range(len(rows))), len(rows))


# --- object-part rows: what a pointing family can and cannot reach ------------------------------------------


def _region(row: Row) -> np.ndarray:
    """The target's mask as a whole image, decoded here from the row (Where2Place scores against a mask image)."""
    part = next(p for p in row["parts"] if p["part_id"] == row["target_part_id"])
    region = np.zeros((row["height"], row["width"]), dtype=bool)
    x0, y0, x1, y1 = (int(v) for v in part["visible_bbox_xyxy"])
    region[y0:y1, x0:x1] = mask_rle.decode(part["mask_rle"], part["visible_bbox_xyxy"])
    return region


def where2place(row: Row, answer: str) -> float:
    """RoboPoint's summarize_vqa.py, restated for one answer: text2pts (fractions -> int(x * W)), boxes as their
    pixels, then the mask's mean over every point (outside the image: 0)."""
    import re

    mask = _region(row)
    points: list[tuple[int, int]] = []
    for match in re.findall(r"\(([-+]?\d+\.?\d*(?:,\s*[-+]?\d+\.?\d*)*?)\)", answer):
        vector = [float(n) if "." in n else int(n) for n in match.split(",")]
        if len(vector) == 2:
            x, y = vector
            if isinstance(x, float) or isinstance(y, float):
                x, y = int(x * row["width"]), int(y * row["height"])
            points.append((int(x), int(y)))
        elif len(vector) == 4:
            bx0, by0, bx1, by1 = vector
            if isinstance(bx0, float):
                bx0, by0 = int(bx0 * row["width"]), int(by0 * row["height"])
                bx1, by1 = int(bx1 * row["width"]), int(by1 * row["height"])
            box = np.zeros_like(mask)
            box[int(by0) : int(by1), int(bx0) : int(bx1)] = True
            ys, xs = np.where(box)
            points += list(zip(xs.tolist(), ys.tolist(), strict=True))
    if not points:
        return 0.0
    return float(np.mean([mask[y, x] if 0 <= x < mask.shape[1] and 0 <= y < mask.shape[0] else 0.0 for x, y in points]))


def robopoint_answers(row: Row) -> list[str]:
    """Several points on the target's own pixels and beside it, a box over it, a far point, and a refusal."""
    mask = _region(row)
    ys, xs = np.where(mask)
    inside = [(int(xs[i]), int(ys[i])) for i in (0, len(xs) // 2, len(xs) - 1)]
    w, h = row["width"], row["height"]

    def frac(x: float, y: float) -> str:
        return f"({(x + 0.5) / w:.4f}, {(y + 0.5) / h:.4f})"

    target = next(p for p in row["parts"] if p["part_id"] == row["target_part_id"])
    x0, y0, x1, y1 = (int(v) for v in target["visible_bbox_xyxy"])
    return [
        "[" + ", ".join(frac(*p) for p in inside) + "]",
        "[" + ", ".join([frac(*inside[1]), "(0.0100, 0.0100)", f"({w - 1}, {h - 1})", "(1.5, 0.5)"]) + "]",
        f"[{frac(*inside[0])}, ({x0 / w:.4f}, {y0 / h:.4f}, {x1 / w:.4f}, {y1 / h:.4f})]",
        "[(0.0100, 0.0100)]",
        "I'm sorry, I can't find a part to act on.",
    ]


def test_point_only_rows_score_localization_and_name_nothing(published_sample: Path) -> None:
    rows = [r for r in read_config(published_sample, "curated_umd") if "part_named" in (r.get("conditions") or [])]
    assert rows
    lines, expected = [], []
    for index, row in enumerate(rows):
        answer = robopoint_answers(row)[index % 5]
        lines.append({"model": "m", "example_id": row["example_id"], "condition": "part_named", "response": answer})
        expected.append(where2place(row, answer))
    report = score(lines, folder=published_sample, resamples=20, answer_format="robopoint")
    by_name = {m["metric"]: m for m in report.metrics if m["condition"] == "part_named"}
    point_only = sum(index % 5 != 4 for index in range(len(rows)))
    assert by_name["point_only_rate"]["count"] == point_only
    assert by_name["malformed_rate"]["count"] == len(rows) - point_only
    assert by_name["strict_parse_rate"]["count"] == 0
    # no part and no action named: the action figures fail, the exact-part-named one has no rows
    assert by_name["action_accuracy"]["count"] == 0
    assert by_name["action_accuracy_given_exact_part_named"]["n"] == 0
    # the headline reads the first point: inside the target's mask where the first point was put on it
    first_inside = [index % 5 in (0, 1, 2) for index in range(len(rows))]
    assert by_name["localization_in_target_region"]["count"] == sum(first_inside)
    mean = by_name["point_in_mask_mean_of_points"]
    assert mean["value"] == pytest.approx(sum(expected) / len(expected))
    assert mean["n"] == len(rows) and "Where2Place" in mean["note"]
    assert 0 < mean["value"] < by_name["localization_in_target_region"]["value"]  # the far points count against it


def test_the_mean_of_points_is_reported_only_for_several_point_answers(published_sample: Path) -> None:
    row = next(r for r in read_config(published_sample, "curated_umd") if "part_named" in (r.get("conditions") or []))
    line = {"model": "m", "example_id": row["example_id"], "condition": "part_named"}
    part = next(p for p in row["parts"] if p["part_id"] == row["target_part_id"])
    own = json.dumps({"part": row["target_part_id"], "action": row["target_action"], "point": part["point_xy"]})
    report = score([{**line, "response": own}], folder=published_sample, resamples=5, subset=True)
    assert not [m for m in report.metrics if m["metric"] == "point_in_mask_mean_of_points"]
    assert next(m for m in report.metrics if m["metric"] == "point_only_rate")["count"] == 0


def test_a_point_on_the_target_selects_it_by_geometry(published_sample: Path) -> None:
    """Part selection by geometry is open to a point-only answer where the prompt did not supply the region:
    Gemini's point at the target's own pixel selects the target; its action figures still fail."""
    rows = [r for r in read_config(published_sample, "curated_umd") if "part_named" in (r.get("conditions") or [])]
    lines = []
    for row in rows:
        x, y = next(p for p in row["parts"] if p["part_id"] == row["target_part_id"])["point_xy"]
        point = [(y + 0.5) * 1000 / row["height"], (x + 0.5) * 1000 / row["width"]]  # [y, x] on 0-1000
        response = json.dumps([{"point": point, "label": "the part"}])
        lines.append({"model": "m", "example_id": row["example_id"], "condition": "part_named", "response": response})
    report = score(lines, folder=published_sample, resamples=5, answer_format="gemini")
    by_name = {m["metric"]: m for m in report.metrics if m["condition"] == "part_named"}
    assert by_name["point_only_rate"]["count"] == len(rows)
    assert by_name["exact_target_rate"]["count"] == len(rows)
    assert by_name["localization_in_target_region"]["count"] == len(rows)
    assert by_name["action_accuracy"]["count"] == by_name["action_accuracy_gated"]["count"] == 0
    swapped = [{**line, "response": line["response"].replace('"point": [', '"point_yx": [')} for line in lines]
    assert all(
        m["count"] == 0 for m in score(swapped, folder=published_sample, resamples=5, answer_format="gemini").metrics
        if m["metric"] == "point_only_rate"
    )  # fmt: skip


def test_the_pointing_profiles_state_the_supplied_region_in_their_own_frame() -> None:
    from groundbench.scoring.profiles import parse_profile

    part = {"part_id": "p1", "category": "handle", "point_xy": [320, 240], "bbox_xyxy": [64, 48, 192, 96]}
    row = {"width": 640, "height": 480, "object_category": "mug", "target_part_id": "p1", "parts": [part]}
    _, gemini = parse_profile("gemini").prompt(row, "localization_only")
    assert "at point [500, 500], inside the box [100, 100, 200, 300]" in gemini  # [y, x], [ymin, xmin, ymax, xmax]
    assert gemini.endswith("Points in this prompt are [y, x] and boxes [ymin, xmin, ymax, xmax], normalized to 0-1000.")
    _, molmo = parse_profile("molmo").prompt(row, "localization_only")
    assert "at point [50, 50], inside the box [10, 10, 30, 20]" in molmo and "Point to the part." in molmo
    _, robopoint = parse_profile("robopoint").prompt(row, "localization_only")
    assert "at point [0.5000, 0.5000], inside the box [0.1000, 0.1000, 0.3000, 0.2000]" in robopoint
    assert "formatted as a list of tuples" in robopoint and '"part"' not in robopoint  # no GroundBench JSON block
    own = parse_profile("groundbench").template_hash("part_named")
    assert all(parse_profile(name).template_hash("part_named") != own for name in ("molmo", "robopoint", "gemini"))
