"""Qwen's ``smart_resize``: the frame a Qwen2-VL / Qwen2.5-VL processor feeds the model.

Restated (not copied) from transformers' ``models/qwen2_vl/image_processing_qwen2_vl.py`` and
``qwen_vl_utils.vision_process`` (QwenLM/Qwen2.5-VL): each side is rounded to the nearest multiple of
``factor``; if the area then exceeds ``max_pixels`` both sides shrink by ``beta = sqrt(h * w / max_pixels)``
and are floored to multiples of ``factor``; if it is below ``min_pixels`` they grow by
``sqrt(min_pixels / (h * w))`` and are ceiled. The defaults are Qwen2.5-VL's processor configuration
(``preprocessor_config.json``: ``min_pixels`` 3136 = 4 * 28 * 28, ``max_pixels`` 12845056 = 16384 * 28 * 28,
``patch_size`` 14 * ``merge_size`` 2 = ``factor`` 28). Python's ``round`` (half to even) is the processor's.
"""

from __future__ import annotations

import math

from groundbench.errors import GroundBenchError

FACTOR = 28
MIN_PIXELS = 4 * 28 * 28
MAX_PIXELS = 16384 * 28 * 28
MAX_RATIO = 200


def smart_resize(
    height: int, width: int, factor: int = FACTOR, min_pixels: int = MIN_PIXELS, max_pixels: int = MAX_PIXELS
) -> tuple[int, int]:
    """(height, width) of the image the model sees, as the processor computes it (note: height first)."""
    if min(height, width) < 1 or max(height, width) / min(height, width) > MAX_RATIO:
        raise GroundBenchError(
            "smart_resize", "frame", f"expected an aspect ratio below {MAX_RATIO}, found {width}x{height}"
        )
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar
