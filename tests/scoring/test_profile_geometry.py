"""A profile states the supplied geometry in the frame its model answers in, and the answer is read back from it.

``requests --profile`` for the curated UMD rows under ``localization_only``: the point and box the prompt supplies
are the target's own, restated in the profile's frame (pixels of the image sent, which ``qwen2.5-vl`` resizes to
its ``smart_resize`` frame, larger too in the ``min_pixels`` regime; a 0-1000 grid; 0-1 fractions). A model that
answers that very point and box, in the same frame, is scored on the target's own pixels.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from groundbench.loaders.records import read_config
from groundbench.scoring import score
from tests.conftest import run_cli

STATED = re.compile(r"at point \[([^\]]*)\], inside the box \[([^\]]*)\]")
# The frame each profile's numbers measure, for an image sent at (width, height), and the precision they are
# printed with (pixels: two decimals; the 0-1000 grid: one; fractions: four).
FRAMES = {
    "qwen2.5-vl": (lambda sent: sent, 0.005),
    "qwen2.5-vl:min_pixels=401408": (lambda sent: sent, 0.005),
    "norm1000": (lambda sent: (1000, 1000), 0.05),
    "uground": (lambda sent: (1000, 1000), 0.05),
    "norm1": (lambda sent: (1, 1), 0.00005),
    "aguvis": (lambda sent: (1, 1), 0.00005),
}


def numbers(text: str) -> list[float]:
    return [float(v) for v in text.split(",")]


@pytest.mark.parametrize("spec", sorted(FRAMES))
def test_the_supplied_geometry_is_stated_and_read_in_the_models_frame(
    spec: str, tmp_path: Path, published_sample: Path
) -> None:
    requests = tmp_path / "requests.jsonl"
    command = ["requests", "curated_umd", "--condition", "localization_only", "--data", str(published_sample)]
    assert run_cli(tmp_path, *command, "--profile", spec, "--out", str(requests)) == 0
    rows = {r["example_id"]: r for r in read_config(published_sample, "curated_umd")}
    lines: list[dict[str, Any]] = []
    targets: dict[str, list[float]] = {}
    for request in map(json.loads, requests.read_text().splitlines()):
        row = rows[request["example_id"]]
        w, h = row["width"], row["height"]
        part = next(p for p in row["parts"] if p["part_id"] == row["target_part_id"])
        sent = tuple(request["resize"]["sent_size"]) if "resize" in request else (w, h)
        if spec == "qwen2.5-vl:min_pixels=401408":
            assert sent[0] * sent[1] >= 401408 > w * h  # grown to min_pixels, sent larger than the row
        frame, printed = FRAMES[spec]
        fw, fh = frame(sent)
        found = STATED.search(request["prompt"])
        assert found is not None, request["prompt"]
        point, box = (numbers(group) for group in found.groups())
        x, y = part["point_xy"]
        assert point == pytest.approx([x * fw / w, y * fh / h], abs=printed * 1.001)
        x0, y0, x1, y1 = part["bbox_xyxy"]
        assert box == pytest.approx([x0 * fw / w, y0 * fh / h, x1 * fw / w, y1 * fh / h], abs=printed * 1.001)
        answer = {"part": row["target_part_id"], "action": row["target_action"], "point": point, "box": box}
        line = {"model": "m", "example_id": row["example_id"], "condition": "localization_only"}
        line.update(response=json.dumps(answer), profile=request["profile"], answer_format=request["answer_format"])
        if "resize" in request:
            line["resize"] = request["resize"]
        lines.append(line)
        targets[row["example_id"]] = [x, y]
    assert lines
    report = score(lines, folder=published_sample, resamples=5, subset=True)
    for prediction in report.predictions:
        assert prediction["parse"] == "strict"
        # pixels of the row (uground's mapping truncates to a whole pixel, as its script does)
        near = 1.0 if spec == "uground" else 0.1
        assert prediction["point"] == pytest.approx(targets[prediction["example_id"]], abs=near)
    (region,) = [m for m in report.metrics if m["metric"] == "localization_in_target_region"]
    assert (region["count"], region["n"]) == (len(lines), len(lines))
