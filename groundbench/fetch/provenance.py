"""The provenance record written beside each fetched source: ``data/sources/<source>/provenance.json``.

It says where the bytes came from (origin, revision), what they were (the archive's sha256, or
every Hub file's sha256), their licence and terms, and the digest of the unpacked tree. It is small
and git-tracked; the tree itself (``data/sources/<source>/tree/``) is tracked by DVC. The card lists
the records of the sources a build read (:func:`source_provenance`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from groundbench.core.atomic import write_text
from groundbench.core.params import source_value
from groundbench.errors import GroundBenchError

if TYPE_CHECKING:
    from groundbench.core.params import Params

SOURCES_DIR = Path("data/sources")
RECORD = "provenance.json"
TREE = "tree"
CHUNK = 1 << 20


def source_dir(root: Path, source: str) -> Path:
    return root / SOURCES_DIR / source


def tree_dir(root: Path, source: str) -> Path:
    return source_dir(root, source) / TREE


def tree_digest(tree: Path) -> dict[str, Any]:
    """Files, bytes and the sha256 of the sorted ``path<TAB>size<TAB>sha256`` lines of every file."""
    lines = []
    total = 0
    for path in sorted(p for p in tree.rglob("*") if p.is_file()):
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            while chunk := handle.read(CHUNK):
                digest.update(chunk)
        size = path.stat().st_size
        total += size
        lines.append(f"{path.relative_to(tree).as_posix()}\t{size}\t{digest.hexdigest()}\n")
    return {"files": len(lines), "bytes": total, "sha256": hashlib.sha256("".join(lines).encode()).hexdigest()}


def write_record(root: Path, source: str, record: dict[str, Any]) -> Path:
    path = source_dir(root, source) / RECORD
    write_text(path, json.dumps(record, indent=2, sort_keys=True) + "\n")
    return path


def read_record(root: Path, source: str) -> dict[str, Any] | None:
    path = source_dir(root, source) / RECORD
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GroundBenchError(path, "file", f"expected a JSON provenance record ({exc})") from exc
    if not isinstance(record, dict) or record.get("source") != source:
        raise GroundBenchError(path, "source", f"expected a provenance record of {source!r}")
    return record


def checksum(record: dict[str, Any]) -> str:
    """The one checksum the card prints: the archive's sha256, else the unpacked tree's digest."""
    archive = record.get("archive")
    return f"sha256:{archive['sha256']}" if archive else f"tree-sha256:{record['tree']['sha256']}"


def _reads_fetched(root: Path, params: Params, source: str, key: str) -> bool:
    """Whether params.yaml points this source at its fetched tree (every part of it, for GAPartNet)."""
    value = source_value(params, key)
    values = list(value.model_dump().values()) if value is not None and not isinstance(value, str) else [value]
    tree = tree_dir(root, source).resolve()
    for item in values:
        if not isinstance(item, str) or item == "sample":
            return False
        path = Path(item) if Path(item).is_absolute() else root / item
        if path.resolve() != tree and tree not in path.resolve().parents:
            return False
    return True


def source_provenance(root: Path, params: Params) -> list[dict[str, Any]]:
    """The provenance records of the fetched sources this build reads (params.yaml), by source name."""
    from groundbench.fetch.catalog import SOURCES

    records = []
    for name, spec in sorted(SOURCES.items()):
        if not _reads_fetched(root, params, name, spec.params_key):
            continue
        record = read_record(root, name)
        if record is None:
            raise GroundBenchError(
                source_dir(root, name) / RECORD, "file", f"missing; params.yaml reads the fetched {name} tree"
            )
        records.append(record)
    return records
