"""The hosted APIs' documented image limits: the largest frame each feeds its model unchanged.

A hosted API shrinks a larger image on its side before the model sees it, and says nothing of the size it
chose, so a model answering in pixels would answer in a frame nobody recorded. Sent at most this large, the
image reaches the model as it was sent: the frame is the one we chose and recorded. Each rule is restated
from the provider's documentation (the URL beside it); ``fit`` only ever shrinks, never enlarges, and a
size already inside the limits is returned unchanged (so fitting twice changes nothing).
"""

from __future__ import annotations

import math
from collections.abc import Callable

Size = tuple[int, int]

NONE = "none"
ANTHROPIC = "anthropic"
OPENAI = "openai"
OPENAI_PATCHES = "openai-patches"

# https://docs.anthropic.com/en/docs/build-with-claude/vision ("Evaluate image size"): a long edge over 1568 px,
# or over about 1,600 tokens (width x height / 750), is scaled down; images are best kept within 1568 px on both
# sides and no more than 1.15 megapixels.
ANTHROPIC_SIDE = 1568
ANTHROPIC_PIXELS = 1_150_000
# https://platform.openai.com/docs/guides/images-vision ("Calculating costs"), GPT-4o / GPT-4.1 / o-series at
# detail "high": scaled to fit a 2048 x 2048 square, then so that the shortest side is at most 768 px.
OPENAI_SQUARE = 2048
OPENAI_SHORT = 768
# The same page, GPT-4.1-mini / GPT-4.1-nano / o4-mini: 32 x 32 px patches, at most 1536 of them; a larger
# image is shrunk by sqrt(32 * 32 * 1536 / (w * h)), then so that its width is a whole number of patches.
PATCH = 32
PATCHES = 1536


def _scaled(width: int, height: int, scale: float) -> Size:
    if scale >= 1.0:
        return width, height
    return max(1, math.floor(width * scale)), max(1, math.floor(height * scale))


def anthropic(width: int, height: int) -> Size:
    scale = min(1.0, ANTHROPIC_SIDE / max(width, height), math.sqrt(ANTHROPIC_PIXELS / (width * height)))
    return _scaled(width, height, scale)


def openai(width: int, height: int) -> Size:
    width, height = _scaled(width, height, min(1.0, OPENAI_SQUARE / max(width, height)))
    return _scaled(width, height, min(1.0, OPENAI_SHORT / min(width, height)))


def openai_patches(width: int, height: int) -> Size:
    """The page's rule (shrink by the patch budget, then to a whole number of patches across), continued one
    patch column at a time while the rule's rounding leaves the image over 1536 patches: the API would shrink
    such an image again, so it would not arrive as sent."""
    if _patches(width, height) <= PATCHES:
        return width, height
    shrink = math.sqrt(PATCH * PATCH * PATCHES / (width * height))
    columns = math.floor(width * shrink / PATCH)
    while columns > 1 and _patches(columns * PATCH, math.floor(columns * PATCH * height / width)) > PATCHES:
        columns -= 1
    return columns * PATCH, max(1, math.floor(columns * PATCH * height / width))


def _patches(width: int, height: int) -> int:
    return math.ceil(width / PATCH) * math.ceil(height / PATCH)


FIT: dict[str, Callable[[int, int], Size]] = {
    NONE: lambda width, height: (width, height),
    ANTHROPIC: anthropic,
    OPENAI: openai,
    OPENAI_PATCHES: openai_patches,
}
