"""Reading a built config's rows one batch at a time, and the facets every view filters on.

``preview``, ``sheet`` and ``report`` all select rows the same way, so a row an auditor finds with
``groundbench sheet CONFIG --where action=pull`` is the row the gallery shows under its ``pull`` filter.
A row's facets describe its *target* part (action, class, box quality); tags are the row's exclusion tags.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundbench.core.registry import BY_NAME
from groundbench.core.shards import ABSENT_MARKER, iter_batches, shard_files
from groundbench.errors import GroundBenchError, unknown_name
from groundbench.schemas.rows import target_part, target_type
from groundbench.schemas.vocab import EXCLUSION_TAGS, FLAGS

SHARDS = Path("data/shards")
MISSING = "(none)"  # facet value of an absent field, shown as such in filters

# `--where key=value`: key -> facet name.
WHERE_KEYS: dict[str, str] = {
    "stratum": "stratum",
    "source": "source",
    "action": "action",
    "class": "part_class",
    "quality": "box_quality",
    "tag": "tags",
    "flag": "flags",
    "object_category": "object_category",
    "answer_type": "answer_type",
    "target_type": "target_type",  # the target's type as summary and score name it (a GUI row's data_type)
}
WHERE_WORDS = ("excluded", "included", "reask")


def config_folder(root: Path, config: str) -> Path:
    """The shard folder of a registered, built config (a clear error otherwise)."""
    if config not in BY_NAME:
        raise unknown_name("CONFIG", "config", config, sorted(BY_NAME))
    folder = root / SHARDS / config
    if (folder / ABSENT_MARKER).exists():
        raise GroundBenchError(folder, "config", "absent from the build (its source is null in params.yaml)")
    if not shard_files(folder):
        raise GroundBenchError(folder, "shards", "no shards: build first (`make build` or `dvc repro`)")
    return folder


def file_stem(example_id: str) -> str:
    """A file name for a row: its id with unsafe characters replaced, plus a hash of the exact id, so two
    ids that differ only in replaced characters never share a file."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", example_id).strip("._")[:80]
    return f"{readable}-{hashlib.sha256(example_id.encode()).hexdigest()[:8]}"


def iter_rows(folder: Path) -> Iterator[dict[str, Any]]:
    """Every row of a config as a plain dict, in shard order (sorted by ``example_id``).

    Rows are converted one at a time from zero-copy slices of the memory-mapped batch: a batch of
    multi-megabyte screenshots never becomes Python bytes all at once."""
    for batch in iter_batches(folder):
        for index in range(batch.num_rows):
            yield batch.slice(index, 1).to_pylist()[0]


def original_part(record: dict[str, Any]) -> dict[str, Any] | None:
    original = record.get("original_target_part_id")
    if original is None:
        return None
    return next((p for p in record.get("parts") or [] if p.get("part_id") == original), None)


@dataclass(frozen=True)
class Facets:
    stratum: str
    source: str
    action: str
    part_class: str
    box_quality: str
    tags: tuple[str, ...]
    flags: tuple[str, ...]  # informational: kept and scored (schemas/vocab.py FLAGS)
    excluded: bool
    reask: bool
    object_category: str
    answer_type: str
    target_type: str

    def value(self, name: str) -> str | tuple[str, ...]:
        return getattr(self, name)  # type: ignore[no-any-return]


def _text(value: object) -> str:
    return MISSING if value is None or value == "" else str(value)


def facets_of(record: dict[str, Any]) -> Facets:
    target = target_part(record) or {}
    return Facets(
        stratum=_text(record.get("stratum")),
        source=_text(record.get("source")),
        action=_text(record.get("target_action")),
        part_class=_text(target.get("category")),
        box_quality=_text(target.get("box_quality")),
        tags=tuple(sorted(record.get("exclusion_tags") or [])),
        flags=tuple(sorted(record.get("flags") or [])),
        excluded=bool(record.get("excluded")),
        reask=record.get("original_target_part_id") is not None,
        object_category=_text(record.get("object_category")),
        answer_type=_text(record.get("answer_type")),
        target_type=target_type(record),
    )


@dataclass(frozen=True)
class Where:
    """One ``--where`` term: a bare word (``excluded``, ``included``, ``reask``, an exclusion tag or a flag) or
    key=value."""

    key: str
    value: str

    def matches(self, facets: Facets) -> bool:
        if self.key == "excluded":
            return facets.excluded
        if self.key == "included":
            return not facets.excluded
        if self.key == "reask":
            return facets.reask
        found = facets.value(WHERE_KEYS[self.key])
        return self.value in found if isinstance(found, tuple) else self.value == found

    @property
    def slug(self) -> str:
        return self.key if self.key in WHERE_WORDS else f"{self.key}-{self.value}"


def parse_where(term: str) -> Where:
    if "=" in term:
        key, value = term.split("=", 1)
        if key not in WHERE_KEYS:
            raise unknown_name("--where", "key", key, sorted(WHERE_KEYS))
        if key == "tag" and value not in EXCLUSION_TAGS:
            raise unknown_name("--where", "exclusion tag", value, EXCLUSION_TAGS)
        if key == "flag" and value not in FLAGS:
            raise unknown_name("--where", "flag", value, FLAGS)
        return Where(key, value)
    if term in WHERE_WORDS:
        return Where(term, "")
    if term in EXCLUSION_TAGS:
        return Where("tag", term)
    if term in FLAGS:
        return Where("flag", term)
    also = f"; or KEY=VALUE, KEY one of {', '.join(sorted(WHERE_KEYS))}"
    raise unknown_name("--where", "term", term, list(dict.fromkeys([*WHERE_WORDS, *EXCLUSION_TAGS, *FLAGS])), also)


def no_match(rows: Iterator[dict[str, Any]], where: Sequence[Where]) -> str:
    """Why ``where`` selected no row: the values each key=value term's key takes in these rows, and the other
    keys the value is found under (``class=corner``: the type ``summary`` shows is ``target_type=corner``)."""
    terms = [term for term in where if term.key not in WHERE_WORDS]
    seen: dict[str, set[str]] = {name: set() for name in WHERE_KEYS}
    for row in rows:
        facets = facets_of(row)
        for key, name in WHERE_KEYS.items():
            found = facets.value(name)
            seen[key].update(found if isinstance(found, tuple) else [found])
    said = []
    for term in terms:
        elsewhere = [f"{key}={term.value}" for key in WHERE_KEYS if key != term.key and term.value in seen[key]]
        values = ", ".join(sorted(seen[term.key])[:30]) or "none"
        said.append(f"{term.key} takes {values}" + (f" (did you mean {' or '.join(elsewhere)}?)" if elsewhere else ""))
    return "; ".join(said)


def select(rows: Iterator[dict[str, Any]], where: Sequence[Where]) -> Iterator[dict[str, Any]]:
    """Rows matching every term (terms are ANDed)."""
    for row in rows:
        facets = facets_of(row)
        if all(term.matches(facets) for term in where):
            yield row
