"""The embedded UMD sample: a small tree in the release's exact on-disk format, made deterministically.

Synthetic tools drawn with OpenCV (the real frames have no licence to redistribute): RGB JPEG,
16-bit depth PNG in millimetres, ``_label.mat`` with a uint8 ``gt_label`` (some with ``gt_type``),
``_label_rank.mat`` (H, W, 7) and the four split files, all under ``part-affordance-dataset/``.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
import scipy.io

from groundbench.converters.umd.vocab import UMD_CATEGORIES
from groundbench.core import exact
from groundbench.core.atomic import atomic_dir

if TYPE_CHECKING:
    from groundbench.core.params import Params

HEIGHT, WIDTH = 480, 640
MAT_HEADER = b"MATLAB 5.0 MAT-file, written by the GroundBench UMD sample (deterministic header)"

GRASP, CUT, SCOOP, CONTAIN, POUND, SUPPORT, WRAP = 1, 2, 3, 4, 5, 6, 7

# Lower-ranked affordances per most-likely label, as in the release.
SECONDARY = {
    GRASP: {POUND: 2},
    CUT: {SUPPORT: 2, SCOOP: 3},
    SCOOP: {CONTAIN: 2, SUPPORT: 3},
    CONTAIN: {SCOOP: 2},
    POUND: {GRASP: 2},
    SUPPORT: {SCOOP: 2},
    WRAP: {GRASP: 2},
}


@dataclass(frozen=True)
class Shape:
    label: int
    kind: str  # "rect" or "ellipse"
    centre: tuple[float, float]  # relative to the tool centre, pixels
    size: tuple[float, float]  # rect: width, height; ellipse: axes
    hidden_from: int = 0  # frames >= this (1-based) do not show the shape; 0 = always shown


@dataclass(frozen=True)
class SampleTool:
    name: str
    shapes: tuple[Shape, ...]
    with_gt_type: bool
    category_split: int
    novel_split: int
    folds: tuple[int, ...]  # folds (1..10) that hold the tool out, as category_10_fold.txt's columns count


SAMPLE_TOOLS: tuple[SampleTool, ...] = (
    SampleTool("bowl_01", (Shape(CONTAIN, "ellipse", (0, 0), (110, 70)),), False, 1, 1, (3,)),
    SampleTool(
        "hammer_01",
        (Shape(GRASP, "rect", (-60, 0), (170, 26)), Shape(POUND, "rect", (45, 0), (40, 95))),
        True,
        1,
        1,
        (1,),
    ),
    SampleTool(
        "knife_01",
        (Shape(GRASP, "rect", (-80, 0), (110, 24)), Shape(CUT, "rect", (60, 0), (170, 30))),
        True,
        2,
        1,
        (2, 5),
    ),
    SampleTool(
        "mug_01",
        (
            Shape(WRAP, "rect", (0, 0), (120, 150)),
            Shape(CONTAIN, "ellipse", (0, -50), (48, 18)),
            Shape(GRASP, "rect", (80, 0), (40, 80), hidden_from=5),
        ),
        True,
        2,
        1,
        (4,),
    ),
    SampleTool(
        "spoon_01",
        (Shape(GRASP, "rect", (-50, 0), (150, 16)), Shape(SCOOP, "ellipse", (60, 0), (40, 26))),
        False,
        1,
        1,
        (),
    ),
    SampleTool(
        "turner_01",
        (Shape(GRASP, "rect", (-70, 0), (140, 20)), Shape(SUPPORT, "rect", (60, 0), (100, 70))),
        False,
        2,
        2,
        (6,),
    ),
)

COLOURS = {
    0: (40, 40, 40),
    GRASP: (30, 60, 160),
    CUT: (200, 200, 210),
    SCOOP: (170, 170, 180),
    CONTAIN: (60, 140, 200),
    POUND: (90, 90, 100),
    SUPPORT: (150, 150, 150),
    WRAP: (50, 120, 180),
}


def _rotate(points: np.ndarray, angle: float) -> np.ndarray:
    s, c = exact.sin_cos(angle)  # neither libm nor BLAS: the same bits on every CPU (groundbench/core/exact.py)
    return exact.matmul(points, np.array([[c, s], [-s, c]]))


def draw_labels(tool: SampleTool, frame: int) -> np.ndarray:
    """The frame's label map: shapes drawn in order, later ones on top; the tool turns and drifts."""
    labels = np.zeros((HEIGHT, WIDTH), np.uint8)
    angle = math.radians(12 * (frame - 1))
    centre = np.array([WIDTH / 2 - 30 + 10 * frame, HEIGHT / 2 + 6 * (frame % 3)])
    for shape in tool.shapes:
        if shape.hidden_from and frame >= shape.hidden_from:
            continue
        offset = _rotate(np.array([shape.centre], np.float64), angle)[0] + centre
        w, h = shape.size
        if shape.kind == "rect":
            corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
            polygon = np.round(_rotate(corners, angle) + offset).astype(np.int32)
            cv2.fillPoly(labels, [polygon], int(shape.label))
        else:
            cv2.ellipse(
                labels,
                (int(round(offset[0])), int(round(offset[1]))),
                (int(w), int(h)),
                math.degrees(angle),
                0,
                360,
                int(shape.label),
                thickness=-1,
            )
    return labels


def _rgb(labels: np.ndarray, seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    image = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    for label, colour in COLOURS.items():
        image[labels == label] = colour
    noise = rng.integers(-12, 13, size=image.shape, dtype=np.int16)
    image = np.clip(image.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return encoded.tobytes()


def _depth(labels: np.ndarray) -> bytes:
    depth = np.where(labels > 0, 700 + labels.astype(np.uint16) * 5, 0).astype(np.uint16)
    ok, encoded = cv2.imencode(".png", depth, [cv2.IMWRITE_PNG_COMPRESSION, 6])
    assert ok
    return encoded.tobytes()


def _ranks(labels: np.ndarray) -> np.ndarray:
    ranks = np.zeros((HEIGHT, WIDTH, 7), np.uint8)
    foreground = labels > 0
    ranks[foreground] = 9
    for label, secondary in SECONDARY.items():
        mask = labels == label
        ranks[mask, label - 1] = 1
        for other, rank in secondary.items():
            ranks[mask, other - 1] = rank
    return ranks


def mat_bytes(variables: dict[str, object]) -> bytes:
    """``savemat`` output with the creation timestamp replaced, so the bytes are reproducible."""
    buffer = io.BytesIO()
    scipy.io.savemat(buffer, variables, do_compression=True, oned_as="column")
    data = buffer.getvalue()
    return MAT_HEADER.ljust(116, b" ") + data[116:]


def _split_files(tools: tuple[SampleTool, ...]) -> dict[str, str]:
    def fold_bits(tool: SampleTool) -> str:
        return " ".join("1" if i in tool.folds else "0" for i in range(1, 11))

    return {
        "category_split.txt": "".join(f"{t.category_split} {t.name}\n" for t in tools),
        "novel_split.txt": "".join(f"{t.novel_split} {t.name}\n" for t in tools),
        "tool_categories.txt": "".join(f"{UMD_CATEGORIES[t.name.split('_')[0]]} {t.name}\n" for t in tools),
        "category_10_fold.txt": "".join(f"folds: {fold_bits(t)}    object: {t.name}\n" for t in tools),
    }


def write_sample(out: Path, frames_per_tool: int = 6, seed: int = 0) -> int:
    """Write the sample tree into ``out`` (replaced atomically); returns the number of frames."""
    count = 0
    with atomic_dir(out) as tmp:
        base = tmp / "part-affordance-dataset"
        tools_dir = base / "tools"
        tools_dir.mkdir(parents=True)
        (base / "README.txt").write_text(
            "GroundBench embedded sample in the UMD Part Affordance dataset layout.\n"
            "Synthetic frames; label ids 1 grasp, 2 cut, 3 scoop, 4 contain, 5 pound, 6 support, 7 wrap-grasp.\n"
        )
        for name, text in _split_files(SAMPLE_TOOLS).items():
            (base / name).write_text(text)
        for tool_number, tool in enumerate(SAMPLE_TOOLS):
            folder = tools_dir / tool.name
            folder.mkdir()
            for frame in range(1, frames_per_tool + 1):
                labels = draw_labels(tool, frame)
                stem = folder / f"{tool.name}_{frame:08d}"
                Path(f"{stem}_rgb.jpg").write_bytes(_rgb(labels, seed * 1000 + tool_number * 100 + frame))
                Path(f"{stem}_depth.png").write_bytes(_depth(labels))
                variables: dict[str, object] = {"gt_label": labels}
                if tool.with_gt_type:
                    variables["gt_type"] = "manual" if frame % 3 == 1 else "automatic"
                Path(f"{stem}_label.mat").write_bytes(mat_bytes(variables))
                Path(f"{stem}_label_rank.mat").write_bytes(mat_bytes({"gt_label": _ranks(labels)}))
                count += 1
    return count


def write(root: Path, params: Params, progress: bool = False) -> int:
    """The uniform sample writer (spec.py names it): <root>/<sample.root>/umd/; returns the frames written."""
    knobs = params.sample.umd
    return write_sample(root / params.sample.root / "umd", knobs.frames_per_tool, knobs.seed)
