"""``eval --profile`` for the computer-use APIs (and UI-Venus-2's refusals) against a loopback OpenAI-compatible
server.

The server (tests/support/openai_stub.py) checks what the API would be sent: the screenshot already at the size its
coordinates are in (Claude: the reference tool's XGA / WXGA / FWXGA scaling target, or the screen within the image
limits; OpenAI: the display size, undeclared the screenshot within the documented image limits) and the prompt
stating that size; it answers in the tool's own syntax, in that frame. The expected hits are counted here as the
reference code counts them: Claude's click mapped back to a screen pixel with ``round(x / (target / screen))``,
OpenAI's click divided by the display, against the target box.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from groundbench.cli import main
from groundbench.loaders.records import read_config
from tests.conftest import run_cli
from tests.support.frames import CONFIG, frame_folder, target_box
from tests.support.openai_stub import Asked, OpenAIStub

SIZES = [(6016, 3384), (2880, 1800), (1024, 768), (3840, 1080), (1080, 2400), (2560, 1440)]
# The size each screen is sent at, by hand (see tests/scoring/test_answer_formats_families.py).
CLAUDE_SENT = {
    (6016, 3384): (1366, 768), (2880, 1800): (1280, 800), (1024, 768): (1024, 768), (3840, 1080): (1568, 441),
    (1080, 2400): (705, 1568), (2560, 1440): (1366, 768),
}  # fmt: skip
# OpenAI's images guide: inside 2048 x 2048, then the shortest side at most 768 (floored).
OPENAI_SENT = {
    (6016, 3384): (1365, 768), (2880, 1800): (1228, 768), (1024, 768): (1024, 768), (3840, 1080): (2048, 576),
    (1080, 2400): (768, 1707), (2560, 1440): (1365, 768),
}  # fmt: skip
STATED = re.compile(r"(\d+)x(\d+) pixels")
Row = dict[str, Any]


def _centre(row: Row, sent: tuple[int, int]) -> tuple[int, int]:
    x0, y0, x1, y1 = target_box(row)
    return round((x0 + x1) / 2 * sent[0] / row["width"]), round((y0 + y1) / 2 * sent[1] / row["height"])


def _far(row: Row, sent: tuple[int, int]) -> tuple[int, int]:
    x0, _, x1, _ = target_box(row)
    return (sent[0] - 1, sent[1] - 1) if (x0 + x1) / 2 < row["width"] / 2 else (0, 0)


def _inside(row: Row, xn: float, yn: float) -> bool:
    x0, y0, x1, y1 = target_box(row)
    return x0 / row["width"] <= xn <= x1 / row["width"] and y0 / row["height"] <= yn <= y1 / row["height"]


def claude_reply(kind: str, row: Row, sent: tuple[int, int]) -> str:
    point = _far(row, sent) if kind == "miss" else _centre(row, sent)
    tool_input = {"action": "left_click", "coordinate": list(point)}
    if kind == "tool_use block":
        return json.dumps({"type": "tool_use", "id": "toolu_1", "name": "computer", "input": tool_input})
    if kind == "fractional":  # the tool accepts only integers: no click there
        return json.dumps({"action": "left_click", "coordinate": [point[0] + 0.5, point[1]]})
    if kind == "truncated":
        return json.dumps(tool_input)[:-6]
    return json.dumps(tool_input)


def claude_hit(row: Row, response: str, sent: tuple[int, int]) -> bool:
    """computer.py: a list of two non-negative ints, scaled up with round(x / (target_w / width))."""
    try:
        value = json.loads(response)
    except ValueError:
        return False
    value = value.get("input", value)
    x, y = value["coordinate"]
    if not all(isinstance(v, int) and v >= 0 for v in (x, y)):
        return False
    px, py = round(x / (sent[0] / row["width"])), round(y / (sent[1] / row["height"]))
    return _inside(row, px / row["width"], py / row["height"])


def openai_reply(kind: str, row: Row, sent: tuple[int, int]) -> str:
    x, y = _far(row, sent) if kind == "miss" else _centre(row, sent)
    if kind == "swapped":
        x, y = y, x
    call = {"type": "computer_call", "call_id": "c1", "action": {"type": "click", "button": "left", "x": x, "y": y}}
    if kind == "output list":
        return json.dumps({"output": [{"type": "reasoning", "summary": []}, call]})
    if kind == "refusal":
        return "I can't help with clicking on that."
    return json.dumps(call)


def openai_hit(row: Row, response: str, sent: tuple[int, int]) -> bool:
    try:
        value = json.loads(response)
    except ValueError:
        return False
    call = value["output"][-1] if "output" in value else value
    return _inside(row, call["action"]["x"] / sent[0], call["action"]["y"] / sent[1])


CASES: dict[
    str, tuple[dict[tuple[int, int], tuple[int, int]], tuple[str, ...], Callable[..., str], Callable[..., bool]]
] = {
    "claude-computer-use": (
        CLAUDE_SENT,
        ("hit", "tool_use block", "miss", "fractional", "truncated"),
        claude_reply,
        claude_hit,
    ),
    "openai-computer-use": (
        OPENAI_SENT,
        ("hit", "output list", "miss", "swapped", "refusal"),
        openai_reply,
        openai_hit,
    ),
}


@pytest.mark.parametrize("profile", sorted(CASES))
def test_eval_with_a_computer_use_profile_scores_as_the_reference_code(
    profile: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, published_sample: Path
) -> None:
    sent_sizes, kinds, make, hit = CASES[profile]
    folder = frame_folder(tmp_path / "data", SIZES, published_sample)
    rows = sorted(read_config(folder, CONFIG), key=lambda r: r["example_id"])
    replies: dict[str, tuple[str, tuple[int, int]]] = {}

    def reply(asked: Asked) -> str:
        assert asked.image_size is not None and asked.system is None
        (row,) = [
            r
            for r in rows
            if r["instruction"] in asked.prompt and asked.image_size == sent_sizes[(r["width"], r["height"])]
        ]
        stated = tuple(int(v) for v in STATED.search(asked.prompt).groups())  # type: ignore[union-attr]
        assert stated == asked.image_size  # the prompt states the frame the screenshot was sent in
        kind = kinds[rows.index(row) % len(kinds)]
        replies[row["example_id"]] = (make(kind, row, asked.image_size), asked.image_size)
        return replies[row["example_id"]][0]

    out = tmp_path / "run"
    with OpenAIStub(reply) as stub:
        monkeypatch.setenv("STUB_API_KEY", "k")
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        command = ["eval", CONFIG, "--condition", "gui", "--model", "openai-api/stub/stub-vlm", "--data", str(folder)]
        command += ["--profile", profile, "--out", str(out), "--display", "none", "--max-connections", "1"]
        assert main(command) == 0
    assert len(stub.asked) == len(rows) == len(replies)

    lines = [json.loads(t) for t in (out / "predictions.jsonl").read_text().splitlines()]
    for line in lines:  # the frame sent is recorded on every line, and the raw answer kept for the scorer
        row = next(r for r in rows if r["example_id"] == line["example_id"])
        assert line["profile"] == line["answer_format"] == profile and "parsed" not in line
        assert line.get("resize") == {
            "row_size": [row["width"], row["height"]],
            "sent_size": list(sent_sizes[(row["width"], row["height"])]),
        } or (line.get("resize") is None and sent_sizes[(row["width"], row["height"])] == (row["width"], row["height"]))
        assert line["response"] == replies[line["example_id"]][0]

    report = json.loads((out / "scores.json").read_text())
    headline = next(m for m in report["metrics"] if m["metric"] == "gui_success" and m["config"] == CONFIG)
    expected = sum(hit(r, *replies[r["example_id"]]) for r in rows)
    assert expected >= sum(kinds[i % len(kinds)] in ("hit", "tool_use block", "output list") for i in range(len(rows)))
    assert (headline["count"], headline["n"], headline["answer_format"]) == (expected, len(rows), profile)
    malformed = next(m for m in report["metrics"] if m["metric"] == "malformed_rate")
    assert malformed["count"] == sum(kinds[i % len(kinds)] in ("truncated", "refusal") for i in range(len(rows)))

    # `requests --profile` asks what the server was asked, and records the frame it sends.
    requests = tmp_path / "requests.jsonl"
    assert run_cli(tmp_path, "requests", CONFIG, "--condition", "gui", "--data", str(folder), "--profile", profile,
                   "--out", str(requests)) == 0  # fmt: skip
    asked = {a.prompt for a in stub.asked}
    for line in map(json.loads, requests.read_text().splitlines()):
        assert line["prompt"] in asked and line["profile"] == profile
        sent = sent_sizes[tuple(line["resize"]["row_size"])] if "resize" in line else None
        assert sent is None or tuple(line["resize"]["sent_size"]) == sent


def test_a_declared_display_is_the_frame_sent(tmp_path: Path, published_sample: Path) -> None:
    folder = frame_folder(tmp_path / "data", SIZES[:2], published_sample)
    requests = tmp_path / "requests.jsonl"
    spec = "openai-computer-use:display_width=1280,display_height=800"
    assert run_cli(tmp_path, "requests", CONFIG, "--condition", "gui", "--data", str(folder), "--profile", spec,
                   "--out", str(requests)) == 0  # fmt: skip
    lines = [json.loads(t) for t in requests.read_text().splitlines()]
    assert [line["resize"]["sent_size"] for line in lines] == [[1280, 800], [1280, 800]]
    assert all("1280x800 pixels" in line["prompt"] for line in lines)
    assert {line["answer_format"] for line in lines} == {"openai-computer-use:display_height=800,display_width=1280"}


def test_eval_with_the_ui_venus_2_profile_counts_its_refusals_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, published_sample: Path
) -> None:
    """UI-Venus-2 is asked with thinking off (``chat_template_kwargs``, as ui_venus2_gd.py sends) and its prompt's
    ``[-1,-1]`` "infeasible" answer is a refusal: counted apart, a failure on these rows, which all have a target."""
    folder = frame_folder(tmp_path / "data", SIZES[:3], published_sample)
    rows = sorted(read_config(folder, CONFIG), key=lambda r: r["example_id"])

    def reply(asked: Asked) -> str:
        assert asked.body.get("chat_template_kwargs") == {"enable_thinking": False}
        assert "the output should be [-1,-1]." in asked.prompt
        (row,) = [r for r in rows if r["instruction"].removesuffix(".") + ". \n" in asked.prompt]
        if rows.index(row) == 0:
            x0, y0, x1, y1 = target_box(row)
            return "[{},{}]".format(
                round((x0 + x1) / 2 * 1000 / row["width"]), round((y0 + y1) / 2 * 1000 / row["height"])
            )
        return "[-1,-1]"

    out = tmp_path / "run"
    with OpenAIStub(reply) as stub:
        monkeypatch.setenv("STUB_API_KEY", "k")
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        command = ["eval", CONFIG, "--condition", "gui", "--model", "openai-api/stub/stub-vlm", "--data", str(folder)]
        command += ["--profile", "ui-venus-2", "--out", str(out), "--display", "none", "--max-connections", "1"]
        assert main(command) == 0
    assert len(stub.asked) == len(rows) and all(a.image_size is not None for a in stub.asked)
    report = json.loads((out / "scores.json").read_text())
    got = {m["metric"]: m for m in report["metrics"] if m.get("detail") is None and m["config"] == CONFIG}
    assert (got["gui_success"]["count"], got["gui_success"]["n"]) == (1, 3)
    assert (got["refusal_rate"]["count"], got["malformed_rate"]["count"], got["strict_parse_rate"]["count"]) == (
        2,
        0,
        1,
    )
    assert got["gui_success_lenient"]["count"] == 1  # a refusal is never recovered as a point
