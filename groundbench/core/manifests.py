"""Manifests: what a build sealed, one canonical JSON object per line (``data/manifests/<config>.jsonl``).

A converter's interim manifest (``data/interim/.../manifest.jsonl``) has image lines only. The manifest
``groundbench bake`` writes for a config has three kinds of line, each told apart by its keys, in this
order (a config this build does not contain has a fourth kind alone, below):

- **shard** ``{"bytes", "sha256", "shard"}``: one per Arrow shard of ``data/shards/<config>/`` (file name,
  size, sha256 of its bytes), by name;
- **image** ``{"bytes", "format", "height", "producer", "sha256", "source_path", "width"}``: one per
  image (sha256 of its bytes, how it was produced), by sha256;
- **row** ``{"example_id", "row_sha256"}``: one per row, in shard order (sorted by ``example_id``).
- **absent** ``{"absent"}``: the one line of an absent config's manifest, the reason its shards folder's
  ``ABSENT`` marker gives (the manifest is a DVC output, which DVC warns about when it is an empty file).

A row's ``row_sha256`` (:func:`row_digest`) is the sha256 of the UTF-8 bytes of one canonical JSON
serialization of every field of the record except the image bytes::

    json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

where ``fields`` maps each record column (``schemas/features.py`` ``FEATURES``, the Arrow shard's
columns) to its value as ``pyarrow`` returns it (``to_pylist``: null -> ``null``, floats in the
shortest form that reads back to the same double, NaN as ``NaN``), with ``image`` reduced to
``{"path": ...}``. The image bytes are sealed by the ``image_sha256`` field, which the digest covers. The
published Parquet rows' extra columns (``prompts``, ``license``) are not record fields: they are derived
at assembly and sealed by the Parquet file's sha256. The same rows therefore have the same digests in an
Arrow shard and in a Parquet file.

A published folder's ``SHA256SUMS`` (:func:`write_sha256sums`) lists every other file of the folder
in ``sha256sum``'s own format (``<sha256>  <path>``, paths relative to the folder, sorted), so
``sha256sum -c SHA256SUMS`` checks it without GroundBench.

The sha256 of the manifest file is the config's ``manifest_sha256``, the gate that every request and
prediction line carries (``groundbench.scoring.gate``): it covers every row digest, so predictions made
against other boxes, labels or prompts do not pass it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from groundbench.core.atomic import write_text
from groundbench.errors import GroundBenchError
from groundbench.schemas.features import FEATURES

HASH_BLOCK = 8 * 1024 * 1024
# The record columns a row digest covers, in no particular order (the serialization sorts keys).
ROW_COLUMNS = tuple(name for name in FEATURES if name != "image")
SHARD_KEYS = frozenset({"bytes", "sha256", "shard"})
ROW_KEYS = frozenset({"example_id", "row_sha256"})
ABSENT_KEYS = frozenset({"absent"})


@dataclass(frozen=True)
class Producer:
    """How the image bytes came to be: the converter (or renderer), its version, the exact call."""

    name: str
    version: str
    call: str = "copied source bytes unchanged"
    packages: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ManifestEntry:
    sha256: str
    bytes: int
    width: int
    height: int
    format: str
    source_path: str
    producer: Producer

    @property
    def extension(self) -> str:
        return {"JPEG": "jpg", "PNG": "png"}[self.format]

    def store_path(self) -> str:
        return f"{self.sha256[:2]}/{self.sha256}.{self.extension}"


@dataclass(frozen=True)
class FileRecord:
    """A file's name (relative to its folder), size and sha256, as recorded when it was written."""

    name: str
    bytes: int
    sha256: str


@dataclass(frozen=True)
class ConfigManifest:
    """Everything ``bake`` sealed for one config."""

    images: dict[str, ManifestEntry]  # sha256 -> entry
    shards: tuple[FileRecord, ...] = ()
    rows: dict[str, str] = field(default_factory=dict)  # example_id -> row_sha256, in shard order
    absent: str | None = None  # why the build does not contain the config (then the manifest's only line)


def sha256_bytes(data: bytes | memoryview) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def file_record(path: Path) -> FileRecord:
    return FileRecord(path.name, path.stat().st_size, sha256_file(path))


def absent_manifest(reason: str) -> str:
    """The manifest of a config this build does not contain: one line holding why."""
    return canonical_json({"absent": reason.strip()}) + "\n"


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def row_digest(fields: Mapping[str, Any]) -> str:
    """``row_sha256`` of one row given as ``{column: value}`` (every record column but ``image``, plus
    ``image`` as ``{"path": ...}``); see the module docstring."""
    return sha256_bytes(canonical_json(fields).encode("utf-8"))


def row_digests(batch: pa.RecordBatch) -> list[str]:
    """``row_sha256`` of every row of a record batch (an Arrow shard's or a published Parquet file's)."""
    rows = batch.select(list(ROW_COLUMNS)).to_pylist()
    paths = batch.column("image").field("path").to_pylist()
    return [row_digest({**row, "image": {"path": path}}) for row, path in zip(rows, paths, strict=True)]


def _line(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":")) + "\n"


def _entry_fields(entry: ManifestEntry) -> dict[str, Any]:
    """An image line's fields: what ``dataclasses.asdict`` gives, without its deep copy (a tenth of the time
    for thousands of entries; the producer's package map is the only nested value, and it is only read)."""
    return {**vars(entry), "producer": vars(entry.producer)}


def write_manifest(path: Path, entries: dict[str, ManifestEntry]) -> None:
    """An image manifest (a converter's): entries keyed by sha256, written sorted."""
    write_text(path, "".join(_line(_entry_fields(entries[sha])) for sha in sorted(entries)))


def write_config_manifest(
    path: Path, images: dict[str, ManifestEntry], shards: Iterable[FileRecord], rows: Iterable[tuple[str, str]]
) -> None:
    """A config's manifest: shard lines, image lines, row lines (``(example_id, row_sha256)`` in shard order)."""
    lines = [_line({"bytes": s.bytes, "sha256": s.sha256, "shard": s.name}) for s in sorted(shards, key=_name)]
    lines += [_line(_entry_fields(images[sha])) for sha in sorted(images)]
    lines += [_line({"example_id": example_id, "row_sha256": digest}) for example_id, digest in rows]
    write_text(path, "".join(lines))


def _name(record: FileRecord) -> str:
    return record.name


def read_manifest(path: Path) -> dict[str, ManifestEntry]:
    """The image entries of a manifest (an interim one or a config's), keyed by sha256."""
    return read_config_manifest(path).images


def read_config_manifest(path: Path) -> ConfigManifest:
    """Every line of a manifest, strictly: an unknown or malformed line is an error naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GroundBenchError(path, "file", f"unreadable manifest ({exc})") from exc
    images: dict[str, ManifestEntry] = {}
    shards: list[FileRecord] = []
    rows: dict[str, str] = {}
    absent: str | None = None
    if text and not text.endswith("\n"):
        raise GroundBenchError(path, "file", "expected one JSON object per line, the last one ended by a newline")
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            raw = json.loads(line)
            keys = set(raw) if isinstance(raw, dict) else set()
            if keys == SHARD_KEYS:
                shards.append(FileRecord(_text(raw["shard"]), _count(raw["bytes"]), _hex(raw["sha256"])))
            elif keys == ABSENT_KEYS:
                absent = _text(raw["absent"])
            elif keys == ROW_KEYS:
                example_id = _text(raw["example_id"])
                if example_id in rows:
                    raise ValueError(f"example_id {example_id!r} listed twice")
                rows[example_id] = _hex(raw["row_sha256"])
            else:
                entry = ManifestEntry(**{**raw, "producer": Producer(**raw["producer"])})
                images[entry.sha256] = entry
        except (ValueError, TypeError, KeyError) as exc:
            raise GroundBenchError(
                path, f"line {number}", f"expected a shard, image or row line of a manifest ({exc})"
            ) from exc
    return ConfigManifest(images, tuple(shards), rows, absent)


def write_sha256sums(path: Path, sums: Mapping[str, str]) -> None:
    """``sums`` (path relative to ``path``'s folder -> sha256) in ``sha256sum``'s format, sorted by path."""
    for name in sums:
        if "\n" in name or "\\" in name or name.startswith("/"):
            raise GroundBenchError(path, name, "expected a relative path without newlines or backslashes")
    write_text(path, "".join(f"{sums[name]}  {name}\n" for name in sorted(sums)))


def read_sha256sums(path: Path) -> dict[str, str]:
    """A ``SHA256SUMS`` file as path -> sha256; any line not in ``sha256sum``'s format is an error."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GroundBenchError(path, "file", f"unreadable checksum list ({exc})") from exc
    if text and not text.endswith("\n"):
        raise GroundBenchError(path, "file", "expected lines `<sha256>  <path>`, the last one ended by a newline")
    sums: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        sha, separator, name = line[:64], line[64:66], line[66:]
        try:
            _hex(sha)
            if separator != "  " or not name or name in sums:
                raise ValueError(f"found {line!r}")
        except ValueError as exc:
            expected = f"expected `<sha256>  <path>`, each path once ({exc})"
            raise GroundBenchError(path, f"line {number}", expected) from exc
        sums[name] = sha
    return sums


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"expected a non-empty string, found {value!r}")
    return value


def _count(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"expected a byte count, found {value!r}")
    return value


def _hex(value: Any) -> str:
    if not isinstance(value, str) or len(value) != 64 or value.strip("0123456789abcdef"):
        raise ValueError(f"expected a sha256 (64 lowercase hex digits), found {value!r}")
    return value
