"""OSWorld-G's official rule (GroundingEval._eval, restated in scoring/osworld_g.py) on hand-made cases: box
edges included, polygons half-open, the four-value polygon, the relative [0, 1] reading, the centre of a box
answer, refusal rows; then the official breakdown's denominators and its baselines."""

from __future__ import annotations

from typing import Any

import pytest

from groundbench.loaders.prompts import build_prompt
from groundbench.scoring import osworld_g
from groundbench.scoring.baselines import condition_baselines
from groundbench.scoring.formats import parse_format
from groundbench.scoring.formats.read import gui_answer
from groundbench.scoring.gui import gui_metrics, headline_success
from groundbench.scoring.gui_rules import centre_click_hit, judge
from groundbench.scoring.layouts import LAYOUTS, layout_tables
from groundbench.scoring.metrics import Scored, _entry, gui_success
from groundbench.scoring.parse import FIELDS, MISSING, REFUSED, STRICT, Answer, parse_response


def row(
    kind: str, region: list[float], capabilities: list[str] | None = None, rid: str = "r", size=(1000, 800)
) -> dict:
    """A gui_osworld_g row as the converter writes the fields the rule reads."""
    gui: dict[str, Any] = {"eval_type": "grounding_eval", "region_kind": kind, "eval_bbox": [], "eval_polygon": []}
    if kind == "box":
        x, y, w, h = region
        gui["eval_bbox"] = [x, y, x + w, y + h]
    elif kind == "polygon":
        gui["eval_polygon"] = region
    gui["capabilities"] = capabilities or []
    return {
        "example_id": f"gui_osworld_g/{rid}",
        "object_id": f"{rid}.png",
        "width": size[0],
        "height": size[1],
        "parts": [],
        "target_part_id": None,
        "answer_type": "point",
        "instruction": "Click it",
        "success_rule": {"kind": {"box": "point_in_box", "polygon": "point_in_polygon", "none": "refusal"}[kind]},
        "extras": {"gui": gui},
    }


def point(x: float, y: float) -> dict:
    return {"point": [x, y]}


BOX = row("box", [100.0, 200.0, 50.0, 20.0])  # x 100..150, y 200..220
SQUARE = row("polygon", [100.0, 100.0, 200.0, 100.0, 200.0, 200.0, 100.0, 200.0])
TRIANGLE = row("polygon", [0.0, 0.0, 100.0, 0.0, 0.0, 100.0])
TWO_VERTICES = row("polygon", [100.0, 100.0, 200.0, 200.0])
REFUSAL = row("none", [])


@pytest.mark.parametrize(
    ("answer", "hit"),
    [
        (point(100, 200), True),  # top-left corner: edges included
        (point(150, 220), True),  # bottom-right corner too
        (point(150.0001, 210), False),
        (point(125, 199.999), False),
        ({"bbox": [120, 205, 130, 215]}, True),  # a box answer: its centre (125, 210)
        ({"bbox": [0, 0, 250, 420]}, True),  # centre (125, 210) although the box is huge
    ],
)
def test_bbox_rows_include_their_edges(answer: dict, hit: bool) -> None:
    assert judge(answer, BOX).success is hit


@pytest.mark.parametrize(
    ("xy", "hit"),
    [
        ((150, 150), True),
        ((100, 150), True),  # left edge: in
        ((150, 100), True),  # top edge: in
        ((100, 100), True),  # top-left corner: in
        ((200, 150), False),  # right edge: out (half-open)
        ((150, 200), False),  # bottom edge: out
        ((200, 200), False),
        ((99.9, 150), False),
    ],
)
def test_polygons_are_half_open_ray_casting(xy: tuple[float, float], hit: bool) -> None:
    assert judge(point(*xy), SQUARE).success is hit


def test_polygon_that_is_not_a_box() -> None:
    assert judge(point(10, 10), TRIANGLE).success
    assert not judge(point(60, 60), TRIANGLE).success  # past the hypotenuse x + y = 100
    assert judge(point(49, 50), TRIANGLE).success


@pytest.mark.parametrize("xy", [(150, 150), (100, 100), (101, 101), (199, 199)])
def test_a_four_value_polygon_contains_nothing_as_the_release_scores_it(xy: tuple[float, float]) -> None:
    assert not judge(point(*xy), TWO_VERTICES).success
    assert not osworld_g.in_polygon(xy, [100.0, 100.0, 200.0, 200.0])


def test_values_all_in_0_1_are_fractions_of_the_image() -> None:
    # (0.125, 0.2625) of 1000 x 800 is (125, 210): inside the box
    assert judge(point(0.125, 0.2625), BOX).success
    assert osworld_g.click([1, 1, 1, 1], (1000, 800)) == (1000.0, 800.0)  # a pixel click at (1, 1) moves
    assert osworld_g.click([0.5, 0.5, 2, 2], (1000, 800)) == (1.25, 1.25)  # not all in [0, 1]: pixels
    assert osworld_g.click([10, 20, 30, 60], (1000, 800)) == (20.0, 40.0)


@pytest.mark.parametrize(
    ("answer", "hit"),
    [
        (point(-1, -1), True),
        ({"bbox": [-1, -1, -1, -1]}, True),
        (point(-1, 5), False),  # both coordinates must be below 0
        (point(0, 0), False),
        (point(500, 400), False),
        (None, False),
    ],
)
def test_refusal_rows_credit_only_a_refusal(answer: dict | None, hit: bool) -> None:
    assert judge(answer, REFUSAL).success is hit


def test_a_refusal_on_a_target_row_fails() -> None:
    for target in (BOX, SQUARE, TRIANGLE):
        assert not judge(point(-1, -1), target).success


def test_centre_click_baseline() -> None:
    centred = row("box", [400.0, 300.0, 200.0, 200.0])
    assert centre_click_hit(centred) and not centre_click_hit(BOX) and not centre_click_hit(REFUSAL)


def test_unreadable_answers_are_unanswered() -> None:
    verdict = judge({"point": "top left"}, BOX)
    assert not verdict.success and not verdict.answered


def _scored(rows: list[dict], answers: list[dict | None], model: str = "m") -> list[Scored]:
    return [
        Scored(model, "gui_osworld_g", "gui", r, Answer(status=FIELDS if a else MISSING, record=a))
        for r, a in zip(rows, answers, strict=True)
    ]


def test_breakdown_denominators_are_the_official_ones() -> None:
    rows = [
        row("box", [0, 0, 10, 10], ["text_matching"], "a"),
        row("box", [0, 0, 10, 10], ["text_matching", "layout_understanding"], "b"),
        row("polygon", [0, 0, 10, 0, 10, 10, 0, 10], ["fine_grained_manipulation"], "c"),
        row("polygon", [0, 0, 10, 10], [], "d"),  # in no group
        row("none", [], ["refusal"], "e"),
        row("none", [], ["refusal"], "f"),
    ]
    answers = [point(5, 5), point(50, 50), point(5, 5), point(5, 5), point(-1, -1), point(5, 5)]
    (table,) = layout_tables(LAYOUTS["osworld-g"], _scored(rows, answers), resamples=50)
    model = {r.label: r.cells for r in table.models["m"]}
    assert list(model) == ["All", "box_type bbox", "box_type polygon", "box_type refusal", "in no group"]
    everything = model["All"]  # the published row: the five capabilities, then Overall
    assert list(everything) == [*LAYOUTS["osworld-g"].columns]
    assert (everything["Overall"].k, everything["Overall"].n) == (3, 6)
    assert (everything["Text Matching"].k, everything["Text Matching"].n) == (1, 2)
    assert (everything["Layout Understanding"].k, everything["Layout Understanding"].n) == (0, 1)
    assert (everything["Element Recognition"].k, everything["Element Recognition"].n) == (0, 0)
    assert everything["Element Recognition"].value is None
    assert (everything["Fine-grained Manipulation"].k, everything["Fine-grained Manipulation"].n) == (1, 1)
    assert (everything["Refusal"].k, everything["Refusal"].n) == (1, 2) and everything["Refusal"].value == 50.0
    assert (model["in no group"]["Overall"].k, model["in no group"]["Overall"].n) == (0, 1)  # the two-vertex polygon
    assert (model["box_type bbox"]["Overall"].n, model["box_type polygon"]["Overall"].n) == (2, 2)
    assert set(model["box_type refusal"]) == {"Refusal", "Overall"}  # only the groups with such rows
    assert (model["box_type refusal"]["Overall"].k, model["box_type refusal"]["Overall"].n) == (1, 2)
    centre = {r.label: r.cells for r in table.baseline}  # the centre click never refuses: 0 on the refusal rows
    assert (centre["box_type refusal"]["Overall"].k, centre["All"]["Refusal"].k) == (0, 0)


def test_a_declared_formats_refusal_is_credited_on_refusal_rows_only() -> None:
    """UI-Venus-2's [-1, -1] and InfiGUI-G1's [] parse to the status refused (no point to read): the official rule's
    refusal on a row without a target, a miss on a row with one; the same in the layout, score and compare."""
    refused = Answer(status=REFUSED)
    assert headline_success(refused, REFUSAL) and gui_success(refused, REFUSAL)
    for target in (BOX, SQUARE, TRIANGLE):
        assert not headline_success(refused, target)
    seen = (REFUSAL["width"], REFUSAL["height"])
    for spec, response in (("ui-venus-2", "[-1,-1]"), ("infigui-g1", "[]")):
        answer = gui_answer(parse_format(spec), response, REFUSAL, seen, strict_only=True)
        assert answer.status == REFUSED and headline_success(answer, REFUSAL)
        assert not headline_success(gui_answer(parse_format(spec), response, BOX, seen, strict_only=True), BOX)
    # In the default format [-1, -1] is a point, which the official rule reads as a refusal.
    plain = parse_response('{"point": [-1, -1]}')
    assert plain.status == STRICT and headline_success(plain, REFUSAL) and not headline_success(plain, BOX)
    rows = [REFUSAL, BOX]
    items = [Scored("m", "gui_osworld_g", "gui", r, refused) for r in rows]
    (table,) = layout_tables(LAYOUTS["osworld-g"], items, resamples=20)
    (everything, *_) = table.models["m"]
    assert (everything.cells["Overall"].k, everything.cells["Overall"].n) == (1, 2)
    metrics = gui_metrics({"config": "gui_osworld_g"}, rows, [refused, refused], _entry, seed=0, resamples=20)
    by = {(m["metric"], m.get("detail")): m for m in metrics}
    assert by[("gui_success", None)]["count"] == 1 and by[("gui_unanswered_rate", None)]["count"] == 1
    assert by[("gui_success_by_region_kind", "none")]["count"] == 1


def test_prompts_offer_the_refusal_on_every_osworld_g_row_alike() -> None:
    target, refusal = build_prompt(BOX, "gui"), build_prompt(REFUSAL, "gui")
    assert '{"point": [-1, -1]}' in target and target == refusal  # the prompt gives nothing away
    other = {**BOX, "extras": {"gui": {**BOX["extras"]["gui"], "eval_type": "point_in_bbox"}}}
    assert "[-1, -1]" not in build_prompt(other, "gui")


def test_the_sanity_oracle_solves_every_row_but_a_two_vertex_polygon() -> None:
    for target in (BOX, SQUARE, TRIANGLE, REFUSAL):
        solving = osworld_g.solving_point(target)
        assert solving is not None and judge(point(*solving), target).success
    assert osworld_g.solving_point(TWO_VERTICES) is None


def test_score_reports_the_always_refuse_baseline_beside_the_centre_click() -> None:
    rows = [BOX, REFUSAL, {**REFUSAL, "example_id": "gui_osworld_g/r2"}]
    answers = [Answer(status=FIELDS, record=point(125, 210))] * 3
    metrics = gui_metrics({"config": "gui_osworld_g"}, rows, answers, _entry, seed=0, resamples=20)
    refuse = {m["detail"]: (m["count"], m["n"]) for m in metrics if m["metric"] == "gui_baseline_always_refuse"}
    assert refuse == {"every row": (2, 3), "refusal rows": (2, 2)}
    by_kind = {m["detail"]: m for m in metrics if m["metric"] == "gui_success_by_region_kind"}
    assert by_kind["none"]["baseline_center_click"] == 0.0 and by_kind["none"]["value"] == 0.0


def test_the_baselines_config_carries_refusing_and_never_refusing_beside_the_centre_click() -> None:
    centred = row("box", [450.0, 350.0, 100.0, 100.0], rid="c")  # the frame's centre (500, 400) is inside
    rows = [BOX, centred, REFUSAL, {**REFUSAL, "example_id": "gui_osworld_g/r2"}]
    got = {b["baseline"]: (b["value"], b["n"]) for b in condition_baselines("gui_osworld_g", "suite", "gui", rows)}
    assert got == {
        "center_click": (0.25, 4),  # one hit of four: the refusal rows count as misses
        "center_click_target_rows": (0.5, 2),
        "always_refuse": (0.5, 4),
        "always_refuse_refusal_rows": (1.0, 2),
        "never_refuse_refusal_rows": (0.0, 2),
    }
    plain = condition_baselines("gui_osworld_g", "suite", "gui", [BOX, centred])
    assert [b["baseline"] for b in plain] == ["center_click"]  # no refusal rows: nothing to refuse


def test_the_layout_prints_osworld_g_and_its_refined_instructions_as_two_tables() -> None:
    rows = [BOX, REFUSAL]
    original = _scored(rows, [point(125, 210), point(-1, -1)])  # both right
    refined = [
        Scored("m", "gui_osworld_g_refined", "gui", r, Answer(status=FIELDS, record=a))
        for r, a in zip(rows, [point(0, 0), point(-1, -1)], strict=True)  # the box row missed
    ]
    tables = layout_tables(LAYOUTS["osworld-g"], original + refined, resamples=20)
    assert [t.configs for t in tables] == [("gui_osworld_g",), ("gui_osworld_g_refined",)]
    overall = [t.models["m"][0].cells["Overall"].value for t in tables]
    assert overall == [100.0, 50.0]  # percent, as the paper prints it
