"""The curated-UMD audit file (``data/audits/curated_umd.yaml``, human-written, git-tracked)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from groundbench.converters.umd.params import UmdAuditFile
from groundbench.core.params import load_file
from groundbench.errors import GroundBenchError


@dataclass(frozen=True)
class AuditEntry:
    tool: str
    frame: int | None  # an explicit frame overrides the rule
    note: str


@dataclass(frozen=True)
class Audit:
    frame_rule: str
    entries: tuple[AuditEntry, ...]


def read_audit(path: Path) -> Audit:
    """The file, validated by its one definition (``UmdAuditFile``); a tool audited twice is an error too."""
    raw = load_file(UmdAuditFile, path, "audit file")
    entries = []
    seen: set[str] = set()
    for number, item in enumerate(raw.tools):
        if item.tool in seen:
            raise GroundBenchError(path, f"tools[{number}]", f"tool {item.tool} audited twice")
        seen.add(item.tool)
        entries.append(AuditEntry(tool=item.tool, frame=item.frame, note=item.note))
    return Audit(frame_rule=raw.frame_rule, entries=tuple(sorted(entries, key=lambda e: e.tool)))
