"""Inspect image bytes without decoding pixels: format, size, completeness, decompression bombs."""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

from groundbench.errors import GroundBenchError

# Far above any source frame (ScreenSpot-Pro has 5K-by-3K screenshots) yet far below a bomb.
DEFAULT_MAX_PIXELS = 64_000_000
EXTENSIONS = {"JPEG": "jpg", "PNG": "png"}


@dataclass(frozen=True)
class ImageInfo:
    format: str  # "JPEG" or "PNG"
    width: int
    height: int
    mode: str

    @property
    def extension(self) -> str:
        return EXTENSIONS[self.format]


def inspect_image(data: bytes, where: str, max_pixels: int = DEFAULT_MAX_PIXELS) -> ImageInfo:
    """Read the header only; check the file is complete (JPEG EOI / PNG IEND) and not a bomb."""
    # Only the header is read here, never pixels, so Pillow's own bomb check is switched off for the
    # open and replaced by the explicit limit below (one message, one knob: params' max_image_pixels).
    previous = Image.MAX_IMAGE_PIXELS
    Image.MAX_IMAGE_PIXELS = None
    try:
        with Image.open(io.BytesIO(data)) as image:
            fmt, (width, height), mode = image.format, image.size, image.mode
    except UnidentifiedImageError as exc:
        raise GroundBenchError(where, "image", "expected a JPEG or PNG file; the format is not recognised") from exc
    except Exception as exc:  # PIL raises SyntaxError, OSError, ValueError, ... on damaged headers
        raise GroundBenchError(where, "image", f"expected a JPEG or PNG file ({type(exc).__name__}: {exc})") from exc
    finally:
        Image.MAX_IMAGE_PIXELS = previous
    if width * height > max_pixels:
        raise GroundBenchError(
            where, "image size", f"{width}x{height} exceeds the {max_pixels}-pixel limit (decompression bomb refused)"
        )
    if fmt not in EXTENSIONS:
        raise GroundBenchError(where, "image format", f"expected JPEG or PNG, got {fmt}")
    if fmt == "JPEG" and not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
        raise GroundBenchError(where, "image", "truncated JPEG: no end-of-image marker (FFD9)")
    if fmt == "PNG" and b"IEND" not in data[-16:]:
        raise GroundBenchError(where, "image", "truncated PNG: no IEND chunk")
    return ImageInfo(format=str(fmt), width=width, height=height, mode=mode)
