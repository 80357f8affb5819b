"""Image manifests: one JSON line per image (sha256, bytes, size, format, source, producer)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from groundbench.core.atomic import write_text
from groundbench.core.errors import GroundBenchError

HASH_BLOCK = 8 * 1024 * 1024


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


def sha256_bytes(data: bytes | memoryview) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(path: Path, entries: dict[str, ManifestEntry]) -> None:
    """Entries keyed by sha256; written sorted, one canonical JSON object per line."""
    lines = [json.dumps(asdict(entries[sha]), sort_keys=True, separators=(",", ":")) for sha in sorted(entries)]
    write_text(path, "".join(line + "\n" for line in lines))


def read_manifest(path: Path) -> dict[str, ManifestEntry]:
    entries: dict[str, ManifestEntry] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GroundBenchError(path, "file", f"unreadable manifest ({exc})") from exc
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            raw = json.loads(line)
            entry = ManifestEntry(**{**raw, "producer": Producer(**raw["producer"])})
        except (ValueError, TypeError, KeyError) as exc:
            raise GroundBenchError(path, f"line {number}", f"expected a manifest entry ({exc})") from exc
        entries[entry.sha256] = entry
    return entries
