"""The GUI generator: byte-deterministic, every target unique and pixel-exact (re-derived here from
the PNGs and the font), and the default build's GUI configs load through ``load_dataset``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import yaml
from datasets import load_dataset
from PIL import Image

from groundbench.converters.gui.params import GuiSampleParams
from groundbench.converters.gui.sample.sheets import COLOURS, STYLES
from groundbench.converters.gui.sample.write import generate
from groundbench.core import fonts
from groundbench.core.manifests import read_manifest
from tests.conftest import REPO, digests, run_cli

PARAMS = GuiSampleParams(examples_per_suite=12, frames=("1024x768", "1920x1080"), screenspot_rows=3, seed=0, workers=1)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "gui"
    generate(out, PARAMS, progress=False)
    return out


def _metadata(root: Path, suite: str) -> list[dict]:
    path = root / "pointerbench" / f"pointerbench-{suite}" / "data" / "test" / "metadata.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_generation_is_byte_deterministic(generated: Path, tmp_path: Path) -> None:
    again = tmp_path / "gui"
    generate(again, PARAMS.model_copy(update={"workers": 2}), progress=False)  # worker count changes nothing
    assert digests(generated, (".",)) == digests(again, (".",))


def test_every_frame_relays_the_same_targets(generated: Path) -> None:
    for suite in ("sheets", "text"):
        rows = _metadata(generated, suite)
        assert len(rows) == 12 * 2
        by_layout: dict[str, list[dict]] = {}
        for row in rows:
            by_layout.setdefault(row["layout_id"], []).append(row)
            with Image.open(
                generated / "pointerbench" / f"pointerbench-{suite}" / "data" / "test" / row["file_name"]
            ) as im:
                assert list(im.size) == row["image_size"] and im.format == "PNG"
        for group in by_layout.values():
            assert sorted(tuple(r["image_size"]) for r in group) == [(1024, 768), (1920, 1080)]
            assert len({r["instruction"] for r in group}) == 1


def _ink(image: np.ndarray, background: tuple[int, int, int]) -> np.ndarray:
    return np.any(image != np.array(background, dtype=image.dtype), axis=-1)


def test_text_targets_are_unique_and_pixel_exact(generated: Path) -> None:
    folder = generated / "pointerbench" / "pointerbench-text" / "data" / "test"
    kinds = set()
    for row in _metadata(generated, "text"):
        kinds.add(row["data_type"])
        render = row["render"]
        font = fonts.font({v: k for k, v in fonts.FAMILIES.items()}[render["font"]], render["size"])
        pixels = np.asarray(Image.open(folder / row["file_name"]).convert("RGB"))
        ink = _ink(pixels, (255, 255, 255))
        x0, y0, x1, y1 = row["bbox"]
        quoted = re.findall(r"'([^']+)'", row["instruction"])
        tokens = [t.lower() for t in render["page_tokens"]]
        if row["data_type"] in ("word", "char", "caret", "punctuation"):
            word = quoted[-1] if row["data_type"] != "punctuation" else quoted[0]
            assert tokens.count(word.lower()) == 1, (row["id"], word)  # unique on the page
        if row["data_type"] == "caret":
            (left, lx, ly), (right, rx, _ry) = render["glyphs"]
            caret = (x0 + x1) / 2
            assert caret == rx and x1 - x0 == 4
            assert lx + font.getbbox(left, anchor="la")[2] - 1 <= caret <= rx + font.getbbox(right, anchor="la")[0] + 1
            assert (y0, y1) == tuple(render["line"])
            continue
        # Re-derive the box from the font's glyph masks at the recorded origins, then compare with the PNG.
        expected = np.zeros_like(ink)
        for char, gx, gy in render["glyphs"]:
            bx0, by0, bx1, by1 = font.getbbox(char, anchor="la")
            mask = np.asarray(font.getmask(char)).reshape(by1 - by0, bx1 - bx0) > 0
            expected[gy + by0 : gy + by1, gx + bx0 : gx + bx1] |= mask
        ys, xs = np.nonzero(expected)
        assert [x0, y0, x1, y1] == [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], row["id"]  # tight ink box
        crop = ink[y0:y1, x0:x1]
        assert np.array_equal(crop, expected[y0:y1, x0:x1]), row["id"]  # only the target's own ink in its box
        assert crop[:, 0].any() and crop[:, -1].any() and crop[0].any() and crop[-1].any()  # tight
    assert {"caret", "word"} <= kinds


def test_sheet_targets_sit_on_the_grid(generated: Path) -> None:
    folder = generated / "pointerbench" / "pointerbench-sheets" / "data" / "test"
    for row in _metadata(generated, "sheets"):
        style = STYLES[row["ui_style"]]
        pixels = np.asarray(Image.open(folder / row["file_name"]).convert("RGB"))
        render = row["render"]
        grid = render["grid"]
        x0, y0, x1, y1 = row["bbox"]
        near_selection = (
            max(abs(render["cell"][0] - render["selected"][0]), abs(render["cell"][1] - render["selected"][1])) <= 1
        )

        def colour(x: int, y: int, pixels: np.ndarray = pixels) -> tuple[int, ...]:
            return tuple(int(v) for v in pixels[y, x])

        if row["category"] in ("cell", "colored_cell", "relative_reference") and not near_selection:
            ym, xm = (y0 + y1) // 2, (x0 + x1) // 2
            for x, y in ((x0, ym), (x1, ym), (xm, y0), (xm, y1)):
                assert colour(x, y) == style["grid"], (row["id"], x, y)  # the box's sides are grid lines
            assert colour(x0 + 1, ym) != style["grid"] and colour(x1 - 1, ym) != style["grid"]
            assert (x0 - grid["gx"]) % grid["cw"] == 0 and (y0 - grid["gy"]) % grid["rh"] == 0
        if row["category"] == "colored_cell":
            name = re.search(r"the (\w+) cell", row["instruction"]).group(1)
            assert colour(x0 + 2, y0 + 2) == COLOURS[name]
            cells = [(c, r) for c in range(grid["cols"]) for r in range(grid["rows"])]
            same = [
                p
                for p in cells
                if colour(grid["gx"] + p[0] * grid["cw"] + 2, grid["gy"] + p[1] * grid["rh"] + 2) == COLOURS[name]
            ]
            assert len(same) == 1, row["id"]  # the colour names one cell on the screen
        if row["data_type"] in ("edge", "corner") and not near_selection:
            assert (x1 - x0) in (5, grid["cw"]) and (y1 - y0) in (5, grid["rh"])
            cx, cy = (x0 + x1 - 1) // 2, (y0 + y1 - 1) // 2
            vertical = x1 - x0 == 5
            line = (
                (cx, (y0 + y1) // 2) if vertical and y1 - y0 > 5 else ((x0 + x1) // 2, cy) if not vertical else (cx, cy)
            )
            assert colour(*line) == style["grid"], row["id"]  # centred on a grid line
        if row["category"] == "fill_handle":
            assert all(colour(x, y) == style["sel"] for x in range(x0, x1) for y in range(y0, y1))
        assert 0 <= x0 < x1 <= row["image_size"][0] and 0 <= y0 < y1 <= row["image_size"][1]
        assert len({c["id"] for c in row["candidates"]}) == len(row["candidates"]) >= 2


def test_default_build_loads_every_generated_config(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sample"]["gui"].update(examples_per_suite=6, screenspot_rows=2, workers=1)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    assert run_cli(root, "generate-gui", "--quiet") == 0
    for source in ("pointerbench", "screenspot", "screenspot_v2", "screenspot_pro"):
        assert run_cli(root, "convert", source, "--quiet") == 0
    configs = ["gui_sheets", "gui_text", "gui_pro", "gui_screenspot", "gui_screenspot_v2", "gui_screenspot_pro"]
    assert run_cli(root, "bake", *configs) == 0
    assert run_cli(root, "assemble") == 0
    assert (root / "data" / "shards" / "gui_pro" / "ABSENT").is_file()
    for config, rows in (
        ("gui_sheets", 24),
        ("gui_text", 24),
        ("gui_screenspot", 4),
        ("gui_screenspot_v2", 4),
        ("gui_screenspot_pro", 4),
    ):
        ds = load_dataset(str(root / "data" / "groundbench"), config, split="test")
        assert len(ds) == rows
        row = ds[0]
        assert row["source"] == "groundbench_gui" and row["stratum"] == "suite" and row["conditions"] == []
        assert row["extras"]["gui"]["frame_width"] == row["width"] == row["image"].size[0]
        manifest = read_manifest(root / "data" / "manifests" / f"{config}.jsonl")
        assert len(manifest) == len({r for r in ds["image_sha256"]})  # each screenshot listed once
    assert run_cli(root, "summary") == 0
