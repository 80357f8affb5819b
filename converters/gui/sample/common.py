"""What both suites produce: frames, one laid-out target per frame, deterministic randomness, PNG bytes."""

from __future__ import annotations

import hashlib
import io
import random
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

Box = tuple[int, int, int, int]
PNG_COMPRESS_LEVEL = 6  # fixed: zlib output is deterministic for fixed input and settings


@dataclass(frozen=True)
class Frame:
    width: int
    height: int

    @property
    def name(self) -> str:
        return f"{self.width}x{self.height}"

    @property
    def scale(self) -> float:
        """UI scale of the frame (as a desktop would set it): 1.0 at 1024x768, quarter steps above."""
        return max(1.0, int(min(self.width / 1024, self.height / 768) * 4) / 4)


def parse_frame(text: str) -> Frame:
    width, _, height = str(text).partition("x")
    return Frame(int(width), int(height))


@dataclass
class Placed:
    """One example laid out in one frame: its target box and candidate neighbours, in that frame's pixels."""

    box: Box
    candidates: list[dict[str, Any]]  # {"id", "category", "bbox"}
    render: dict[str, Any] = field(default_factory=dict)  # glyph facts for re-derivation (font, size, chars)


@dataclass
class Example:
    """One target (same instruction in every frame) and its rendering per frame."""

    instruction: str
    answer_type: str  # PointerBench: "point" or "bbox"
    data_type: str
    category: str
    meta: dict[str, Any]  # subset extras: language, ui_style / surface, difficulty
    images: dict[str, Image.Image]  # frame name -> screenshot
    placed: dict[str, Placed]  # frame name -> target geometry


def rng_for(suite: str, index: int, seed: int) -> random.Random:
    """Independent stream per example: changing the count never changes earlier examples."""
    digest = hashlib.sha256(f"{suite}:{seed}:{index}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def png_bytes(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=PNG_COMPRESS_LEVEL, optimize=False)
    return buffer.getvalue()


def scaled(value: float, scale: float) -> int:
    return int(round(value * scale))


def reference_point(box: Box) -> list[int]:
    """PointerBench's reference point: the floor centre of the box (always inside it)."""
    return [(box[0] + box[2]) // 2, (box[1] + box[3]) // 2]
