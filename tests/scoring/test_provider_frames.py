"""Hosted APIs' documented image limits (``pixels:provider=...``): the frame an API feeds its model unchanged.

Each fit is checked against the worked examples of the provider's own page, never enlarges, stays inside the
limits and changes nothing the second time (an image sent at the fitted size arrives as sent); then
``eval --profile pixels:provider=openai`` against the loopback server: the image reaches it at that size, the
server answers in pixels of what it received, and every hit is scored as a hit in the row's own frame.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from groundbench.cli import main
from groundbench.loaders.records import read_config
from groundbench.scoring.formats import parse_format, providers
from groundbench.scoring.profiles import parse_profile
from tests.support.frames import CONFIG, frame_folder, target_box
from tests.support.openai_stub import Asked, OpenAIStub

SIZES = [(6016, 3384), (5120, 2880), (3840, 2160), (2560, 1440), (1920, 1080), (1080, 2400), (800, 600), (37, 4000)]


def within(name: str, size: tuple[int, int]) -> bool:
    width, height = size
    if name == providers.ANTHROPIC:
        return max(size) <= providers.ANTHROPIC_SIDE and width * height <= providers.ANTHROPIC_PIXELS
    if name == providers.OPENAI:
        return max(size) <= providers.OPENAI_SQUARE and min(size) <= providers.OPENAI_SHORT
    if name == providers.OPENAI_PATCHES:
        return math.ceil(width / providers.PATCH) * math.ceil(height / providers.PATCH) <= providers.PATCHES
    return True


@pytest.mark.parametrize("name", sorted(providers.FIT))
@pytest.mark.parametrize("size", SIZES)
def test_a_fit_shrinks_into_the_limits_once(name: str, size: tuple[int, int]) -> None:
    fitted = providers.FIT[name](*size)
    assert within(name, fitted)
    assert fitted[0] <= size[0] and fitted[1] <= size[1]
    assert providers.FIT[name](*fitted) == fitted  # sent at this size, it is fed to the model as sent
    if within(name, size):
        assert fitted == size
    else:  # the aspect ratio is kept to within a pixel's rounding
        assert abs(fitted[0] / fitted[1] - size[0] / size[1]) <= size[0] / size[1] * (1 / min(fitted) + 1e-9) * 2


def test_the_providers_worked_examples() -> None:
    # platform.openai.com/docs/guides/images-vision: a 2048 x 4096 image at detail high is scaled to 1024 x 2048,
    # then to 768 x 1536; 1024 x 1024 to 768 x 768; a 1800 x 2400 image on the patch models to 1056 x 1408
    # (1452 patches); 1024 x 1024 stays (1024 patches).
    assert providers.openai(2048, 4096) == (768, 1536)
    assert providers.openai(1024, 1024) == (768, 768)
    assert providers.openai_patches(1800, 2400) == (1056, 1408)
    assert providers.openai_patches(1024, 1024) == (1024, 1024)
    # docs.anthropic.com/en/docs/build-with-claude/vision: within 1568 px on both sides and 1.15 megapixels
    assert providers.anthropic(1000, 1000) == (1000, 1000)
    assert max(providers.anthropic(6016, 3384)) <= 1568


def test_the_spec_names_the_provider_and_the_default_says_nothing() -> None:
    assert parse_format("pixels:provider=none").spec == "pixels"
    assert parse_format("pixels:provider=anthropic").spec == "pixels:provider=anthropic"
    profile = parse_profile("pixels:provider=openai")
    assert profile.style.resized and profile.sent_size(1920, 1080) == (1365, 768)
    assert not parse_profile("pixels").style.resized


@pytest.fixture(autouse=True)
def _inspect_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def test_eval_with_a_provider_profile_sends_within_its_limits_and_maps_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, published_sample: Path
) -> None:
    folder = frame_folder(tmp_path / "data", SIZES[:6], published_sample)
    rows = {r["instruction"]: r for r in read_config(folder, CONFIG)}
    assert len(rows) == 6

    def reply(asked: Asked) -> str:  # the target's centre in pixels of the image the server received
        assert asked.image_size is not None
        row = next(r for text, r in rows.items() if text in asked.prompt)
        x0, y0, x1, y1 = target_box(row)
        sx, sy = asked.image_size[0] / row["width"], asked.image_size[1] / row["height"]
        return json.dumps({"point": [(x0 + x1) / 2 * sx, (y0 + y1) / 2 * sy]})

    out = tmp_path / "run"
    with OpenAIStub(reply) as stub:
        monkeypatch.setenv("STUB_API_KEY", "k")
        monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
        command = ["eval", CONFIG, "--condition", "gui", "--model", "openai-api/stub/gpt-4.1", "--data", str(folder)]
        command += ["--profile", "pixels:provider=openai", "--out", str(out), "--display", "none"]
        assert main(command) == 0
    for asked in stub.asked:
        assert asked.image_size is not None and within(providers.OPENAI, asked.image_size)
    lines = [json.loads(t) for t in (out / "predictions.jsonl").read_text().splitlines()]
    assert {line["answer_format"] for line in lines} == {"pixels:provider=openai"}
    for line in lines:
        width, height = line["resize"]["row_size"]
        assert tuple(line["resize"]["sent_size"]) == providers.openai(width, height)
    report = json.loads((out / "scores.json").read_text())
    headline = next(m for m in report["metrics"] if m["metric"] == "gui_success" and m["config"] == CONFIG)
    assert (headline["count"], headline["n"]) == (6, 6)
