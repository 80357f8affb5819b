"""``eval --profile qwen2.5-vl`` against a loopback OpenAI-compatible server answering in Qwen's tool-call syntax.

The server (tests/support/openai_stub.py) checks what a Qwen2.5-VL deployment would see: the image already at its
``smart_resize`` size and the system prompt stating that size, and answers in the frame it was sent, as the
model does. The rows are in the sources' frame sizes (``tests/support/frames.py``), the 6016x3384 and 5120x2880 ones in
the ``max_pixels`` regime. The expected hits are counted here as ScreenSpot-Pro's Qwen2.5-VL adapter counts:
the tool call's coordinate divided by the resized frame, against the target box divided by the image.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from groundbench.cli import main
from groundbench.loaders.records import read_config
from groundbench.scoring.formats.resize import smart_resize
from tests.conftest import run_cli
from tests.support.frames import CONFIG, frame_folder, target_box
from tests.support.openai_stub import Asked, OpenAIStub

SIZES = [(6016, 3384), (5120, 2880), (3840, 2160), (2560, 1440), (1920, 1080), (3840, 1080), (2880, 1800), (1080, 2400)]
RESOLUTION = re.compile(r"The screen's resolution is (\d+)x(\d+)\.")


def tool_call(x: float, y: float) -> str:
    return (
        "<tool_call>\n"
        + json.dumps({"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [x, y]}})
        + "\n</tool_call>"
    )


# What the stub answers, by the row's position: the target's centre, a far corner, and two malformed variants.
KINDS = ("hit", "hit", "miss", "arguments as a list", "truncated")


def answer(kind: str, row: dict[str, Any], sent: tuple[int, int]) -> str:
    x0, y0, x1, y1 = target_box(row)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    x, y = round(cx * sent[0] / row["width"]), round(cy * sent[1] / row["height"])
    if kind == "miss":
        x, y = (sent[0] - 1, sent[1] - 1) if cx < row["width"] / 2 else (0, 0)
    if kind == "arguments as a list":
        return "<tool_call>\n" + json.dumps({"name": "left_click", "arguments": [x, y]}) + "\n</tool_call>"
    if kind == "truncated":
        return tool_call(x, y)[:-30]
    return tool_call(x, y)


def adapter_hit(row: dict[str, Any], response: str, sent: tuple[int, int]) -> bool:
    text = response[: response.rfind("}") + 1]
    try:
        coordinate = json.loads(text.split("<tool_call>\n")[1].split("\n</tool_call>")[0])["arguments"]["coordinate"]
        px, py = coordinate[0] / sent[0], coordinate[1] / sent[1]
    except (IndexError, KeyError, TypeError, ValueError):
        return False
    x0, y0, x1, y1 = target_box(row)
    return x0 / row["width"] <= px <= x1 / row["width"] and y0 / row["height"] <= py <= y1 / row["height"]


def test_eval_with_the_qwen_profile_scores_as_the_official_adapter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, published_sample: Path
) -> None:
    folder = frame_folder(tmp_path / "data", SIZES, published_sample)
    rows = sorted(read_config(folder, CONFIG), key=lambda r: r["example_id"])
    by_ask = {(r["instruction"], smart_resize(r["height"], r["width"])[::-1]): r for r in rows}
    assert len(by_ask) == len(rows)
    replies: dict[str, tuple[str, tuple[int, int]]] = {}

    def reply(asked: Asked) -> str:
        assert asked.system is not None and asked.image_size is not None
        stated = tuple(int(v) for v in RESOLUTION.search(asked.system).groups())  # type: ignore[union-attr]
        assert stated == asked.image_size  # the prompt states the frame the image was sent in
        row = by_ask[(asked.prompt, asked.image_size)]
        kind = KINDS[rows.index(row) % len(KINDS)]
        replies[row["example_id"]] = (answer(kind, row, asked.image_size), asked.image_size)
        return replies[row["example_id"]][0]

    out = tmp_path / "run"
    with OpenAIStub(reply) as stub:
        monkeypatch.setenv("STUB_API_KEY", "k")
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        command = ["eval", CONFIG, "--condition", "gui", "--model", "openai-api/stub/stub-vlm", "--data", str(folder)]
        command += ["--profile", "qwen2.5-vl", "--out", str(out), "--display", "none", "--max-connections", "1"]
        assert main(command) == 0
    assert len(stub.asked) == len(rows)
    for asked in stub.asked:  # the image reached the server at the processor's own size: it resizes nothing more
        width, height = asked.image_size or (0, 0)
        assert smart_resize(height, width) == (height, width)
    sizes = {r["example_id"]: smart_resize(r["height"], r["width"])[::-1] for r in rows}
    assert sizes[f"{CONFIG}/frame_000"] == (4760, 2688)  # 6016x3384: the max_pixels regime

    lines = [json.loads(t) for t in (out / "predictions.jsonl").read_text().splitlines()]
    for line in lines:
        assert line["profile"] == line["answer_format"] == "qwen2.5-vl"
        assert line["response"] == replies[line["example_id"]][0] and "parsed" not in line
        assert tuple(line["resize"]["sent_size"]) == sizes[line["example_id"]]
    run = json.loads((out / "run.json").read_text())
    assert run["profile"] == "qwen2.5-vl"

    report = json.loads((out / "scores.json").read_text())
    headline = next(m for m in report["metrics"] if m["metric"] == "gui_success" and m["config"] == CONFIG)
    expected = sum(adapter_hit(r, *replies[r["example_id"]]) for r in rows)
    assert expected == sum(KINDS[i % len(KINDS)] == "hit" for i in range(len(rows)))
    assert (headline["count"], headline["n"]) == (expected, len(rows))
    strict = next(m for m in report["metrics"] if m["metric"] == "strict_parse_rate")
    assert strict["count"] == sum(KINDS[i % len(KINDS)] in ("hit", "miss") for i in range(len(rows)))
    assert report["profiles"] == {"openai-api/stub/stub-vlm": "qwen2.5-vl"}
    assert report["answer_formats"]["openai-api/stub/stub-vlm"]["spec"] == "qwen2.5-vl"
    assert headline["answer_format"] == "qwen2.5-vl"

    # `groundbench score` on the same file says the same; `requests --profile` asks what the server was asked
    assert (
        run_cli(
            tmp_path, "score", str(out / "predictions.jsonl"), "--data", str(folder), "--json", str(tmp_path / "s.json")
        )
        == 0
    )
    assert json.loads((tmp_path / "s.json").read_text())["metrics"] == report["metrics"]
    requests = tmp_path / "requests.jsonl"
    images = tmp_path / "images"
    assert run_cli(tmp_path, "requests", CONFIG, "--condition", "gui", "--data", str(folder), "--profile", "qwen2.5-vl",
                   "--out", str(requests), "--images", str(images)) == 0  # fmt: skip
    sent = {(a.system, a.prompt, a.image_size) for a in stub.asked}
    from PIL import Image

    for line in map(json.loads, requests.read_text().splitlines()):
        with Image.open(line["image"]["path"]) as image:
            assert (line["system"], line["prompt"], image.size) in sent
        assert line["template_sha256"] == lines[0]["template_sha256"] and line["profile"] == "qwen2.5-vl"


def test_a_profile_that_resizes_refuses_max_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], published_sample: Path
) -> None:
    folder = frame_folder(tmp_path / "data", SIZES[:1], published_sample)
    command = ["eval", CONFIG, "--condition", "gui", "--model", "mockllm/model", "--data", str(folder)]
    assert main([*command, "--profile", "qwen2.5-vl", "--max-side", "1000", "--out", str(tmp_path / "r")]) == 2
    assert "profile qwen2.5-vl sends the image in its own frame; drop --max-side" in capsys.readouterr().err


def test_profiles_lists_every_profile_with_its_prompt_and_frame(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["profiles"]) == 0
    text = capsys.readouterr().out
    for name, fmt in (("qwen2.5-vl", "pixels (resized"), ("uground", "0-1000 (sent"), ("aguvis", "0-1 (sent")):
        assert f"{name}: answer format {name}; frame {fmt}" in text
    assert "pyautogui.click" in text and "<tool_call>" in text and "(with bbox)" in text
    # The box-token families ask the server to keep their special tokens; Holo1.5 decodes under its click schema and
    # UI-Venus-2 turns thinking off, as their adapters do; the others add nothing to a request.
    assert text.count('request body: {"skip_special_tokens": false}') == 3  # qwen2-vl, os-atlas, glm-v
    assert text.count("request body: ") == 5
    assert 'request body: {"chat_template_kwargs": {"enable_thinking": false}}' in text and '"guided_json"' in text
    for name, fmt in (("claude-computer-use", "pixels (resized"), ("kimi-vl", "0-1 (sent"), ("glm-v", "0-1000 (sent")):
        assert f"{name}: answer format {name}; frame {fmt}" in text


def test_a_profiled_run_resumes_under_its_own_template_hash(tmp_path: Path, published_sample: Path) -> None:
    """The second command finds every answer of the first (gated to the profile's templates) and asks nothing."""
    folder = frame_folder(tmp_path / "data", SIZES[:2], published_sample)
    command = ["eval", CONFIG, "--condition", "gui", "--model", "mockllm/model", "--data", str(folder)]
    command += ["--profile", "qwen2.5-vl", "--display", "none", "--out", str(tmp_path / "run")]
    assert main(command) == 0
    first = (tmp_path / "run" / "predictions.jsonl").read_text()
    assert main(command) == 0
    assert (tmp_path / "run" / "predictions.jsonl").read_text() == first
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["profile"] == "qwen2.5-vl"


def test_eval_with_the_os_atlas_profile_keeps_the_box_tokens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, published_sample: Path
) -> None:
    """OS-Atlas answers in box tokens, which an OpenAI-compatible server strips unless asked not to: the profile
    asks (``skip_special_tokens: false``, as ScreenSpot-Pro's OS-Atlas vLLM adapter does), and the answers are
    counted as its osatlas7b.py adapter counts them (the first box, every coordinate inside (0, 1000), its centre)."""
    folder = frame_folder(tmp_path / "data", SIZES[:6], published_sample)
    rows = sorted(read_config(folder, CONFIG), key=lambda r: r["example_id"])
    kinds = ("hit", "edge", "repeated tokens")

    def box_tokens(row: dict[str, Any], kind: str) -> str:
        if kind == "repeated tokens":
            return "<|box_start|>" * 40 + "<|box_end|>"
        x0, y0, x1, y1 = target_box(row)
        w, h = row["width"], row["height"]
        box = [-(-x0 * 1000 // w), -(-y0 * 1000 // h), x1 * 1000 // w, y1 * 1000 // h]  # inside the target
        if kind == "edge":
            box[0] = 0  # a coordinate on the grid's edge: the adapter keeps only boxes inside (0, 1000)
        return "<|object_ref_start|>the target<|object_ref_end|><|box_start|>({},{}),({},{})<|box_end|>".format(
            *(int(v) for v in box)
        )

    replies: dict[str, str] = {}

    def reply(asked: Asked) -> str:
        assert asked.body.get("skip_special_tokens") is False
        sent = asked.image_size
        (row,) = [r for r in rows if f'"{r["instruction"]}"' in asked.prompt and sent == (r["width"], r["height"])]
        replies[row["example_id"]] = box_tokens(row, kinds[rows.index(row) % len(kinds)])
        return replies[row["example_id"]]

    out = tmp_path / "run"
    with OpenAIStub(reply) as stub:
        monkeypatch.setenv("STUB_API_KEY", "k")
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        command = ["eval", CONFIG, "--condition", "gui", "--model", "openai-api/stub/stub-vlm", "--data", str(folder)]
        command += ["--profile", "os-atlas", "--out", str(out), "--display", "none", "--max-connections", "1"]
        assert main(command) == 0
    assert len(stub.asked) == len(rows)
    report = json.loads((out / "scores.json").read_text())
    headline = next(m for m in report["metrics"] if m["metric"] == "gui_success" and m["config"] == CONFIG)
    hits = sum(kinds[i % len(kinds)] == "hit" for i in range(len(rows)))
    assert (headline["count"], headline["n"], headline["answer_format"]) == (hits, len(rows), "os-atlas")
    strict = next(m for m in report["metrics"] if m["metric"] == "strict_parse_rate")
    assert strict["count"] == hits  # the edge box and the repeated tokens are the adapter's wrong_format

    requests = tmp_path / "requests.jsonl"
    assert run_cli(tmp_path, "requests", CONFIG, "--condition", "gui", "--data", str(folder), "--profile", "os-atlas",
                   "--out", str(requests)) == 0  # fmt: skip
    lines = [json.loads(t) for t in requests.read_text().splitlines()]
    assert lines and all(line["request_body"] == {"skip_special_tokens": False} for line in lines)


def test_the_uground_prompt_is_its_serve_scripts_text() -> None:
    """UGround-V1's reported scores come from grounding/uground_qwen2vl_serve.py, whose prompt keeps a blank line
    after the task, around the description and before ``Answer:`` (its leading newline aside, word for word)."""
    from groundbench.scoring.profiles import parse_profile

    row = {"instruction": "the search box", "width": 1920, "height": 1080, "parts": []}
    system, text = parse_profile("uground").prompt(row, "gui")
    assert system is None
    assert text == (
        "Your task is to help the user identify the precise coordinates (x, y) of a specific area/element/object on "
        "the screen based on a description.\n\n"
        "- Your response should aim to point to the center or a representative point within the described "
        "area/element/object as accurately as possible.\n"
        "- If the description is unclear or ambiguous, infer the most relevant area or element based on its likely "
        "context or purpose.\n"
        "- Your answer should be a single string (x, y) corresponding to the point of the interest.\n\n"
        "Description: the search box\n\nAnswer:"
    )


def test_eval_with_the_robopoint_profile_scores_as_where2place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, published_sample: Path
) -> None:
    """RoboPoint asked on object-part rows through a loopback server: the prompt ends in its documented answer
    block (a list of 0-1 tuples), the image is sent as it is, and the answers (several points, a box, a far
    point, a refusal) are scored as point-only answers: the headline reads the first point; beside it, the mean
    of points inside the target's mask equals RoboPoint's summarize_vqa.py restated on each row's decoded mask."""
    from tests.scoring.test_pointing_formats import robopoint_answers, where2place

    config, condition = "curated_umd", "part_named"
    rows = sorted(
        (r for r in read_config(published_sample, config) if condition in (r.get("conditions") or [])),
        key=lambda r: r["example_id"],
    )
    replies: dict[str, str] = {}

    def reply(asked: Asked) -> str:
        assert "formatted as a list of tuples, i.e. [(x1, y1), (x2, y2), ...]" in asked.prompt
        assert "The coordinates should be between 0 and 1" in asked.prompt
        (row,) = [
            r for r in rows if r["image_sha256"] == asked.image_sha256 and f'"{r["target_part_id"]}"' in asked.prompt
        ]
        assert asked.image_size == (row["width"], row["height"])  # sent as it is: RoboPoint's frame is the image
        replies[row["example_id"]] = robopoint_answers(row)[rows.index(row) % 5]
        return replies[row["example_id"]]

    out = tmp_path / "run"
    with OpenAIStub(reply) as stub:
        monkeypatch.setenv("STUB_API_KEY", "k")
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        command = ["eval", config, "--condition", condition, "--model", "openai-api/stub/stub-vlm"]
        command += ["--data", str(published_sample), "--profile", "robopoint", "--out", str(out)]
        assert main([*command, "--display", "none", "--max-connections", "1"]) == 0
    assert len(stub.asked) == len(rows) == len(replies)
    report = json.loads((out / "scores.json").read_text())
    metrics = {m["metric"]: m for m in report["metrics"] if m["condition"] == condition}
    assert metrics["point_only_rate"]["count"] == sum(i % 5 != 4 for i in range(len(rows)))
    assert metrics["action_accuracy"]["count"] == 0
    expected = [where2place(r, replies[r["example_id"]]) for r in rows]
    assert metrics["point_in_mask_mean_of_points"]["value"] == pytest.approx(sum(expected) / len(expected))
    assert metrics["localization_in_target_region"]["count"] == sum(i % 5 in (0, 1, 2) for i in range(len(rows)))
    assert report["profiles"] == {"openai-api/stub/stub-vlm": "robopoint"}
    assert metrics["point_only_rate"]["answer_format"] == "robopoint"
    # `requests --profile robopoint` writes what the server was asked, under the same template hash
    lines = [json.loads(t) for t in (out / "predictions.jsonl").read_text().splitlines()]
    requests = tmp_path / "requests.jsonl"
    asks = ["requests", config, "--condition", condition, "--data", str(published_sample), "--profile", "robopoint"]
    assert run_cli(tmp_path, *asks, "--out", str(requests), "--images", str(tmp_path / "images")) == 0
    asked = {(a.prompt, a.image_sha256) for a in stub.asked}
    for line in map(json.loads, requests.read_text().splitlines()):
        assert (line["prompt"], line["image"]["sha256"]) in asked and line["answer_format"] == "robopoint"
        assert line["template_sha256"] == lines[0]["template_sha256"]


def test_requests_under_a_resizing_profile_describe_the_image_they_name(tmp_path: Path, published_sample: Path) -> None:
    """``requests --profile qwen2.5-vl --images``: the line's ``image`` (sha256, width, height) is the file its
    ``path`` names, the resized PNG, so a harness that trusts the fields records what it sent; the row's image
    stays named as ``image_sha256``, which the gate checks when a prediction line copies the request's fields."""
    import hashlib

    from PIL import Image

    folder = frame_folder(
        tmp_path / "data", [(2560, 1440), (1792, 1008)], published_sample
    )  # 1792x1008: 28-aligned, sent as it is
    rows = {r["example_id"]: r for r in read_config(folder, CONFIG)}
    requests, images = tmp_path / "requests.jsonl", tmp_path / "images"
    assert run_cli(tmp_path, "requests", CONFIG, "--condition", "gui", "--data", str(folder), "--profile", "qwen2.5-vl",
                   "--out", str(requests), "--images", str(images)) == 0  # fmt: skip
    lines = [json.loads(t) for t in requests.read_text().splitlines()]
    resized = [line for line in lines if "resize" in line]
    assert [tuple(line["resize"]["row_size"]) for line in resized] == [(2560, 1440)]
    for line in lines:
        image, row = line["image"], rows[line["example_id"]]
        data = Path(image["path"]).read_bytes()
        with Image.open(Path(image["path"])) as opened:
            assert (image["width"], image["height"]) == opened.size
        assert image["sha256"] == hashlib.sha256(data).hexdigest()
        assert line.get("image_sha256", image["sha256"]) == row["image_sha256"]
    (line,) = resized
    assert (line["image"]["width"], line["image"]["height"]) == tuple(line["resize"]["sent_size"]) != (2560, 1440)
    assert line["image"]["sha256"] != line["image_sha256"]
    # A harness copies the request's fields onto its prediction lines: the gate checks the row's image and passes.
    predictions = tmp_path / "predictions.jsonl"
    keep = ("example_id", "config", "condition", "image", "image_sha256", "dataset_version", "manifest_sha256",
            "template_sha256", "profile", "answer_format", "resize")  # fmt: skip
    predicted = [{**{k: v for k, v in x.items() if k in keep}, "model": "m", "response": "(1, 2)"} for x in lines]
    predictions.write_text("".join(json.dumps(p) + "\n" for p in predicted))
    out = tmp_path / "scores.json"
    assert run_cli(tmp_path, "score", str(predictions), "--data", str(folder), "--json", str(out)) == 0
