"""The fonts text is drawn in (the GUI generator's screens, the contact sheets' captions): DejaVu TrueType files
inside the pinned matplotlib package (never system fonts).

Glyph geometry comes from the font itself: advance widths (``getlength``) place each character on an
integer pixel origin, and ink boxes come from ``getbbox`` (the same mask Pillow draws), so a target
box is exact and tests can re-derive it. The BASIC layout engine is fixed: Raqm may or may not be
installed and would shape text differently.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
from pathlib import Path

from PIL import ImageFont

from groundbench.errors import GroundBenchError

FAMILIES = {"sans": "DejaVuSans.ttf", "serif": "DejaVuSerif.ttf", "mono": "DejaVuSansMono.ttf"}
FONT_PACKAGE = "matplotlib"


def font_dir() -> Path:
    spec = importlib.util.find_spec(FONT_PACKAGE)  # located, not imported: importing matplotlib is slow
    if spec is None or not spec.submodule_search_locations:
        # the plots extra is not installed: the command line names it (groundbench/core/extras.py)
        raise ModuleNotFoundError(
            f"No module named {FONT_PACKAGE!r} (its DejaVu fonts draw the text)", name=FONT_PACKAGE
        )
    return Path(next(iter(spec.submodule_search_locations))) / "mpl-data" / "fonts" / "ttf"


def font_path(family: str) -> Path:
    path = font_dir() / FAMILIES[family]
    if not path.is_file():
        raise GroundBenchError(path, "font", "expected the DejaVu font shipped with matplotlib")
    return path


@functools.lru_cache(maxsize=64)
def font(family: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(font_path(family)), size, layout_engine=ImageFont.Layout.BASIC)


@functools.lru_cache(maxsize=4096)
def advance(family: str, size: int, char: str) -> int:
    """A character's advance, rounded to whole pixels (glyph origins stay on integer pixels)."""
    return int(round(font(family, size).getlength(char)))


@functools.lru_cache(maxsize=4096)
def ink_box(family: str, size: int, char: str) -> tuple[int, int, int, int]:
    """The glyph's tight ink box relative to its origin (anchor: left, ascender), from the font's own mask."""
    face = font(family, size)
    box = face.getbbox(char, anchor="la")  # the glyph bitmap's place; it may carry blank rows / columns
    tight = face.getmask(char).getbbox()  # the inked part of that bitmap
    if tight is None:
        return (int(box[0]), int(box[1]), int(box[0]), int(box[1]))  # no ink (a space)
    return (int(box[0]) + tight[0], int(box[1]) + tight[1], int(box[0]) + tight[2], int(box[1]) + tight[3])


def line_metrics(family: str, size: int) -> tuple[int, int]:
    ascent, descent = font(family, size).getmetrics()
    return int(ascent), int(descent)


def provenance() -> dict[str, str]:
    """Package versions and font hashes that fix every pixel (recorded in the generator stamp)."""
    facts = {name: importlib.metadata.version(name) for name in ("pillow", FONT_PACKAGE)}
    for family in sorted(FAMILIES):
        path = font_path(family)
        facts[f"font:{path.name}"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return facts
