"""The computer-use APIs', GUI specialists' and general VLMs' answer formats, on answers in their real syntaxes.

Each format answers GUI rows in the sources' frame sizes (``tests/support/frames.py``) with kinds written from the
family's documentation and official code (the file each format cites), and the malformed variants public logs show:
a refusal sentence, truncated output, a think block without an answer, y and x swapped. The expected verdicts are
worked out here the way each official adapter compares: its click normalised by the frame the model answered in,
against the target box normalised by the image (Claude's reference tool: its rounded screen pixel), with the frames
restated by hand, not by the scorer's mapping.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from groundbench.errors import GroundBenchError
from groundbench.scoring import score
from groundbench.scoring.formats import parse_format
from groundbench.scoring.formats.computer_use import claude_frame, claude_target
from groundbench.scoring.formats.read import gui_answer, part_answer
from groundbench.scoring.formats.resize import smart_resize
from groundbench.scoring.gui import refusal_credited
from groundbench.scoring.parse import MALFORMED, REFUSED, STRICT, Answer
from tests.support.frames import CONFIG, frame_folder, target_box

SIZES = [
    (6016, 3384), (5120, 2880), (3840, 2160), (2560, 1440), (1920, 1080), (3840, 1080),
    (2880, 1800), (3456, 2160), (2560, 1600), (1080, 2400), (1170, 2532), (1024, 768),
]  # fmt: skip
ROWS = 2 * len(SIZES)
Row = dict[str, Any]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory, published_sample: Path) -> Path:
    sizes = [SIZES[i % len(SIZES)] for i in range(ROWS)]
    return frame_folder(tmp_path_factory.mktemp("frames"), sizes, published_sample)


@pytest.fixture(scope="module")
def rows(folder: Path) -> list[Row]:
    from groundbench.loaders.records import read_config

    return sorted(read_config(folder, CONFIG), key=lambda r: r["example_id"])


# --- the frames, by hand ------------------------------------------------------------------------------

# computer.py's scale_coordinates, worked out per screen: the first of XGA (4:3), WXGA (16:10), FWXGA (1366/768 =
# 1.7786) within 0.02 of the screen's aspect, when narrower than the screen; else the screen within Anthropic's
# image limits (both sides at most 1568 px, at most 1.15 megapixels).
CLAUDE_FRAMES = {
    (6016, 3384): (1366, 768),  # 16:9 = 1.7778
    (5120, 2880): (1366, 768),
    (3840, 2160): (1366, 768),
    (2560, 1440): (1366, 768),
    (1920, 1080): (1366, 768),
    (2880, 1800): (1280, 800),  # 16:10
    (2560, 1600): (1280, 800),
    (3456, 2160): (1280, 800),
    (1024, 768): (1024, 768),  # XGA itself: the target is not narrower, nothing is scaled
    (1280, 800): (1280, 800),
    (800, 600): (800, 600),  # smaller than XGA: never scaled up
    (3840, 1080): (1568, 441),  # 32:9 matches no target: 1568 / 3840 of each side, floored
    (1080, 2400): (705, 1568),  # a phone: 1568 / 2400 = 0.6533; 1080 * 0.6533 = 705.6
    (1170, 2532): (724, 1568),
}


@pytest.mark.parametrize(("screen", "frame"), sorted(CLAUDE_FRAMES.items()))
def test_claude_scales_to_the_reference_tools_targets(screen: tuple[int, int], frame: tuple[int, int]) -> None:
    assert claude_frame(*screen, scaling=True) == frame
    assert parse_format("claude-computer-use").frame(screen) == frame
    assert claude_frame(*frame, scaling=True) == frame  # the frame sent is its own frame: scaling twice is once


def test_claude_takes_the_first_aspect_match_even_when_it_is_not_narrower() -> None:
    # 1.3333 is XGA's aspect: XGA is the match, and not narrower than 1000 px, so nothing is scaled, even though
    # no other target would have been picked either (the loop breaks at the first aspect match).
    assert claude_target(1000, 750) is None and claude_target(2048, 1536) == (1024, 768)
    assert claude_target(2048, 1536 + 20) == (1024, 768)  # 1.3160: within 0.02 of 1.3333
    assert claude_target(2048, 1536 + 30) is None  # 1.3050: outside
    # Scaling off: the screen within the image limits only (1.15 megapixels: sqrt(1150000 / 2073600) = 0.7447).
    assert parse_format("claude-computer-use:scaling=off").frame((1920, 1080)) == (1429, 804)


def test_openai_reads_in_the_declared_display() -> None:
    assert parse_format("openai-computer-use:display_width=1024,display_height=768").frame((1920, 1080)) == (1024, 768)
    # Undeclared: the screenshot within OpenAI's documented limits (2048 square, then the short side at most 768).
    assert parse_format("openai-computer-use").frame((1920, 1080)) == (1365, 768)
    assert parse_format("openai-computer-use").frame((1024, 768)) == (1024, 768)
    with pytest.raises(GroundBenchError, match="declare both display_width and display_height, or neither"):
        parse_format("openai-computer-use:display_width=1024")


def infigui_frame(width: int, height: int, tokens: int = 5600) -> tuple[int, int]:
    """InfiGUI-G1's eval.py: data.py's resize_image to ``tokens * 28 * 28`` pixels, then smart_resize."""
    if width * height > tokens * 784:
        scale = math.sqrt(tokens * 784 / (width * height))
        width, height = round(width * scale), round(height * scale)
    h, w = smart_resize(height, width)
    return w, h


def test_the_resized_frames_are_the_adapters_smart_resize() -> None:
    # 6016x3384: above InfiGUI-G1's 5600 * 28 * 28 = 4,390,400 pixels: 0.1 * ... -> 2794x1572, then smart_resize.
    assert infigui_frame(6016, 3384) == (2800, 1568)
    assert parse_format("infigui-g1").frame((6016, 3384)) == (2800, 1568)
    # 16384 tokens: resize_image rounds to 4779x2688, whose smart_resize (4788x2688) is just over 12845056 pixels,
    # so both sides shrink by beta = 1.0000349 and are floored: 4760x2660 (not Qwen's 4760x2688 from 6016x3384).
    assert parse_format("infigui-g1:max_image_tokens=16384").frame((6016, 3384)) == (4760, 2660)
    # UI-Venus-Ground: min_pixels 2,000,000 lifts a 1920x1080 frame (2,073,600 -> 1932x1092 already above it).
    assert parse_format("ui-venus").frame((1024, 768)) == (1652, 1232)  # grown by sqrt(2e6 / 786432), ceiled
    assert parse_format("ui-venus").frame((6016, 3384)) == (2912, 1624)  # 4,800,000 max: floored multiples of 28
    assert parse_format("gta1").frame((6016, 3384)) == (3948, 2212)  # 4096 * 2160 max: beta = 1.5169
    assert parse_format("holo1.5").frame((3840, 2160)) == (2548, 1428)  # 2560 * 1440 max


def test_ui_venus_72b_reads_its_published_example_as_its_authors() -> None:
    """UI-Venus's examples/grounding_result_format.json: the 72B adapter's answer [1748,415,1769,430] on a 1920x1080
    OSWorld-G screenshot is reported as the click (1435.51, 339.51): its box centre in the smart_resize frame of
    min_pixels 3110400 (2352x1344), mapped to the screen."""
    fmt = parse_format("ui-venus:min_pixels=3110400,max_pixels=48000000")
    assert fmt.frame((1920, 1080)) == (2352, 1344)
    found = fmt.read("[1748,415,1769,430]", "point")
    x, y = fmt.to_row(found.centre, (1920, 1080), (1920, 1080))  # type: ignore[union-attr]
    assert (x, y) == pytest.approx((1435.5102040816325, 339.5089285714286))


# --- answers in each family's syntax -------------------------------------------------------------------


def centre(row: Row) -> tuple[float, float]:
    x0, y0, x1, y1 = target_box(row)
    return (x0 + x1) / 2, (y0 + y1) / 2


def in_frame(row: Row, frame: tuple[float, float]) -> tuple[int, int]:
    """The target's centre as a model answering in ``frame`` prints it (whole numbers)."""
    x, y = centre(row)
    return round(x * frame[0] / row["width"]), round(y * frame[1] / row["height"])


def grid(row: Row) -> tuple[int, int]:
    return in_frame(row, (1000, 1000))


def grid_box(row: Row) -> list[int]:
    """The target box on the 0-1000 grid, shrunk inwards to whole numbers (so its centre is inside the target)."""
    x0, y0, x1, y1 = target_box(row)
    w, h = row["width"], row["height"]
    return [math.ceil(x0 * 1000 / w), math.ceil(y0 * 1000 / h), math.floor(x1 * 1000 / w), math.floor(y1 * 1000 / h)]


def frac(row: Row) -> tuple[float, float]:
    x, y = centre(row)
    return round(x / row["width"], 4), round(y / row["height"], 4)


def smart(row: Row, **params: int) -> tuple[int, int]:
    h, w = smart_resize(row["height"], row["width"], **params)
    return w, h


def smart_box(row: Row, **params: int) -> list[int]:
    w, h = smart(row, **params)
    x0, y0, x1, y1 = target_box(row)
    sx, sy = w / row["width"], h / row["height"]
    return [math.ceil(x0 * sx), math.ceil(y0 * sy), math.floor(x1 * sx), math.floor(y1 * sy)]


def claude(row: Row) -> tuple[int, int]:
    return in_frame(row, CLAUDE_FRAMES[(row["width"], row["height"])])


def openai(row: Row) -> tuple[int, int]:
    return in_frame(row, (1024, 768))


def swapped(point: tuple[float, float]) -> tuple[float, float]:
    return point[1], point[0]


# The frame each family's numbers are in, restated by hand (width, height) for a row.
FRAMES: dict[str, Callable[[Row], tuple[float, float]]] = {
    "claude-computer-use": lambda r: CLAUDE_FRAMES[(r["width"], r["height"])],
    "openai-computer-use:display_height=768,display_width=1024": lambda r: (1024, 768),
    "glm-v": lambda r: (1000, 1000),
    "internvl": lambda r: (1000, 1000),
    "cogagent": lambda r: (1000, 1000),
    "minicpm-v": lambda r: (1000, 1000),
    "kimi-vl": lambda r: (1, 1),
    "agentcpm-gui": lambda r: (1000, 1000),
    "ui-venus": lambda r: smart(r, min_pixels=2_000_000, max_pixels=4_800_000),
    "ui-venus-2": lambda r: (1000, 1000),
    "gta1": lambda r: smart(r, max_pixels=4096 * 2160),
    "holo1.5": lambda r: smart(r, max_pixels=2560 * 1440),
    "infigui-g1": lambda r: infigui_frame(r["width"], r["height"]),
}

# A kind: (its name, the response for a row, its status: strict / lenient / malformed / refused). A strict kind
# named "swapped" is read strictly and may miss; every other strict kind hits.
Kind = tuple[str, Callable[[Row], str], str]
SORRY: Kind = (
    "a refusal sentence",
    lambda r: "I'm sorry, but I can't help with identifying that element.",
    "malformed",
)


def claude_input(point: tuple[float, float]) -> dict[str, Any]:
    return {"action": "left_click", "coordinate": list(point)}


def tool_use(point: tuple[float, float]) -> dict[str, Any]:
    return {"type": "tool_use", "id": "toolu_01A", "name": "computer", "input": claude_input(point)}


def computer_call(point: tuple[float, float]) -> dict[str, Any]:
    action = {"type": "click", "button": "left", "x": point[0], "y": point[1]}
    return {"type": "computer_call", "id": "cu_1", "call_id": "call_1", "action": action, "status": "completed"}


def points(*found: tuple[int, int]) -> str:
    """InfiGUI-G1's answer: a JSON list of point_2d objects."""
    return json.dumps([{"point_2d": list(p)} for p in found])


def glm_box(row: Row, open_: str = "[[", close: str = "]]") -> str:
    return "<|begin_of_box|>" + open_ + ",".join(str(v) for v in grid_box(row)) + close + "<|end_of_box|>"


KINDS: dict[str, list[Kind]] = {
    # anthropic-quickstarts computer.py: the tool input, its tool_use block, or the message's content list.
    "claude-computer-use": [
        ("tool input", lambda r: json.dumps(claude_input(claude(r))), "strict"),
        ("tool_use block", lambda r: json.dumps(tool_use(claude(r))), "strict"),
        (
            "content list: text, then the tool_use",
            lambda r: json.dumps([{"type": "text", "text": "I'll click the button."}, tool_use(claude(r))]),
            "strict",
        ),
        (
            "mouse_move then left_click (computer_20241022)",
            lambda r: json.dumps(
                {"content": [tool_use(claude(r)) | {"input": {"action": "mouse_move", "coordinate": list(claude(r))}}]}
            ),
            "strict",
        ),
        ("swapped", lambda r: json.dumps(claude_input(swapped(claude(r)))), "strict"),
        ("a fractional coordinate (the tool refuses it)", lambda r: json.dumps(claude_input((10.5, 20))), "lenient"),
        ("truncated", lambda r: '{"action": "left_click", "coordinate": [41', "malformed"),
        ("a screenshot, no click", lambda r: json.dumps({"action": "screenshot"}), "malformed"),
        SORRY,
    ],
    # OpenAI computer-use: a computer_call item, alone, in a response's output, or its action alone.
    "openai-computer-use:display_height=768,display_width=1024": [
        ("computer_call", lambda r: json.dumps(computer_call(openai(r))), "strict"),
        (
            "response output: reasoning, then the call",
            lambda r: json.dumps({"output": [{"type": "reasoning", "summary": []}, computer_call(openai(r))]}),
            "strict",
        ),
        ("the action alone", lambda r: json.dumps(computer_call(openai(r))["action"]), "strict"),
        ("swapped", lambda r: json.dumps(computer_call(swapped(openai(r)))), "strict"),
        (
            "a screenshot action",
            lambda r: json.dumps({"type": "computer_call", "action": {"type": "screenshot"}}),
            "malformed",
        ),
        SORRY,
    ],
    # zai-org/GLM-V README: a reasoning block, then the box between its tokens, brackets of any style, 0-1000.
    "glm-v": [
        (
            "think, answer, box tokens",
            lambda r: f"<think>The save icon is in the toolbar.</think><answer>{glm_box(r)}</answer>",
            "strict",
        ),
        ("round brackets", lambda r: glm_box(r, "(", ")"), "strict"),
        ("tokens stripped by the server", lambda r: json.dumps([grid_box(r)]), "lenient"),
        ("a think block without an answer", lambda r: "<think>The icon is probably near the top, so", "malformed"),
        SORRY,
    ],
    # ScreenSpot-Pro internvl.py: [[x,y]] first, else the last [[x1,y1,x2,y2]], no spaces.
    "internvl": [
        ("ref and box", lambda r: "<ref>the button</ref><box>[[{},{},{},{}]]</box>".format(*grid_box(r)), "strict"),
        ("point", lambda r: "[[{},{}]]".format(*grid(r)), "strict"),
        ("box with spaces (its regex reads none)", lambda r: "[[{}, {}, {}, {}]]".format(*grid_box(r)), "lenient"),
        ("truncated", lambda r: "<ref>the button</ref><box>[[12,3", "malformed"),
        SORRY,
    ],
    # ScreenSpot-Pro cogagent24.py: the Action-Operation answer's box=[[...]].
    "cogagent": [
        (
            "Action-Operation",
            lambda r: (
                "Action: Click the Save button.\nGrounded Operation: CLICK(box=[[{},{},{},{}]], "
                "element_type='button', element_info='Save')".format(*grid_box(r))
            ),
            "strict",
        ),
        (
            "spaces after commas (its regex reads none)",
            lambda r: "CLICK(box=[[{}, {}, {}, {}]])".format(*grid_box(r)),
            "lenient",
        ),
        SORRY,
    ],
    # ScreenSpot-Pro minicpmv.py: <box>x1 y1 x2 y2</box>, else the first "x y".
    "minicpm-v": [
        ("box tag", lambda r: "<box>{} {} {} {}</box>".format(*grid_box(r)), "strict"),
        ("a bare pair", lambda r: "{} {}".format(*grid(r)), "strict"),
        ("swapped", lambda r: "{} {}".format(*swapped(grid(r))), "strict"),
        SORRY,
    ],
    # ScreenSpot-Pro kimivl.py: only the text after ◁/think▷, x=.., y=.. in 0-1.
    "kimi-vl": [
        (
            "think, then the code",
            lambda r: (
                "◁think▷The icon sits in the toolbar.◁/think▷## Action:\nClick the icon.\n\n## Code:\n"
                "```python\npyautogui.click(x={}, y={})\n```".format(*frac(r))
            ),
            "strict",
        ),
        ("no think block", lambda r: "pyautogui.click(x={}, y={})".format(*frac(r)), "strict"),
        (
            "the click only inside the think block",
            lambda r: "◁think▷I would do pyautogui.click(x={}, y={})◁/think▷## Action:\nDone.".format(*frac(r)),
            "lenient",
        ),
        ("a think block without an answer", lambda r: "◁think▷The icon is at x=0.5, y=0.5 maybe", "malformed"),
        ("pixels, not 0-1", lambda r: "◁think▷ok◁/think▷pyautogui.click(x=523, y=311)", "lenient"),
        SORRY,
    ],
    # OpenBMB/AgentCPM-GUI: {"POINT": [x, y]} on 0-1000, spaces removed, the whole answer.
    "agentcpm-gui": [
        (
            "thought and POINT",
            lambda r: json.dumps({"thought": "点击保存按钮", "POINT": list(grid(r))}, ensure_ascii=False),
            "strict",
        ),
        ("POINT", lambda r: '{{"POINT":[{},{}]}}'.format(*grid(r)), "strict"),
        (
            "fenced (its json.loads fails)",
            lambda r: "```json\n" + json.dumps({"POINT": list(grid(r))}) + "\n```",
            "lenient",
        ),
        ("truncated", lambda r: '{"thought":"点击","POINT":[12', "malformed"),
    ],
    # UI-Venus ui_venus_ground_7b.py: the whole answer [x1,y1,x2,y2] in the resized frame.
    "ui-venus": [
        ("box", lambda r: json.dumps(smart_box(r, min_pixels=2_000_000, max_pixels=4_800_000)), "strict"),
        (
            "with prose",
            lambda r: "The element is at " + json.dumps(smart_box(r, min_pixels=2_000_000, max_pixels=4_800_000)),
            "lenient",
        ),
        ("infeasible, as its prompts ask", lambda r: "[-1,-1,-1,-1]", "refused"),
        SORRY,
    ],
    # UI-Venus ui_venus2_gd.py: [x,y] on 0-1000, [-1,-1] when the task is infeasible.
    "ui-venus-2": [
        ("point", lambda r: "[{},{}]".format(*grid(r)), "strict"),
        ("box", lambda r: "[{}, {}, {}, {}]".format(*grid_box(r)), "strict"),
        ("infeasible", lambda r: "[-1,-1]", "refused"),
        ("infeasible, spaced", lambda r: "[-1, -1]", "refused"),
        ("swapped", lambda r: "[{},{}]".format(*swapped(grid(r))), "strict"),
        SORRY,
    ],
    # GTA1 README: (x,y) in the smart_resize frame its prompt states.
    "gta1": [
        ("(x,y)", lambda r: "({},{})".format(*gta1_point(r)), "strict"),
        ("decimals (its int() raises)", lambda r: "({}.5,{}.5)".format(*gta1_point(r)), "lenient"),
        SORRY,
    ],
    # ScreenSpot-Pro holo1_5.py: the ClickAbsoluteAction JSON in the smart_resize frame.
    "holo1.5": [
        (
            "click_absolute",
            lambda r: json.dumps({"action": "click_absolute", "x": holo_point(r)[0], "y": holo_point(r)[1]}),
            "strict",
        ),
        ("Click(x, y) as its prompt words it", lambda r: "Click({}, {})".format(*holo_point(r)), "lenient"),
        ("truncated to '{'", lambda r: "{", "malformed"),
    ],
    # InfiGUI-G1 eval/prompts.py: after the last </think>, [{"point_2d": [x, y]}, ...], [] for no target.
    "infigui-g1": [
        (
            "think, then points",
            lambda r: "<think>The Save button is in the toolbar.</think>\n" + points(infigui_point(r)),
            "strict",
        ),
        (
            "several points: the first is scored",
            lambda r: "<think>Two candidates.</think>" + points(infigui_point(r), (0, 0)),
            "strict",
        ),
        ("fenced", lambda r: "```json\n" + points(infigui_point(r)) + "\n```", "strict"),
        ("no target", lambda r: "<think>Nothing here matches.</think>[]", "refused"),
        ("a think block without an answer", lambda r: "<think>The element should be near the top", "malformed"),
        SORRY,
    ],
}


def gta1_point(row: Row) -> tuple[int, int]:
    return in_frame(row, smart(row, max_pixels=4096 * 2160))


def holo_point(row: Row) -> tuple[int, int]:
    return in_frame(row, smart(row, max_pixels=2560 * 1440))


def infigui_point(row: Row) -> tuple[int, int]:
    return in_frame(row, infigui_frame(row["width"], row["height"]))


def official_hit(spec: str, row: Row, response: str, status: str) -> bool:
    """The adapter's verdict, its own way: the click read from the family's frame, normalised, in the target box."""
    if status != STRICT:
        return False  # no click, or (refused) no target named: both fail a row that has a target
    found = parse_format(spec).read(response, "point")
    assert found is not None and not isinstance(found, str)
    x, y = found.centre  # type: ignore[union-attr]
    fw, fh = FRAMES[spec](row)
    if spec == "claude-computer-use":  # computer.py maps back to a screen pixel: round(x / (target / screen))
        xn, yn = round(x / (fw / row["width"])) / row["width"], round(y / (fh / row["height"])) / row["height"]
    else:
        xn, yn = x / fw, y / fh
    x0, y0, x1, y1 = target_box(row)
    return x0 / row["width"] <= xn <= x1 / row["width"] and y0 / row["height"] <= yn <= y1 / row["height"]


def metric(report: Any, name: str) -> dict[str, Any]:
    return next(m for m in report.metrics if m["metric"] == name and m.get("detail") is None)


@pytest.mark.parametrize("spec", sorted(KINDS))
def test_each_family_counts_as_its_official_adapter(spec: str, folder: Path, rows: list[Row]) -> None:
    kinds = KINDS[spec]
    lines, tally = [], {"hits": 0, "strict": 0, "lenient": 0, "malformed": 0, "refused": 0}
    for index, row in enumerate(rows):
        name, make, status = kinds[index % len(kinds)]
        response = make(row)
        lines.append({"model": "m", "example_id": row["example_id"], "condition": "gui", "response": response})
        tally[status] += 1
        hit = official_hit(spec, row, response, status)
        if status == STRICT and name != "swapped":
            assert hit, (name, row["width"], row["height"], response)
        tally["hits"] += hit
    assert {kind[2] for kind in kinds} <= set(tally) and len(rows) >= len(kinds)
    report = score(lines, folder=folder, resamples=20, answer_format=spec)
    assert (metric(report, "gui_success")["count"], metric(report, "gui_success")["n"]) == (tally["hits"], ROWS)
    assert metric(report, "strict_parse_rate")["count"] == tally["strict"]
    assert metric(report, "lenient_recovered_rate")["count"] == tally["lenient"]
    assert metric(report, "malformed_rate")["count"] == tally["malformed"]
    assert metric(report, "refusal_rate")["count"] == tally["refused"]
    assert {m["answer_format"] for m in report.metrics} == {parse_format(spec).spec}


def test_a_refusal_is_its_own_status_and_fails_a_row_with_a_target(folder: Path, rows: list[Row]) -> None:
    row = rows[0]
    seen = (row["width"], row["height"])
    venus = parse_format("ui-venus-2")
    assert gui_answer(venus, "[-1,-1]", row, seen, strict_only=True).status == REFUSED
    assert gui_answer(venus, "[-1,-1]", row, seen, strict_only=False).status == REFUSED  # never recovered as a point
    assert gui_answer(parse_format("infigui-g1"), "[]", row, seen, strict_only=True).status == REFUSED
    # Families without a documented refusal read the same answers as what their adapters make of them.
    assert gui_answer(parse_format("showui"), "[-1,-1]", row, seen, strict_only=True).status == STRICT
    assert gui_answer(parse_format("infigui-g1"), "none", row, seen, strict_only=True).status == MALFORMED
    # An object-part row asked under the family reads its refusal the same way (no part, no point).
    part_row = {"width": 640, "height": 480}
    assert part_answer(venus, "[-1, -1]", part_row, (640, 480), strict_only=False).status == REFUSED
    # A refusal fails every row that has a target; a row without one (success_rule.kind refusal, OSWorld-G's
    # refusal rows: tests/scoring/test_osworld_g_rule.py scores them) credits it.
    refused = Answer(status=REFUSED)
    no_target = {**row, "success_rule": {"kind": "refusal"}, "parts": [], "target_part_id": None}
    assert not refusal_credited(refused, row)
    assert refusal_credited(refused, no_target)
    assert not refusal_credited(Answer(status=MALFORMED), no_target)
    lines = [{"model": "m", "example_id": r["example_id"], "condition": "gui", "response": "[-1,-1]"} for r in rows]
    report = score(lines, folder=folder, resamples=5, answer_format="ui-venus-2")
    assert metric(report, "gui_success")["count"] == 0 and metric(report, "gui_success_lenient")["count"] == 0
    assert metric(report, "refusal_rate")["count"] == ROWS and metric(report, "malformed_rate")["count"] == 0


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("infigui-g1:think=off", "infigui-g1:think=off"),
        ("infigui-g1:max_image_tokens=5600", "infigui-g1"),
        ("claude-computer-use:scaling=on", "claude-computer-use"),
        (
            "openai-computer-use:display_width=1280,display_height=800",
            "openai-computer-use:display_height=800,display_width=1280",
        ),
        ("holo1.5:max_pixels=3686400", "holo1.5"),
    ],
)
def test_family_specs_have_one_canonical_spelling(spec: str, expected: str) -> None:
    assert parse_format(spec).spec == expected


def test_infigui_think_mode_off_reads_the_whole_answer() -> None:
    answer = '<think>maybe [{"point_2d": [1, 2]}]</think>[{"point_2d": [30, 40]}]'
    assert parse_format("infigui-g1").read(answer, "point").coords == (30.0, 40.0)  # type: ignore[union-attr]
    # eval.py --think-mode 0 leaves the block in: the first [ to the last ] no longer parse as one JSON list.
    assert parse_format("infigui-g1:think=off").read(answer, "point") is None


# --- the profiles' prompts -----------------------------------------------------------------------------


def _prompt(spec: str, width: int = 1920, height: int = 1080) -> tuple[str | None, str]:
    from groundbench.scoring.profiles import parse_profile

    row = {"instruction": "open the settings.", "width": width, "height": height, "parts": []}
    return parse_profile(spec).prompt(row, "gui")


def test_each_family_is_asked_with_its_adapters_prompt() -> None:
    # ui_venus2_gd.py strips one final period from the instruction and states its [-1,-1] refusal.
    system, text = _prompt("ui-venus-2")
    assert system is None and "instruction: \nopen the settings. \n\n" in text and "should be [-1,-1]." in text
    # GTA1's README: the system prompt states the resized frame (height first), the user text is the instruction.
    system, text = _prompt("gta1", 2548, 1428)
    assert system is not None and "The image resolution is height 1428 and width 2548." in system
    assert text == "open the settings."
    # InfiGUI-G1's prompts.py: the think system prompt (or the plain one, think=off) and the stated resolution.
    system, text = _prompt("infigui-g1", 2800, 1568)
    assert system is not None and system.startswith("You FIRST think") and "<think> </think>" in system
    assert text.startswith('The screen\'s resolution is 2800x1568.\nLocate the UI element(s) for "open the settings."')
    assert _prompt("infigui-g1:think=off")[0] == "You are a helpful assistant."
    # kimivl.py's system prompt asks for pyautogui code in normalized coordinates; its user text is the task.
    system, text = _prompt("kimi-vl")
    assert (
        system is not None and "values between 0 and 1" in system and text == "## Task Instruction:\nopen the settings."
    )
    # cogagent24.py's Action-Operation query, its platform WIN; minicpmv.py's (sic) "x1 x2 y1 y2".
    assert (
        _prompt("cogagent")[1] == "Task: open the settings.\nHistory steps: \nWIN(Answer in Action-Operation format.)"
    )
    assert _prompt("minicpm-v")[1].endswith('instruction "open the settings."? Output in the format of x1 x2 y1 y2.')
    assert "<ref>open the settings.</ref>" in _prompt("internvl")[1]
    assert _prompt("glm-v")[1].startswith("Please pinpoint the bounding box [[x1,y1,x2,y2], …] in the image")
    system, text = _prompt("agentcpm-gui")
    assert (
        system is not None
        and '{"POINT":[...,...]}' in system
        and text == "屏幕上某一组件的功能描述：open the settings."
    )
    # The computer-use prompts state the frame the screenshot is sent in, in the tool's own answer.
    assert "1366x768 pixels" in _prompt("claude-computer-use", 1366, 768)[1]
    assert '"coordinate": [x, y]' in _prompt("claude-computer-use")[1]
    assert '{"type": "click", "button": "left", "x": x, "y": y}' in _prompt("openai-computer-use")[1]


def test_the_profiles_send_what_the_adapters_send() -> None:
    from groundbench.scoring.profiles import parse_profile

    assert parse_profile("holo1.5").request_body["guided_json"]["required"] == ["x", "y"]
    assert parse_profile("ui-venus-2").request_body == {"chat_template_kwargs": {"enable_thinking": False}}
    assert parse_profile("glm-v").request_body == {"skip_special_tokens": False}
    assert parse_profile("kimi-vl").request_body == {}
    # The families answering in pixels of a resized frame are sent the image at that frame; the grid ones as it is.
    assert parse_profile("claude-computer-use").sent_size(2560, 1440) == (1366, 768)
    assert parse_profile("openai-computer-use").sent_size(2560, 1440) == (1365, 768)
    assert parse_profile("ui-venus").sent_size(1920, 1080) == (1932, 1092)
    assert parse_profile("gta1").sent_size(6016, 3384) == (3948, 2212)
    assert parse_profile("holo1.5").sent_size(3840, 2160) == (2548, 1428)
    assert parse_profile("infigui-g1").sent_size(6016, 3384) == (2800, 1568)
    assert parse_profile("ui-venus-2").sent_size(6016, 3384) == (6016, 3384)
