"""Declared answer formats on answers in each family's real syntax, scored through ``groundbench score``.

The rows are GUI targets restated in the frame sizes the sources have (``tests/support/frames.py``: 1920x1080 to
6016x3384, portrait phones too). Each format answers every row in kinds written from the family's
documentation (model card, official repository or the ScreenSpot-Pro adapter the format cites), plus the
malformed variants public evaluation logs show. The expected hits are computed here the way the official
adapters compare: the answer normalised by its frame against the target box normalised by the image
(``x / frame_width`` between ``x0 / W`` and ``x1 / W``), never by our scorer's mapping.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from groundbench.errors import GroundBenchError
from groundbench.scoring import score
from groundbench.scoring.formats import listing, names, parse_format
from groundbench.scoring.formats.resize import smart_resize
from tests.conftest import run_cli
from tests.support.frames import CONFIG, frame_folder, target_box

SIZES = [
    (6016, 3384), (5120, 2880), (3840, 2160), (2560, 1440), (1920, 1080), (3840, 1080),
    (5120, 1440), (2880, 1800), (3456, 2160), (2560, 1600), (1080, 2400), (1170, 2532),
]  # fmt: skip
ROWS = 2 * len(SIZES)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory, published_sample: Path) -> Path:
    sizes = [SIZES[i % len(SIZES)] for i in range(ROWS)]
    return frame_folder(tmp_path_factory.mktemp("frames"), sizes, published_sample)


@pytest.fixture(scope="module")
def rows(folder: Path) -> list[dict[str, Any]]:
    from groundbench.loaders.records import read_config

    return sorted(read_config(folder, CONFIG), key=lambda r: r["example_id"])


# --- the frames --------------------------------------------------------------------------------------

# transformers' Qwen2VLImageProcessor smart_resize (factor 28, min_pixels 3136, max_pixels 12845056), worked
# out by hand from the processor source: (width, height) -> (width, height) the model sees.
PINNED = {
    (1920, 1080): (1932, 1092),
    (2560, 1440): (2548, 1428),
    (3840, 2160): (3836, 2156),
    (5120, 2880): (4760, 2688),  # max_pixels regime: beta = sqrt(5120*2880 / 12845056)
    (6016, 3384): (4760, 2688),
    (3840, 1080): (3836, 1092),
    (5120, 1440): (5124, 1428),
    (2880, 1800): (2884, 1792),
    (3456, 2160): (3444, 2156),
    (2560, 1600): (2548, 1596),
    (1080, 2400): (1092, 2408),
    (1170, 2532): (1176, 2520),
    (960, 540): (952, 532),
    (1024, 768): (1036, 756),
    (3456, 2234): (3444, 2240),  # ScreenSpot-Pro's other frames: 123.43 -> 123, 79.79 -> 80
    (2160, 1440): (2156, 1428),
    (2560, 1664): (2548, 1652),
    (2992, 1870): (2996, 1876),
    # ScreenSpot-v2 frames with a side at an odd multiple of 14: Python's round goes to the even multiple of 28
    (1246, 758): (1232, 756),  # 1246 / 28 = 44.5 -> 44 (rounding half up would give 1260)
    (1462, 686): (1456, 672),  # 686 / 28 = 24.5 -> 24 (half up: 700)
    (1710, 1554): (1708, 1568),  # 1554 / 28 = 55.5 -> 56, even either way
    (40, 30): (84, 56),  # min_pixels regime: 28*28 < 3136; beta = sqrt(3136 / 1200): ceil(64.7 / 28), ceil(48.5 / 28)
}


@pytest.mark.parametrize(("size", "seen"), sorted(PINNED.items()))
def test_smart_resize_equals_the_processor(size: tuple[int, int], seen: tuple[int, int]) -> None:
    height, width = smart_resize(size[1], size[0])
    assert (width, height) == seen
    assert width % 28 == 0 and height % 28 == 0


def test_smart_resize_parameters_move_the_frame() -> None:
    # ScreenSpot-Pro's adapter passes max_pixels=99999999: no shrinking, only the rounding to 28.
    assert parse_format("qwen2.5-vl:max_pixels=99999999").frame((6016, 3384)) == (6020, 3388)
    # min_pixels 200704 (256*28*28) grows a 320x240 frame: sqrt(200704 / 76800) = 1.6166 -> 532 x 392.
    assert parse_format("qwen2.5-vl:min_pixels=200704").frame((320, 240)) == (532, 392)
    # ... and ScreenSpot-v2's 362x313 (364x308 is below it): beta = sqrt(200704 / 113306) = 1.33092, so
    # 362 * beta / 28 = 17.21 -> 18 and 313 * beta / 28 = 14.88 -> 15: 504 x 420.
    assert parse_format("qwen2.5-vl:min_pixels=200704").frame((362, 313)) == (504, 420)
    assert parse_format("ui-tars").frame((320, 240)) == (336, 252)  # its parser's min_pixels 100*28*28
    assert parse_format("ui-tars:version=1.0").frame((6016, 3384)) == (1000, 1000)


def screenspot_v2_frames() -> list[tuple[int, int]]:
    """Every frame size of the real ScreenSpot-v2 records in tests/fixtures (94 of them, phones to 2880x1800)."""
    folder = Path(__file__).resolve().parents[1] / "fixtures" / "gui" / "gui-actor"
    records = [r for path in folder.glob("*.json") for r in json.loads(path.read_text(encoding="utf-8"))]
    return sorted({(int(r["img_size"][0]), int(r["img_size"][1])) for r in records})


def test_smart_resize_rounds_every_real_frame_half_to_even() -> None:
    """Below max_pixels each side goes to the nearest multiple of 28 and a tie to the even multiple (Python's
    round on side / 28), worked out here in integers: 1246 = 44 * 28 + 14 stays at 44 * 28, 1050 = 37 * 28 + 14
    goes up to 38 * 28."""
    frames = screenspot_v2_frames()
    assert len(frames) > 90 and (1246, 758) in frames and (1462, 686) in frames
    ties = 0
    for width, height in [*frames, *PINNED]:
        seen = smart_resize(height, width)
        if (width, height) in ((5120, 2880), (6016, 3384), (40, 30)):
            continue  # the max_pixels and min_pixels regimes: pinned above
        for side, got in zip((height, width), seen, strict=True):
            whole, rest = divmod(side, 28)
            ties += rest == 14
            assert got == 28 * (whole + (rest > 14 or (rest == 14 and whole % 2 == 1))), (width, height)
    assert ties >= 5


@pytest.mark.parametrize("size", sorted(PINNED))
def test_a_point_mapped_back_lands_within_half_a_pixel(size: tuple[int, int]) -> None:
    fmt = parse_format("qwen2.5-vl")
    fw, fh = fmt.frame(size)
    for x, y in [(0, 0), (size[0] / 3, size[1] / 7), (size[0] - 1, size[1] - 1), (size[0] / 2, size[1] / 2)]:
        seen = (x * fw / size[0], y * fh / size[1])  # the point as the model sees it, unrounded
        back = fmt.to_row(seen, size, size)
        assert abs(back[0] - x) < 0.5 and abs(back[1] - y) < 0.5
        whole = (round(seen[0]), round(seen[1]))  # what a model prints: the nearest whole pixel of its frame
        back = fmt.to_row(whole, size, size)
        assert abs(back[0] - whole[0] * size[0] / fw) < 1e-9 and abs(back[1] - whole[1] * size[1] / fh) < 1e-9


def test_integer_answers_on_a_box_edge_score_as_the_normalised_comparison() -> None:
    """Multiplying before dividing: an answer exactly on an edge stays on it (the adapters compare x / fw
    with x0 / W, equal in exact arithmetic)."""
    fmt = parse_format("qwen2.5-vl")
    for size in PINNED:
        fw, fh = fmt.frame(size)
        for x in range(0, int(fw), 7):
            px = fmt.to_row((x, 0), size, size)[0]
            for edge in (math.floor(x * size[0] / fw), math.ceil(x * size[0] / fw)):
                assert (px <= edge) == (x * size[0] <= edge * fw) and (px >= edge) == (x * size[0] >= edge * fw)


# --- spec syntax -------------------------------------------------------------------------------------


def test_every_documented_name_exists_and_lists_its_source() -> None:
    assert names() == [
        "groundbench", "pixels", "norm1", "norm1000", "qwen2.5-vl", "qwen3-vl", "qwen2-vl", "os-atlas",
        "ui-tars", "uground", "aguvis", "showui", "seeclick", "molmo", "robopoint", "gemini", "claude-computer-use",
        "openai-computer-use", "glm-v", "internvl", "cogagent", "minicpm-v", "kimi-vl", "agentcpm-gui", "ui-venus",
        "ui-venus-2", "gta1", "holo1.5", "infigui-g1",
    ]  # fmt: skip
    assert all(entry["source"] and entry["frame"] and entry["syntax"] for entry in listing())


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("qwen2.5-vl", "qwen2.5-vl"),
        ("qwen2.5-vl:min_pixels=200704", "qwen2.5-vl:min_pixels=200704"),
        ("qwen2.5-vl:max_pixels=12845056", "qwen2.5-vl"),  # the default spelt out is the default
        ("qwen2.5-vl: max_pixels=99999999 , min_pixels=784", "qwen2.5-vl:max_pixels=99999999,min_pixels=784"),
        ("ui-tars:version=1.0", "ui-tars:version=1.0"),
    ],
)
def test_specs_have_one_canonical_spelling(spec: str, expected: str) -> None:
    assert parse_format(spec).spec == expected


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        (
            "qwen25vl",
            "unknown answer format 'qwen25vl'; did you mean 'qwen2.5-vl'? (answer formats: groundbench, pixels,",
        ),
        ("qwen2.5-vl:max_pixel=5", "qwen2.5-vl has no parameter 'max_pixel=5' (its parameters: min_pixels,"),
        ("qwen2.5-vl:max_pixels=lots", "max_pixels must be a positive integer, found 'lots'"),
        ("ui-tars:version=2", "version must be one of 1.5, 1.0, found '2'"),
        ("uground:factor=28", "uground has no parameter 'factor=28' (its parameters: none;"),
    ],
)
def test_a_bad_spec_is_one_error_naming_the_valid_choices(spec: str, says: str) -> None:
    with pytest.raises(GroundBenchError) as caught:
        parse_format(spec)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_score_refuses_an_unknown_format_in_one_line(folder: Path, tmp_path: Path, capsys: Any) -> None:
    lines = tmp_path / "p.jsonl"
    lines.write_text(
        json.dumps({"model": "m", "example_id": f"{CONFIG}/frame_000", "condition": "gui", "response": "[1, 2]"}) + "\n"
    )
    assert run_cli(folder, "score", str(lines), "--data", str(folder), "--answer-format", "qwen") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "qwen2.5-vl" in err[0]


# --- answers in each family's syntax -------------------------------------------------------------------

Row = dict[str, Any]
# A kind: (its name, the response for a row, its expected status: strict / lenient / malformed).
Kind = tuple[str, Callable[[Row], str], str]


def centre(row: Row) -> tuple[float, float]:
    x0, y0, x1, y1 = target_box(row)
    return (x0 + x1) / 2, (y0 + y1) / 2


def in_frame(row: Row, fw: float, fh: float) -> tuple[int, int]:
    """The target's centre as a model answering on an ``fw`` x ``fh`` frame prints it (whole numbers)."""
    x, y = centre(row)
    return round(x * fw / row["width"]), round(y * fh / row["height"])


def qwen_frame(row: Row, **params: int) -> tuple[int, int]:
    h, w = smart_resize(row["height"], row["width"], **params)
    return in_frame(row, w, h)


def tool_call(x: float, y: float, name: str = "computer_use") -> str:
    arguments = {"action": "left_click", "coordinate": [x, y]}
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"


def grid(row: Row) -> tuple[int, int]:
    return in_frame(row, 1000, 1000)


def frac(row: Row) -> tuple[float, float]:
    x, y = centre(row)
    return round(x / row["width"], 4), round(y / row["height"], 4)


def box_1000(row: Row) -> str:
    x0, y0, x1, y1 = target_box(row)
    w, h = row["width"], row["height"]
    left, top = math.ceil(x0 * 1000 / w), math.ceil(y0 * 1000 / h)
    return f"({left},{top}),({math.floor(x1 * 1000 / w)},{math.floor(y1 * 1000 / h)})"


REFUSAL: Kind = ("refusal", lambda r: "I'm sorry, but I can't help with identifying that element.", "malformed")
TRUNCATED: Kind = (
    "truncated tool call",
    lambda r: '<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [46',
    "malformed",
)
KINDS: dict[str, list[Kind]] = {
    "groundbench": [
        ("JSON point", lambda r: json.dumps({"point": list(centre(r))}), "strict"),
        ("fenced", lambda r: "```json\n" + json.dumps({"point": list(centre(r))}) + "\n```", "lenient"),
        REFUSAL,
    ],
    "pixels": [
        ("bare list", lambda r: json.dumps(list(centre(r))), "strict"),
        ("JSON x y", lambda r: json.dumps({"x": centre(r)[0], "y": centre(r)[1]}), "strict"),
        ("embedded", lambda r: f"The element is at {json.dumps({'point': list(centre(r))})}.", "lenient"),
        REFUSAL,
    ],
    "norm1": [("JSON fraction", lambda r: json.dumps({"point": list(frac(r))}), "strict"), REFUSAL],
    "norm1000": [("bare grid list", lambda r: json.dumps(list(grid(r))), "strict"), REFUSAL],
    # Qwen2.5-VL cookbook computer_use / ScreenSpot-Pro's qwen2_5vl.py: the tool call in the smart_resize frame.
    "qwen2.5-vl": [
        ("tool call", lambda r: tool_call(*qwen_frame(r)), "strict"),
        ("tool call, left_click name", lambda r: tool_call(*qwen_frame(r), name="left_click"), "strict"),
        ("bare list", lambda r: json.dumps(list(qwen_frame(r))), "strict"),
        ("bare tuple (ZonUI's adapter: ast.literal_eval)", lambda r: "({}, {})".format(*qwen_frame(r)), "strict"),
        ("point_2d", lambda r: json.dumps([{"point_2d": list(qwen_frame(r)), "label": "target"}]), "strict"),
        (
            "arguments as a list",
            lambda r: (
                "<tool_call>\n"
                + json.dumps({"name": "left_click", "arguments": list(qwen_frame(r))})
                + "\n</tool_call>"
            ),
            "lenient",
        ),
        (
            "no coordinate key",
            lambda r: '<tool_call>\n{"name": "key", "arguments": [{"text": "esc"}]}\n</tool_call>',
            "malformed",
        ),
        TRUNCATED,
        (
            "fenced bbox_2d",
            lambda r: "```json\n" + json.dumps([{"bbox_2d": [*qwen_frame(r), *qwen_frame(r)], "label": "x"}]) + "\n```",
            "lenient",
        ),
        REFUSAL,
    ],
    "qwen2.5-vl:max_pixels=99999999": [
        ("tool call", lambda r: tool_call(*qwen_frame(r, max_pixels=99999999)), "strict")
    ],
    "qwen3-vl": [
        ("tool call on 0-1000", lambda r: tool_call(*grid(r)), "strict"),
        ("point_2d on 0-1000", lambda r: json.dumps({"point_2d": list(grid(r))}), "strict"),
        TRUNCATED,
    ],
    # ScreenSpot-Pro's qwen2vl.py: the last box-token box, its centre; without tokens, bare numbers.
    "qwen2-vl": [
        (
            "box tokens",
            lambda r: (
                f"<|object_ref_start|>the target<|object_ref_end|><|box_start|>{box_1000(r)}<|box_end|><|im_end|>"
            ),
            "strict",
        ),
        ("bare numbers", lambda r: "({},{})".format(*grid(r)), "strict"),
        ("repeated special tokens", lambda r: "<|object_ref_start|>" * 40, "malformed"),
        ("tokens without a box", lambda r: "<|box_start|>the close button<|box_end|>", "malformed"),
        REFUSAL,
    ],
    # ScreenSpot-Pro's osatlas7b.py: the first box-token box, every coordinate inside (0, 1000).
    "os-atlas": [
        (
            "box tokens",
            lambda r: f"<|object_ref_start|>x<|object_ref_end|><|box_start|>{box_1000(r)}<|box_end|>",
            "strict",
        ),
        ("bare numbers (its fallback keeps only (0, 1))", lambda r: "({},{})".format(*grid(r)), "lenient"),
        ("repeated special tokens", lambda r: "<|box_start|>" * 30 + "<|box_end|>", "malformed"),
    ],
    # bytedance/UI-TARS action_parser: UI-TARS-1.5 in the smart_resize frame of its parser's limits.
    "ui-tars": [
        (
            "thought and click",
            lambda r: "Thought: The target is there.\nAction: click(start_box='({},{})')".format(
                *qwen_frame(r, min_pixels=78400)
            ),
            "strict",
        ),
        (
            "point tag",
            lambda r: "Action: click(point='<point>{} {}</point>')".format(*qwen_frame(r, min_pixels=78400)),
            "strict",
        ),
        (
            "box tokens kept",
            lambda r: "Action: click(start_box='<|box_start|>({},{})<|box_end|>')".format(
                *qwen_frame(r, min_pixels=78400)
            ),
            "lenient",
        ),
        ("no Action", lambda r: "click(start_box='(1,2)')", "lenient"),
        (
            "typed text with a quote after the click (its parser escapes it)",
            lambda r: "Action: click(start_box='({},{})')\n\ntype(content='it's done')".format(
                *qwen_frame(r, min_pixels=78400)
            ),
            "strict",
        ),
        # The parser is all-or-nothing: one action or keyword it cannot read fails the whole answer.
        (
            "a second action without numbers",
            lambda r: "Action: click(start_box='({},{})')\n\nclick(start_box='(a,b)')".format(
                *qwen_frame(r, min_pixels=78400)
            ),
            "lenient",
        ),
        (
            "a keyword that is no string",
            lambda r: "Action: click(start_box='({},{})', button=left)".format(*qwen_frame(r, min_pixels=78400)),
            "lenient",
        ),
        (
            "a stray newline before the next action",
            lambda r: "Action: click(start_box='({},{})')\n\n\nwait()".format(*qwen_frame(r, min_pixels=78400)),
            "lenient",
        ),
        REFUSAL,
    ],
    "ui-tars:version=1.0": [
        ("click on 0-1000", lambda r: "Action: click(start_box='({},{})')".format(*grid(r)), "strict")
    ],
    # UGround-V1's serve script: the whole answer is (x, y) on 0-1000.
    "uground": [
        ("(x, y)", lambda r: "({}, {})".format(*grid(r)), "strict"),
        ("with prose", lambda r: "The element is at ({}, {}).".format(*grid(r)), "lenient"),
        REFUSAL,
    ],
    "aguvis": [
        ("pyautogui.click", lambda r: "pyautogui.click(x={}, y={})".format(*frac(r)), "strict"),
        ("whole numbers", lambda r: "pyautogui.click(x=1, y=0)", "lenient"),
        REFUSAL,
    ],
    "showui": [("[x, y] in 0-1", lambda r: json.dumps(list(frac(r))), "strict"), REFUSAL],
    "seeclick": [
        ("(x,y) in 0-1", lambda r: "({},{})".format(*frac(r)), "strict"),
        ("three numbers", lambda r: "({},{}) or 3".format(*frac(r)), "lenient"),
        REFUSAL,
    ],
}


def official_hit(spec: str, row: Row, response: str) -> bool:
    """The adapter's verdict, computed its own way: its normalised click inside the normalised target box."""
    fmt = parse_format(spec)
    found = fmt.family.reader(response, "point") if fmt.family.reader else None
    if fmt.is_default:
        value = json.loads(response) if response.startswith("{") else None
        found_point = None if value is None else value["point"]
        if found_point is None:
            return False
        xn, yn = found_point[0] / row["width"], found_point[1] / row["height"]
    else:
        if found is None:
            return False
        fw, fh = fmt.frame((row["width"], row["height"]))
        x, y = found.centre
        if fmt.name == "uground":  # its script truncates the pixel, then the pixel is compared
            xn, yn = int(x / 1000 * row["width"]) / row["width"], int(y / 1000 * row["height"]) / row["height"]
        else:
            xn, yn = x / fw, y / fh
    x0, y0, x1, y1 = target_box(row)
    return x0 / row["width"] <= xn <= x1 / row["width"] and y0 / row["height"] <= yn <= y1 / row["height"]


def metric(report: Any, name: str) -> dict[str, Any]:
    return next(m for m in report.metrics if m["metric"] == name and m.get("detail") is None)


@pytest.mark.parametrize("spec", sorted(KINDS))
def test_each_format_counts_as_its_official_adapter(spec: str, folder: Path, rows: list[Row]) -> None:
    kinds = KINDS[spec]
    lines, tally = [], {"hits": 0, "strict": 0, "lenient": 0, "malformed": 0}
    for index, row in enumerate(rows):
        name, make, status = kinds[index % len(kinds)]
        response = make(row)
        lines.append({"model": "m", "example_id": row["example_id"], "condition": "gui", "response": response})
        tally[status] += 1
        hit = official_hit(spec, row, response)
        assert hit == (status == "strict"), (name, row["width"], row["height"], response)
        tally["hits"] += hit
    report = score(lines, folder=folder, resamples=20, answer_format=spec)
    assert (metric(report, "gui_success")["count"], metric(report, "gui_success")["n"]) == (tally["hits"], ROWS)
    assert metric(report, "strict_parse_rate")["count"] == tally["strict"]
    assert metric(report, "lenient_recovered_rate")["count"] == tally["lenient"]
    assert metric(report, "malformed_rate")["count"] == tally["malformed"]
    assert report.answer_formats == {"m": parse_format(spec).describe()}
    assert {m["answer_format"] for m in report.metrics} == {parse_format(spec).spec}
    assert report.warning is None  # answers read in their own frame look like no frame mistake


def test_the_default_format_reads_as_before(folder: Path, rows: list[Row]) -> None:
    lines = [
        {"model": "m", "example_id": r["example_id"], "condition": "gui", "response": tool_call(*qwen_frame(r))}
        for r in rows
    ]
    assert metric(score(lines, folder=folder, resamples=5), "gui_success")["count"] == 0  # not our syntax
    assert metric(score(lines, folder=folder, resamples=5, answer_format="qwen2.5-vl"), "gui_success")["count"] == ROWS


def test_a_line_names_its_own_format_and_one_model_keeps_one(folder: Path, rows: list[Row]) -> None:
    own = [
        {"model": "m", "example_id": r["example_id"], "condition": "gui", "response": "({}, {})".format(*grid(r)),
         "answer_format": "uground"}
        for r in rows
    ]  # fmt: skip
    report = score(own, folder=folder, resamples=5, answer_format="pixels")  # the line's field wins
    assert metric(report, "gui_success")["count"] == ROWS and report.answer_formats["m"]["spec"] == "uground"
    mixed = [own[0], {**own[1], "answer_format": "qwen3-vl"}]
    with pytest.raises(GroundBenchError) as caught:
        score(mixed, folder=folder, resamples=5)
    assert "two answer formats (uground and qwen3-vl" in str(caught.value) and "\n" not in str(caught.value)
    bad = [{**own[0], "answer_format": "uground:factor=2"}]
    with pytest.raises(GroundBenchError) as caught:
        score(bad, folder=folder, resamples=5)
    assert "answer_format: uground has no parameter" in str(caught.value)


@pytest.mark.parametrize(
    ("answer", "read_as", "suggests"),
    [
        (lambda r: list(grid(r)), "groundbench", "--answer-format norm1000"),
        (lambda r: list(frac(r)), "pixels", "--answer-format norm1"),
        (lambda r: list(centre(r)), "norm1000", "--answer-format pixels"),
    ],
)
def test_a_frame_mistake_prints_one_warning_naming_the_format(
    answer: Callable[[Row], list[float]], read_as: str, suggests: str, folder: Path, rows: list[Row]
) -> None:
    key = "point" if read_as == "groundbench" else None
    lines = [
        {"model": "m", "example_id": r["example_id"], "condition": "gui",
         "response": json.dumps({key: answer(r)} if key else answer(r))}
        for r in rows
    ]  # fmt: skip
    report = score(lines, folder=folder, resamples=5, answer_format=read_as)
    assert report.warning is not None and suggests in report.warning and "\n" not in report.warning
    assert report.to_dict()["frame_warning"] == report.warning


def test_score_prints_the_frame_warning_as_one_line(folder: Path, rows: list[Row], tmp_path: Path, capsys: Any) -> None:
    lines = tmp_path / "p.jsonl"
    grid_answers = [
        {"model": "m", "example_id": r["example_id"], "condition": "gui", "response": json.dumps({"point": grid(r)})}
        for r in rows
    ]
    lines.write_text("".join(json.dumps(line) + "\n" for line in grid_answers))
    assert run_cli(folder, "score", str(lines), "--data", str(folder)) == 0
    err = capsys.readouterr().err.splitlines()
    warnings = [line for line in err if "FRAME?" in line]
    assert len(warnings) == 1 and warnings[0].startswith("FRAME? m: ") and "--answer-format norm1000" in warnings[0]


def test_one_point_for_every_row_suggests_no_frame(folder: Path, rows: list[Row]) -> None:
    """The mock model's constant [0, 0] (the README's Quickstart) lies in the top-left pixel of every frame:
    a constant answer, no sign of 0-1 fractions read as pixels; a spread of such points still is one."""
    constant = [
        {"model": "m", "example_id": r["example_id"], "condition": "gui", "response": '{"point": [0, 0]}'} for r in rows
    ]
    assert score(constant, folder=folder, resamples=5).warning is None
    spread = [
        {**line, "response": json.dumps({"point": list(frac(r))})} for line, r in zip(constant, rows, strict=True)
    ]
    assert "--answer-format norm1" in str(score(spread, folder=folder, resamples=5).warning)


def test_object_part_rows_read_point_and_box_through_the_format(tmp_path: Path, published_sample: Path) -> None:
    """A curated UMD row answered on the 0-1000 grid: its point and box land where the pixels would."""
    from groundbench.loaders.records import read_config

    row = next(
        r
        for r in read_config(published_sample, "curated_umd")
        if "part_named" in (r.get("conditions") or ["part_named"])
    )
    part = next(p for p in row["parts"] if p["part_id"] == row["target_part_id"])
    w, h = row["width"], row["height"]
    x, y = part["point_xy"]
    pixels = {"part": row["target_part_id"], "action": row["target_action"], "point": [x, y], "box": part["bbox_xyxy"]}
    grid_answer = {
        **pixels,
        "point": [x * 1000 / w, y * 1000 / h],
        "box": [v * 1000 / (w if i % 2 == 0 else h) for i, v in enumerate(part["bbox_xyxy"])],
    }
    base = {"model": "m", "example_id": row["example_id"], "condition": "part_named"}
    a = score([{**base, "response": json.dumps(pixels)}], folder=published_sample, resamples=5, subset=True)
    b = score(
        [{**base, "response": json.dumps(grid_answer)}],
        folder=published_sample,
        resamples=5,
        subset=True,
        answer_format="norm1000",
    )
    assert a.predictions[0]["point"] == pytest.approx(b.predictions[0]["point"])
    assert a.predictions[0]["box"] == pytest.approx(b.predictions[0]["box"])
    region = [m["count"] for r in (a, b) for m in r.metrics if m["metric"] == "localization_in_target_region"]
    assert region == [1, 1]  # the threshold-free figure: the point inside the target, read either way


def test_the_format_is_recorded_in_table_plot_and_export(folder: Path, rows: list[Row], tmp_path: Path) -> None:
    from groundbench.results.hub import notes_of, parse_notes
    from groundbench.results.plots import all_specs
    from groundbench.results.runs import load_run
    from groundbench.results.table import build_table, markdown, to_csv
    from groundbench.scoring.headline import headlines
    from groundbench.scoring.report import write_csv, write_json

    spec = "qwen2.5-vl:max_pixels=99999999"
    lines = [
        {"model": "m", "example_id": r["example_id"], "condition": "gui",
         "response": tool_call(*qwen_frame(r, max_pixels=99999999))}
        for r in rows
    ]  # fmt: skip
    report = score(lines, folder=folder, resamples=5, answer_format=spec)
    write_json(tmp_path / "scores.json", report.to_dict())
    write_csv(tmp_path / "scores.csv", report.metrics, report.gate)
    with open(tmp_path / "scores.csv", encoding="utf-8") as handle:
        assert {line["answer_format"] for line in csv.DictReader(handle)} == {spec}
    run = load_run(tmp_path / "scores.json", None)
    assert run.answer_format("m") == spec
    table = build_table([run])
    assert f"answer formats: m: {spec}" in markdown(table)
    assert {line["answer_format"] for line in csv.DictReader(io.StringIO(to_csv(table)))} == {spec}
    assert all(s.answer_formats == {"m": spec} for s in all_specs([run], []))
    (headline,) = [h for h in headlines(run.metrics) if h.metric == "gui_success"]
    assert parse_notes(notes_of(headline, run))["answer_format"] == spec
