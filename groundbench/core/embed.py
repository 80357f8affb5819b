"""Embed source images into rows that were built without them (``image.bytes`` null).

Converters whose rows carry a source file's bytes unchanged (UMD's JPEGs) build the rows in worker
processes without the bytes, and the writing process reads each file when it writes the batch: the
bytes then cross no process boundary (at full scale that is 4.6 GB less through pipes, pickled and
unpickled). The file must still hash to the sha256 the worker recorded, so a file changed between
the two reads is an error, never a row whose bytes and hash disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyarrow as pa

from groundbench.core.manifests import sha256_bytes
from groundbench.errors import GroundBenchError


def without_image_bytes(record: dict[str, object]) -> dict[str, object]:
    """The record with ``image.bytes`` left out (null), to be filled by :func:`image_embedder`."""
    image = record["image"]
    assert isinstance(image, dict)
    return {**record, "image": {**image, "bytes": None}}


def read_unchanged(path: Path, rel: str, sha256: str) -> bytes:
    """A source file read a second time, which must still hash to what the first read recorded."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise GroundBenchError(rel, "image", f"expected a readable file ({exc})") from exc
    if sha256_bytes(data) != sha256:
        raise GroundBenchError(rel, "image", "changed while the conversion was running")
    return data


def image_embedder(root: Path) -> Callable[[pa.RecordBatch], pa.RecordBatch]:
    """A function filling a batch's ``image.bytes`` from ``root / provenance.source_paths[0]``."""

    def embed(batch: pa.RecordBatch) -> pa.RecordBatch:
        sources = [paths[0] for paths in batch.column("provenance").field("source_paths").to_pylist()]
        hashes = batch.column("image_sha256").to_pylist()
        read: dict[str, bytes] = {}  # a frame's rows are consecutive and share its file
        datas = []
        for rel, sha in zip(sources, hashes, strict=True):
            if rel not in read:
                read.clear()
                read[rel] = read_unchanged(root / rel, rel, sha)
            datas.append(read[rel])
        index = batch.schema.get_field_index("image")
        image = batch.column(index)
        filled = pa.StructArray.from_arrays(
            [pa.array(datas, pa.binary()), image.field("path")], fields=list(image.type)
        )
        return batch.set_column(index, batch.schema.field(index), filled)

    return embed
