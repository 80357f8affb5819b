"""Images by reference: a sample names its row's image and the bytes are read only when it is sent.

A sample built with its image's data URI holds the image (base64) from the start of the run to its
end, every sample at once, and inspect logs it per sample. Instead a sample's image is the reference
``groundbench://CONFIG/EXAMPLE_ID``; inspect materializes a non-inline image reference right before
the sample runs (``materialize_sample_input``), through the resolver registered for its URI scheme
(``inspect_ai.util.media_resolver``; inspect_ai/_util/images.py ``file_as_data``). The resolver here
reads the row's embedded bytes from the memory-mapped config (:mod:`.image_column`: the pages read are
handed back as the run goes), checks their sha256 and resizes them
exactly as :func:`groundbench.evaluate.images.prepared_image` always did, so the model receives the
same bytes; only the samples in flight hold an image.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass, field
from urllib.parse import quote, unquote, urlsplit

import pyarrow as pa
from datasets import Dataset
from inspect_ai.util import media_resolver

from groundbench.errors import GroundBenchError
from groundbench.evaluate.image_column import ImageColumn, image_column
from groundbench.evaluate.images import Frame, prepared_image, sent_size, verified_bytes

SCHEME = "groundbench"
Resize = Callable[[int, int], tuple[int, int]]


@dataclass
class RowImages:
    """Where the images of one config's samples are read from, and the frame each is sent in."""

    config: str
    dataset: Dataset  # the config as loaded
    images: ImageColumn  # its ``image`` column (``{"bytes", "path"}``), memory-mapped
    sha256: pa.ChunkedArray  # its ``image_sha256`` column
    max_side: int | None
    size: Resize | None  # a profile's own resize (smart_resize), else --max-side's
    rows: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # example id -> (index, width, height)

    def frame(self, width: int, height: int) -> Frame:
        """The frame an image of the row's size is sent in (what :func:`prepared_image` computes)."""
        sent = sent_size(width, height, self.max_side) if self.size is None else self.size(width, height)
        return Frame(width, height, *sent)

    def add(self, example_id: str, index: int, width: int, height: int) -> str:
        """Register one row's image; its reference."""
        self.rows[example_id] = (index, width, height)
        return f"{SCHEME}://{quote(self.config, safe='')}/{quote(example_id, safe='')}"

    def data_uri(self, example_id: str) -> str:
        """The data URI sent for the row: its verified bytes, resized when its frame says so."""
        index, width, height = self.rows[example_id]
        where = f"{self.config}: {example_id}"
        data = verified_bytes(self.images.bytes_at(index), self.sha256[index].as_py(), where)
        uri, frame = prepared_image(data, where, self.max_side, self.size)
        if (frame.width, frame.height) != (width, height):  # the prompt was written for the row's stated size
            found = f"{frame.width}x{frame.height}"
            raise GroundBenchError(where, "image", f"the image is {found}, the row states {width}x{height}")
        return uri


_SOURCES: dict[str, RowImages] = {}


def source(config: str, dataset: Dataset, table: pa.Table, max_side: int | None, size: Resize | None) -> RowImages:
    """The image source of a config for the tasks built now (``table``: the dataset's Arrow table): shared by
    the tasks of one command (one loaded dataset), replaced by a later command's (another folder may hold the
    config)."""
    found = _SOURCES.get(config)
    if found is None or found.dataset is not dataset or (found.max_side, found.size) != (max_side, size):
        images = image_column(dataset, table)
        found = _SOURCES[config] = RowImages(config, dataset, images, table.column("image_sha256"), max_side, size)
    return found


async def resolve(uri: str) -> str:
    """inspect's resolver for ``groundbench://``: the data URI of the row the reference names."""
    parts = urlsplit(uri)
    config, example_id = unquote(parts.netloc), unquote(parts.path.lstrip("/"))
    found = _SOURCES.get(config)
    if found is None or example_id not in found.rows:
        raise GroundBenchError(uri, "image", "no task of this process holds this row (build the task first)")
    return found.data_uri(example_id)


_ACTIVE: ContextVar[bool] = ContextVar("groundbench_image_resolver", default=False)
_KEPT: list[AbstractContextManager[None]] = []


def activate() -> None:
    """Register the resolver in the current context (and so in the eval loops started from it), once.

    Left registered on purpose: inspect runs the samples in a copy of the context that built the task
    (``groundbench eval``'s command, or inspect's own loop under ``inspect eval``). The manager is kept
    referenced: collected, its generator's ``finally`` would unregister the resolver."""
    if _ACTIVE.get():
        return
    manager = media_resolver(SCHEME, resolve)
    manager.__enter__()
    _KEPT.append(manager)
    _ACTIVE.set(True)
