"""The image a model is sent: the row's embedded bytes, checked against ``image_sha256``, as a data URI.

Nothing is re-encoded or resized unless the user asks for a longest side (``--max-side``) or a profile
resizes where its family's processor would (``--profile qwen2.5-vl``: ``smart_resize``): then the
image is resized (Lanczos, saved as PNG so no second lossy step is added) and the exact per-axis
factors are recorded, so the answer's coordinates can be mapped back to the row's own frame.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass

from groundbench.core.images import inspect_image
from groundbench.core.manifests import sha256_bytes
from groundbench.errors import GroundBenchError
from groundbench.scoring.profiles.resample import resized_png

MIME = {"JPEG": "image/jpeg", "PNG": "image/png"}


@dataclass(frozen=True)
class Frame:
    """The row's own frame and the frame of the image actually sent (equal when nothing was resized)."""

    width: int
    height: int
    sent_width: int
    sent_height: int

    @property
    def resized(self) -> bool:
        return (self.width, self.height) != (self.sent_width, self.sent_height)

    def to_row(self, x: float, y: float) -> tuple[float, float]:
        """A point of the sent image, in the row's frame."""
        return x * self.width / self.sent_width, y * self.height / self.sent_height

    def to_sent(self, x: float, y: float) -> tuple[float, float]:
        """A point of the row's frame, in the sent image."""
        return x * self.sent_width / self.width, y * self.sent_height / self.height

    def record(self) -> dict[str, list[int]]:
        """What a predictions line keeps about the resize."""
        return {"row_size": [self.width, self.height], "sent_size": [self.sent_width, self.sent_height]}


def verified_bytes(data: bytes | None, expected_sha256: str, where: str) -> bytes:
    """The embedded bytes, refused unless their sha256 is the row's ``image_sha256``."""
    if not data:
        raise GroundBenchError(where, "image", "the row has no embedded image bytes")
    found = sha256_bytes(data)
    if found != expected_sha256:
        raise GroundBenchError(where, "image_sha256", f"expected {expected_sha256}, the embedded bytes hash to {found}")
    return data


def sent_size(width: int, height: int, max_side: int | None) -> tuple[int, int]:
    """The size sent to the model: unchanged, or scaled down so the longest side is ``max_side``."""
    if max_side is None or max(width, height) <= max_side:
        return width, height
    scale = max_side / max(width, height)
    return max(1, round(width * scale)), max(1, round(height * scale))


def prepared_image(
    data: bytes, where: str, max_side: int | None, size: Callable[[int, int], tuple[int, int]] | None = None
) -> tuple[str, Frame]:
    """The data URI to send and the frame it was sent in (``size``: a profile's own resize, e.g. smart_resize)."""
    info = inspect_image(data, where)
    width, height = sent_size(info.width, info.height, max_side) if size is None else size(info.width, info.height)
    frame = Frame(info.width, info.height, width, height)
    if not frame.resized:
        return data_uri(data, MIME[info.format]), frame
    return data_uri(resized_png(data, width, height), MIME["PNG"]), frame


def data_uri(data: bytes, mime: str) -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")
